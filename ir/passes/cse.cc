// Implementation of common-subexpression elimination.
#include "ir/passes/cse.h"

#include <algorithm>
#include <unordered_map>
#include <vector>

#include "ir/rewriter.h"

namespace tfn::ir {
namespace {

struct Key {
  OpId op;
  std::vector<ValueRef> inputs;  // values of the new graph
  const Attrs* attrs;
};

size_t HashKey(const Key& k) {
  size_t h = static_cast<size_t>(k.op) * 1000003u;
  for (ValueRef v : k.inputs) h = h * 31 + static_cast<size_t>(v.node) * 7 + v.port;
  return h * 31 + k.attrs->Hash();
}

bool Mergeable(const Node& n) {
  const OpDef& d = n.def();
  return n.op != OpId::kParameter && !d.has(kStateful) && !d.has(kControlFlow);
}

}  // namespace

absl::StatusOr<bool> EliminateCommonSubexpressions(Graph& graph) {
  bool changed = false;
  Rewriter rw(graph);
  // hash -> old node indices already emitted
  std::unordered_map<size_t, std::vector<int>> seen;
  std::vector<Key> keys(graph.num_nodes());
  for (int i = 0; i < graph.num_nodes(); ++i) {
    const Node& n = graph.node(i);
    if (!n.subgraphs.empty()) {
      absl::Status st = rw.CopyWithSubgraphsRewritten(i, EliminateCommonSubexpressions, &changed);
      if (!st.ok()) return st;
      continue;
    }
    if (!Mergeable(n)) {
      absl::Status st = rw.Copy(i);
      if (!st.ok()) return st;
      continue;
    }
    Key key{n.op, rw.MapAll(n.inputs), &n.attrs};
    if (n.def().has(kCommutative) && key.inputs.size() == 2) {
      std::sort(key.inputs.begin(), key.inputs.end());
    }
    size_t h = HashKey(key);
    int match = -1;
    for (int j : seen[h]) {
      const Key& other = keys[j];
      if (other.op == key.op && other.inputs == key.inputs && *other.attrs == *key.attrs) {
        match = j;
        break;
      }
    }
    if (match >= 0) {
      for (int p = 0; p < static_cast<int>(n.outputs.size()); ++p) {
        rw.Replace(ValueRef{i, p}, rw.Map(ValueRef{match, p}));
      }
      changed = true;
      continue;
    }
    absl::Status st = rw.Copy(i);
    if (!st.ok()) return st;
    keys[i] = std::move(key);
    seen[h].push_back(i);
  }
  return rw.FinishPass(graph, changed);
}

}  // namespace tfn::ir
