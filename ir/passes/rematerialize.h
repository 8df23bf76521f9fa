// Rematerialization: an elementwise value read early and again much later
// (a forward activation that a training step's backward pass reads) is
// recomputed just before its late uses when what it is computed from is
// alive there anyway, instead of being kept across the gap. Its buffer is
// then free during the gap (the memory plan's peak falls) and the
// recomputation joins the late uses' elementwise fusion group, so it costs
// no extra pass over memory. PyTorch's AOTAutograd recomputes pointwise ops
// for the same reason; this pass is greedy, one node at a time, and only
// moves work where no input's life grows.
//
// Runs in the lowering, before epilogue and elementwise fusion (which then
// group the recomputation with its new neighbours) and after CSE (which
// would merge the copy back). Top-level graph only: a differentiated loop
// already recomputes its body.
#pragma once

#include "absl/status/statusor.h"
#include "ir/graph.h"

namespace tfn::ir {

// Returns true when the graph changed. The original node stays for its
// early uses (dead-node elimination drops it when it had none).
absl::StatusOr<bool> Rematerialize(Graph& graph);

}  // namespace tfn::ir
