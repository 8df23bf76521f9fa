// The graph IR: a list of nodes in program order, each an op from the op
// table with inputs, attributes, inferred output types and, for control flow,
// owned subgraphs.
//
// Invariants (checked when a node is added and by Verify):
// - node inputs refer to earlier nodes (the list is topologically sorted and
//   is also the program order in which stateful ops run);
// - attributes are complete and well-typed for the op (defaults filled in);
// - output types are what the op's shape rule infers over symbolic dims;
// - parameters are nodes of op "parameter" with attr index = their position;
// - nodes in a fusion group are fusible, with one shape per group
//   (ir/passes/fuse_elementwise.h).
//
// Graphs are values: copying one copies its subgraphs. A Graph is not
// thread-safe; share it read-only or copy it.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/attrs.h"
#include "core/op_def.h"
#include "core/sym_dim.h"

namespace tfn::ir {

// One output of one node.
struct ValueRef {
  int32_t node = -1;
  int32_t port = 0;
  bool valid() const { return node >= 0; }
  friend bool operator==(ValueRef a, ValueRef b) { return a.node == b.node && a.port == b.port; }
  friend bool operator!=(ValueRef a, ValueRef b) { return !(a == b); }
  friend bool operator<(ValueRef a, ValueRef b) {
    return a.node != b.node ? a.node < b.node : a.port < b.port;
  }
};

struct TensorType {
  DType dtype = DType::kInvalid;
  SymShape shape;
  friend bool operator==(const TensorType& a, const TensorType& b) {
    return a.dtype == b.dtype && a.shape == b.shape;
  }
  friend bool operator!=(const TensorType& a, const TensorType& b) { return !(a == b); }
  std::string ToString() const;  // "f32[?s0,3]"
};

class Graph;

struct Node {
  OpId op = OpId::kIdentity;
  std::vector<ValueRef> inputs;
  Attrs attrs;
  std::vector<TensorType> outputs;
  // cond: {then, else}; while_loop: {cond, body}. Subgraphs are closed: they
  // see only their own parameters (the node's operands), never outer values.
  std::vector<Graph> subgraphs;
  // The elementwise fusion group this node runs in (-1: none). Written only
  // by the last pass (ir/passes/fuse_elementwise.h); printed as "fusion N".
  int fusion_group = -1;

  const OpDef& def() const { return GetOpDef(op); }
};

class Graph {
 public:
  Graph();
  Graph(const Graph&);
  Graph& operator=(const Graph&);
  Graph(Graph&&) noexcept;
  Graph& operator=(Graph&&) noexcept;
  ~Graph();

  // Adds a parameter (graph input) of the given type.
  ValueRef AddParameter(const TensorType& type, std::string name = "");
  // Adds a node: normalizes attributes, checks inputs, infers output types.
  // Control-flow nodes take their subgraphs here and get their output types
  // from them.
  absl::StatusOr<std::vector<ValueRef>> AddNode(OpId op, std::vector<ValueRef> inputs,
                                                Attrs attrs = {},
                                                std::vector<Graph> subgraphs = {});
  // AddNode for single-output ops.
  absl::StatusOr<ValueRef> Add(OpId op, std::vector<ValueRef> inputs, Attrs attrs = {});
  ValueRef AddConstant(ConstTensor value);

  void SetResults(std::vector<ValueRef> results, std::vector<std::string> names = {});

  const std::vector<Node>& nodes() const { return nodes_; }
  std::vector<Node>& mutable_nodes() { return nodes_; }
  const Node& node(int i) const { return nodes_[i]; }
  int num_nodes() const { return static_cast<int>(nodes_.size()); }
  const TensorType& type(ValueRef v) const { return nodes_[v.node].outputs[v.port]; }

  // Parameter node indices in order, and their names ("" when unnamed).
  const std::vector<int>& params() const { return params_; }
  const std::vector<std::string>& param_names() const { return param_names_; }
  ValueRef param(int i) const { return ValueRef{params_[i], 0}; }
  const std::vector<ValueRef>& results() const { return results_; }
  const std::vector<std::string>& result_names() const { return result_names_; }

  // A new unknown dim, unique within this graph and the graphs that share
  // its symbol counter (subgraphs made with NewSubgraph).
  SymDim FreshDim();
  // An empty graph that shares this graph's symbol counter.
  Graph NewSubgraph() const;

  // If the value is produced by a constant node, its tensor; else null.
  const ConstTensor* ConstantValue(ValueRef v) const;

  // The text form (see printer.h).
  std::string ToString() const;

 private:
  std::vector<Node> nodes_;
  std::vector<int> params_;
  std::vector<std::string> param_names_;
  std::vector<ValueRef> results_;
  std::vector<std::string> result_names_;
  std::shared_ptr<int> symbol_counter_;
};

// Converts a core status to absl's.
absl::Status ToAbsl(const Status& s);

// Infers the output types of a non-control-flow node over symbolic dims.
absl::StatusOr<std::vector<TensorType>> InferNodeTypes(const Graph& graph, OpId op,
                                                       const std::vector<ValueRef>& inputs,
                                                       const Attrs& attrs);
// True when a subgraph parameter of type `param` can take an operand of type
// `given`: the same type or, with `generalize` (while_loop variables whose
// dims change between iterations), the same dtype and rank with the
// parameter's dim unknown wherever the two differ.
bool Fits(const TensorType& param, const TensorType& given, bool generalize);

// Output types of a control-flow node from its subgraphs (also checks them).
absl::StatusOr<std::vector<TensorType>> InferControlFlowTypes(const Graph& graph, OpId op,
                                                              const std::vector<ValueRef>& inputs,
                                                              const std::vector<Graph>& subgraphs);

}  // namespace tfn::ir
