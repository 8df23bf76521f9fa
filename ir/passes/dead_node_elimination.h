// Dead-node elimination: removes nodes whose outputs nothing uses.
// Keeps parameters, side-effecting nodes (print, variable assignment) and
// control flow whose subgraphs have side effects; recurses into subgraphs.
// Needs nothing before it; run it last in the pipeline.
#pragma once

#include "absl/status/statusor.h"
#include "ir/graph.h"

namespace tfn::ir {

// Returns true when the graph changed.
absl::StatusOr<bool> EliminateDeadNodes(Graph& graph);

// True when the node, or anything in its subgraphs, has side effects.
bool HasSideEffects(const Node& node);

}  // namespace tfn::ir
