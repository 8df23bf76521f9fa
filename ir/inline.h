// Inlining a graph into another: used by constant folding (a cond with a
// constant predicate becomes its branch) and by the tracer (calling a
// Function inside another function's trace).
#pragma once

#include <vector>

#include "absl/status/statusor.h"
#include "ir/graph.h"

namespace tfn::ir {

// Appends `callee`'s nodes to `dst` with its parameters bound to `args`
// (values of dst, one per parameter, of compatible types) and returns the
// values of its results. Symbolic dims of the callee's parameters are
// substituted by the arguments' dims.
absl::StatusOr<std::vector<ValueRef>> InlineGraph(Graph& dst, const Graph& callee,
                                                  const std::vector<ValueRef>& args);

// Rebuilds `g` with new parameter types (e.g. a dynamic dim made static),
// re-inferring every node; the result shares `counter_source`'s symbols.
absl::StatusOr<Graph> RetypeGraph(const Graph& g, const std::vector<TensorType>& param_types,
                                  const Graph& counter_source);

// Graph::AddNode, but a control-flow node's subgraphs are first retyped when
// the operands' types differ from their parameters' (after inlining or
// specialization).
absl::StatusOr<std::vector<ValueRef>> AddNodeRetyped(Graph& dst, OpId op,
                                                     std::vector<ValueRef> inputs,
                                                     const Attrs& attrs,
                                                     std::vector<Graph> subgraphs);

}  // namespace tfn::ir
