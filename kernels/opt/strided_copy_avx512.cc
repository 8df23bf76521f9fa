// AVX-512 interleave of 2, 3 or 4 contiguous rows of 4-byte elements into
// one (strided_copy.h's tile case with a short innermost output dim): an
// image's NCHW -> NHWC change at a model's input (C = 3), ShuffleNet's
// channel shuffle in NHWC (groups of 2). The tile loop copied these one
// element at a time (60 us for a 224x224 RGB image, ~1.5 cycles per
// element); here 16 elements of each row are loaded and merged by two-source
// permutes (vpermt2d) into ni full output vectors.
#include "kernels/opt/strided_copy_internal.h"

#if defined(__x86_64__)
#include <immintrin.h>

#include "kernels/opt/avx512_target.h"

namespace tfn::kernels::strided_internal {
namespace {

TFN_AVX512_INLINE __m512i Indices(const int32_t (&lanes)[16]) { return _mm512_loadu_si512(lanes); }

// pairs[v] lane l: element 8 v + l / 2 of row l % 2 (a, then b at +16).
TFN_AVX512_INLINE void PairIndices(__m512i (&pairs)[2]) {
  for (int v = 0; v < 2; ++v) {
    int32_t lanes[16];
    for (int l = 0; l < 16; ++l) lanes[l] = 8 * v + l / 2 + (l % 2) * 16;
    pairs[v] = Indices(lanes);
  }
}

TFN_AVX512 void Interleave2(const uint32_t* src, int64_t si, int64_t n, uint32_t* out) {
  __m512i pairs[2];
  PairIndices(pairs);
  for (int64_t j = 0; j + 16 <= n; j += 16) {
    const __m512i r0 = _mm512_loadu_si512(src + j), r1 = _mm512_loadu_si512(src + si + j);
    _mm512_storeu_si512(out + 2 * j, _mm512_permutex2var_epi32(r0, pairs[0], r1));
    _mm512_storeu_si512(out + 2 * j + 16, _mm512_permutex2var_epi32(r0, pairs[1], r1));
  }
}

// Output vector v (elements 16 v + l = 3 jj + ii): rows 0 and 1 first, then
// row 2 into the lanes of ii == 2.
TFN_AVX512 void Interleave3(const uint32_t* src, int64_t si, int64_t n, uint32_t* out) {
  __m512i first[3], second[3];
  for (int v = 0; v < 3; ++v) {
    int32_t a[16], b[16];
    for (int l = 0; l < 16; ++l) {
      const int e = 16 * v + l, jj = e / 3, ii = e % 3;
      a[l] = ii == 0 ? jj : ii == 1 ? 16 + jj : 0;
      b[l] = ii == 2 ? 16 + jj : l;
    }
    first[v] = Indices(a);
    second[v] = Indices(b);
  }
  for (int64_t j = 0; j + 16 <= n; j += 16) {
    const __m512i r0 = _mm512_loadu_si512(src + j), r1 = _mm512_loadu_si512(src + si + j),
                  r2 = _mm512_loadu_si512(src + 2 * si + j);
#pragma GCC unroll 3
    for (int v = 0; v < 3; ++v) {
      const __m512i t = _mm512_permutex2var_epi32(r0, first[v], r1);
      _mm512_storeu_si512(out + 3 * j + 16 * v, _mm512_permutex2var_epi32(t, second[v], r2));
    }
  }
}

// Rows 0/1 and 2/3 interleaved in pairs, then the pairs merged: output
// vector v takes elements 4 v .. 4 v + 3 of each row.
TFN_AVX512 void Interleave4(const uint32_t* src, int64_t si, int64_t n, uint32_t* out) {
  __m512i pairs[2], quads[2];  // quads[q]: output vector q of a pair of pair vectors
  PairIndices(pairs);
  for (int q = 0; q < 2; ++q) {  // lane l: element 4 q + l / 4 of row l % 4 of the pairs
    int32_t lanes[16];
    for (int l = 0; l < 16; ++l) lanes[l] = 8 * q + l / 4 * 2 + l % 2 + (l % 4 >= 2 ? 16 : 0);
    quads[q] = Indices(lanes);
  }
  for (int64_t j = 0; j + 16 <= n; j += 16) {
    const __m512i r0 = _mm512_loadu_si512(src + j), r1 = _mm512_loadu_si512(src + si + j),
                  r2 = _mm512_loadu_si512(src + 2 * si + j),
                  r3 = _mm512_loadu_si512(src + 3 * si + j);
#pragma GCC unroll 2
    for (int h = 0; h < 2; ++h) {
      const __m512i a = _mm512_permutex2var_epi32(r0, pairs[h], r1);
      const __m512i b = _mm512_permutex2var_epi32(r2, pairs[h], r3);
      _mm512_storeu_si512(out + 4 * j + 32 * h, _mm512_permutex2var_epi32(a, quads[0], b));
      _mm512_storeu_si512(out + 4 * j + 32 * h + 16, _mm512_permutex2var_epi32(a, quads[1], b));
    }
  }
}

}  // namespace

bool InterleaveRowsAvx512(const uint32_t* src, int64_t si, int ni, int64_t n, uint32_t* out) {
  switch (ni) {
    case 2:
      Interleave2(src, si, n, out);
      break;
    case 3:
      Interleave3(src, si, n, out);
      break;
    case 4:
      Interleave4(src, si, n, out);
      break;
    default:
      return false;
  }
  for (int64_t j = n / 16 * 16; j < n; ++j) {
    for (int i = 0; i < ni; ++i) out[j * ni + i] = src[i * si + j];
  }
  return true;
}

}  // namespace tfn::kernels::strided_internal

#else  // !__x86_64__

namespace tfn::kernels::strided_internal {
bool InterleaveRowsAvx512(const uint32_t*, int64_t, int, int64_t, uint32_t*) { return false; }
}  // namespace tfn::kernels::strided_internal

#endif
