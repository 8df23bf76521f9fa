// The AVX2 microkernel of QGemm (qgemm_internal.h), exact without VNNI: the
// bytes are widened to 16 bits first (A zero-extended, B sign-extended) and
// multiplied with vpmaddwd, whose pairwise int32 sums cannot saturate
// (vpmaddubsw's 16-bit sums could). Each pass computes 2 rows x 16 columns
// of the tile over the whole depth; accumulators hold the two pair sums of
// each column, added together at the end. qgemm.cc calls it only when CPUID
// reports avx2.
#if defined(__x86_64__)
#include <immintrin.h>

#include <cstring>

#include "kernels/opt/qgemm_internal.h"

#define TFN_AVX2 __attribute__((target("avx2,fma")))

namespace tfn::kernels::qgemm_internal {
namespace {

// A row's 4 bytes of group g as four int16, repeated in all four 64-bit lanes.
TFN_AVX2 inline __m256i ARow(const uint8_t* a) {
  int32_t quad;
  std::memcpy(&quad, a, 4);
  const __m128i w = _mm_cvtepu8_epi16(_mm_cvtsi32_si128(quad));
  return _mm256_broadcastq_epi64(w);
}

// Eight columns' totals from two accumulators of 4 columns x 2 pair sums.
TFN_AVX2 inline __m256i Totals(__m256i lo, __m256i hi) {
  // hadd per 128-bit lane gives columns 0 1 4 5 | 2 3 6 7.
  return _mm256_permute4x64_epi64(_mm256_hadd_epi32(lo, hi), 0xD8);
}

}  // namespace

TFN_AVX2 void QKernelAvx2(int64_t k4, const uint8_t* a, int64_t lda, const int8_t* b, int32_t* c,
                          int rows) {
  for (int r = 0; r < rows; r += 2) {  // (an odd last row's partner is readable: rows <= kQMr)
    for (int half = 0; half < 2; ++half) {
      __m256i acc0[4], acc1[4];
      for (int q = 0; q < 4; ++q) acc0[q] = acc1[q] = _mm256_setzero_si256();
      const int8_t* bh = b + 64 * half;
      for (int64_t g = 0; g < k4; ++g) {
        const __m256i a0 = ARow(a + r * lda + 4 * g);
        const __m256i a1 = ARow(a + (r + 1) * lda + 4 * g);
        const int8_t* bg = bh + g * kQPanelGroupBytes;
#pragma GCC unroll 4
        for (int q = 0; q < 4; ++q) {
          // Columns 4q .. 4q+3 of this half: 16 bytes, as 16 int16.
          const __m256i bw =
              _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(bg + 16 * q)));
          acc0[q] = _mm256_add_epi32(acc0[q], _mm256_madd_epi16(bw, a0));
          acc1[q] = _mm256_add_epi32(acc1[q], _mm256_madd_epi16(bw, a1));
        }
      }
      int32_t* c0 = c + r * kQNr + 16 * half;
      int32_t* c1 = c0 + kQNr;
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(c0), Totals(acc0[0], acc0[1]));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(c0 + 8), Totals(acc0[2], acc0[3]));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(c1), Totals(acc1[0], acc1[1]));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(c1 + 8), Totals(acc1[2], acc1[3]));
    }
  }
}

TFN_AVX2 void StoreTileAvx2(const int32_t* tile, const QTileFix& fix, const QGemmOutput& out,
                            int64_t i0, int64_t j0, int rows, int cols) {
  StoreTile(tile, fix, out, i0, j0, rows, cols);
}

}  // namespace tfn::kernels::qgemm_internal

#endif  // __x86_64__
