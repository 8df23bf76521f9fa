// AVX2+FMA tile kernels of the convolution (conv_internal.h): 6 output
// pixels x 16 output channels (12 ymm accumulators, the GEMM's Haswell
// shape), called twice per 32-column panel. A is broadcast straight from the
// input rows. Per-function target attribute; conv.cc calls these only when
// GemmActiveIsa() is AVX2.
#include "kernels/opt/conv_internal.h"

#if defined(__x86_64__)
#include <immintrin.h>

#define TFN_AVX2 __attribute__((target("avx2,fma")))

namespace tfn::kernels::conv_internal {
namespace {

constexpr int kMr = 6;

template <int M>
TFN_AVX2 void TileAvx2(const ConvTile& t) {
  __m256 acc0[M], acc1[M];
#pragma GCC unroll 8
  for (int i = 0; i < M; ++i) acc0[i] = acc1[i] = _mm256_setzero_ps();
  const float* b = t.b;
  const float* const* rows = t.rows;
  for (int64_t tap = 0; tap < t.taps; ++tap, rows += kConvRowStride) {
    const float* p[M];
#pragma GCC unroll 8
    for (int i = 0; i < M; ++i) p[i] = rows[i];
    for (int64_t ci = 0; ci < t.cg; ++ci, b += 32) {
      const __m256 b0 = _mm256_loadu_ps(b);
      const __m256 b1 = _mm256_loadu_ps(b + 8);
#pragma GCC unroll 8
      for (int i = 0; i < M; ++i) {
        const __m256 a = _mm256_broadcast_ss(p[i] + ci);
        acc0[i] = _mm256_fmadd_ps(a, b0, acc0[i]);
        acc1[i] = _mm256_fmadd_ps(a, b1, acc1[i]);
      }
    }
  }
  const int n = static_cast<int>(t.n_valid < 16 ? t.n_valid : 16);
  const __m256i iota = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  const __m256i mk0 = _mm256_cmpgt_epi32(_mm256_set1_epi32(n), iota);
  const __m256i mk1 = _mm256_cmpgt_epi32(_mm256_set1_epi32(n - 8), iota);
  __m256 bias0 = _mm256_setzero_ps(), bias1 = _mm256_setzero_ps();
  if (t.bias) {
    bias0 = _mm256_maskload_ps(t.bias, mk0);
    bias1 = _mm256_maskload_ps(t.bias + 8, mk1);
  }
  const __m256 zero = _mm256_setzero_ps();
  const __m256 lo = _mm256_set1_ps(t.lo), hi = _mm256_set1_ps(t.hi);
#pragma GCC unroll 8
  for (int i = 0; i < M; ++i) {
    __m256 v0 = acc0[i], v1 = acc1[i];
    if (t.bias) {
      v0 = _mm256_add_ps(v0, bias0);
      v1 = _mm256_add_ps(v1, bias1);
    }
    if (t.residual) {
      const float* r = t.residual + i * t.ldr;
      v0 = _mm256_add_ps(v0, _mm256_maskload_ps(r, mk0));
      v1 = _mm256_add_ps(v1, _mm256_maskload_ps(r + 8, mk1));
    }
    // Ordered compares are false for NaN: NaN passes, as in the reference.
    if (t.act == kActRelu) {
      v0 = _mm256_blendv_ps(v0, zero, _mm256_cmp_ps(v0, zero, _CMP_LT_OQ));
      v1 = _mm256_blendv_ps(v1, zero, _mm256_cmp_ps(v1, zero, _CMP_LT_OQ));
    } else if (t.act == kActClip) {
      v0 = _mm256_blendv_ps(v0, lo, _mm256_cmp_ps(v0, lo, _CMP_LT_OQ));
      v1 = _mm256_blendv_ps(v1, lo, _mm256_cmp_ps(v1, lo, _CMP_LT_OQ));
      v0 = _mm256_blendv_ps(v0, hi, _mm256_cmp_ps(v0, hi, _CMP_GT_OQ));
      v1 = _mm256_blendv_ps(v1, hi, _mm256_cmp_ps(v1, hi, _CMP_GT_OQ));
    }
    float* c = t.c + i * t.ldc;
    if (n == 16) {
      _mm256_storeu_ps(c, v0);
      _mm256_storeu_ps(c + 8, v1);
    } else {
      _mm256_maskstore_ps(c, mk0, v0);
      _mm256_maskstore_ps(c + 8, mk1, v1);
    }
  }
}

constexpr ConvIsa MakeIsa() {
  ConvIsa k{};
  k.name = "avx2";
  k.mr = kMr;
  k.nr = 16;
  k.tile[1] = TileAvx2<1>;
  k.tile[2] = TileAvx2<2>;
  k.tile[3] = TileAvx2<3>;
  k.tile[4] = TileAvx2<4>;
  k.tile[5] = TileAvx2<5>;
  k.tile[6] = TileAvx2<6>;
  return k;
}

const ConvIsa kAvx2 = MakeIsa();

}  // namespace

const ConvIsa* ConvAvx2() { return &kAvx2; }

}  // namespace tfn::kernels::conv_internal

#else  // !__x86_64__

namespace tfn::kernels::conv_internal {
const ConvIsa* ConvAvx2() { return nullptr; }
}  // namespace tfn::kernels::conv_internal

#endif
