// Memory planning: for given input shapes, the shape of every value of a
// program and an offset for every intermediate buffer in one arena, reusing
// memory between values whose lifetimes do not overlap. Which buffers share
// memory is core/memory_plan.h's decision, the one the code generator makes
// on symbolic sizes, here made on the sizes of these input shapes. Values
// whose shapes depend on data computed at run time are "dynamic": the
// executor allocates them when they are made.
#pragma once

#include <cstdint>
#include <vector>

#include "core/status.h"
#include "runtime/fused_chain.h"
#include "runtime/program.h"

namespace tfn::runtime {

inline constexpr int64_t kArenaAlignment = 64;

struct Plan {
  std::vector<Shape> shapes;       // per value; meaningful where !dynamic
  std::vector<uint8_t> dynamic;    // 1: shape known only once computed
  // Per value: arena offset, -1 if not in the arena. Aliases and split
  // views of an arena value are inside its buffer, and their instructions
  // are not among the steps (the minimal runtime runs them as steps).
  std::vector<int64_t> offsets;
  std::vector<int64_t> scratch;    // per instruction: kernel scratch bytes
  int64_t scratch_offset = 0;      // the scratch region (kernel scratch, chain tile buffers)
  int64_t arena_bytes = 0;
  // What runs, in order: instructions (>= 0) and fused chains (-index - 1);
  // values that live only in a chain's tile buffers have no offset.
  std::vector<int32_t> steps;
  std::vector<FusedChain> chains;
  // Per program result: 1 when the value is computed straight into the
  // output tensor the run returns (no arena buffer, no copy).
  std::vector<uint8_t> direct_results;
  // Per value, what the optimized runtime knows beyond its buffer; empty in
  // the minimal runtime, which copies splits and variables.
  struct ValueFacts {
    // For the outputs of a split whose dims before the axis are all 1 (a
    // recurrence's steps and gates), their byte offset in the split's input,
    // of which they are views (the split runs without a copy); else -1.
    int64_t view_offset = -1;
    // For a variable read, the last step that uses it or an alias or view of
    // it (the step count when it is a result), so that an assign after it
    // writes the variable in place instead of copying it; else -1.
    int32_t read_last_step = -1;
  };
  std::vector<ValueFacts> facts;
};

// True when `in`'s outputs are views of its input 0 (ValueFacts::view_offset).
inline bool IsView(const Plan& plan, const Instr& in) {
  return !plan.facts.empty() && !in.outputs.empty() && plan.facts[in.outputs[0]].view_offset >= 0;
}

struct PlanOptions {
  bool fuse_elementwise = true;  // run elementwise chains tile by tile (fused_chain.h)
  int threads = 1;               // threads that may run one chain's tiles
};

// Per program: the constant bytes bound to each value (null when not constant).
std::vector<const ConstTensor*> ConstantsByValue(const Program& program);

// Output shapes of one instruction from its input shapes; `values` gives the
// bytes of inputs when known (needed by data-dependent shape rules).
Status InferInstr(const Program& program, const Instr& instr, const Shape* in_shapes,
                  const ConstTensor* const* in_values, std::vector<Shape>* out_shapes);

// Shapes of all values for these input shapes (dynamic where unknowable).
Status InferProgramShapes(const Module& module, int program, const Shape* input_shapes,
                          std::vector<Shape>* shapes, std::vector<uint8_t>* dynamic);

Result<Plan> MakePlan(const Module& module, int program, const Shape* input_shapes,
                      const PlanOptions& options = {});

}  // namespace tfn::runtime
