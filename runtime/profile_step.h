// What the executor hands the profiler for one step, and the function that
// turns it into a ProfileEvent (op, output type, FLOPs). Internal to the
// runtime: the executor calls it through Profiler's pointer (profile.h).
#pragma once

#include <cstdint>

#include "core/shape.h"
#include "runtime/planner.h"
#include "runtime/profile.h"
#include "runtime/program.h"

namespace tfn::runtime {

struct StepView {
  const Program* program;
  const Plan* plan;
  const Shape* shapes;  // per value of the program, as this run has them
};

// Adds the step (an instruction >= 0, or chain -step - 1 of the plan) that
// began at `start_ns` and has just ended.
void RecordStep(Profiler& profiler, const StepView& view, int32_t step, int64_t start_ns);

}  // namespace tfn::runtime
