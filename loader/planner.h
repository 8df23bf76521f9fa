// Memory planning: for given input shapes, the shape of every value of a
// program and an offset for every intermediate buffer in one arena, reusing
// memory between values whose lifetimes do not overlap (greedy by size, as
// TFLite's arena planner). Values whose shapes depend on data computed at
// run time are "dynamic": the executor allocates them when they are made.
#pragma once

#include <cstdint>
#include <vector>

#include "core/status.h"
#include "loader/program.h"

namespace tfn::rt {

inline constexpr int64_t kArenaAlignment = 64;

struct Plan {
  std::vector<Shape> shapes;       // per value; meaningful where !dynamic
  std::vector<uint8_t> dynamic;    // 1: shape known only once computed
  std::vector<int64_t> offsets;    // per value: arena offset, -1 if not in the arena
  std::vector<int64_t> scratch;    // per instruction: kernel scratch bytes
  int64_t scratch_offset = 0;      // the scratch region (shared by all kernels)
  int64_t arena_bytes = 0;
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

Result<Plan> MakePlan(const Module& module, int program, const Shape* input_shapes);

}  // namespace tfn::rt
