// Implementation of elementwise fusion.
#include "aot/fusion.h"

#include <algorithm>

namespace tfn::aot {
namespace {

bool IsF32(const ir::Node& node, OpId op) {
  return node.op == op && node.outputs[0].dtype == DType::kFloat32;
}

// The gate products (see FusionResult): factors in the Mul's own group,
// used once, and kept in registers.
void FindGateProducts(const ir::Graph& g, const std::vector<std::vector<int>>& users,
                      FusionResult& r) {
  r.folded.assign(g.num_nodes(), false);
  for (const ScheduleItem& item : r.schedule) {
    if (!item.fused) continue;
    for (int m : item.nodes) {
      const ir::Node& mul = g.node(m);
      if (!IsF32(mul, OpId::kMul)) continue;
      auto factor = [&](int k, OpId op) {
        int f = mul.inputs[k].node;
        return IsF32(g.node(f), op) && r.item_of[f] == r.item_of[m] && users[f].size() == 1 &&
               !r.materialize[f];
      };
      int t;
      if (factor(0, OpId::kTanh) && factor(1, OpId::kSigmoid)) {
        t = 0;
      } else if (factor(1, OpId::kTanh) && factor(0, OpId::kSigmoid)) {
        t = 1;
      } else {
        continue;
      }
      FusionResult::GateProduct p{mul.inputs[t].node, mul.inputs[1 - t].node};
      r.gate_products[m] = p;
      r.folded[p.tanh] = r.folded[p.sigmoid] = true;
    }
  }
}

}  // namespace

bool IsFusible(const ir::Node& node) {
  const OpDef& d = node.def();
  return d.has(kElementwise) && !d.has(kAliasInput0) && node.outputs.size() == 1 &&
         node.op != OpId::kParameter && node.op != OpId::kConstant;
}

FusionResult FuseElementwise(const ir::Graph& g) {
  int n = g.num_nodes();
  FusionResult r;
  r.item_of.assign(n, -1);
  r.materialize.assign(n, false);
  // Uses of each node's outputs by other nodes (indices), and results.
  std::vector<std::vector<int>> users(n);
  for (int i = 0; i < n; ++i) {
    for (ir::ValueRef v : g.node(i).inputs) users[v.node].push_back(i);
  }
  std::vector<bool> is_result(n, false);
  for (ir::ValueRef v : g.results()) is_result[v.node] = true;

  std::vector<int> open;  // the open group's nodes
  std::vector<bool> in_open(n, false);
  auto close = [&] {
    if (open.empty()) return;
    ScheduleItem item;
    item.nodes = open;
    item.fused = true;  // even one node: a generated loop beats a kernel call
    int index = static_cast<int>(r.schedule.size());
    for (int m : open) {
      r.item_of[m] = index;
      in_open[m] = false;
    }
    r.schedule.push_back(std::move(item));
    open.clear();
  };
  for (int i = 0; i < n; ++i) {
    const ir::Node& node = g.node(i);
    if (node.op == OpId::kParameter || node.op == OpId::kConstant) continue;
    bool reads_open = false;
    for (ir::ValueRef v : node.inputs) reads_open |= in_open[v.node];
    bool joins = IsFusible(node) && !open.empty() &&
                 node.outputs[0].shape == g.node(open[0]).outputs[0].shape;
    if (IsFusible(node) && !joins) {
      // A fusible node of another shape: it may read the open group, so
      // the group is emitted first, then it starts its own.
      close();
      open.push_back(i);
      in_open[i] = true;
      continue;
    }
    if (joins) {
      open.push_back(i);
      in_open[i] = true;
      continue;
    }
    if (reads_open) close();
    ScheduleItem item;
    item.nodes = {i};
    r.item_of[i] = static_cast<int>(r.schedule.size());
    r.schedule.push_back(std::move(item));
  }
  close();
  // Values leave registers when something outside their group needs them.
  for (const ScheduleItem& item : r.schedule) {
    if (!item.fused) continue;
    for (int m : item.nodes) {
      bool outside = is_result[m];
      for (int u : users[m]) outside |= r.item_of[u] != r.item_of[m];
      r.materialize[m] = outside;
    }
  }
  FindGateProducts(g, users, r);
  return r;
}

}  // namespace tfn::aot
