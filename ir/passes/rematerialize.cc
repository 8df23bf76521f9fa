// Implementation of rematerialization (rematerialize.h).
#include "ir/passes/rematerialize.h"

#include <map>
#include <vector>

#include "ir/rewriter.h"

namespace tfn::ir {
namespace {

// A value is recomputed only when its uses leave a gap of at least this
// many nodes (a shorter one frees little for little time) and it holds at
// least this many elements (or has dynamic dims).
constexpr int kMinGap = 8;
constexpr int64_t kMinElements = 1024;

// Values whose storage is not the memory plan's: always there to read.
// (Not a variable read: a snapshot read after the variable's assign would
// cost the assign its in-place update.)
bool AlwaysAvailable(const Node& n) { return n.op == OpId::kParameter || n.op == OpId::kConstant; }

bool Large(const TensorType& t) {
  int64_t elements = 1;
  for (int d = 0; d < t.shape.rank(); ++d) {
    if (!t.shape[d].is_static()) return true;
    elements *= t.shape[d].value();
  }
  return elements >= kMinElements;
}

}  // namespace

absl::StatusOr<bool> Rematerialize(Graph& graph) {
  const int count = graph.num_nodes();
  // Where each node's output 0 is read (node positions; results read at
  // `count`), and the last read of each value.
  std::vector<std::vector<int>> uses(static_cast<size_t>(count));
  std::map<ValueRef, int> last_use;
  for (int i = 0; i < count; ++i) {
    for (ValueRef v : graph.node(i).inputs) {
      if (v.port == 0) uses[static_cast<size_t>(v.node)].push_back(i);
      last_use[v] = i;
    }
  }
  for (ValueRef r : graph.results()) {
    if (r.port == 0) uses[static_cast<size_t>(r.node)].push_back(count);
    last_use[r] = count;
  }
  // recompute_at[i]: the nodes whose copy goes right before node i.
  std::vector<std::vector<int>> recompute_at(static_cast<size_t>(count));
  bool changed = false;
  for (int i = 0; i < count; ++i) {
    const Node& n = graph.node(i);
    const std::vector<int>& reads = uses[static_cast<size_t>(i)];
    if (!n.def().has(kElementwise) || n.outputs.size() != 1 || reads.empty() ||
        reads.back() == count || !Large(n.outputs[0]))
      continue;
    // The late uses: those after the widest gap between consecutive reads.
    int gap = 0, late = 0, previous = i;
    for (size_t k = 0; k < reads.size(); ++k) {
      if (reads[k] - previous > gap) {
        gap = reads[k] - previous;
        late = reads[k];
      }
      previous = reads[k];
    }
    if (gap < kMinGap) continue;
    bool inputs_alive = true;
    for (ValueRef v : n.inputs) {
      inputs_alive &= AlwaysAvailable(graph.node(v.node)) || last_use[v] >= late;
    }
    if (!inputs_alive) continue;
    recompute_at[static_cast<size_t>(late)].push_back(i);
    changed = true;
  }
  if (!changed) return false;
  Rewriter rw(graph);
  for (int i = 0; i < count; ++i) {
    for (int node : recompute_at[static_cast<size_t>(i)]) {
      const Node& n = graph.node(node);
      absl::StatusOr<ValueRef> copy = rw.dst().Add(n.op, rw.MapAll(n.inputs), n.attrs);
      if (!copy.ok()) return copy.status();
      rw.Replace(ValueRef{node, 0}, *copy);  // the later copies read the recomputed value
    }
    absl::Status st = rw.Copy(i);
    if (!st.ok()) return st;
  }
  return rw.FinishPass(graph, true);
}

}  // namespace tfn::ir
