// AVX-512 rows of float32 softmax, log_softmax and layer_norm for the
// runtime (normalize.cc calls them when opt::Avx512KernelsActive()): the
// arithmetic of normalize.cc's generic rows (the row maximum with NaN
// propagated, vm::Exp's polynomial, sums in 16 double lanes merged pairwise,
// one rounding of each result computed in double) in explicit vectors, with
// one difference: softmax terms below 1.7e-38 are 0 (see ExpFlushTiny). GCC
// compiles the generic rows' NaN checks as scalar code and keeps their
// double lanes on the stack: 1.4-1.8 ns per element, where attention's
// softmax rows of 64-200 floats need a fraction of that (bench/RESULTS.md).
// AOT bitcode keeps the generic rows, which clang vectorizes whole.
#include "kernels/opt/normalize_avx512.h"

#include "kernels/opt/simd.h"

#if defined(TFN_OPT_X86)
#include <immintrin.h>

#include <cmath>

#include "kernels/opt/avx512_target.h"

// GCC 12 also calls _mm512_extractf64x4_pd's internal _mm256_undefined_pd()
// uninitialized (its own header again).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif

namespace tfn::kernels::opt {
namespace {

#define TFN_N512 TFN_OPT_TARGET_AVX512 __attribute__((always_inline)) inline

TFN_N512 __mmask16 TailMask(int64_t n) {
  return n >= 16 ? static_cast<__mmask16>(0xFFFF) : static_cast<__mmask16>((1u << n) - 1);
}

// vm::Exp on 16 lanes (vec_math.h: the clamps let NaN through, exp(x) =
// p * 2^n with n = round(x / ln2), 2^n applied as two normal factors),
// except that exp(x) for x < -87 (below 1.7e-38) is 0: a denormal result
// costs a microcode assist, and masked attention rows (-inf or -1e9 before
// the softmax) made every other element one: 2x slower rows.
TFN_N512 __m512 ExpFlushTiny(__m512 x) {
  const __mmask16 normal = _mm512_cmp_ps_mask(x, _mm512_set1_ps(-87.0f), _CMP_NLT_UQ);
  x = _mm512_max_ps(_mm512_set1_ps(-87.0f), x);  // max(a, b) is b when either is NaN
  x = _mm512_min_ps(_mm512_set1_ps(89.0f), x);
  const __m512 magic = _mm512_set1_ps(12582912.0f);
  const __m512 z = _mm512_fmadd_ps(x, _mm512_set1_ps(1.44269504f), magic);
  const __m512 n = _mm512_sub_ps(z, magic);
  const __m512i ni = _mm512_sub_epi32(_mm512_castps_si512(z), _mm512_castps_si512(magic));
  __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693359375f), x);
  r = _mm512_fnmadd_ps(n, _mm512_set1_ps(-2.12194440e-4f), r);
  __m512 p = _mm512_set1_ps(1.392769054e-03f);
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(8.364385433e-03f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(4.166654538e-02f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.666656960e-01f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(0.5f));
  p = _mm512_add_ps(_mm512_fmadd_ps(p, _mm512_mul_ps(r, r), r), _mm512_set1_ps(1.0f));
  const __m512i n1 = _mm512_srai_epi32(ni, 1), n2 = _mm512_sub_epi32(ni, n1);
  const __m512i bias = _mm512_set1_epi32(127);
  const __m512 s1 = _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_add_epi32(n1, bias), 23));
  const __m512 s2 = _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_add_epi32(n2, bias), 23));
  return _mm512_maskz_mov_ps(normal, _mm512_mul_ps(_mm512_mul_ps(p, s1), s2));
}

// 16 double lanes (lo: lanes 0-7, hi: 8-15) merged as the generic rows do:
// lane j += lane j + w for w = 8, 4, 2, 1.
TFN_N512 double MergeLanes(__m512d lo, __m512d hi) {
  const __m512d s8 = _mm512_add_pd(lo, hi);
  const __m256d s4 = _mm256_add_pd(_mm512_castpd512_pd256(s8), _mm512_extractf64x4_pd(s8, 1));
  const __m128d s2 = _mm_add_pd(_mm256_castpd256_pd128(s4), _mm256_extractf128_pd(s4, 1));
  return _mm_cvtsd_f64(_mm_add_sd(s2, _mm_unpackhi_pd(s2, s2)));
}

