// The graph side of post-training int8 quantization: which layers of a float
// graph can run in int8, and the graph with quantize/dequantize pairs (QDQ)
// around them that the pipeline's fuse_qdq (ir/passes/fuse_qdq.h) turns
// into int8 kernels.
//
// A layer is a conv2d or a matmul with a float32 constant weight (a matmul
// not transposing its input) and the ops after it that its int8 kernel
// computes too: a matmul's bias add and a relu or clip (relu6), each the
// single use of what it reads. An add of two computed tensors of one shape (a residual add),
// with a relu after it, is a layer too: fuse_qdq makes it qlinear_add.
// Around each quantized layer InsertQdq puts:
//   - on its input, quantize->dequantize to uint8 (asymmetric, per tensor,
//     from the calibrated range), shared by every layer reading that value;
//     a layout transpose in front of a conv2d is left after the pair, so
//     that the 8-bit tensor is the one transposed;
//     (an add: on both its inputs);
//   - on its weight, the int8 constant dequantized per output channel
//     (symmetric in [-127, 127], zero point 0: TFLite's int8 spec);
//   - on its output, quantize->dequantize to uint8, which every later use
//     reads.
// The bias stays float: fuse_qdq rounds it to int32 at input scale x weight
// scale. Everything else stays float and runs on dequantized values.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/graph.h"
#include "quantizer/range_observer.h"
#include "quantizer/reduced_float.h"

namespace tfn::quantizer {

struct Layer {
  int root = -1;          // the conv2d, matmul or add node
  std::vector<int> tail;  // the bias add and relu after it, in order
  ir::ValueRef input;     // the value quantized in front of it
  ir::ValueRef input2;    // an add's other input (invalid for conv2d and matmul)
  ir::ValueRef output;    // the value quantized after it (the tail's last, or the root's)
  int weight_axis = 0;    // the output-channel axis of the weight
  std::string id;         // "%12": the root's node id in the graph searched
};

// The layers of `graph` (not inside subgraphs), in graph order.
std::vector<Layer> FindLayers(const ir::Graph& graph);

// The values the layers quantize (inputs and outputs): what calibration observes.
std::vector<ir::ValueRef> QuantizedValues(const std::vector<Layer>& layers);

struct QdqOptions {
  // For the report: each layer's island is also computed in float from the
  // same dequantized input, and for each layer two results follow the
  // graph's own: its dequantized int8 output, then that float twin.
  bool float_twins = false;
  // Dynamic quantization (int8_layers.h, EmitDynamicMatMul): each layer, a
  // matmul with an untransposed weight, quantizes its input at run time and
  // gives a float output; nothing around it is quantized and no range is used.
  bool dynamic = false;
  // Reduced float instead of int8 (reduced_float.h): each layer, a conv2d or
  // matmul, gets its weight stored narrow (and with kBFloat16 a matmul its
  // input rounded to bfloat16); as with `dynamic`, nothing around the layer
  // is quantized and no range is used.
  ReducedFloat reduced_float = ReducedFloat::kNone;
};

// The graph with QDQ pairs around `layers` (a subset of FindLayers(graph)),
// each value quantized to the range calibrated for it in `ranges`.
absl::StatusOr<ir::Graph> InsertQdq(const ir::Graph& graph, const std::vector<Layer>& layers,
                                    const std::map<ir::ValueRef, FloatRange>& ranges,
                                    const QdqOptions& options = {});

}  // namespace tfn::quantizer
