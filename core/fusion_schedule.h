// The order fused elementwise groups run in, from the groups
// ir/passes/fuse_elementwise.h wrote on a graph's nodes (ir::Node and the
// bundle's nodes carry them as `fusion_group`). The interpreter (on a
// program's instructions) and the code generator (on an IR graph) both
// schedule with this walk, so that they run the same groups in the same
// order:
//
// in program order, a group opens at its first member and runs just before
// the first node outside it that reads one of its members, or when another
// group opens, or at the end. Nodes outside groups run where they are.
//
// Any assignment of group ids gives a valid topological order (a member only
// reads earlier nodes, which already ran or are earlier members), so a
// hostile bundle's ids cannot break a schedule; a group id met again after
// its group closed simply opens a new group.
#pragma once

#include <cstdint>
#include <vector>

namespace tfn {

struct FusionStep {
  std::vector<int32_t> nodes;  // ascending; one node when !group
  bool group = false;          // the members of one fusion group
};

// `group_of(i)`: node i's group (-1: none); `reads(i, in_group)`: does node
// i read a node for which in_group(node) is true; `skip(i)`: nodes that are
// not scheduled at all (parameters and constants of an IR graph).
template <typename GroupOf, typename Reads, typename Skip>
std::vector<FusionStep> ScheduleFusionGroups(int32_t num_nodes, GroupOf group_of, Reads reads,
                                             Skip skip) {
  std::vector<FusionStep> steps;
  std::vector<uint8_t> in_open(static_cast<size_t>(num_nodes), 0);
  FusionStep open;
  int32_t open_group = -1;
  auto close = [&] {
    if (open.nodes.empty()) return;
    for (int32_t m : open.nodes) in_open[m] = 0;
    open.group = true;
    steps.push_back(std::move(open));
    open = FusionStep();
    open_group = -1;
  };
  auto is_open = [&](int32_t node) { return in_open[node] != 0; };
  for (int32_t i = 0; i < num_nodes; ++i) {
    if (skip(i)) continue;
    const int32_t g = group_of(i);
    if (g >= 0) {
      if (g != open_group) close();
      open_group = g;
      open.nodes.push_back(i);
      in_open[i] = 1;
      continue;
    }
    if (!open.nodes.empty() && reads(i, is_open)) close();
    FusionStep single;
    single.nodes.push_back(i);
    steps.push_back(std::move(single));
  }
  close();
  return steps;
}

}  // namespace tfn
