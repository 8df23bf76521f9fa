// Memory planning for compiled code: where every value lives, with sizes and
// offsets as symbolic expressions of the dynamic dims.
//
// Scratch layout of one call: [this graph's buffer slots][one region shared
// by its control-flow subgraphs (recursively)][kernel workspace]. Each
// buffer is a slot at the offset core/memory_plan.h gives it (the planner the
// runtime runs on concrete sizes): buffers alive at the same time never
// overlap. Results computed by a kernel or a fused loop are written
// straight into the caller's output buffers; reshape-like ops share their
// input's storage. No LLVM here.
#pragma once

#include <map>
#include <vector>

#include "absl/status/statusor.h"
#include "aot/fusion.h"
#include "core/sym_dim.h"
#include "ir/graph.h"

namespace tfn::aot {

struct Storage {
  enum class Kind {
    kNone,      // not stored: a fused intermediate, or an output nothing reads
    kInput,     // caller's input `index`
    kConstant,  // an embedded weight (the node's constant)
    kScratch,   // slot `index` of this graph's plan
    kOutput,    // caller's output `index` (root graph only)
    kAlias,     // the same bytes as `alias` (reshape-likes; subgraph parameters)
  };
  Kind kind = Kind::kNone;
  int index = -1;
  ir::ValueRef alias;  // kAlias: a value of the same graph, or (parameters of a
                       // subgraph) of the parent, resolved by the code generator
};

struct GraphPlan {
  FusionResult fusion;
  std::vector<std::vector<Storage>> storage;  // per node, per output
  std::vector<SymDim> slot_offset;            // bytes from this graph's base
  std::vector<SymDim> slot_size;
  SymDim region_offset;                       // where subgraph plans start
  std::vector<std::vector<GraphPlan>> sub;    // per node, per subgraph
  SymDim total_bytes;                         // slots + the largest subgraph region
  // Per root result: must the value be copied into the output buffer?
  std::vector<bool> copy_result;
  // Per while_loop node: slots that stage the body's results before they
  // become the next iteration's loop variables.
  std::map<int, std::vector<int>> staging;
};

// Bytes of a tensor type, rounded up to 64.
SymDim BufferBytes(const ir::TensorType& t);

absl::StatusOr<GraphPlan> PlanMemory(const ir::Graph& graph, bool root);

}  // namespace tfn::aot
