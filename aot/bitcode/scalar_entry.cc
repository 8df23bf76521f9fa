// Scalar entry points of every elementwise op, for generated code. Compiled
// only to LLVM bitcode (never into a library): the code generator calls
// tfn_ew_<op>_<type> per element, LLVM inlines these and vectorizes the loop.
// Every function is the reference semantics (kernels/ref/scalar_ops.h), so
// fused AOT loops compute what the reference kernels compute; transcendental
// float functions use the vectorizable approximations of the optimized
// kernels (kernels/opt/vec_math.h). Bools travel as uint8_t.
#include <cstdint>

#include "kernels/opt/vec_math.h"
#include "kernels/ref/scalar_ops.h"

// Not `inline`: the functions must be emitted although nothing here calls them.
#define TFN_EW extern "C" __attribute__((always_inline, used))

namespace tfn::kernels {
namespace {
inline bool B(uint8_t v) { return v != 0; }
}  // namespace
}  // namespace tfn::kernels

using tfn::OpId;
using namespace tfn::kernels;  // NOLINT

// ---- unary ----
#define TFN_UNARY(name, id, T, suffix) \
  TFN_EW T tfn_ew_##name##_##suffix(T x) { return ApplyUnary<T>(OpId::id, x, false); }
#define TFN_UNARY_NUMERIC(name, id)        \
  TFN_UNARY(name, id, int32_t, i32)        \
  TFN_UNARY(name, id, int64_t, i64)        \
  TFN_UNARY(name, id, float, f32)          \
  TFN_UNARY(name, id, double, f64)
#define TFN_UNARY_FLOAT(name, id) \
  TFN_UNARY(name, id, float, f32) \
  TFN_UNARY(name, id, double, f64)

TFN_UNARY_NUMERIC(neg, kNeg)
TFN_UNARY_NUMERIC(abs, kAbs)
TFN_UNARY_NUMERIC(sign, kSign)
TFN_UNARY_NUMERIC(relu, kRelu)
// Transcendental and rounding functions: the branch-free approximations of
// kernels/opt/vec_math.h, which LLVM vectorizes inside fused loops (a libm
// call would keep every fused chain scalar). They are what the optimized
// runtime kernels compute, within a few ulp of the reference.
#define TFN_UNARY_VM(name, T, suffix, fn) \
  TFN_EW T tfn_ew_##name##_##suffix(T x) { return tfn::vm::fn(x); }
TFN_UNARY_VM(exp, float, f32, Exp)
TFN_UNARY_VM(exp, double, f64, Exp)
TFN_UNARY_VM(log, float, f32, Log)
TFN_UNARY_VM(log, double, f64, Log)
TFN_UNARY_VM(tanh, float, f32, Tanh)
TFN_UNARY_VM(tanh, double, f64, Tanh)
TFN_UNARY_VM(sigmoid, float, f32, Sigmoid)
TFN_UNARY_VM(sigmoid, double, f64, Sigmoid)
TFN_UNARY_VM(gelu, float, f32, GeluErf)
TFN_UNARY(gelu, kGelu, double, f64)
TFN_UNARY_VM(erf, float, f32, Erf)
TFN_UNARY(erf, kErf, double, f64)
TFN_UNARY_VM(floor, float, f32, Floor)
TFN_UNARY_VM(floor, double, f64, Floor)
TFN_UNARY_VM(ceil, float, f32, Ceil)
TFN_UNARY_VM(ceil, double, f64, Ceil)
TFN_UNARY_VM(round, float, f32, Round)
TFN_UNARY_VM(round, double, f64, Round)
TFN_UNARY_FLOAT(sqrt, kSqrt)
TFN_UNARY_FLOAT(rsqrt, kRsqrt)
// sin/cos keep libm: the approximations are exact only for |x| <= kTrigMaxArg.
TFN_UNARY_FLOAT(sin, kSin)
TFN_UNARY_FLOAT(cos, kCos)
TFN_UNARY_FLOAT(tan, kTan)
TFN_UNARY_FLOAT(asin, kAsin)
TFN_UNARY_FLOAT(acos, kAcos)
TFN_UNARY_FLOAT(atan, kAtan)
TFN_UNARY_FLOAT(sinh, kSinh)
TFN_UNARY_FLOAT(cosh, kCosh)
TFN_UNARY_FLOAT(asinh, kAsinh)
TFN_UNARY_FLOAT(acosh, kAcosh)
TFN_UNARY_FLOAT(atanh, kAtanh)
#define TFN_PREDICATE(name, id, T, suffix) \
  TFN_EW uint8_t tfn_ew_##name##_##suffix(T x) { return ApplyPredicate<T>(OpId::id, x) ? 1 : 0; }
