// Implementation of dead-node elimination.
#include "ir/passes/dead_node_elimination.h"

#include <vector>

#include "ir/rewriter.h"

namespace tfn::ir {

bool HasSideEffects(const Node& node) {
  if (node.def().has(kSideEffect)) return true;
  for (const Graph& sub : node.subgraphs) {
    for (const Node& n : sub.nodes()) {
      if (HasSideEffects(n)) return true;
    }
  }
  return false;
}

absl::StatusOr<bool> EliminateDeadNodes(Graph& graph) {
  bool changed = false;
  std::vector<bool> live(graph.num_nodes(), false);
  for (ValueRef r : graph.results()) live[r.node] = true;
  for (int i = graph.num_nodes() - 1; i >= 0; --i) {
    const Node& n = graph.node(i);
    if (n.op == OpId::kParameter || HasSideEffects(n)) live[i] = true;
    if (!live[i]) continue;
    for (ValueRef v : n.inputs) live[v.node] = true;
  }
  Rewriter rw(graph);
  for (int i = 0; i < graph.num_nodes(); ++i) {
    if (!live[i]) {
      changed = true;
      continue;
    }
    absl::Status st = rw.CopyWithSubgraphsRewritten(i, EliminateDeadNodes, &changed);
    if (!st.ok()) return st;
  }
  return rw.FinishPass(graph, changed);
}

}  // namespace tfn::ir
