// Optimized kernels: SelectOptimized replaces a planned reference kernel with
// a faster one when one exists for the node (same params, same results within
// the tolerances stated in kernels/README.md).
#pragma once

#include "kernels/kernels.h"

namespace tfn::kernels {

// Swaps plan->fn (and scratch) for an optimized kernel when one applies.
void SelectOptimized(const NodeSignature& node, KernelPlan* plan);

}  // namespace tfn::kernels
