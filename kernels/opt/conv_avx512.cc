// AVX-512 tile kernels of the convolution (conv_internal.h): 14 output
// pixels x 32 output channels, 28 zmm accumulators, like the GEMM's 14x32
// microkernel, but A is broadcast straight from the input rows (implicit
// im2col) instead of a packed micro-panel; and narrow 14 x 16, 14 x 8 and
// 14 x 24 variants for panels with at most 16, 8 or 24 valid columns (Cout
// 16, the tail of Cout 48, LeNet's 6, MobileNet's 24, ...). Compiled with a
// per-function target attribute; conv.cc only calls these when GemmActiveIsa() is AVX-512.
#include "kernels/opt/conv_internal.h"

#if defined(__x86_64__)
#include <immintrin.h>

#include <utility>

#include "kernels/opt/avx512_target.h"

namespace tfn::kernels::conv_internal {
namespace {

constexpr int kMr = 14;

// acc[v][i] += the products of pixels [Lo, Lo+N) over every tap. Called per
// half of a narrow tile: the N row pointers of a tap then stay in registers
// (14 of them do not fit in the 16 general registers, and a narrow tile has
// too few multiply-adds per broadcast to hide the reloads).
template <int M, int NV, int Lo, int N>
TFN_AVX512 __attribute__((always_inline)) inline void Accumulate(const ConvTile& t,
                                                                 __m512 (&acc)[NV][M]) {
  const float* b = t.b;
  const float* const* rows = t.rows;
  // The prefetch hint, in the first pass only.
  const char* pf = Lo == 0 ? t.prefetch : nullptr;
  const char* const pf_end = pf ? pf + 64 * t.prefetch_lines : nullptr;
  for (int64_t tap = 0; tap < t.taps; ++tap, rows += kConvRowStride) {
    const float* p[N];
#pragma GCC unroll 16
    for (int i = 0; i < N; ++i) p[i] = rows[Lo + i];
    for (int64_t ci = 0; ci < t.cg; ++ci, b += 32) {
      if (pf != pf_end) {
        _mm_prefetch(pf, _MM_HINT_T1);
        pf += 64;
      }
      __m512 bv[NV];
#pragma GCC unroll 2
      for (int v = 0; v < NV; ++v) bv[v] = _mm512_loadu_ps(b + 16 * v);
#pragma GCC unroll 16
      for (int i = 0; i < N; ++i) {
        const __m512 a = _mm512_set1_ps(p[i][ci]);
#pragma GCC unroll 2
        for (int v = 0; v < NV; ++v) acc[v][Lo + i] = _mm512_fmadd_ps(a, bv[v], acc[v][Lo + i]);
      }
    }
  }
}

// NV 16-column vectors per row: 2 (the 32-column panel) or 1 (its first 16
// columns: the narrow kernel for a panel with at most 16 valid columns).
template <int M, int NV>
TFN_AVX512 void TileAvx512(const ConvTile& t) {
  __m512 acc[NV][M];
#pragma GCC unroll 16
  for (int i = 0; i < M; ++i) {
#pragma GCC unroll 2
    for (int v = 0; v < NV; ++v) acc[v][i] = _mm512_setzero_ps();
  }
  // The full panel has 2 multiply-adds per broadcast: reloading spilled
  // pointers is hidden, one pass. The narrow one goes in two halves.
  constexpr int kHalf = NV == 1 && M > 8 ? (M + 1) / 2 : M;
  Accumulate<M, NV, 0, kHalf>(t, acc);
  if constexpr (kHalf < M) Accumulate<M, NV, kHalf, M - kHalf>(t, acc);
  const int64_t n = t.n_valid;
  __mmask16 mask[2];
  mask[0] = n >= 16 ? 0xFFFF : static_cast<__mmask16>((1u << n) - 1);
  mask[1] = n <= 16 ? 0 : n >= 32 ? 0xFFFF : static_cast<__mmask16>((1u << (n - 16)) - 1);
  __m512 bias[NV];
#pragma GCC unroll 2
  for (int v = 0; v < NV; ++v) {
    bias[v] = t.bias ? _mm512_maskz_loadu_ps(mask[v], t.bias + 16 * v) : _mm512_setzero_ps();
  }
  const __m512 zero = _mm512_setzero_ps();
  const __m512 lo = _mm512_set1_ps(t.lo), hi = _mm512_set1_ps(t.hi);
#pragma GCC unroll 16
  for (int i = 0; i < M; ++i) {
#pragma GCC unroll 2
    for (int v = 0; v < NV; ++v) {
      __m512 x = acc[v][i];
      if (t.bias) x = _mm512_add_ps(x, bias[v]);
      if (t.residual) {
        x = _mm512_add_ps(x, _mm512_maskz_loadu_ps(mask[v], t.residual + i * t.ldr + 16 * v));
      }
      // max_ps(a, b) / min_ps(a, b) return b when either is NaN (and for
      // max(0, -0)): NaN and -0 pass, as in the reference.
      if (t.act == kActRelu) {
        x = _mm512_max_ps(zero, x);
      } else if (t.act == kActClip) {
        x = _mm512_min_ps(hi, _mm512_max_ps(lo, x));
      }
      _mm512_mask_storeu_ps(t.c + i * t.ldc + 16 * v, mask[v], x);
    }
  }
}

// acc[i] += the products of pixels [Lo, Lo+N) over every tap (see Accumulate).
template <int M, int Lo, int N>
TFN_AVX512 __attribute__((always_inline)) inline void AccumulateX8(const ConvTile& t,
                                                                   __m256 (&acc)[M]) {
  const float* b = t.b;
  const float* const* rows = t.rows;
  for (int64_t tap = 0; tap < t.taps; ++tap, rows += kConvRowStride) {
    const float* p[N];
#pragma GCC unroll 16
    for (int i = 0; i < N; ++i) p[i] = rows[Lo + i];
    for (int64_t ci = 0; ci < t.cg; ++ci, b += 32) {
      const __m256 bv = _mm256_loadu_ps(b);
#pragma GCC unroll 16
      for (int i = 0; i < N; ++i) {
        acc[Lo + i] = _mm256_fmadd_ps(_mm256_set1_ps(p[i][ci]), bv, acc[Lo + i]);
      }
    }
  }
}

// The narrowest kernel: 8 columns in ymm registers (AVX-512VL masks), for
// panels with at most 8 valid columns (LeNet's 6 output channels).
template <int M>
TFN_AVX512 void TileAvx512x8(const ConvTile& t) {
  __m256 acc[M];
#pragma GCC unroll 16
  for (int i = 0; i < M; ++i) acc[i] = _mm256_setzero_ps();
  constexpr int kHalf = M > 8 ? (M + 1) / 2 : M;  // two halves, as the narrow kernel
  AccumulateX8<M, 0, kHalf>(t, acc);
  if constexpr (kHalf < M) AccumulateX8<M, kHalf, M - kHalf>(t, acc);
  const __mmask8 mask = static_cast<__mmask8>((1u << t.n_valid) - 1);
  const __m256 bias = t.bias ? _mm256_maskz_loadu_ps(mask, t.bias) : _mm256_setzero_ps();
  const __m256 zero = _mm256_setzero_ps();
  const __m256 lo = _mm256_set1_ps(t.lo), hi = _mm256_set1_ps(t.hi);
#pragma GCC unroll 16
  for (int i = 0; i < M; ++i) {
    __m256 x = acc[i];
    if (t.bias) x = _mm256_add_ps(x, bias);
    if (t.residual) x = _mm256_add_ps(x, _mm256_maskz_loadu_ps(mask, t.residual + i * t.ldr));
    if (t.act == kActRelu) {
      x = _mm256_mask_mov_ps(x, _mm256_cmp_ps_mask(x, zero, _CMP_LT_OQ), zero);
    } else if (t.act == kActClip) {
      x = _mm256_mask_mov_ps(x, _mm256_cmp_ps_mask(x, lo, _CMP_LT_OQ), lo);
      x = _mm256_mask_mov_ps(x, _mm256_cmp_ps_mask(x, hi, _CMP_GT_OQ), hi);
    }
    _mm256_mask_storeu_ps(t.c + i * t.ldc, mask, x);
  }
}

// acc0/acc1[i] += the products of pixels [Lo, Lo+N) (see Accumulate), for
// the first 16 and the next 8 columns of the panel.
template <int M, int Lo, int N>
TFN_AVX512 __attribute__((always_inline)) inline void AccumulateX24(const ConvTile& t,
                                                                    __m512 (&acc0)[M],
                                                                    __m256 (&acc1)[M]) {
  const float* b = t.b;
  const float* const* rows = t.rows;
  for (int64_t tap = 0; tap < t.taps; ++tap, rows += kConvRowStride) {
    const float* p[N];
#pragma GCC unroll 16
    for (int i = 0; i < N; ++i) p[i] = rows[Lo + i];
    for (int64_t ci = 0; ci < t.cg; ++ci, b += 32) {
      const __m512 b0 = _mm512_loadu_ps(b);
      const __m256 b1 = _mm256_loadu_ps(b + 16);
#pragma GCC unroll 16
      for (int i = 0; i < N; ++i) {
        const __m512 a = _mm512_set1_ps(p[i][ci]);
        acc0[Lo + i] = _mm512_fmadd_ps(a, b0, acc0[Lo + i]);
        acc1[Lo + i] = _mm256_fmadd_ps(_mm512_castps512_ps256(a), b1, acc1[Lo + i]);
      }
    }
  }
}

// 24 columns, a zmm and a ymm register per pixel, for panels with 17..24
// valid columns (MobileNet-v2's 24-channel projections): a ymm multiply-add
// costs half a zmm one on AMD's Zen 4 (which splits zmm operations in two),
// so this does 3/4 of the full kernel's work there.
template <int M>
TFN_AVX512 void TileAvx512x24(const ConvTile& t) {
  __m512 acc0[M];
  __m256 acc1[M];
#pragma GCC unroll 16
  for (int i = 0; i < M; ++i) acc0[i] = _mm512_setzero_ps(), acc1[i] = _mm256_setzero_ps();
  constexpr int kHalf = M > 8 ? (M + 1) / 2 : M;  // two halves, as the narrow kernel
  AccumulateX24<M, 0, kHalf>(t, acc0, acc1);
  if constexpr (kHalf < M) AccumulateX24<M, kHalf, M - kHalf>(t, acc0, acc1);
  const __mmask8 mask = static_cast<__mmask8>((1u << (t.n_valid - 16)) - 1);
  const __m512 bias0 = t.bias ? _mm512_loadu_ps(t.bias) : _mm512_setzero_ps();
  const __m256 bias1 = t.bias ? _mm256_maskz_loadu_ps(mask, t.bias + 16) : _mm256_setzero_ps();
  const __m512 zero = _mm512_setzero_ps();
  const __m512 lo = _mm512_set1_ps(t.lo), hi = _mm512_set1_ps(t.hi);
#pragma GCC unroll 16
  for (int i = 0; i < M; ++i) {
    __m512 x = acc0[i];
    __m256 y = acc1[i];
    if (t.bias) x = _mm512_add_ps(x, bias0), y = _mm256_add_ps(y, bias1);
    if (t.residual) {
      x = _mm512_add_ps(x, _mm512_loadu_ps(t.residual + i * t.ldr));
      y = _mm256_add_ps(y, _mm256_maskz_loadu_ps(mask, t.residual + i * t.ldr + 16));
    }
    // As TileAvx512: max/min return their second operand for NaN and -0.
    if (t.act == kActRelu) {
      x = _mm512_max_ps(zero, x);
      y = _mm256_max_ps(_mm512_castps512_ps256(zero), y);
    } else if (t.act == kActClip) {
      x = _mm512_min_ps(hi, _mm512_max_ps(lo, x));
      y = _mm256_min_ps(_mm512_castps512_ps256(hi), _mm256_max_ps(_mm512_castps512_ps256(lo), y));
    }
    _mm512_storeu_ps(t.c + i * t.ldc, x);
    _mm256_mask_storeu_ps(t.c + i * t.ldc + 16, mask, y);
  }
}

template <int... Ms>
constexpr ConvIsa MakeIsa(std::integer_sequence<int, Ms...>) {
  ConvIsa k{};
  k.name = "avx512";
  k.mr = kMr;
  k.nr = 32;
  ((k.tile[Ms + 1] = TileAvx512<Ms + 1, 2>), ...);
  ((k.narrow[Ms + 1] = TileAvx512<Ms + 1, 1>), ...);
  ((k.narrow8[Ms + 1] = TileAvx512x8<Ms + 1>), ...);
  ((k.narrow24[Ms + 1] = TileAvx512x24<Ms + 1>), ...);
  return k;
}

const ConvIsa kAvx512 = MakeIsa(std::make_integer_sequence<int, kMr>());

}  // namespace

const ConvIsa* ConvAvx512() { return &kAvx512; }

}  // namespace tfn::kernels::conv_internal

#else  // !__x86_64__

namespace tfn::kernels::conv_internal {
const ConvIsa* ConvAvx512() { return nullptr; }
}  // namespace tfn::kernels::conv_internal

#endif
