// Implementation of symbolic memory planning.
#include "aot/memory_plan.h"

#include <map>

#include "core/memory_plan.h"

namespace tfn::aot {

SymDim BufferBytes(const ir::TensorType& t) {
  SymDim n(DTypeSize(t.dtype));
  for (const SymDim& d : t.shape) n = n * d;
  return CeilDiv(n, SymDim(64)) * SymDim(64);
}

absl::StatusOr<GraphPlan> PlanMemory(const ir::Graph& g, bool root) {
  GraphPlan plan;
  plan.fusion = ScheduleFusion(g);
  int n = g.num_nodes();
  plan.storage.resize(n);
  plan.sub.resize(n);
  for (int i = 0; i < n; ++i) plan.storage[i].resize(g.node(i).outputs.size());

  // Which results may go straight into the caller's buffers.
  std::map<std::pair<int, int>, int> result_of;
  std::vector<int> times_returned(n, 0);
  for (size_t r = 0; r < g.results().size(); ++r) {
    ir::ValueRef v = g.results()[r];
    times_returned[v.node]++;
    result_of[{v.node, v.port}] = static_cast<int>(r);
  }
  plan.copy_result.assign(g.results().size(), true);

  // Lifetimes in schedule positions.
  std::vector<int> def(n, -1), last(n, -1);
  for (size_t s = 0; s < plan.fusion.schedule.size(); ++s) {
    for (int m : plan.fusion.schedule[s].nodes) def[m] = static_cast<int>(s);
  }
  for (int i = 0; i < n; ++i) {
    for (ir::ValueRef v : g.node(i).inputs) {
      int at = plan.fusion.item_of[i];
      // Reading through an alias keeps the aliased buffer alive.
      int src = v.node;
      while (g.node(src).def().has(kAliasInput0)) src = g.node(src).inputs[0].node;
      last[src] = std::max(last[src], at);
      last[v.node] = std::max(last[v.node], at);
    }
  }
  int end = static_cast<int>(plan.fusion.schedule.size());
  for (ir::ValueRef v : g.results()) {
    int src = v.node;
    while (g.node(src).def().has(kAliasInput0)) src = g.node(src).inputs[0].node;
    last[src] = end;
    last[v.node] = end;
  }

  // Buffers for core/memory_plan.h's planner; each is its own slot, whose
  // index is the buffer's.
  std::vector<BufferLifetime<SymDim>> buffers;
  auto request = [&](const SymDim& bytes, int from, int until) {
    buffers.push_back({from, until, bytes});
    return static_cast<int>(buffers.size() - 1);
  };

  for (int i = 0; i < n; ++i) {
    const ir::Node& node = g.node(i);
    std::vector<Storage>& st = plan.storage[i];
    if (node.op == OpId::kParameter) {
      st[0].kind = root ? Storage::Kind::kInput : Storage::Kind::kAlias;
      st[0].index = static_cast<int>(node.attrs.GetInt("index"));
      continue;
    }
    if (node.op == OpId::kConstant || node.op == OpId::kVarRead) {
      st[0].kind = Storage::Kind::kConstant;  // embedded (variables: their stored values)
      continue;
    }
    if (node.def().has(kAliasInput0)) {
      st[0].kind = Storage::Kind::kAlias;
      st[0].alias = node.inputs[0];
      continue;
    }
    bool fused = plan.fusion.schedule[plan.fusion.item_of[i]].fused;
    for (size_t p = 0; p < node.outputs.size(); ++p) {
      if (fused && !plan.fusion.materialize[i]) continue;  // lives in registers
      auto r = result_of.find({i, static_cast<int>(p)});
      if (root && r != result_of.end() && times_returned[i] == 1) {
        st[p].kind = Storage::Kind::kOutput;
        st[p].index = r->second;
        plan.copy_result[r->second] = false;
        continue;
      }
      st[p].kind = Storage::Kind::kScratch;
      st[p].index = request(BufferBytes(node.outputs[p]), def[i], std::max(last[i], def[i]));
    }
    if (node.op == OpId::kWhileLoop) {
      for (const ir::TensorType& t : node.outputs) {
        plan.staging[i].push_back(request(BufferBytes(t), def[i], def[i]));
      }
    }
    for (const ir::Graph& sub : node.subgraphs) {
      absl::StatusOr<GraphPlan> sp = PlanMemory(sub, false);
      if (!sp.ok()) return sp.status();
      plan.sub[i].push_back(std::move(sp).value());
    }
  }
  BufferPlacement<SymDim> placement = PlaceBuffers(buffers);
  for (const BufferLifetime<SymDim>& b : buffers) plan.slot_size.push_back(b.bytes);
  plan.slot_offset = std::move(placement.offset);
  SymDim offset = placement.total;
  plan.region_offset = offset;
  SymDim region(0);
  for (const std::vector<GraphPlan>& subs : plan.sub) {
    for (const GraphPlan& sp : subs) region = Max(region, sp.total_bytes);
  }
  plan.total_bytes = offset + region;
  return plan;
}

}  // namespace tfn::aot
