// Common-subexpression elimination: a node equal to an earlier one (same op,
// same inputs, equal attributes) is replaced by it; commutative binary ops
// match with their inputs swapped; equal constants merge. Stateful and
// control-flow nodes are never merged. Recurses into subgraphs.
// Needs nothing before it; algebraic simplification and folding expose more.
#pragma once

#include "absl/status/statusor.h"
#include "ir/graph.h"

namespace tfn::ir {

// Returns true when the graph changed.
absl::StatusOr<bool> EliminateCommonSubexpressions(Graph& graph);

}  // namespace tfn::ir
