// Undoing kernel lowering: every float32 fused_conv2d and fused_matmul
// becomes the canonical ops it was made of, with its weights unpacked, so a
// graph read back from a bundle (which stores lowered graphs) can be
// rewritten at the level of single ops and lowered again by the pipeline.
// tfn-quantize needs it: it inserts quantize/dequantize pairs between a
// conv2d, its bias add and its activation, which the fused op hides.
//
//   fused_conv2d(x, packed, b, r) {activation=a, packed_out_channels=N, ...}
//     -> a(add(add(conv2d(x, f[KH,KW,Cg,N]), b), r))
//   fused_matmul(x, packed, b) {activation=a, packed_n=N}
//     -> a(add(matmul(x, w[K,N]), b))
//
// It is the inverse of fuse_epilogue + prepack_weights: running those again
// gives back the same ops and attributes. Weights come out bit for bit, but
// for Winograd filters (winograd=1), which are recovered as g = L U L^T with
// L = [1 0 0 0; 0 1 -1 0; 0 0 0 1] (a left inverse of the transform G)
// within a float rounding of each filter tap. Activations become the op
// patterns epilogue fusion recognizes (ir/passes/activation_patterns.h):
// relu -> relu, clip -> minimum(maximum(x, lo), hi), sigmoid, tanh, gelu,
// gelu_tanh, hard_sigmoid -> maximum(minimum(x * alpha + beta, 1), 0),
// hard_swish -> x * hard_sigmoid(x), silu -> x * sigmoid(x). Recurses into
// subgraphs.
#pragma once

#include "absl/status/statusor.h"
#include "ir/graph.h"

namespace tfn::ir {

// Returns true when the graph changed.
absl::StatusOr<bool> UnlowerFusedOps(Graph& graph);

}  // namespace tfn::ir
