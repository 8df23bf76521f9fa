// Elementwise fusion regions: the one decision of which elementwise nodes
// run fused, written on the graph as each node's `fusion_group` and carried
// in bundles, so that the interpreter (runtime/fused_chain.h: tiles through
// the kernels) and the code generator (aot/fusion.h: one loop nest, values
// in registers) fuse the same groups; core/fusion_schedule.h is the order
// both run them in.
//
// The rule, in program order: a fusible node (elementwise, one output, not a
// reshape-like alias) joins the open group when its output type's shape is
// the group's; otherwise it opens a new group. A group closes when another
// opens or when a node outside it reads one of its members. Groups of one
// node are kept (the code generator runs them as a loop; the interpreter
// runs them as a plain kernel call). Each backend may run a group in pieces
// where it cannot do otherwise (the interpreter's tiles need operands it can
// view per tile, and static shapes), but never fuses across groups.
//
// It is the last pass of kernel lowering (ir/pipeline.h): a rewrite after it
// would leave stale groups, so the pipeline clears every group first and
// Verify checks them (ir/verify.h). Recurses into subgraphs; group ids are
// dense per graph, in order of first member.
#pragma once

#include "absl/status/statusor.h"
#include "ir/graph.h"

namespace tfn::ir {

// True for nodes a group may hold: elementwise, and no input or output of a
// storage-only dtype (float16, bfloat16, the small integers: the fused code
// computes on bool, int32, int64, float32 and float64 only).
bool IsFusible(const Graph& graph, const Node& node);

// Returns true when any node's group changed.
absl::StatusOr<bool> FuseElementwise(Graph& graph);

// Sets every node's group (subgraphs included) to -1.
void ClearFusionGroups(Graph& graph);

}  // namespace tfn::ir