TFN_N512 void AddLanes(__m512 v, __m512d& lo, __m512d& hi) {
  lo = _mm512_add_pd(lo, _mm512_cvtps_pd(_mm512_castps512_ps256(v)));
  hi = _mm512_add_pd(hi, _mm512_cvtps_pd(_mm512_extractf32x8_ps(v, 1)));
}

// Rounds 16 doubles (lo, hi) to floats and stores the first `m` of them.
TFN_N512 void Store16(float* y, __mmask16 m, __m512d lo, __m512d hi) {
  const __m512 v =
      _mm512_insertf32x8(_mm512_castps256_ps512(_mm512_cvtpd_ps(lo)), _mm512_cvtpd_ps(hi), 1);
  _mm512_mask_storeu_ps(y, m, v);
}

TFN_OPT_TARGET_AVX512 void SoftmaxRow(const float* x, float* y, int64_t n, bool log) {
  // The maximum; a NaN anywhere makes it NaN.
  __m512 mx = _mm512_set1_ps(-INFINITY);
  __mmask16 nan = 0;
  for (int64_t i = 0; i < n; i += 16) {
    const __m512 v = _mm512_mask_loadu_ps(_mm512_set1_ps(-INFINITY), TailMask(n - i), x + i);
    mx = _mm512_max_ps(v, mx);
    nan |= _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
  }
  const float m = nan ? NAN : _mm512_reduce_max_ps(mx);
  const __m512 mv = _mm512_set1_ps(m);
  // e = exp(x - m) (stored for softmax) summed in double: 16 lanes over the
  // whole vectors, then the tail one element at a time.
  __m512d lo = _mm512_setzero_pd(), hi = _mm512_setzero_pd();
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512 e = ExpFlushTiny(_mm512_sub_ps(_mm512_loadu_ps(x + i), mv));
    if (!log) _mm512_storeu_ps(y + i, e);
    AddLanes(e, lo, hi);
  }
  double sum = MergeLanes(lo, hi);
  if (i < n) {
    alignas(64) float tail[16];
    const __mmask16 t = TailMask(n - i);
    _mm512_store_ps(tail, ExpFlushTiny(_mm512_sub_ps(_mm512_maskz_loadu_ps(t, x + i), mv)));
    for (int64_t k = 0; k < n - i; ++k) sum += static_cast<double>(tail[k]);
    if (!log) _mm512_mask_storeu_ps(y + i, t, _mm512_load_ps(tail));
  }
  if (log) {  // y = (x - m) - log(sum), in double
    const __m512d md = _mm512_set1_pd(static_cast<double>(m));
    const __m512d lse = _mm512_set1_pd(std::log(sum));
    for (int64_t k = 0; k < n; k += 16) {
      const __mmask16 t = TailMask(n - k);
      const __m512 v = _mm512_maskz_loadu_ps(t, x + k);
      const __m512d a = _mm512_cvtps_pd(_mm512_castps512_ps256(v));
      const __m512d b = _mm512_cvtps_pd(_mm512_extractf32x8_ps(v, 1));
      Store16(y + k, t, _mm512_sub_pd(_mm512_sub_pd(a, md), lse),
              _mm512_sub_pd(_mm512_sub_pd(b, md), lse));
    }
  } else {  // y = e * (1 / sum), in double
    const __m512d inv = _mm512_set1_pd(1.0 / sum);
    for (int64_t k = 0; k < n; k += 16) {
      const __mmask16 t = TailMask(n - k);
      const __m512 v = _mm512_maskz_loadu_ps(t, y + k);
      Store16(y + k, t, _mm512_mul_pd(_mm512_cvtps_pd(_mm512_castps512_ps256(v)), inv),
              _mm512_mul_pd(_mm512_cvtps_pd(_mm512_extractf32x8_ps(v, 1)), inv));
    }
  }
}

