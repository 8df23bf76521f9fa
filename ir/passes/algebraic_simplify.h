// Algebraic simplification: rewrites that remove work without changing
// results: x+0, 0+x, x-0, x*1, 1*x, x/1, x**1 (only where broadcasting would
// not change x's type), identity, casts to the same dtype, double negation
// and logical_not, transpose of transpose (perms composed, identity removed),
// reshape of reshape, reshape/expand_dims/squeeze/broadcast_to/tile/pad/
// slice/concat that leave a value as it is. Recurses into subgraphs.
// Needs nothing before it; constant folding after it finds more constants.
#pragma once

#include "absl/status/statusor.h"
#include "ir/graph.h"

namespace tfn::ir {

// Returns true when the graph changed.
absl::StatusOr<bool> SimplifyAlgebra(Graph& graph);

}  // namespace tfn::ir
