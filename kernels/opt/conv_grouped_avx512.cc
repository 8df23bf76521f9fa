// AVX-512 direct kernel for grouped convolutions with few channels per group
// (Cg == Cout_g == k, k = 2, 4 or 8: ResNeXt's 32x4d, RegNet's group width
// 8), filter in HWIO ([KH, KW, k, Cout]), any window, stride, dilation and
// padding. The implicit GEMM runs such a conv as G GEMMs of k output columns
// in a 32-wide panel, 4-16x the work it needs (ResNeXt-50's 3x3 layers ran at
// 6 GFLOP/s). Here 16 output channels are one vector, k/16 of a group each
// lane: for each tap the 16 input channels at the same offset are loaded
// once, and for each ci < k the lane of group input channel ci is spread
// over its group's lanes by one permute (vpermps), then multiplied by the
// filter row (tap, ci), which is contiguous over the output channels:
//
//   y[p, c] = sum over taps t, ci < k of x[p + t, (c / k) * k + ci] * f[t, ci, c]
//
// Four output pixels of a row at a time share the filter loads. Taps in the
// padding are skipped. Each output sums its taps in window order and ci in
// order, then adds bias and residual and applies relu/clip in registers
// (other activations: the caller's row pass).
#include "kernels/opt/conv_internal.h"

#if defined(__x86_64__)
#include <immintrin.h>

#include <algorithm>

#include "kernels/opt/avx512_target.h"

namespace tfn::kernels::conv_internal {
namespace {

constexpr int kPix = 4;  // output pixels per step

struct Gc {
  const ConvGeom* g;
  const float* x;
  const float* f;
  float* y;
  const GemmEpilogue* ep;
  int32_t act;
};

// Output pixels [ow, ow + P) of row (n, oh), channels [c, c + 16).
// kChecked: some of the pixels' window columns may be in the padding.
template <int K, int P, bool kChecked>
TFN_AVX512_INLINE void Pixels(const Gc& d, int64_t n, int64_t oh, int64_t ow, int64_t c,
                              const __m512i (&idx)[K]) {
  const ConvGeom& g = *d.g;
  const int64_t C = g.C;
  __m512 acc[P];
#pragma GCC unroll 4
  for (int q = 0; q < P; ++q) acc[q] = _mm512_setzero_ps();
  for (int64_t kh = 0; kh < g.KH; ++kh) {
    const int64_t ih = oh * g.sh - g.pt + kh * g.dh;
    if (ih < 0 || ih >= g.H) continue;
    const float* xrow = d.x + (n * g.H + ih) * g.W * C + c;
    for (int64_t kw = 0; kw < g.KW; ++kw) {
      const float* frow = d.f + ((kh * g.KW + kw) * K) * g.Cout + c;
      __m512 xv[P];
      bool in[P];
#pragma GCC unroll 4
      for (int q = 0; q < P; ++q) {
        const int64_t iw = (ow + q) * g.sw - g.pl + kw * g.dw;
        in[q] = !kChecked || (iw >= 0 && iw < g.W);
        xv[q] = in[q] ? _mm512_loadu_ps(xrow + iw * C) : _mm512_setzero_ps();
      }
#pragma GCC unroll 8
      for (int ci = 0; ci < K; ++ci) {
        const __m512 w = _mm512_loadu_ps(frow + ci * g.Cout);
#pragma GCC unroll 4
        for (int q = 0; q < P; ++q) {
          if (in[q]) acc[q] = _mm512_fmadd_ps(_mm512_permutexvar_ps(idx[ci], xv[q]), w, acc[q]);
        }
      }
    }
  }
  const GemmEpilogue& ep = *d.ep;
  const __m512 bias = ep.bias ? _mm512_loadu_ps(ep.bias + c) : _mm512_setzero_ps();
#pragma GCC unroll 4
  for (int q = 0; q < P; ++q) {
    const int64_t at = ((n * g.OH + oh) * g.OW + ow + q) * g.Cout + c;
    __m512 v = acc[q];
    if (ep.bias) v = _mm512_add_ps(v, bias);
    if (ep.residual) v = _mm512_add_ps(v, _mm512_loadu_ps(ep.residual + at));
    _mm512_storeu_ps(d.y + at, ReluOrClip(v, d.act, ep.lo, ep.hi));
  }
}

template <int K>
TFN_AVX512 void Rows(const ConvGeom& g, const float* x, const float* f, float* y,
                     const GemmEpilogue& ep, int32_t act, int64_t r0, int64_t r1) {
  const Gc d{&g, x, f, y, &ep, act};
  // idx[ci] lane l: input lane (l / K) * K + ci, its group's channel ci.
  __m512i idx[K];
  for (int ci = 0; ci < K; ++ci) {
    alignas(64) int32_t lanes[16];
    for (int l = 0; l < 16; ++l) lanes[l] = l / K * K + ci;
    idx[ci] = _mm512_load_si512(lanes);
  }
  for (int64_t r = r0; r < r1; ++r) {
    const int64_t n = r / g.OH, oh = r % g.OH;
    // Pixels [lo, hi) have every window column inside the input.
    const int64_t lo = std::min(g.OW, (g.pl + g.sw - 1) / g.sw);
    const int64_t last = g.W - 1 - (g.KW - 1) * g.dw + g.pl;  // the last inside origin
    const int64_t hi = last < 0 ? lo : std::max(lo, std::min(g.OW, last / g.sw + 1));
    int64_t ow = 0;
    for (; ow < lo; ++ow) {
      for (int64_t c = 0; c < g.Cout; c += 16) Pixels<K, 1, true>(d, n, oh, ow, c, idx);
    }
    for (; ow + kPix <= hi; ow += kPix) {
      for (int64_t c = 0; c < g.Cout; c += 16) Pixels<K, kPix, false>(d, n, oh, ow, c, idx);
    }
    for (; ow < g.OW; ++ow) {
      for (int64_t c = 0; c < g.Cout; c += 16) Pixels<K, 1, true>(d, n, oh, ow, c, idx);
    }
  }
}

}  // namespace

DepthwiseRowsFn SmallGroupConvAvx512(const ConvGeom& g) {
  if (g.G <= 1 || g.Cg != g.Cout_g || g.Cout != g.C || g.C % 16 != 0) return nullptr;
  switch (g.Cg) {
    case 2:
      return Rows<2>;
    case 4:
      return Rows<4>;
    case 8:
      return Rows<8>;
    default:
      return nullptr;
  }
}

}  // namespace tfn::kernels::conv_internal

#else  // !__x86_64__

namespace tfn::kernels::conv_internal {
DepthwiseRowsFn SmallGroupConvAvx512(const ConvGeom&) { return nullptr; }
}  // namespace tfn::kernels::conv_internal

#endif
