// Scalar entry points of every elementwise op, for generated code. Compiled
// only to LLVM bitcode (never into a library): the code generator calls
// tfn_ew_<op>_<type> per element, LLVM inlines these and vectorizes the loop.
// Every function is the reference semantics (kernels/ref/scalar_ops.h), so
// fused AOT loops compute what the reference kernels compute; transcendental
// float functions use the vectorizable approximations of the optimized
// kernels (kernels/opt/vec_math.h) when present. Bools travel as uint8_t.
#include <cstdint>

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
TFN_UNARY_FLOAT(exp, kExp)
TFN_UNARY_FLOAT(log, kLog)
TFN_UNARY_FLOAT(sqrt, kSqrt)
TFN_UNARY_FLOAT(rsqrt, kRsqrt)
TFN_UNARY_FLOAT(tanh, kTanh)
TFN_UNARY_FLOAT(sigmoid, kSigmoid)
TFN_UNARY_FLOAT(gelu, kGelu)
TFN_UNARY_FLOAT(erf, kErf)
TFN_UNARY_FLOAT(sin, kSin)
TFN_UNARY_FLOAT(cos, kCos)
TFN_UNARY_FLOAT(floor, kFloor)
TFN_UNARY_FLOAT(ceil, kCeil)
TFN_UNARY_FLOAT(round, kRound)
TFN_EW float tfn_ew_gelu_tanh_f32(float x) { return ApplyUnary<float>(OpId::kGelu, x, true); }
TFN_EW double tfn_ew_gelu_tanh_f64(double x) { return ApplyUnary<double>(OpId::kGelu, x, true); }
TFN_EW uint8_t tfn_ew_logical_not_b(uint8_t x) { return !B(x); }

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
