// Rewriter: the way passes change graphs. It rebuilds a graph node by node
// through the checked builder, mapping each old value to its new value, so
// replacing a value (or dropping a node) never leaves a dangling reference
// and every rewritten graph is re-inferred and valid by construction.
#pragma once

#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "ir/graph.h"

namespace tfn::ir {

class Rewriter {
 public:
  // Starts the new graph with the source's parameters (same types and names).
  explicit Rewriter(const Graph& src);

  const Graph& src() const { return src_; }
  Graph& dst() { return dst_; }
  // The new value standing for an old one (invalid if its node was dropped).
  ValueRef Map(ValueRef old) const;
  std::vector<ValueRef> MapAll(const std::vector<ValueRef>& old) const;
  // Makes uses of `old` refer to `replacement` (a value of the new graph).
  void Replace(ValueRef old, ValueRef replacement);
  // Copies an old node with mapped inputs; `subgraphs` replace its own when given.
  absl::Status Copy(int old_node);
  absl::Status CopyWithSubgraphs(int old_node, std::vector<Graph> subgraphs);
  // Copies an old node with each of its subgraphs (if any) first rewritten
  // by `pass`, the pass that is running, recursively; sets *changed when
  // `pass` changed one.
  absl::Status CopyWithSubgraphsRewritten(int old_node,
                                          absl::FunctionRef<absl::StatusOr<bool>(Graph&)> pass,
                                          bool* changed);
  // The new graph, with the old results mapped.
  absl::StatusOr<Graph> Finish();
  // The end of a pass over `graph` (this rewriter's source): when `changed`,
  // `graph` becomes the new graph. Returns `changed`.
  absl::StatusOr<bool> FinishPass(Graph& graph, bool changed);

 private:
  const Graph& src_;
  Graph dst_;
  std::vector<std::vector<ValueRef>> map_;
};

// The loop of the passes that replace single nodes: visits `graph`'s nodes
// in order; a control-flow node's subgraphs go through `pass` first and the
// node is copied with them; every other node is offered to `rewrite`, which
// returns the value that replaces the node's output 0 (built in rw.dst()) or
// an invalid ValueRef to keep the node as it is. Returns whether anything
// changed, and replaces `graph` only then.
absl::StatusOr<bool> RewriteNodes(
    Graph& graph, absl::FunctionRef<absl::StatusOr<bool>(Graph&)> pass,
    absl::FunctionRef<absl::StatusOr<ValueRef>(Rewriter& rw, const Node& n)> rewrite);

}  // namespace tfn::ir