TFN_PREDICATE(is_inf, kIsInf, float, f32)
TFN_PREDICATE(is_inf, kIsInf, double, f64)
TFN_PREDICATE(is_nan, kIsNan, float, f32)
TFN_PREDICATE(is_nan, kIsNan, double, f64)
TFN_UNARY_VM(gelu_tanh, float, f32, GeluTanh)
TFN_UNARY_VM(gelu_tanh, double, f64, GeluTanh)
TFN_EW uint8_t tfn_ew_logical_not_b(uint8_t x) { return !B(x); }
// tanh(a) * sigmoid(b) with one division, for the fused loops' gate
// products (aot/fusion.h).
TFN_EW float tfn_ew_tanh_times_sigmoid_f32(float a, float b) {
  return tfn::vm::TanhTimesSigmoid(a, b);
}

// ---- binary ----
#define TFN_ARITH(name, id, T, suffix) \
  TFN_EW T tfn_ew_##name##_##suffix(T a, T b) { return ApplyArith<T>(OpId::id, a, b); }
#define TFN_ARITH_ALL(name, id)      \
  TFN_ARITH(name, id, int32_t, i32)  \
  TFN_ARITH(name, id, int64_t, i64)  \
  TFN_ARITH(name, id, float, f32)    \
  TFN_ARITH(name, id, double, f64)
TFN_ARITH_ALL(add, kAdd)
TFN_ARITH_ALL(sub, kSub)
TFN_ARITH_ALL(mul, kMul)
TFN_ARITH_ALL(div, kDiv)
TFN_ARITH_ALL(pow, kPow)
TFN_ARITH_ALL(maximum, kMaximum)
TFN_ARITH_ALL(minimum, kMinimum)
TFN_ARITH_ALL(mod, kMod)
TFN_ARITH_ALL(fmod, kFMod)

#define TFN_COMPARE(name, id, T, suffix) \
  TFN_EW uint8_t tfn_ew_##name##_##suffix(T a, T b) { return ApplyCompare<T>(OpId::id, a, b); }
#define TFN_COMPARE_ALL(name, id)      \
  TFN_COMPARE(name, id, int32_t, i32)  \
  TFN_COMPARE(name, id, int64_t, i64)  \
  TFN_COMPARE(name, id, float, f32)    \
  TFN_COMPARE(name, id, double, f64)
TFN_COMPARE_ALL(equal, kEqual)
TFN_COMPARE_ALL(not_equal, kNotEqual)
TFN_COMPARE_ALL(less, kLess)
TFN_COMPARE_ALL(less_equal, kLessEqual)
TFN_COMPARE_ALL(greater, kGreater)
TFN_COMPARE_ALL(greater_equal, kGreaterEqual)
TFN_EW uint8_t tfn_ew_equal_b(uint8_t a, uint8_t b) { return B(a) == B(b); }
TFN_EW uint8_t tfn_ew_not_equal_b(uint8_t a, uint8_t b) { return B(a) != B(b); }
TFN_EW uint8_t tfn_ew_logical_and_b(uint8_t a, uint8_t b) { return B(a) && B(b); }
TFN_EW uint8_t tfn_ew_logical_or_b(uint8_t a, uint8_t b) { return B(a) || B(b); }
TFN_EW uint8_t tfn_ew_logical_xor_b(uint8_t a, uint8_t b) { return B(a) != B(b); }

#define TFN_WHERE(T, suffix) \
  TFN_EW T tfn_ew_where_##suffix(uint8_t c, T x, T y) { return B(c) ? x : y; }
TFN_WHERE(uint8_t, b)
TFN_WHERE(int32_t, i32)
TFN_WHERE(int64_t, i64)
TFN_WHERE(float, f32)
TFN_WHERE(double, f64)

// ---- casts: every pair; bools in and out as uint8_t ----
#define TFN_CAST(From, fs, To, ts) \
  TFN_EW To tfn_ew_cast_##fs##_##ts(From x) { return static_cast<To>(CastValue<To, From>(x)); }
#define TFN_CAST_FROM_BOOL(To, ts) \
  TFN_EW To tfn_ew_cast_b_##ts(uint8_t x) { return static_cast<To>(B(x) ? 1 : 0); }
#define TFN_CAST_TO_BOOL(From, fs) \
  TFN_EW uint8_t tfn_ew_cast_##fs##_b(From x) { return CastValue<bool, From>(x) ? 1 : 0; }
#define TFN_CAST_FROM(From, fs)      \
  TFN_CAST(From, fs, int32_t, i32)   \
  TFN_CAST(From, fs, int64_t, i64)   \
  TFN_CAST(From, fs, float, f32)     \
  TFN_CAST(From, fs, double, f64)    \
  TFN_CAST_TO_BOOL(From, fs)
TFN_CAST_FROM(int32_t, i32)
TFN_CAST_FROM(int64_t, i64)
TFN_CAST_FROM(float, f32)
TFN_CAST_FROM(double, f64)
TFN_CAST_FROM_BOOL(int32_t, i32)
TFN_CAST_FROM_BOOL(int64_t, i64)
TFN_CAST_FROM_BOOL(float, f32)
TFN_CAST_FROM_BOOL(double, f64)
TFN_EW uint8_t tfn_ew_cast_b_b(uint8_t x) { return B(x) ? 1 : 0; }
