// Runs one op on constant inputs and returns freshly allocated outputs:
// shape inference, kernel choice and the kernel call in one function. Eager
// execution and constant folding use it; the graph executor plans memory
// instead. Thread-safe (nothing is shared between calls).
#pragma once

#include <vector>

#include "core/attrs.h"
#include "core/op_def.h"
#include "core/status.h"
#include "kernels/kernels.h"

namespace tfn::kernels {

// `attrs` must be normalized (NormalizeAttrs). Outputs are 64-byte aligned.
Status EvaluateOp(OpId op, const Attrs& attrs, const std::vector<ConstTensor>& inputs,
                  std::vector<ConstTensor>* outputs, Variant variant = Variant::kOptimized);

}  // namespace tfn::kernels
