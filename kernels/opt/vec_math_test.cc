// Accuracy of kernels/opt/vec_math.h against libm: a sweep over float bit
// patterns (every kStride-th float, so all exponents), a dense linear sweep
// of the interesting range, and the special values, each function evaluated
// both as compiled for the baseline (no FMA) and inside an AVX2+FMA function
// (FMA contraction), when the CPU has it. The reference is libm in long
// double. The bounds asserted are the ones stated in vec_math.h and
// vec_math_f64.h, a little above the maxima measured there on a much denser
// sweep (every 5th float).
#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <random>
#include <tuple>
#include <vector>

#include "kernels/opt/vec_math.h"

namespace tfn::vm {
namespace {

#if defined(NDEBUG) && !defined(__SANITIZE_ADDRESS__)
constexpr uint64_t kStride = 4099;  // ~1M floats per function
#else
constexpr uint64_t kStride = 65537;  // debug/sanitizer builds: ~65K
#endif

enum Fn { kExpF, kLogF, kTanhF, kSigmoidF, kErfF, kGeluErfF, kGeluTanhF, kSinF, kCosF,
          kFloorF, kCeilF, kRoundF, kTanhFastF, kSigmoidFastF, kNumFn };

template <class T>
inline T Eval(Fn f, T v) {
  switch (f) {
    case kExpF: return Exp(v);
    case kLogF: return Log(v);
    case kTanhF: return Tanh(v);
    case kSigmoidF: return Sigmoid(v);
    case kErfF: if constexpr (sizeof(T) == 4) return Erf(v); else break;
    case kGeluErfF: if constexpr (sizeof(T) == 4) return GeluErf(v); else break;
    case kGeluTanhF: return GeluTanh(v);
    case kSinF: if constexpr (sizeof(T) == 4) return Sin(v); else break;
    case kCosF: if constexpr (sizeof(T) == 4) return Cos(v); else break;
    case kFloorF: return Floor(v);
    case kCeilF: return Ceil(v);
    case kRoundF: return Round(v);
    case kTanhFastF: if constexpr (sizeof(T) == 4) return TanhFast(v); else break;
    case kSigmoidFastF: if constexpr (sizeof(T) == 4) return SigmoidFast(v); else break;
    default: break;
  }
  return v;
}

// The same functions compiled without and with FMA contraction.
template <class T>
void EvalBase(Fn f, const T* x, T* y, size_t n) {
  for (size_t i = 0; i < n; ++i) y[i] = Eval(f, x[i]);
}
#if defined(__x86_64__)
template <class T>
__attribute__((target("avx2,fma"))) void EvalFma(Fn f, const T* x, T* y, size_t n) {
  for (size_t i = 0; i < n; ++i) y[i] = Eval(f, x[i]);
}
bool HaveFma() { return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"); }
#else
template <class T>
void EvalFma(Fn f, const T* x, T* y, size_t n) { EvalBase(f, x, y, n); }
bool HaveFma() { return false; }
#endif

long double Ref(Fn f, long double x) {
  switch (f) {
    case kExpF: return expl(x);
    case kLogF: return logl(x);
    case kTanhF: case kTanhFastF: return tanhl(x);
    case kSigmoidF: case kSigmoidFastF: return 1 / (1 + expl(-x));
    case kErfF: return erfl(x);
    case kGeluErfF: return 0.5L * x * erfcl(-x / sqrtl(2.0L));
    case kGeluTanhF: return x / (1 + expl(-2 * 0.7978845608028654L * (x + 0.044715L * x * x * x)));
    case kSinF: return sinl(x);
    case kCosF: return cosl(x);
    case kFloorF: return floorl(x);
    case kCeilF: return ceill(x);
    case kRoundF: return nearbyintl(x);
    default: return 0;
  }
}

// Error of y in units in the last place of T at the exact value.
template <class T>
double UlpError(T y, long double exact) {
  const T rounded = static_cast<T>(exact);
  if (std::isnan(exact)) return std::isnan(y) ? 0 : INFINITY;
  if (std::isinf(rounded)) return y == rounded ? 0 : INFINITY;
  if (!std::isfinite(y)) return INFINITY;
  const long double a = fabsl(exact);
  int e = 0;
  frexpl(a, &e);
  const int digits = std::numeric_limits<T>::digits, min_exp = std::numeric_limits<T>::min_exponent;
  const long double ulp = ldexpl(1.0L, (e < min_exp ? min_exp : e) - digits);
  return static_cast<double>(fabsl(static_cast<long double>(y) - exact) / ulp);
}

struct Stats {
  double max_ulp = 0, max_rel = 0, max_abs = 0;
  double worst_x = 0;
};

template <class T>
std::vector<T> SpecialValues() {
  using L = std::numeric_limits<T>;
  return {T(0), -T(0), L::infinity(), -L::infinity(), L::quiet_NaN(), L::denorm_min(),
          -L::denorm_min(), L::min(), -L::min(), L::min() / 3, L::max(), -L::max(), T(1), T(-1),
          T(0.5), T(-0.5), T(1.5), T(2.5), T(-2.5), T(88.72), T(-87.4), T(-103.9), T(-104.1),
          T(709.7), T(-745.1), T(1e30), T(-1e30), T(3.1415926), T(1.5707964), T(1e6), T(-1.6e6)};
}

// Sweep inputs for T: float bit patterns with a stride (or random doubles),
// a dense linear range, and the special values.
template <class T>
std::vector<T> Inputs(double lo, double hi) {
  std::vector<T> x = SpecialValues<T>();
  if constexpr (sizeof(T) == 4) {
    for (uint64_t b = 0; b < (1ull << 32); b += kStride) {
      uint32_t u = static_cast<uint32_t>(b);
      float v;
      std::memcpy(&v, &u, 4);
      x.push_back(v);
    }
  } else {
    std::mt19937_64 rng(42);
    for (uint64_t i = 0; i < (1ull << 32) / kStride; ++i) {
      uint64_t u = rng();
      double v;
      std::memcpy(&v, &u, 8);
      x.push_back(v);
    }
  }
  const int dense = static_cast<int>((1ull << 32) / kStride);
  for (int i = 0; i <= dense; ++i) x.push_back(static_cast<T>(lo + (hi - lo) * i / dense));
  return x;
}

// Checks f over the sweep: ulp error <= max_ulp where x >= ulp_from, and below
// it relative error <= max_rel for x > -5.6 and absolute error <= max_abs.
template <class T>
void Check(Fn f, double lo, double hi, double max_ulp, double ulp_from = -INFINITY,
           double max_rel = 0, double max_abs = 0, double domain = INFINITY) {
  std::vector<T> x = Inputs<T>(lo, hi), y(x.size());
  for (int variant = 0; variant < (HaveFma() ? 2 : 1); ++variant) {
    if (variant == 0) {
      EvalBase(f, x.data(), y.data(), x.size());
    } else {
      EvalFma(f, x.data(), y.data(), x.size());
    }
    Stats s;
    for (size_t i = 0; i < x.size(); ++i) {
      if (!(std::fabs(x[i]) <= domain) && !std::isnan(x[i])) continue;
      const long double exact = Ref(f, x[i]);
      if (x[i] >= ulp_from || std::isnan(x[i])) {
        const double e = UlpError(y[i], exact);
        if (e > s.max_ulp) s = {e, s.max_rel, s.max_abs, static_cast<double>(x[i])};
      } else if (std::isfinite(exact)) {
        const double abs = static_cast<double>(fabsl(y[i] - exact));
        s.max_abs = std::max(s.max_abs, abs);
        if (x[i] > -5.6 && exact != 0) s.max_rel = std::max(s.max_rel, abs / static_cast<double>(fabsl(exact)));
      } else {
        EXPECT_TRUE(std::isnan(y[i]) || y[i] == static_cast<T>(exact)) << x[i];
      }
    }
    SCOPED_TRACE(testing::Message() << "function " << f << (variant ? " with FMA" : " no FMA")
                                    << ", worst x " << s.worst_x);
    EXPECT_LE(s.max_ulp, max_ulp);
    EXPECT_LE(s.max_rel, max_rel);
    EXPECT_LE(s.max_abs, max_abs);
  }
}

TEST(VecMath, Float32Ulps) {
  Check<float>(kExpF, -104, 89, 1.1);
  Check<float>(kLogF, 0, 10, 1.0);
  Check<float>(kTanhF, -10, 10, 2.5);
  Check<float>(kSigmoidF, -110, 30, 2.5);
  Check<float>(kErfF, -5, 5, 1.5);
  Check<float>(kSinF, -100, 100, 1.75, -INFINITY, 0, 0, kTrigMaxArg);
  Check<float>(kCosF, -100, 100, 1.75, -INFINITY, 0, 0, kTrigMaxArg);
  Check<float>(kFloorF, -1e7, 1e7, 0);
  Check<float>(kCeilF, -1e7, 1e7, 0);
  Check<float>(kRoundF, -1e7, 1e7, 0);
}

// The fast-math forms (tfn-aot --fast-math): one polynomial degree less.
TEST(VecMath, Float32FastForms) {
  Check<float>(kTanhFastF, -10, 10, 8.0);
  Check<float>(kSigmoidFastF, -110, 30, 5.0);
}

TEST(VecMath, Float32Gelu) {
  // ulp for x >= -1; below: relative error for x > -5.6, absolute everywhere.
  Check<float>(kGeluErfF, -10, 10, 3.5, -1.0, 5e-6, 6e-8);
  Check<float>(kGeluTanhF, -10, 10, 4.5, -1.0, 5e-6, 1e-7);
}

TEST(VecMath, Float64Ulps) {
  Check<double>(kExpF, -746, 710, 1.0);
  Check<double>(kLogF, 0, 10, 1.0);
  Check<double>(kTanhF, -20, 20, 1.5);
  Check<double>(kSigmoidF, -750, 40, 2.5);
  Check<double>(kGeluTanhF, -10, 10, 3.5, -1.0, 1e-14, 2e-16);
  Check<double>(kFloorF, -1e17, 1e17, 0);
  Check<double>(kCeilF, -1e17, 1e17, 0);
  Check<double>(kRoundF, -1e17, 1e17, 0);
}

// The gate product tanh(a) * sigmoid(b) with one division: within 5.5 ulp
// of the exact product (the separate form's product is within 5 ulp) over
// 4M pairs, log-uniform over the magnitudes where both functions vary, both
// signs, denormal results included; special values as the separate form.
TEST(VecMath, TanhTimesSigmoid) {
  std::mt19937_64 rng(7);
  double worst = 0, worst_fast = 0;
  float worst_a = 0, worst_b = 0, worst_fast_a = 0, worst_fast_b = 0;
  for (int i = 0; i < (1 << 22); ++i) {
    auto draw = [&](int exponents) {
      const float m = 1.0f + static_cast<float>(rng() % 8388608) / 8388608.0f;
      return std::ldexp(m, static_cast<int>(rng() % exponents) - 30) * ((rng() & 1) ? -1.0f : 1.0f);
    };
    const float a = std::min(draw(35), 12.0f), b = std::max(std::min(draw(38), 110.0f), -110.0f);
    const long double exact = tanhl(a) / (1 + expl(-static_cast<long double>(b)));
    const double e = UlpError(TanhTimesSigmoid(a, b), exact);
    if (e > worst) std::tie(worst, worst_a, worst_b) = std::tie(e, a, b);
    const double f = UlpError(TanhTimesSigmoid<true>(a, b), exact);
    if (f > worst_fast) std::tie(worst_fast, worst_fast_a, worst_fast_b) = std::tie(f, a, b);
  }
  EXPECT_LE(worst, 5.5) << "at a = " << worst_a << ", b = " << worst_b;
  EXPECT_LE(worst_fast, 11.0) << "fast form at a = " << worst_fast_a << ", b = " << worst_fast_b;
  const float inf = INFINITY, nan = NAN;
  for (float a : {0.0f, -0.0f, 1e-40f, -0.3f, 5.0f, inf, -inf, nan}) {
    for (float b : {0.0f, -0.0f, 1e-40f, -3.0f, 50.0f, -120.0f, inf, -inf, nan}) {
      const float separate = Tanh(a) * Sigmoid(b);
      for (const float gate : {TanhTimesSigmoid(a, b), TanhTimesSigmoid<true>(a, b)}) {
        if (std::isnan(separate)) {
          EXPECT_TRUE(std::isnan(gate)) << a << " " << b;
        } else {
          EXPECT_NEAR(gate, separate, 1e-6f * std::fabs(separate) + 1e-44f) << a << " " << b;
          EXPECT_EQ(std::signbit(gate), std::signbit(separate)) << a << " " << b;
        }
      }
    }
  }
}

TEST(VecMath, SpecialValues) {
  const float inf = INFINITY, nan = NAN;
  EXPECT_EQ(Exp(0.0f), 1.0f);
  EXPECT_EQ(Exp(-inf), 0.0f);
  EXPECT_EQ(Exp(inf), inf);
  EXPECT_EQ(Exp(89.0f), inf);
  EXPECT_EQ(Exp(-104.0f), 0.0f);
  EXPECT_GT(Exp(-100.0f), 0.0f);  // a denormal
  EXPECT_TRUE(std::isnan(Exp(nan)));
  EXPECT_EQ(Log(1.0f), 0.0f);
  EXPECT_EQ(Log(0.0f), -inf);
  EXPECT_EQ(Log(-0.0f), -inf);
  EXPECT_EQ(Log(inf), inf);
  EXPECT_TRUE(std::isnan(Log(-1.0f)));
  EXPECT_TRUE(std::isnan(Log(-inf)));
  EXPECT_TRUE(std::isnan(Log(nan)));
  EXPECT_NEAR(Log(std::numeric_limits<float>::denorm_min()), -103.2789f, 1e-4f);
  EXPECT_EQ(Tanh(inf), 1.0f);
  EXPECT_EQ(Tanh(-inf), -1.0f);
  EXPECT_TRUE(std::signbit(Tanh(-0.0f)));
  EXPECT_EQ(Sigmoid(inf), 1.0f);
  EXPECT_EQ(Sigmoid(-inf), 0.0f);
  EXPECT_EQ(Sigmoid(0.0f), 0.5f);
  EXPECT_EQ(Erf(inf), 1.0f);
  EXPECT_EQ(Erf(-inf), -1.0f);
  EXPECT_TRUE(std::signbit(Erf(-0.0f)));
  EXPECT_EQ(GeluErf(inf), inf);
  EXPECT_TRUE(std::isnan(GeluErf(-inf)));  // as the reference: -inf * 0
  EXPECT_TRUE(std::isnan(GeluTanh(-inf)));
  EXPECT_EQ(GeluTanh(inf), inf);
  EXPECT_TRUE(std::isnan(Sin(inf)));
  EXPECT_TRUE(std::isnan(Cos(-inf)));
  EXPECT_TRUE(std::signbit(Sin(-0.0f)));
  EXPECT_EQ(Cos(0.0f), 1.0f);
  for (float v : {nan, inf, -inf, -0.0f, 0.5f, -0.5f, 1.5f, 2.5f, -2.5f, 8388607.5f, 1e20f}) {
    for (Fn f : {kFloorF, kCeilF, kRoundF}) {
      const float want = static_cast<float>(Ref(f, v));
      const float got = Eval(f, v);
      if (std::isnan(want)) {
        EXPECT_TRUE(std::isnan(got));
      } else {
        EXPECT_EQ(std::memcmp(&got, &want, 4), 0) << f << " " << v;  // the sign of zero too
      }
    }
  }
  EXPECT_EQ(Exp(0.0), 1.0);
  EXPECT_EQ(Exp(-INFINITY), 0.0);
  EXPECT_EQ(Exp(710.0), INFINITY);
  EXPECT_GT(Exp(-745.0), 0.0);
  EXPECT_EQ(Log(0.0), -INFINITY);
  EXPECT_TRUE(std::isnan(Log(-1e-300)));
  EXPECT_NEAR(Log(4.9406564584124654e-324), -744.44007192138122, 1e-12);
  EXPECT_EQ(Tanh(-INFINITY), -1.0);
  EXPECT_TRUE(std::signbit(Tanh(-0.0)));
  EXPECT_EQ(Sigmoid(-INFINITY), 0.0);
}

}  // namespace
}  // namespace tfn::vm
