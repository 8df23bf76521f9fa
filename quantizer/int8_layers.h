// The pieces of a layer's int8 form that InsertQdq (quantize_graph.h)
// writes into a graph: its weight quantized per output channel, and, for
// dynamic quantization, a matmul whose input is quantized at run time.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/attrs.h"
#include "ir/graph.h"

namespace tfn::quantizer {

// A float32 weight as int8, symmetric per channel along `axis`: scale(c) =
// max |w(c)| / 127 (1 for an all-zero channel), q = round(w / scale)
// clamped to [-127, 127] (TFLite's int8 spec). A NaN or infinite weight is
// an InvalidArgument naming `layer`.
struct Int8Weight {
  ConstTensor q;              // int8, w's shape
  std::vector<float> scales;  // one per channel
};
absl::StatusOr<Int8Weight> QuantizeWeight(const ConstTensor& w, int axis, const std::string& layer);

// matmul(x, w) for a float32 x [..., K] and w [K, N] (given quantized), as
// ONNX Runtime's dynamic quantization computes it: x quantized to uint8 per
// tensor over its own range at run time (ONNX's DynamicQuantizeLinear:
// min and max widened to hold 0, scale (max - min) / 255, zero point
// round(-min / scale)), matmul_integer with int32 accumulation, then
// float(acc) * x_scale * w_scale(n). Returns the float32 [..., N] value.
absl::StatusOr<ir::ValueRef> EmitDynamicMatMul(ir::Graph& g, ir::ValueRef x, const Int8Weight& w);

}  // namespace tfn::quantizer
