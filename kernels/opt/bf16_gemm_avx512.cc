// The AVX-512 microkernels of the bf16 GEMM (bf16_gemm_internal.h): a
// 12 x 32 float32 tile in 24 zmm accumulators; per depth pair, two 64-byte
// loads of the B panel and, for each row, a broadcast of A's pair and two
// vdpbf16ps (AVX512-BF16), or, without BF16, the pair's two values widened
// to float32 and four FMAs. Tiles of fewer rows, or of 16 columns, have
// their own instances (no work on padding). Built with per-function targets
// so the library still runs on CPUs without them: bf16_gemm.cc calls each
// only when CPUID (or, in AOT objects, the target) has its features.
#if defined(__x86_64__)
#include <immintrin.h>

#include <cstring>

#include "kernels/opt/avx512_target.h"  // after immintrin.h: GCC 12 header warning
#include "kernels/opt/bf16_gemm_internal.h"

#define TFN_BF16_TARGET __attribute__((target("avx512f,avx512bw,avx512vl,avx512bf16")))
#define TFN_AVX512F_TARGET __attribute__((target("avx512f,avx512vl,fma")))

namespace tfn::kernels::bf16_gemm_internal {

namespace {

// Rows [0, R) of the tile; columns [0, 16 * V) (V = 1: a narrow panel).
template <int R, int V>
TFN_BF16_TARGET __attribute__((always_inline)) inline void Tile(int64_t k2, const uint16_t* a,
                                                                int64_t lda, const uint16_t* b,
                                                                float* c) {
  __m512 acc[R][V];
#pragma GCC unroll 12
  for (int r = 0; r < R; ++r) {
    for (int v = 0; v < V; ++v) acc[r][v] = _mm512_setzero_ps();
  }
  for (int64_t g = 0; g < k2; ++g) {
    __m512i bv[V];
    for (int v = 0; v < V; ++v) bv[v] = _mm512_loadu_si512(b + g * kBf16PanelRowElems + 32 * v);
#pragma GCC unroll 12
    for (int r = 0; r < R; ++r) {
      int32_t pair;
      std::memcpy(&pair, a + r * lda + 2 * g, 4);
      const __m512i av = _mm512_set1_epi32(pair);
      for (int v = 0; v < V; ++v) {
        acc[r][v] = _mm512_dpbf16_ps(acc[r][v], (__m512bh)av, (__m512bh)bv[v]);
      }
    }
  }
#pragma GCC unroll 12
  for (int r = 0; r < R; ++r) {
    for (int v = 0; v < V; ++v) _mm512_storeu_ps(c + r * kBNr + 16 * v, acc[r][v]);
  }
}

// The same tile without BF16: b's pairs split into their even (low half,
// shifted up) and odd (high half, masked) values as float32, A's pair
// likewise; the odd product is added first, as vdpbf16ps adds it, and each
// FMA rounds once like its add (a product of two bfloat16 values is exact).
template <int R, int V>
TFN_AVX512F_TARGET __attribute__((always_inline)) inline void TileF(int64_t k2, const uint16_t* a,
                                                                    int64_t lda, const uint16_t* b,
                                                                    float* c) {
  __m512 acc[R][V];
#pragma GCC unroll 12
  for (int r = 0; r < R; ++r) {
    for (int v = 0; v < V; ++v) acc[r][v] = _mm512_setzero_ps();
  }
  const __m512i high = _mm512_set1_epi32(static_cast<int32_t>(0xffff0000u));
  for (int64_t g = 0; g < k2; ++g) {
    __m512 even[V], odd[V];
    for (int v = 0; v < V; ++v) {
      const __m512i w = _mm512_loadu_si512(b + g * kBf16PanelRowElems + 32 * v);
      even[v] = _mm512_castsi512_ps(_mm512_slli_epi32(w, 16));
      odd[v] = _mm512_castsi512_ps(_mm512_and_si512(w, high));
    }
#pragma GCC unroll 12
    for (int r = 0; r < R; ++r) {
      uint32_t pair;
      std::memcpy(&pair, a + r * lda + 2 * g, 4);
      const __m512 ae = _mm512_castsi512_ps(_mm512_set1_epi32(static_cast<int32_t>(pair << 16)));
      const __m512 ao =
          _mm512_castsi512_ps(_mm512_set1_epi32(static_cast<int32_t>(pair & 0xffff0000u)));
      for (int v = 0; v < V; ++v) {
        acc[r][v] = _mm512_fmadd_ps(ae, even[v], _mm512_fmadd_ps(ao, odd[v], acc[r][v]));
      }
    }
  }
#pragma GCC unroll 12
  for (int r = 0; r < R; ++r) {
    for (int v = 0; v < V; ++v) _mm512_storeu_ps(c + r * kBNr + 16 * v, acc[r][v]);
  }
}

template <int R>
TFN_BF16_TARGET void RowsBf16(int64_t k2, const uint16_t* a, int64_t lda, const uint16_t* b,
                              float* c, bool half) {
  if (half) {
    Tile<R, 1>(k2, a, lda, b, c);
  } else {
    Tile<R, 2>(k2, a, lda, b, c);
  }
}

template <int R>
TFN_AVX512F_TARGET void RowsF(int64_t k2, const uint16_t* a, int64_t lda, const uint16_t* b,
                              float* c, bool half) {
  if (half) {
    TileF<R, 1>(k2, a, lda, b, c);
  } else {
    TileF<R, 2>(k2, a, lda, b, c);
  }
}

using RowsFn = void (*)(int64_t, const uint16_t*, int64_t, const uint16_t*, float*, bool);

}  // namespace

void Bf16KernelAvx512Bf16(int64_t k2, const uint16_t* a, int64_t lda, const uint16_t* b, float* c,
                          int rows, bool half) {
  static constexpr RowsFn kByRows[kBMr] = {RowsBf16<1>, RowsBf16<2>,  RowsBf16<3>,  RowsBf16<4>,
                                           RowsBf16<5>, RowsBf16<6>,  RowsBf16<7>,  RowsBf16<8>,
                                           RowsBf16<9>, RowsBf16<10>, RowsBf16<11>, RowsBf16<12>};
  kByRows[rows - 1](k2, a, lda, b, c, half);
}

void Bf16KernelAvx512F(int64_t k2, const uint16_t* a, int64_t lda, const uint16_t* b, float* c,
                       int rows, bool half) {
  static constexpr RowsFn kByRows[kBMr] = {RowsF<1>, RowsF<2>,  RowsF<3>,  RowsF<4>,
                                           RowsF<5>, RowsF<6>,  RowsF<7>,  RowsF<8>,
                                           RowsF<9>, RowsF<10>, RowsF<11>, RowsF<12>};
  kByRows[rows - 1](k2, a, lda, b, c, half);
}

}  // namespace tfn::kernels::bf16_gemm_internal
#endif
