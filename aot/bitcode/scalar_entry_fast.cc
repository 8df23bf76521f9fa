// Fast-math scalar entry points (tfn-aot --fast-math, CompileOptions::
// fast_math), compiled only to LLVM bitcode like scalar_entry.cc. The code
// generator calls tfn_ew_fast_<op>_<type> instead of tfn_ew_<op>_<type>
// where one exists here. What changes, and nothing else (NaN, infinities,
// signed zeros and denormals behave as in the precise entries):
// - arithmetic may contract into FMAs across the graph's ops (a * b + c
//   rounds once), and a division by a constant (or by any value the loop
//   does not change) becomes a multiplication by its reciprocal (up to 1
//   ulp off);
// - tanh and sigmoid use polynomials one degree lower (vec_math.h:
//   TanhFast within 8 ulp, SigmoidFast within 5, their gate product 11),
//   instead of 2.5 and 5.5.
#include <cstdint>

#include "kernels/opt/vec_math.h"

// (After the include: vec_math.h scopes its own contraction setting.)
#pragma clang fp contract(fast) reciprocal(on)

// Not `inline`: the functions must be emitted although nothing here calls them.
#define TFN_EW extern "C" __attribute__((always_inline, used))

#define TFN_FAST_ARITH(name, op)                                                  \
  TFN_EW float tfn_ew_fast_##name##_f32(float a, float b) { return a op b; }     \
  TFN_EW double tfn_ew_fast_##name##_f64(double a, double b) { return a op b; }
TFN_FAST_ARITH(add, +)
TFN_FAST_ARITH(sub, -)
TFN_FAST_ARITH(mul, *)
TFN_FAST_ARITH(div, /)

TFN_EW float tfn_ew_fast_tanh_f32(float x) { return tfn::vm::TanhFast(x); }
TFN_EW float tfn_ew_fast_sigmoid_f32(float x) { return tfn::vm::SigmoidFast(x); }
TFN_EW float tfn_ew_fast_tanh_times_sigmoid_f32(float a, float b) {
  return tfn::vm::TanhTimesSigmoid<true>(a, b);
}