// (x - mean) * inv_std * scale + bias for 8 elements, in double.
TFN_N512 __m512d Normalize8(__m256 x, __m256 scale, __m256 bias, __m512d mean, __m512d inv_std) {
  const __m512d c = _mm512_mul_pd(_mm512_sub_pd(_mm512_cvtps_pd(x), mean), inv_std);
  return _mm512_fmadd_pd(c, _mm512_cvtps_pd(scale), _mm512_cvtps_pd(bias));
}

// One pass of sums shifted by x[0] in double, then
// y = (x - mean) * inv_std * scale + bias in double, rounded once.
TFN_OPT_TARGET_AVX512 void LayerNormRow(const float* x, const float* scale, const float* bias,
                                        float* y, int64_t n, double epsilon) {
  const double x0 = static_cast<double>(x[0]);
  const __m512d x0v = _mm512_set1_pd(x0);
  __m512d s1lo = _mm512_setzero_pd(), s1hi = s1lo, s2lo = s1lo, s2hi = s1lo;
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512 v = _mm512_loadu_ps(x + i);
    const __m512d a = _mm512_sub_pd(_mm512_cvtps_pd(_mm512_castps512_ps256(v)), x0v);
    const __m512d b = _mm512_sub_pd(_mm512_cvtps_pd(_mm512_extractf32x8_ps(v, 1)), x0v);
    s1lo = _mm512_add_pd(s1lo, a);
    s1hi = _mm512_add_pd(s1hi, b);
    s2lo = _mm512_fmadd_pd(a, a, s2lo);
    s2hi = _mm512_fmadd_pd(b, b, s2hi);
  }
  double t1 = MergeLanes(s1lo, s1hi), t2 = MergeLanes(s2lo, s2hi);
  for (; i < n; ++i) {
    const double d = static_cast<double>(x[i]) - x0;
    t1 += d;
    t2 += d * d;
  }
  const LayerNormStats stats = StatsOfShiftedSums(t1, t2, n, x0, epsilon);
  const __m512d meanv = _mm512_set1_pd(stats.mean);
  const __m512d inv_std = _mm512_set1_pd(stats.inv_std);
  for (int64_t k = 0; k < n; k += 16) {
    const __mmask16 t = TailMask(n - k);
    const __m512 v = _mm512_maskz_loadu_ps(t, x + k);
    const __m512 s = _mm512_maskz_loadu_ps(t, scale + k);
    const __m512 b = _mm512_maskz_loadu_ps(t, bias + k);
    Store16(y + k, t,
            Normalize8(_mm512_castps512_ps256(v), _mm512_castps512_ps256(s),
                       _mm512_castps512_ps256(b), meanv, inv_std),
            Normalize8(_mm512_extractf32x8_ps(v, 1), _mm512_extractf32x8_ps(s, 1),
                       _mm512_extractf32x8_ps(b, 1), meanv, inv_std));
  }
}

#undef TFN_N512

}  // namespace

bool SoftmaxRowsAvx512(const float* x, float* y, int64_t cols, int64_t begin, int64_t end,
                       bool log) {
  if (!Avx512KernelsActive()) return false;
  for (int64_t r = begin; r < end; ++r) SoftmaxRow(x + r * cols, y + r * cols, cols, log);
  return true;
}

bool LayerNormRowsAvx512(const float* x, const float* scale, const float* bias, float* y,
                         int64_t cols, double epsilon, int64_t begin, int64_t end) {
  if (!Avx512KernelsActive()) return false;
  for (int64_t r = begin; r < end; ++r) {
    LayerNormRow(x + r * cols, scale, bias, y + r * cols, cols, epsilon);
  }
  return true;
}

}  // namespace tfn::kernels::opt

#else  // not the x86-64 runtime: normalize.cc's generic rows

namespace tfn::kernels::opt {

bool SoftmaxRowsAvx512(const float*, float*, int64_t, int64_t, int64_t, bool) { return false; }

bool LayerNormRowsAvx512(const float*, const float*, const float*, float*, int64_t, double, int64_t,
                         int64_t) {
  return false;
}

}  // namespace tfn::kernels::opt

#endif
