// Optimized kernels: SelectOptimized replaces a planned reference kernel with
// a faster one when one exists for the node (same params, same results within
// the tolerances stated in kernels/README.md).
#pragma once

#include "kernels/kernels.h"

namespace tfn::kernels {

// Swaps plan->fn (and scratch) for an optimized kernel when one applies,
// and sets plan->row where the op has a row form.
void SelectOptimized(const NodeSignature& node, KernelPlan* plan);

namespace opt {
// Row forms (ElementwiseRowFn) of float32 tfn_opt_unary (every op but
// identity; the input has the output's count) and of tfn_opt_binary's + - * /
// maximum minimum (opt/elementwise.cc, opt/elementwise_binary.cc).
void UnaryRowF32(const void* params, const void* const* inputs, const int8_t* strides, void* output,
                 int64_t n);
void BinaryRowF32(const void* params, const void* const* inputs, const int8_t* strides,
                  void* output, int64_t n);
// + - * / maximum minimum: the float ops with multiversioned loops (and a
// row form for float32).
bool IsFloatArith(OpId op);
}  // namespace opt

}  // namespace tfn::kernels
