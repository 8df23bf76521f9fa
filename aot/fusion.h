// Elementwise fusion for code generation: each fusion group the IR carries
// (ir/passes/fuse_elementwise.h decides them, for the interpreter too)
// becomes one loop nest, with intermediate values kept in registers. Only
// values used outside their group (or returned) are written to memory.
// Groups run in core/fusion_schedule.h's order, the interpreter's. A graph
// without groups (the pass did not run) gets no fused loops. No LLVM here:
// the result is a plain schedule.
#pragma once

#include <map>
#include <vector>

#include "ir/graph.h"

namespace tfn::aot {

// One step of the schedule: a single node, or a fused group of nodes.
struct ScheduleItem {
  std::vector<int> nodes;  // ascending
  bool fused = false;      // a group of fusible nodes (possibly one) run as one loop
};

struct FusionResult {
  std::vector<ScheduleItem> schedule;  // every non-parameter, non-constant node once
  // Per node: the index of its item in the schedule (-1 for parameters and constants).
  std::vector<int> item_of;
  // Per node output 0 of fused members: must the value be written to memory?
  std::vector<bool> materialize;
  // Fused f32 Mul nodes of the form tanh(a) * sigmoid(b), where each factor
  // has no other use: the loop computes them as vm::TanhTimesSigmoid, with
  // one division instead of two, and never computes the factors alone
  // (`folded`, per node).
  struct GateProduct {
    int tanh, sigmoid;  // the factor nodes
  };
  std::map<int, GateProduct> gate_products;  // by Mul node
  std::vector<bool> folded;
};

FusionResult ScheduleFusion(const ir::Graph& graph);

}  // namespace tfn::aot
