// Branch-free float32 math for the optimized kernels: exp, log, tanh,
// sigmoid, erf, gelu (both forms), sin, cos, floor/ceil/round. float64
// versions live in vec_math_f64.h (included at the end).
//
// Every function is plain C++ on scalars: straight-line arithmetic, integer
// bit manipulation and selects between values already computed (Select, as
// bit masks), no libm calls, no tables, no branches that depend on the data.
// GCC and clang vectorize loops that call them. The same header is compiled
// to LLVM bitcode for AOT code, so it has no globals, no exceptions and no
// allocation; vec_math.cc exports extern "C" scalar entry points (tfn_vm_*).
//
// Accuracy against libm evaluated in double, as the largest error in
// ulps of the result over every 5th float (860M inputs, all exponents) plus
// the special values (0, -0, +-inf, NaN, denormals, the largest floats),
// compiled without FMA (baseline x86-64) / with FMA contraction (AVX2):
//   Exp      1.04 / 1.07 ulp   exact 0, inf and NaN; denormal results
//   Log      0.82 / 0.82 ulp   log(+-0) = -inf, log(x < 0) = NaN, denormal inputs
//   Tanh     2.46 / 2.43 ulp   tanh(-0) = -0 (over every 61st float; the
//                              FMA form over every 7th: 2.43)
//   Sigmoid  2.30 / 2.30 ulp   1/(1+exp(-x)); denormal results below -87.3
//                              (over every 61st float)
//   Erf      1.33 / 1.18 ulp
//   GeluErf  x Phi(x): 2.94 / 2.72 ulp for x >= -1; below, relative error
//            4.3e-6 for x > -5.6 and absolute error 4.8e-8 everywhere (it is
//            -0 for x < -5.66, like the float reference; |true| < 4.5e-8)
//   GeluTanh x sigmoid(2u): 3.90 / 3.90 ulp for x >= -1; below, relative
//            3.9e-6 for x > -5.6, absolute 6.2e-8 (the rounding of u is
//            amplified by |2u| in the tail)
//   Sin, Cos 1.56 / 1.56 ulp for |x| <= kTrigMaxArg (reduction by pi/2 in
//            double); beyond it the result is in [-1, 1] but wrong, so
//            callers handle such arguments (the unary kernel uses libm)
//   Floor, Ceil, Round (half to even): exact, the sign of zero included
//   TanhFast 7.64, SigmoidFast < 5 ulp (tfn-aot --fast-math only)
// vec_math_test.cc asserts bounds just above these (1.1, 1.0, 2.5, 2.5,
// 1.5, 3.5, 4.5, 1.75, 8, 5 ulp) on a sparser sweep; float64: vec_math_f64.h.
//
// In AOT bitcode (clang, TFN_AOT_BITCODE) each a * b + c written here is
// contracted to one FMA (`fp contract(on)`: within an expression only, so
// the separate ops of a user's graph stay separately rounded): the
// polynomials cost half the instructions, and the multiply pipes are what
// bound fused elementwise loops (bench/RESULTS.md, issue 5's chain). The
// bounds above cover both forms. GCC builds (the runtime's kernels) keep
// their flags.
#pragma once

#include <cstdint>

#if defined(__clang__) && defined(TFN_AOT_BITCODE)
#pragma float_control(push)
#pragma clang fp contract(on)
#define TFN_VM_CONTRACT_PUSHED 1
#endif

#if defined(__GNUC__) || defined(__clang__)
#define TFN_VM_INLINE inline __attribute__((always_inline))
#else
#define TFN_VM_INLINE inline
#endif

