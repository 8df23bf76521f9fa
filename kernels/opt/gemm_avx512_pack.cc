// AVX-512 packing routines of the GEMM (gemm_internal.h): row-major B blocks
// copied with zmm loads and stores, A micro-panels by rows (the kernels read
// A in place where they can: these are the other cases), and the transposing
// cases (a transposed A or B) done 16x16 at a time in registers. Same target
// attribute scheme as gemm_avx512.cc: only called after
// __builtin_cpu_supports("avx512f").
#include "kernels/opt/gemm_internal.h"

#if defined(__x86_64__)
#include <immintrin.h>

#define TFN_AVX512 __attribute__((target("avx512f,avx512vl,fma")))

// GCC 12 reports the deliberately undefined pass-through operand inside
// <avx512fintrin.h>'s shuffles (_mm512_undefined_ps) as maybe-uninitialized
// once they are inlined here: a false positive.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

namespace tfn::kernels::gemm_internal {
namespace {

inline __mmask16 FirstLanes(int64_t n) {  // lanes [0, n) of 16, n in [0, 16]
  return n >= 16 ? static_cast<__mmask16>(0xFFFF) : static_cast<__mmask16>((1u << n) - 1);
}

// Transposes the 16x16 matrix whose row i is r[i], in place: afterwards r[c]
// holds column c. Pairs are interleaved, then 4x4 blocks within 128-bit lanes,
// then the lanes themselves.
TFN_AVX512 __attribute__((always_inline)) inline void Transpose16(__m512* r) {
  __m512 t[16], u[16];
#pragma GCC unroll 8
  for (int i = 0; i < 16; i += 2) {
    t[i] = _mm512_unpacklo_ps(r[i], r[i + 1]);
    t[i + 1] = _mm512_unpackhi_ps(r[i], r[i + 1]);
  }
  // u[4g + j], lane L: column 4L + j of rows 4g..4g+3.
#pragma GCC unroll 4
  for (int g = 0; g < 4; ++g) {
    u[4 * g + 0] = _mm512_shuffle_ps(t[4 * g], t[4 * g + 2], 0x44);
    u[4 * g + 1] = _mm512_shuffle_ps(t[4 * g], t[4 * g + 2], 0xEE);
    u[4 * g + 2] = _mm512_shuffle_ps(t[4 * g + 1], t[4 * g + 3], 0x44);
    u[4 * g + 3] = _mm512_shuffle_ps(t[4 * g + 1], t[4 * g + 3], 0xEE);
  }
  // Column 4L + j = lane L of u[j], u[4 + j], u[8 + j], u[12 + j].
#pragma GCC unroll 4
  for (int j = 0; j < 4; ++j) {
    const __m512 v0 = _mm512_shuffle_f32x4(u[j], u[4 + j], 0x44);
    const __m512 v1 = _mm512_shuffle_f32x4(u[j], u[4 + j], 0xEE);
    const __m512 v2 = _mm512_shuffle_f32x4(u[8 + j], u[12 + j], 0x44);
    const __m512 v3 = _mm512_shuffle_f32x4(u[8 + j], u[12 + j], 0xEE);
    r[j] = _mm512_shuffle_f32x4(v0, v2, 0x88);
    r[4 + j] = _mm512_shuffle_f32x4(v0, v2, 0xDD);
    r[8 + j] = _mm512_shuffle_f32x4(v1, v3, 0x88);
    r[12 + j] = _mm512_shuffle_f32x4(v1, v3, 0xDD);
  }
}

// Loads `rows` rows (r[i] = src + i*ld, `kmask` lanes) of 16, zero past them,
// and transposes them: r[c] then holds element c of every row.
TFN_AVX512 __attribute__((always_inline)) inline void LoadTransposed(const float* src, int64_t ld,
                                                                     int64_t rows, __mmask16 kmask,
                                                                     __m512* r) {
#pragma GCC unroll 16
  for (int i = 0; i < 16; ++i) {
    r[i] = i < rows ? _mm512_maskz_loadu_ps(kmask, src + i * ld) : _mm512_setzero_ps();
  }
  Transpose16(r);
}

}  // namespace

// Packs by rows (the AVX-512 kernels have IsaKernels::a_rows): row i of the
// micro-panel at out + i*ARowStride(kc).
TFN_AVX512 void PackAAvx512(int m, int64_t kc, const float* A, int64_t rs, int64_t cs, float* out) {
  const int64_t ld = ARowStride(kc);
  if (cs == 1) {  // op(A) rows are contiguous: copies
    for (int i = 0; i < m; ++i) {
      for (int64_t k0 = 0; k0 < kc; k0 += 16) {
        const __mmask16 kmask = FirstLanes(kc - k0 < 16 ? kc - k0 : 16);
        _mm512_mask_storeu_ps(out + i * ld + k0, kmask,
                              _mm512_maskz_loadu_ps(kmask, A + i * rs + k0));
      }
    }
    return;
  }
  // op(A) columns are contiguous (rs == 1): 16 k x m rows at a time, transposed.
  for (int64_t k0 = 0; k0 < kc; k0 += 16) {
    const int64_t n = kc - k0 < 16 ? kc - k0 : 16;
    __m512 r[16];
    LoadTransposed(A + k0 * cs, cs, n, FirstLanes(m), r);
#pragma GCC unroll 16
    for (int i = 0; i < 16; ++i) {
      if (i < m) _mm512_mask_storeu_ps(out + i * ld + k0, FirstLanes(n), r[i]);
    }
  }
}

TFN_AVX512 void PackBAvx512(int64_t kc, int64_t nc, const float* B, int64_t rs, int64_t cs,
                            float* out, int64_t panel_stride) {
  const int64_t full = nc / 32, rest = nc % 32;
  if (cs == 1) {  // row-major: row by row, each source row read once
    const __mmask16 m0 = FirstLanes(rest), m1 = FirstLanes(rest > 16 ? rest - 16 : 0);
    for (int64_t k = 0; k < kc; ++k) {
      const float* src = B + k * rs;
      float* dst = out + k * 32;
      for (int64_t q = 0; q < full; ++q) {
        _mm512_storeu_ps(dst + q * panel_stride, _mm512_loadu_ps(src + q * 32));
        _mm512_storeu_ps(dst + q * panel_stride + 16, _mm512_loadu_ps(src + q * 32 + 16));
      }
      if (rest) {
        float* d = dst + full * panel_stride;
        _mm512_storeu_ps(d, _mm512_maskz_loadu_ps(m0, src + full * 32));
        _mm512_storeu_ps(d + 16, _mm512_maskz_loadu_ps(m1, src + full * 32 + 16));
      }
    }
    return;
  }
  // Transposed B (rs == 1): 16 columns x 16 k at a time.
  for (int64_t j0 = 0; j0 < nc; j0 += 16) {
    const int64_t cols = nc - j0 < 16 ? nc - j0 : 16;
    float* dst = out + (j0 / 32) * panel_stride + (j0 % 32);
    for (int64_t k0 = 0; k0 < kc; k0 += 16) {
      const int64_t n = kc - k0 < 16 ? kc - k0 : 16;
      __m512 r[16];
      LoadTransposed(B + j0 * cs + k0, cs, cols, FirstLanes(n), r);
#pragma GCC unroll 16
      for (int c = 0; c < 16; ++c) {
        if (c < n) _mm512_storeu_ps(dst + (k0 + c) * 32, r[c]);
      }
    }
  }
  if (nc % 32 != 0 && nc % 32 <= 16) {  // the upper half of a ragged last panel
    float* dst = out + (nc / 32) * panel_stride + 16;
    for (int64_t k = 0; k < kc; ++k) _mm512_storeu_ps(dst + k * 32, _mm512_setzero_ps());
  }
}

}  // namespace tfn::kernels::gemm_internal

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

#endif  // __x86_64__
