// What the AVX-512 kernel files (gemm_avx512.cc, conv_avx512.cc,
// conv_depthwise*_avx512.cc, conv_grouped_avx512.cc, strided_copy_avx512.cc)
// share: the per-function target attribute, so the library itself still
// builds (and runs, through the other kernels) for generic x86-64 and the
// callers pick these only on a CPU with AVX-512; the warning GCC 12 gives
// inside its own header; and the direct convs' relu/clip in registers.
// Include it after <immintrin.h>, in x86-64 code only.
#pragma once

#include "kernels/params.h"

#define TFN_AVX512 __attribute__((target("avx512f,avx512vl,fma")))
#define TFN_AVX512_INLINE TFN_AVX512 __attribute__((always_inline)) inline

namespace tfn::kernels {

// The activations the direct conv kernels apply in registers: relu, or clip
// to [lo, hi]; any other act returns v. max_ps(a, b) / min_ps(a, b) return b
// when either is NaN (and for -0 vs 0): v passes through as in the
// reference ops.
TFN_AVX512_INLINE __m512 ReluOrClip(__m512 v, int32_t act, float lo, float hi) {
  if (act == kActRelu) return _mm512_max_ps(_mm512_setzero_ps(), v);
  if (act == kActClip)
    return _mm512_min_ps(_mm512_set1_ps(hi), _mm512_max_ps(_mm512_set1_ps(lo), v));
  return v;
}

}  // namespace tfn::kernels

// GCC 12 warns that _mm512_max_ps's internal _mm512_undefined_ps() "may be
// used uninitialized" (a false positive in its own header).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
