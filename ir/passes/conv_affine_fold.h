// Conv affine folding: merges a per-output-channel scale or shift that
// follows a conv2d into the conv's constant filter and bias.
//
//   mul(conv2d(x, f, b), s) -> conv2d(x, f * s, b * s)      (also div by s)
//   add(conv2d(x, f, b), t) -> conv2d(x, f, b + t)          (also sub t)
//
// This is what an imported Conv -> BatchNormalization becomes: the importer
// lowers BatchNormalization to x * s + t with constant per-channel s and t,
// and transpose_sinking moves the layout transpose out from between them.
// s and t must be constants that vary at most along the channel (last) axis
// of the NHWC output ([C], [1,1,1,C], a scalar ...), the filter and bias
// must be constants (f32 or f64), and the conv's output must have no other
// use (otherwise the conv would be computed twice). The new filter and bias
// are computed here, in double. Recurses into subgraphs.
// Run it after transpose_sinking; dead_node_elimination removes the old conv.
#pragma once

#include "absl/status/statusor.h"
#include "ir/graph.h"

namespace tfn::ir {

// Returns true when the graph changed.
absl::StatusOr<bool> FoldConvAffine(Graph& graph);

}  // namespace tfn::ir
