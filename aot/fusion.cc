// Implementation of elementwise fusion.
#include "aot/fusion.h"

#include <algorithm>

#include "core/fusion_schedule.h"

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

FusionResult ScheduleFusion(const ir::Graph& g) {
  const int n = g.num_nodes();
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
  const std::vector<FusionStep> steps = ScheduleFusionGroups(
      n, [&](int32_t i) { return g.node(i).fusion_group; },
      [&](int32_t i, auto in_group) {
        for (ir::ValueRef v : g.node(i).inputs) {
          if (in_group(v.node)) return true;
        }
        return false;
      },
      [&](int32_t i) {
        OpId op = g.node(i).op;
        return op == OpId::kParameter || op == OpId::kConstant;
      });
  for (const FusionStep& step : steps) {
    ScheduleItem item;
    item.nodes.assign(step.nodes.begin(), step.nodes.end());
    item.fused = step.group;  // even one node: a generated loop beats a kernel call
    for (int m : item.nodes) r.item_of[m] = static_cast<int>(r.schedule.size());
    r.schedule.push_back(std::move(item));
  }
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
