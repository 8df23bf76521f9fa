// The reduced-float forms of a layer (tfn-quantize --fp16-weights and
// --bf16) that InsertQdq (quantize_graph.h) writes into a graph, in plain
// ops whose float32 meaning is exact:
//   --fp16-weights: the weight stored as float16 and cast to float32 where
//     read; everything computes in float32 (TFLite's float16 quantization:
//     half the bundle, float32 speed and nearly float32 accuracy);
//   --bf16: the weight stored as bfloat16, and a matmul's input rounded to
//     bfloat16 (cast to bfloat16 and back), so the matmul multiplies
//     bfloat16 values and sums in float32: prepack_weights gives it the bf16
//     GEMM (kernels/opt/bf16_gemm.h, vdpbf16ps). A conv2d keeps a float32
//     input (its weight still bfloat16): tfn has no bf16 convolution kernel,
//     so rounding its input would cost time and buy nothing.
// The runtime widens the cast weights once, when it loads the bundle.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/graph.h"

namespace tfn::quantizer {

enum class ReducedFloat { kNone, kFloat16Weights, kBFloat16 };

const char* ReducedFloatName(ReducedFloat mode);  // "fp16-weights", "bf16"

// The layer's root (a conv2d or matmul, its inputs already in `g` as
// `inputs`, input 1 the float32 constant `weight`) in the reduced form of
// `mode`. A weight value float16 cannot hold (beyond +-65504), or a NaN or
// infinite one, is an InvalidArgument naming `layer`.
absl::StatusOr<ir::ValueRef> EmitReducedFloatRoot(ir::Graph& g, const ir::Node& root,
                                                  std::vector<ir::ValueRef> inputs,
                                                  const ConstTensor& weight, ReducedFloat mode,
                                                  const std::string& layer);

}  // namespace tfn::quantizer
