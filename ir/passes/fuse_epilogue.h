// Epilogue fusion: a float32 matmul or conv2d and the bias add, residual add
// and activation that follow it become one fused_matmul / fused_conv2d
// (core/rules/rules_fused.h), computed as act(op + bias + residual) by one
// kernel that applies the epilogue to each output tile while it is in cache.
//
//   relu(add(add(matmul(a, b), bias), r))  ->  fused_matmul(a, b, bias, r) {activation="relu"}
//   minimum(maximum(conv2d(x, f, b), 0), 6) ->  fused_conv2d(x, f, b) {activation="clip", 0, 6}
//
// Roots: matmul with a rank-2 b and no transpose_a (a's leading dims are
// rows), conv2d; both float32. Followed along single uses (a value used
// elsewhere, or a graph result, ends the chain), in any order of: one add of
// a bias (a constant that varies only along the last axis, reshaped to [N],
// or an [N] value; matmul, and conv2d without a bias) and one add of a
// residual (exactly the output's type); then at most one activation: relu,
// maximum(., 0), minimum/maximum with scalar constants lo <= hi in either
// order (clip), sigmoid, tanh, gelu, or one written out as several ops
// (activation_patterns.h: gelu with erf, hard_sigmoid, hard_swish, silu).
// A root with nothing to fuse is still rewritten when its b / filter is a
// constant (or a constant stored narrow and cast to float32), so
// prepack_weights can pack it. A residual without a bias gets a zero bias.
// The fused op rounds like the chain when bias comes before residual;
// otherwise the adds are reordered (float addition: a last-bit difference).
//
// Only for graphs run by kernels that implement the fused ops (every
// kernel variant does: the pipeline runs it with kernel_lowering).
// Run it after the canonical passes (conv_affine_fold first: it folds
// batchnorm adds into the conv's bias); dead_node_elimination afterwards.
// Recurses into subgraphs.
#pragma once

#include "absl/status/statusor.h"
#include "ir/graph.h"

namespace tfn::ir {

// Returns true when the graph changed.
absl::StatusOr<bool> FuseEpilogues(Graph& graph);

}  // namespace tfn::ir
