// Floating-point operations of one instruction, from its op, attributes and
// run-time shapes: what the profiler's GFLOP/s figures divide. Defined for
// the ops whose time is arithmetic (matmul and conv, plain and fused; a
// multiply-add counts as two); 0 for the others, whose time is memory.
#pragma once

#include "core/attrs.h"
#include "core/op_def.h"
#include "core/shape.h"

namespace tfn::runtime {

double StepFlops(OpId op, const Attrs& attrs, const Shape* inputs, int num_inputs,
                 const Shape& output);

}  // namespace tfn::runtime
