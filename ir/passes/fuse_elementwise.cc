// Implementation of the elementwise fusion pass (fuse_elementwise.h).
#include "ir/passes/fuse_elementwise.h"

#include <vector>

namespace tfn::ir {

bool IsFusible(const Graph& graph, const Node& node) {
  const OpDef& d = node.def();
  if (!d.has(kElementwise) || d.has(kAliasInput0) || d.has(kControlFlow) ||
      node.outputs.size() != 1 || node.op == OpId::kParameter || node.op == OpId::kConstant) {
    return false;
  }
  if (TypeBit(node.outputs[0].dtype) & kStorageTypes) return false;
  for (ValueRef v : node.inputs) {
    if (TypeBit(graph.type(v).dtype) & kStorageTypes) return false;
  }
  return true;
}

void ClearFusionGroups(Graph& graph) {
  for (Node& n : graph.mutable_nodes()) {
    n.fusion_group = -1;
    for (Graph& sub : n.subgraphs) ClearFusionGroups(sub);
  }
}

absl::StatusOr<bool> FuseElementwise(Graph& g) {
  const int n = g.num_nodes();
  std::vector<int> group(n, -1);
  std::vector<bool> in_open(n, false);
  std::vector<int> open;
  int next_group = 0;
  auto close = [&] {
    for (int m : open) in_open[m] = false;
    open.clear();
  };
  for (int i = 0; i < n; ++i) {
    const Node& node = g.node(i);
    if (node.op == OpId::kParameter || node.op == OpId::kConstant) continue;
    if (IsFusible(g, node)) {
      if (open.empty() || node.outputs[0].shape != g.node(open[0]).outputs[0].shape) {
        close();
        ++next_group;
      }
      group[i] = next_group - 1;
      open.push_back(i);
      in_open[i] = true;
      continue;
    }
    for (ValueRef v : node.inputs) {
      if (in_open[v.node]) {
        close();
        break;
      }
    }
  }
  bool changed = false;
  std::vector<Node>& nodes = g.mutable_nodes();
  for (int i = 0; i < n; ++i) {
    changed |= nodes[i].fusion_group != group[i];
    nodes[i].fusion_group = group[i];
    for (Graph& sub : nodes[i].subgraphs) {
      absl::StatusOr<bool> sub_changed = FuseElementwise(sub);
      if (!sub_changed.ok()) return sub_changed.status();
      changed |= *sub_changed;
    }
  }
  return changed;
}

}  // namespace tfn::ir