namespace tfn::vm {

TFN_VM_INLINE uint32_t Bits(float x) { return __builtin_bit_cast(uint32_t, x); }
TFN_VM_INLINE float FromBitsF(uint32_t b) { return __builtin_bit_cast(float, b); }
TFN_VM_INLINE float Abs(float x) { return FromBitsF(Bits(x) & 0x7fffffffu); }
// c ? a : b as bit masks. A `?:` on floats becomes a branch in GCC, which then
// sinks the arithmetic of one arm into it and, since float ops may trap, can
// no longer vectorize the loop; masks keep the code straight-line.
TFN_VM_INLINE float Select(bool c, float a, float b) {
  const uint32_t m = 0u - static_cast<uint32_t>(c);
  return FromBitsF((Bits(a) & m) | (Bits(b) & ~m));
}
// |mag| with the sign of s.
TFN_VM_INLINE float CopySign(float mag, float s) {
  return FromBitsF((Bits(mag) & 0x7fffffffu) | (Bits(s) & 0x80000000u));
}

inline constexpr float kInfF = __builtin_inff();
inline constexpr float kNaNF = __builtin_nanf("");
// Sin/Cos are accurate for |x| <= kTrigMaxArg (2^20 * pi/2 rounded down).
inline constexpr float kTrigMaxArg = 1.6e6f;

// p * 2^n for n in [-150, 129]: two normal factors, so only the last product rounds.
TFN_VM_INLINE float Exp2Scale(float p, int32_t n) {
  const int32_t n1 = n >> 1, n2 = n - n1;
  return p * FromBitsF(static_cast<uint32_t>(n1 + 127) << 23) *
         FromBitsF(static_cast<uint32_t>(n2 + 127) << 23);
}

// exp(x) = p * 2^n with n = round(x / ln2) and p = exp(x - n ln2) in
// [0.7, 1.42]: the core of Exp, for x in [-104, 89] (or NaN).
struct ExpParts {
  float p;
  int32_t n;
};
TFN_VM_INLINE ExpParts ExpReduce(float x) {
  const float kMagic = 12582912.0f;  // 1.5 * 2^23: adding it rounds to an integer
  const float z = x * 1.44269504f + kMagic;
  const float n = z - kMagic;
  const int32_t ni = static_cast<int32_t>(Bits(z) - Bits(kMagic));
  float r = x - n * 0.693359375f;  // ln2 split: n * hi is exact
  r = r - n * -2.12194440e-4f;
  float p = 1.392769054e-03f;
  p = p * r + 8.364385433e-03f;
  p = p * r + 4.166654538e-02f;
  p = p * r + 1.666656960e-01f;
  p = p * r + 0.5f;
  p = (p * (r * r) + r) + 1.0f;
  return {p, ni};
}

TFN_VM_INLINE float Exp(float x) {
  x = Select(x < -104.0f, -104.0f, x);  // NaN passes both clamps
  x = Select(x > 89.0f, 89.0f, x);
  const ExpParts e = ExpReduce(x);
  return Exp2Scale(e.p, e.n);
}

// A value as numerator / denominator, for callers that fold the division
// into a later one.
struct Ratio {
  float num, den;
};

// expm1(r) = r + r^2 P(r) for |r| <= ln2/2: ExpReduce's polynomial without
// its final + 1, so that Tanh can form 2^n expm1(r) + (2^n - 1) in one FMA.
// kFast (the fast-math functions below): P one degree lower, a minimax fit
// of expm1's relative error (3.8 ulp instead of 0.5), one FMA fewer.
template <bool kFast = false>
TFN_VM_INLINE float ExpM1Poly(float r) {
  float p;
  if (kFast) {
    p = 8.338074200e-03f;
    p = p * r + 4.187268391e-02f;
    p = p * r + 1.666683108e-01f;
    p = p * r + 4.999940097e-01f;
  } else {
    p = 1.392769054e-03f;
    p = p * r + 8.364385433e-03f;
    p = p * r + 4.166654538e-02f;
    p = p * r + 1.666656960e-01f;
    p = p * r + 0.5f;
  }
  return p * (r * r) + r;
}

TFN_VM_INLINE float Log(float x) {
  const bool tiny = x < 1.17549435e-38f;  // denormals (and <= 0): scale by 2^23
  const float xs = Select(tiny, x * 8388608.0f, x);
  const uint32_t ix = Bits(xs) - 0x3f3504f3u;  // relative to sqrt(1/2)
  const int32_t e = (static_cast<int32_t>(ix) >> 23) - 23 * static_cast<int32_t>(tiny);
  const float f = FromBitsF((ix & 0x007fffffu) + 0x3f3504f3u) - 1.0f;  // [-0.29, 0.41]
  const float fe = static_cast<float>(e);
  float p = 6.971611471e-02f;
  p = p * f + -1.147973385e-01f;
  p = p * f + 1.168541992e-01f;
  p = p * f + -1.242568733e-01f;
  p = p * f + 1.424905765e-01f;
  p = p * f + -1.666780232e-01f;
  p = p * f + 2.000071575e-01f;
  p = p * f + -2.499999696e-01f;
  p = p * f + 3.333333118e-01f;
  const float f2 = f * f;
  float y = f * f2 * p;
  y = y + fe * -2.12194440e-4f;
  y = y - 0.5f * f2;
  float r = f + y;
  r = r + fe * 0.693359375f;
  r = Select(x == kInfF, kInfF, r);
  r = Select(x == 0.0f, -kInfF, r);
  return Select(x >= 0.0f, r, kNaNF);  // negative or NaN
}

// tanh(|x|) = E / (E + 2) with E = expm1(2|x|), and the sign of x: one
// exponential and one division, no second branch for small |x| (a separate
// polynomial there would be more accurate, 1.17 ulp, but it doubles the
// multiply-pipe work, and the multiply pipes are what bound fused
// elementwise loops on Zen 4: multiplies, FMAs and divisions take them,
// while adds, min/max, integer ops and blends go to others). E =
// 2^n (expm1(r) + 1) - 1 = 2^n expm1(r) + (2^n - 1) in one FMA, with
// 2^n made from the bits of the rounding sum. For tiny |x|, n = 0 and E =
// expm1(2|x|) keeps the relative accuracy (denormals included: E = 2|x|
// exactly). The reduction uses ln2 in one float: its error (n * 1.9e-9)
// matters only for large n, where tanh = 1 - 2 / (E + 2) scales it by
// 2 / (E + 2) < 2^(1-n). The ratio's sign is the numerator's, so
// num / den is tanh(x) to the bit.
template <bool kFast = false>
TFN_VM_INLINE Ratio TanhRatio(float x) {
  const float a = Abs(x);
  const float ac = Select(a > 10.0f, 10.0f, a);  // tanh(10) rounds to 1; NaN passes
  const float kMagic = 12582912.0f;              // 1.5 * 2^23: adding it rounds to an integer
  const float zz = ac * 2.88539008f + kMagic;    // n = round(2a / ln2) in [0, 29]
  const float n = zz - kMagic;
  const float r = (ac + ac) - n * 0.693147182f;
  const float s = FromBitsF((Bits(zz) - 0x4b400000u + 127u) << 23);  // 2^n
  const float e = s * ExpM1Poly<kFast>(r) + (s - 1.0f);               // expm1(2a)
  // e >= 0 (or NaN) takes the sign of x: tanh(-0) = -0 / 2.
  return {FromBitsF(Bits(e) + (Bits(x) & 0x80000000u)), e + 2.0f};
}
TFN_VM_INLINE float Tanh(float x) {
  const Ratio t = TanhRatio(x);
  return t.num / t.den;
}

// 1 / (1 + exp(-x)) = exp(x) / (1 + exp(x)) for x < 0: exp never overflows.
// e = exp(-|x|) is computed scaled by 2^64 (normal down to the clamp at 104,
// so no two-step scaling; denormal results round once, in the division),
// the numerator is a max (2^64 for x >= 0, else e; NaN passes as e) instead
// of a compare, and the reduction runs on |x| with the polynomial's odd
// coefficients negated, so no negation is needed. kFast: a polynomial one
// degree lower. (ln2 stays in two parts: in one float, without FMA, n * ln2
// would round to 67 ulp in the tail.)
template <bool kFast = false>
TFN_VM_INLINE Ratio SigmoidRatio(float x) {
  float a = Abs(x);
  a = Select(a > 104.0f, 104.0f, a);                  // exp(-104) * 2^64 is normal; NaN passes
  const float kMagic = 12582912.0f + 127.0f + 64.0f;  // 2^(n + 64) from the bits
  const float zz = a * -1.44269504f + kMagic;         // n = round(-a / ln2)
  const float n = zz - kMagic;
  float r = a + n * 0.693359375f;  // -(the reduced argument)
  r = r + n * -2.12194440e-4f;
  float p;  // -P(-r) of ExpM1Poly
  if (kFast) {
    p = 8.312511258e-03f;  // fitted to exp's relative error, not expm1's: 0.9 ulp
    p = p * r + -4.189024121e-02f;
    p = p * r + 1.666711569e-01f;
    p = p * r + -4.999923110e-01f;
  } else {
    p = -1.392769054e-03f;
    p = p * r + 8.364385433e-03f;
    p = p * r + -4.166654538e-02f;
    p = p * r + 1.666656960e-01f;
    p = p * r + -0.5f;
  }
  const float em1 = -(p * (r * r) + r);       // expm1(-r)
  const float s = FromBitsF(Bits(zz) << 23);  // 2^(n + 64)
  const float e = s * em1 + s;                // exp(-|x|) * 2^64
  const float k = 18446744073709551616.0f;    // 2^64
  const float kx =
      FromBitsF(0x5f800000u & ~static_cast<uint32_t>(static_cast<int32_t>(Bits(x)) >> 31));
  return {Select(kx > e, kx, e), e + k};
}
TFN_VM_INLINE float Sigmoid(float x) {
  const Ratio s = SigmoidRatio(x);
  return s.num / s.den;
}

// tanh(a) * sigmoid(b) with one division (the gate product of LSTM and
// WaveNet cells): the product of the two ratios. Their ranges keep both
// products finite and normal where the result is (numerators <= 2^29 and
// 2^64, denominators in [2, 2^29] and [2^64, 2^65]). A division costs the
// multiply pipes about 3.5 FMAs on Zen 4, more than the second product; the
// error is that of the separate form, within 5 ulp.
template <bool kFast = false>
TFN_VM_INLINE float TanhTimesSigmoid(float a, float b) {
  const Ratio t = TanhRatio<kFast>(a), s = SigmoidRatio<kFast>(b);
  return (t.num * s.num) / (t.den * s.den);
}

// Fast-math forms (tfn-aot --fast-math): the same special values (NaN, +-inf,
// +-0, denormals) with one degree less in the polynomials, two FMAs fewer
// per gate product (bench/RESULTS.md, issue 5's chain). Measured: TanhFast 7.64 ulp (expm1's 3.8
// ulp at 2|x| near ln2/2), SigmoidFast under 5, their gate product 10.3; vec_math_test asserts 8, 5
// and 11.
TFN_VM_INLINE float TanhFast(float x) {
  const Ratio t = TanhRatio<true>(x);
  return t.num / t.den;
}
TFN_VM_INLINE float SigmoidFast(float x) {
  const Ratio s = SigmoidRatio<true>(x);
  return s.num / s.den;
}

// erf for |x| < 1: x + x * P(x^2).
TFN_VM_INLINE float ErfSmall(float x) {
  const float z = x * x;
  float p = 7.875875063e-05f;
  p = p * z + -8.016864287e-04f;
  p = p * z + 5.189087423e-03f;
  p = p * z + -2.685421201e-02f;
  p = p * z + 1.128359472e-01f;
  p = p * z + -3.761262667e-01f;
  p = p * z + 1.283791658e-01f;
  return x + x * p;
}

// erfc(t) for t in [0.5, 4] as exp(Q(t - 0.5)), Q ~ log(erfc); expanded at the
// low end, so Horner's partial sums do not cancel.
TFN_VM_INLINE float ErfcTail(float t) {
  t = Select(t < 0.5f, 0.5f, t);
  t = Select(t > 4.0f, 4.0f, t);
  const float u = t - 0.5f;
  float q = -1.332013955e-07f;
  q = q * u + 2.555318641e-06f;
  q = q * u + -1.961340341e-05f;
  q = q * u + 6.094651718e-05f;
  q = q * u + 1.495592478e-04f;
  q = q * u + -2.625802620e-03f;
  q = q * u + 1.584024991e-02f;
  q = q * u + -6.715164498e-02f;
  q = q * u + -7.630294912e-01f;
  q = q * u + -1.832707592e+00f;
  q = q * u + -7.350111017e-01f;
  return Exp(q);
}

TFN_VM_INLINE float Erf(float x) {
  const float a = Abs(x);
  const float big = CopySign(1.0f - ErfcTail(a), x);  // a >= 4: 1 - 1.5e-8 rounds to 1
  return Select(a < 1.0f, ErfSmall(x), big);
}

// x * Phi(x) = x/2 * (1 + erf(x / sqrt 2)); the tail uses erfc directly, so
// there is no cancellation for negative x.
TFN_VM_INLINE float GeluErf(float x) {
  const float u = x * 0.707106781f;
  const float a = Abs(u);
  float e = ErfcTail(a);
  e = Select(a > 4.0f, 0.0f, e);  // as the float reference: gelu(-inf) = NaN, gelu(x < -5.66) = -0
  const float big = Select(x > 0.0f, 1.0f - 0.5f * e, 0.5f * e);
  const float small = 0.5f + 0.5f * ErfSmall(u);  // no cancellation for u > -0.5
  return x * Select((u > -0.5f) & (u < 1.0f), small, big);
}

// x/2 * (1 + tanh(u)) = x * sigmoid(2u), u = sqrt(2/pi) (x + 0.044715 x^3).
TFN_VM_INLINE float GeluTanh(float x) {
  const float u2 = (2.0f * 0.797884561f) * x * (1.0f + 0.044715f * (x * x));
  return x * Sigmoid(u2);
}

// sin (cos_shift 0) or cos (cos_shift 1): x = n pi/2 + r reduced in double.
TFN_VM_INLINE float SinCos(float x, uint32_t cos_shift) {
  const double kMagic = 6755399441055744.0;  // 1.5 * 2^52
  const double xd = x;
  const double n = (xd * 0.63661977236758134 + kMagic) - kMagic;
  const double rd = (xd - n * 1.57079632673412561417) - n * 6.07710050650619224932e-11;
  const float r = static_cast<float>(rd);
  // The quadrant n mod 4 from float bits (|n| < 2^22): 32-bit lanes vectorize.
  const uint32_t q = Bits(static_cast<float>(n) + 12582912.0f) + cos_shift;
  const float s2 = r * r;
  float ps = 2.724686872e-06f;
  ps = ps * s2 + -1.984006304e-04f;
  ps = ps * s2 + 8.333331831e-03f;
  ps = ps * s2 + -1.666666666e-01f;
  const float s = r + r * (s2 * ps);
  float pc = -2.729840765e-07f;
  pc = pc * s2 + 2.480058060e-05f;
  pc = pc * s2 + -1.388888764e-03f;
  pc = pc * s2 + 4.166666666e-02f;
  const float c = (1.0f - 0.5f * s2) + (s2 * s2) * pc;
  const float v = Select((q & 1u) != 0, c, s);
  const float y = FromBitsF(Bits(v) ^ ((q & 2u) << 30));
  return Select((cos_shift == 0) & (x == 0.0f), x, y);  // sin(-0) = -0
}
TFN_VM_INLINE float Sin(float x) { return SinCos(x, 0); }
TFN_VM_INLINE float Cos(float x) { return SinCos(x, 1); }

// Round half to even (the default rounding mode's nearbyint), exact.
TFN_VM_INLINE float Round(float x) {
  const float a = Abs(x);
  const float r = (a + 8388608.0f) - 8388608.0f;  // 2^23: no fraction bits left
  return CopySign(Select(a < 8388608.0f, r, a), x);
}
TFN_VM_INLINE float Floor(float x) {
  const float r = Round(x);
  return CopySign(r - Select(r > x, 1.0f, 0.0f), x);
}
TFN_VM_INLINE float Ceil(float x) {
  const float r = Round(x);
  return CopySign(r + Select(r < x, 1.0f, 0.0f), x);
}

}  // namespace tfn::vm

#include "kernels/opt/vec_math_f64.h"  // IWYU pragma: export

#ifdef TFN_VM_CONTRACT_PUSHED
#pragma float_control(pop)
#undef TFN_VM_CONTRACT_PUSHED
#endif
