// Optimized unary elementwise kernel (tfn_opt_unary): contiguous loops that
// GCC/clang vectorize, compiled for SSE2, AVX2 and AVX-512 (simd.h) for
// float32 and for the baseline only for the colder dtypes, split over the
// context's pool for large tensors.
//
// Float ops use kernels/opt/vec_math.h (exp, log, tanh, sigmoid, erf, gelu,
// sin, cos; accuracy stated there) or exact formulations (neg, abs, sign,
// relu, floor, ceil, round, sqrt, rsqrt: bit-identical to the reference).
// float64 erf, sin, cos and gelu(erf) call libm, like the reference. sin
// and cos recompute arguments beyond vm::kTrigMaxArg with libm. Integer and
// bool ops use the reference's scalar semantics (scalar_ops.h), in loops that
// vectorize as well.
#include <cmath>
#include <cstring>

#include "kernels/opt/opt_kernels.h"
#include "kernels/opt/simd.h"
#include "kernels/opt/vec_math.h"
#include "kernels/ref/ref_kernels.h"
#include "kernels/ref/scalar_ops.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace tfn::kernels::opt {
namespace {

struct UnaryJob {
  OpId op;
  bool gelu_tanh;
  const void* x;
  void* y;
  int64_t begin, end;
};

template <class T, class F>
TFN_OPT_INLINE void Map(const T* x, T* y, int64_t n, F f) {
  for (int64_t i = 0; i < n; ++i) y[i] = f(x[i]);
}

// sqrt is exact in IEEE arithmetic, but std::sqrt sets errno, which keeps
// GCC from vectorizing it: SSE2's sqrtps does it four at a time.
template <class T, bool kRecip>
TFN_OPT_INLINE void SqrtLoop(const T* x, T* y, int64_t n) {
  int64_t i = 0;
#if defined(__SSE2__)
  if constexpr (std::is_same_v<T, float>) {
    for (; i + 4 <= n; i += 4) {
      __m128 r = _mm_sqrt_ps(_mm_loadu_ps(x + i));
      if constexpr (kRecip) r = _mm_div_ps(_mm_set1_ps(1.0f), r);
      _mm_storeu_ps(y + i, r);
    }
  } else {
    for (; i + 2 <= n; i += 2) {
      __m128d r = _mm_sqrt_pd(_mm_loadu_pd(x + i));
      if constexpr (kRecip) r = _mm_div_pd(_mm_set1_pd(1.0), r);
      _mm_storeu_pd(y + i, r);
    }
  }
#endif
  for (; i < n; ++i) y[i] = kRecip ? T(1) / std::sqrt(x[i]) : std::sqrt(x[i]);
}

// sin/cos: vectorized blocks, then libm for the rare arguments beyond kTrigMaxArg.
template <class T, bool kCos>
TFN_OPT_INLINE void TrigLoop(const T* x, T* y, int64_t n) {
  if constexpr (std::is_same_v<T, float>) {
    constexpr int64_t kBlock = 256;
    for (int64_t b = 0; b < n; b += kBlock) {
      const int64_t m = n - b < kBlock ? n - b : kBlock;
      int big = 0;
      for (int64_t i = 0; i < m; ++i) {
        const float v = x[b + i];
        y[b + i] = kCos ? vm::Cos(v) : vm::Sin(v);
        big |= vm::Abs(v) > vm::kTrigMaxArg;
      }
      if (big) {
        for (int64_t i = 0; i < m; ++i) {
          const float v = x[b + i];
          if (vm::Abs(v) > vm::kTrigMaxArg) y[b + i] = kCos ? std::cos(v) : std::sin(v);
        }
      }
    }
  } else {
    for (int64_t i = 0; i < n; ++i) y[i] = kCos ? std::cos(x[i]) : std::sin(x[i]);
  }
}

template <class T>
TFN_OPT_INLINE void FloatUnaryBody(const UnaryJob& job) {
  const T* x = static_cast<const T*>(job.x) + job.begin;
  T* y = static_cast<T*>(job.y) + job.begin;
  const int64_t n = job.end - job.begin;
  switch (job.op) {
    case OpId::kNeg:
      return Map(x, y, n, [](T v) { return -v; });
    case OpId::kAbs:
      return Map(x, y, n, [](T v) { return v < 0 ? -v : v; });
    case OpId::kSign:
      return Map(x, y, n, [](T v) { return v > 0 ? T(1) : v < 0 ? T(-1) : v; });
    case OpId::kRelu:
      return Map(x, y, n, [](T v) { return v < 0 ? T(0) : v; });
    case OpId::kExp:
      return Map(x, y, n, [](T v) { return vm::Exp(v); });
    case OpId::kLog:
      return Map(x, y, n, [](T v) { return vm::Log(v); });
    case OpId::kSqrt:
      return SqrtLoop<T, false>(x, y, n);
    case OpId::kRsqrt:
      return SqrtLoop<T, true>(x, y, n);
    case OpId::kTanh:
      return Map(x, y, n, [](T v) { return vm::Tanh(v); });
    case OpId::kSigmoid:
      return Map(x, y, n, [](T v) { return vm::Sigmoid(v); });
    case OpId::kFloor:
      return Map(x, y, n, [](T v) { return vm::Floor(v); });
    case OpId::kCeil:
      return Map(x, y, n, [](T v) { return vm::Ceil(v); });
    case OpId::kRound:
      return Map(x, y, n, [](T v) { return vm::Round(v); });
    case OpId::kSin:
      return TrigLoop<T, false>(x, y, n);
    case OpId::kCos:
      return TrigLoop<T, true>(x, y, n);
    case OpId::kGelu:
      if (job.gelu_tanh) return Map(x, y, n, [](T v) { return vm::GeluTanh(v); });
      if constexpr (std::is_same_v<T, float>) {
        return Map(x, y, n, [](T v) { return vm::GeluErf(v); });
      }
      break;
    case OpId::kErf:
      if constexpr (std::is_same_v<T, float>) return Map(x, y, n, [](T v) { return vm::Erf(v); });
      break;
    default:
      break;
  }
  // float64 erf and gelu(erf), and anything else: the reference's scalar code.
  const OpId op = job.op;
  const bool gelu_tanh = job.gelu_tanh;
  for (int64_t i = 0; i < n; ++i) y[i] = ApplyUnary<T>(op, x[i], gelu_tanh);
}

TFN_OPT_MULTIVERSION(UnaryF32, UnaryJob, FloatUnaryBody<float>)
TFN_OPT_BASELINE(UnaryF64, UnaryJob, FloatUnaryBody<double>)

// int32/int64/bool: wrapping arithmetic (the reference's results without its
// signed-overflow UB on INT_MIN); SSE2 is enough for these memory-bound loops.
template <class T>
TFN_OPT_INLINE void IntUnaryBody(const UnaryJob& job) {
  const T* x = static_cast<const T*>(job.x) + job.begin;
  T* y = static_cast<T*>(job.y) + job.begin;
  const int64_t n = job.end - job.begin;
  if constexpr (std::is_same_v<T, bool>) {
    if (job.op == OpId::kLogicalNot) return Map(x, y, n, [](bool v) { return !v; });
  } else {
    using U = std::make_unsigned_t<T>;
    switch (job.op) {
      case OpId::kNeg:
        return Map(x, y, n, [](T v) { return static_cast<T>(U(0) - U(v)); });
      case OpId::kAbs:
        return Map(x, y, n, [](T v) { return v < 0 ? static_cast<T>(U(0) - U(v)) : v; });
      case OpId::kSign:
        return Map(x, y, n, [](T v) { return T(v > 0) - T(v < 0); });
      case OpId::kRelu:
        return Map(x, y, n, [](T v) { return v < 0 ? T(0) : v; });
      default:
        break;
    }
  }
  const OpId op = job.op;
  for (int64_t i = 0; i < n; ++i) y[i] = ApplyUnary<T>(op, x[i], false);
}

TFN_OPT_BASELINE(IntUnaryI32, UnaryJob, IntUnaryBody<int32_t>)
TFN_OPT_BASELINE(IntUnaryI64, UnaryJob, IntUnaryBody<int64_t>)
TFN_OPT_BASELINE(IntUnaryBool, UnaryJob, IntUnaryBody<bool>)

template <class T>
void IntUnary(const UnaryJob& job) {
  if constexpr (std::is_same_v<T, int32_t>) IntUnaryI32(job);
  if constexpr (std::is_same_v<T, int64_t>) IntUnaryI64(job);
  if constexpr (std::is_same_v<T, bool>) IntUnaryBool(job);
}

}  // namespace

