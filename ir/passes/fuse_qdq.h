// Quantized lowering of QDQ islands: a float conv2d or matmul whose input
// and weights are dequantized 8-bit tensors and whose result (through an
// optional bias add and relu) is quantized again becomes one int8 op
// (core/rules/rules_quant.h) that never materializes the float values:
//
//   quantize_linear(relu(conv2d(dequantize_linear(x, xs, xz),
//                               dequantize_linear(W, ws, wz, axis=3), bias)), ys, yz)
//     ->  qlinear_conv2d(x, xs, xz, W, ws, wz, ys, yz, bias_q) {activation="relu"}
//
//   quantize_linear(add(matmul(dequantize_linear(a, ...), dequantize_linear(B, ...)), bias), ...)
//     ->  qlinear_matmul(a, ..., B, ..., bias_q)
//
// A clip (minimum and maximum with constants: relu6) in the relu's place
// becomes activation "clip" with its bounds.
//
// Conditions: x/a and the output quantized per tensor with constant scales;
// W/B a constant int8/uint8 tensor quantized per tensor or per output
// channel (conv2d: axis 3 of HWIO; matmul: the column axis; a transposed
// matmul b is transposed once here); every float value inside the island
// used only inside it. A transpose between the input's dequantize and the
// conv2d (the NCHW -> NHWC transpose of a graph's first conv) moves onto
// the 8-bit input. The bias becomes int32 at xs * ws(c), as in
// TFLite's and ONNX Runtime's int8 arithmetic: a dequantized int32 bias
// whose scale is that product is taken as it is, any other bias (a float
// constant, or another scale) is rounded to it (half to even, saturated).
//
// A residual add of two dequantized tensors of one shape, quantized again
// (through an optional relu), becomes one qlinear_add, which computes the
// same float32 steps in one pass over the 8-bit tensors:
//
//   quantize_linear(relu(add(dequantize_linear(a, ...), dequantize_linear(b, ...))), ys, yz)
//     ->  qlinear_add(a, as, az, b, bs, bz, ys, yz) {relu=1}
//
// What does not match stays as it was (dequantize, float op, quantize):
// UnfusedQdqOps lists those ops, so tools can say which nodes run in float.
// Run after the canonical passes, before fuse_epilogue (which would take
// the float ops); dead_node_elimination afterwards. Recurses into subgraphs.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/graph.h"

namespace tfn::ir {

// Returns true when the graph changed.
absl::StatusOr<bool> FuseQdq(Graph& graph);

// The op names of the float ops of `graph` that read a dequantized value or
// produce a value that is quantized (outside subgraphs), one per node: what
// runs dequantized after FuseQdq.
std::vector<std::string> UnfusedQdqOps(const Graph& graph);

}  // namespace tfn::ir
