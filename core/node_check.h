// CheckNode: one node against the op table, from what a bundle states
// statically (dtypes and ranks) and its attributes. The runtime's loader runs
// it on every node of an untrusted bundle before a kernel's Prepare sees the
// node; the IR verifier runs it on every node of a graph. Kernels' Prepare
// functions may then assume a well-formed node (and only assert it).
#pragma once

#include "core/attrs.h"
#include "core/op_def.h"
#include "core/status.h"

namespace tfn {

// A node as the runtime knows it before any run: its op, its normalized
// attributes (NormalizeAttrs) and the dtypes and ranks of its operands and
// results (ranks are static in tfn). Arrays are owned by the caller and may
// be null when their count is 0.
struct NodeSignature {
  OpId op;
  const Attrs* attrs;
  int num_inputs;
  const DType* in_types;
  const int* in_ranks;
  int num_outputs;
  const DType* out_types;
  const int* out_ranks;
};

// Checks, in order: the operand count (optional and variadic inputs), each
// operand's dtype (and the groups that must share one), every rank in
// [0, 8], the result count and the dtypes the op's type rule gives, and the
// attributes that depend on ranks (axes within rank, permutations, one entry
// per dim, positive strides, window sizes and groups, batch_dims). Control
// flow ops (cond, while_loop) are checked for their operands only: their
// results are their subgraphs'. Errors are InvalidArgument and say what was
// expected and what was found, prefixed with the op's name.
Status CheckNode(const NodeSignature& node);

}  // namespace tfn