void UnaryRowF32(const void* params, const void* const* inputs, const int8_t* /*strides*/,
                 void* output, int64_t n) {
  const auto& p = *static_cast<const ElementwiseParams*>(params);
  UnaryF32(UnaryJob{static_cast<OpId>(p.op), p.gelu_tanh != 0, inputs[0], output, 0, n});
}

}  // namespace tfn::kernels::opt

namespace tfn::kernels {

TFN_KERNEL(tfn_opt_unary) {
  const auto& p = *static_cast<const ElementwiseParams*>(params);
  opt::UnaryJob job{static_cast<OpId>(p.op),  p.gelu_tanh != 0, inputs[0].data, outputs[0].data, 0,
                    NumElementsOf(outputs[0])};
  if (NumElementsOf(inputs[0]) != job.end) return TFN_KERNEL_BAD_SHAPE;
  if (inputs[0].dtype != outputs[0].dtype) return TFN_KERNEL_UNSUPPORTED;  // not a T -> T op
  return DispatchDType(inputs[0].dtype, [&](auto tag) {
    using T = decltype(tag);
    if (job.op == OpId::kIdentity) {
      if (job.y != job.x && job.end > 0) std::memcpy(job.y, job.x, job.end * sizeof(T));
      return TFN_KERNEL_OK;
    }
    auto run = [&job](int64_t begin, int64_t end) {
      opt::UnaryJob part = job;
      part.begin = begin;
      part.end = end;
      if constexpr (std::is_same_v<T, float>) {
        opt::UnaryF32(part);
      } else if constexpr (std::is_same_v<T, double>) {
        opt::UnaryF64(part);
      } else {
        opt::IntUnary<T>(part);
      }
    };
    ParallelFor(ctx, job.end, opt::kMinParallelChunk, run);
    return TFN_KERNEL_OK;
  });
}

}  // namespace tfn::kernels
