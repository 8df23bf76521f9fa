// AVX-512 depthwise convolution for any window, stride, dilation and padding
// (the 5x5 and 7x7 layers of MobileNet-v3, MnasNet, EfficientNet and
// ConvNeXt, the dilated ones of DeepLab), and the channel tail of every
// depthwise conv: conv_depthwise.cc's vector-extension body keeps windows of
// up to 9 taps in its interior sweep and ran larger ones pixel by pixel
// through a pointer list (30 GFLOP/s on MobileNet-v3's 5x5 layers), and
// channels past C / 16 * 16 the same way.
//
// Order: per output row, per block of 16 channels (the last one masked, so
// no channel is done twice and nothing past C is read or written), the row's
// pixels in chunks of 8, 4 and 1 whose window columns are all inside the
// input, and checked chunks at the borders. A chunk loads each filter vector
// once for its pixels. Window rows in the padding are skipped per row,
// columns per pixel. Each pixel sums its taps in window order from zero,
// then adds bias and residual and applies relu/clip in registers (other
// activations: the caller's row pass), on any chunking and thread count.
#include "kernels/opt/conv_internal.h"

#if defined(__x86_64__)
#include <immintrin.h>

#include <algorithm>

#include "kernels/opt/avx512_target.h"

namespace tfn::kernels::conv_internal {
namespace {

struct Dk {
  const ConvGeom* g;
  const float* x;
  const float* f;
  float* y;
  const GemmEpilogue* ep;
  int32_t act;
};

// A 16-lane load; with kMasked only the lanes of m (the rest read as zero
// and are not touched in memory).
template <bool kMasked>
TFN_AVX512_INLINE __m512 Load(__mmask16 m, const float* p) {
  return kMasked ? _mm512_maskz_loadu_ps(m, p) : _mm512_loadu_ps(p);
}

// Output pixels [ow, ow + P) of one row (with kChecked [ow, ow + np): some
// window columns may be in the padding), channels [c, c + 16) (lanes m),
// window rows [kh0, kh1) inside the input; xrow: offset of the input row of
// window row 0 of image n (only added to for rows inside). kKw > 0: the
// window is kKw wide, the stride along w kSw, undilated, and each window
// row's (P - 1) * kSw + kKw input columns are loaded once for all its taps
// (a 5-wide window at stride 1: 12 loads for 40 FMAs, not 40); kKw == 0:
// any width, stride and dilation, one load per tap and pixel.
template <int P, int kKw, int kSw, bool kChecked, bool kMasked>
TFN_AVX512_INLINE void Pixels(const Dk& d, int64_t xrow, int64_t kh0, int64_t kh1, int64_t ow,
                              int64_t np, int64_t c, __mmask16 m, float* yrow, const float* rrow) {
  const ConvGeom& g = *d.g;
  const int64_t C = g.C;
  __m512 acc[P];
#pragma GCC unroll 8
  for (int q = 0; q < P; ++q) acc[q] = _mm512_setzero_ps();
  for (int64_t kh = kh0; kh < kh1; ++kh) {
    const float* xr = d.x + (xrow + kh * g.dh * g.W * C + c);
    const float* fr = d.f + kh * g.KW * C + c;
    if constexpr (kKw > 0) {
      constexpr int kCols = (P - 1) * kSw + kKw;
      const int64_t iw0 = ow * kSw - g.pl;
      __m512 xv[kCols];
      bool in[kCols];
#pragma GCC unroll 16
      for (int k = 0; k < kCols; ++k) {
        const int64_t iw = iw0 + k;
        in[k] = !kChecked || (k < (np - 1) * kSw + kKw && iw >= 0 && iw < g.W);
        xv[k] = in[k] ? Load<kMasked>(m, xr + iw * C) : _mm512_setzero_ps();
      }
#pragma GCC unroll 7
      for (int kw = 0; kw < kKw; ++kw) {
        const __m512 fv = Load<kMasked>(m, fr + kw * C);
#pragma GCC unroll 8
        for (int q = 0; q < P; ++q) {
          if (!kChecked || (q < np && in[q * kSw + kw])) {
            acc[q] = _mm512_fmadd_ps(xv[q * kSw + kw], fv, acc[q]);
          }
        }
      }
    } else {
      for (int64_t kw = 0; kw < g.KW; ++kw) {
        const __m512 fv = Load<kMasked>(m, fr + kw * C);
        const int64_t iw0 = ow * g.sw - g.pl + kw * g.dw;
#pragma GCC unroll 8
        for (int q = 0; q < P; ++q) {
          const int64_t iw = iw0 + q * g.sw;
          if (!kChecked || (q < np && iw >= 0 && iw < g.W)) {
            acc[q] = _mm512_fmadd_ps(Load<kMasked>(m, xr + iw * C), fv, acc[q]);
          }
        }
      }
    }
  }
  const GemmEpilogue& ep = *d.ep;
  const __m512 bias = ep.bias ? Load<kMasked>(m, ep.bias + c) : _mm512_setzero_ps();
#pragma GCC unroll 8
  for (int q = 0; q < P; ++q) {
    if (kChecked && q >= np) break;
    const int64_t at = (ow + q) * C + c;
    __m512 v = acc[q];
    if (ep.bias) v = _mm512_add_ps(v, bias);
    if (rrow) v = _mm512_add_ps(v, Load<kMasked>(m, rrow + at));
    v = ReluOrClip(v, d.act, ep.lo, ep.hi);
    if (kMasked) {
      _mm512_mask_storeu_ps(yrow + at, m, v);
    } else {
      _mm512_storeu_ps(yrow + at, v);
    }
  }
}

// Every pixel of one row for one block of channels: chunks of 8 or 4 pixels
// inside [lo, hi) (no checks), else a checked chunk of up to 4 or 8: the
// left border, and the rest of the row once fewer than 4 interior pixels are
// left (a 7-wide row of a 5x5 window is two chunks, not seven single pixels).
template <int kKw, int kSw, bool kMasked>
TFN_AVX512 void Block(const Dk& d, int64_t xrow, int64_t kh0, int64_t kh1, int64_t lo, int64_t hi,
                      int64_t c, __mmask16 m, float* yrow, const float* rrow) {
  const int64_t OW = d.g->OW;
  // At stride 2, 8 pixels' 19 or 23 input columns do not fit in registers
  // beside the sums (GCC kept them on the stack): chunks of 4.
  constexpr int64_t kMaxP = kSw == 2 ? 4 : 8;
  for (int64_t ow = 0; ow < OW;) {
    if (kMaxP == 8 && ow >= lo && ow + 8 <= hi) {
      Pixels<8, kKw, kSw, false, kMasked>(d, xrow, kh0, kh1, ow, 8, c, m, yrow, rrow), ow += 8;
    } else if (ow >= lo && ow + 4 <= hi) {
      Pixels<4, kKw, kSw, false, kMasked>(d, xrow, kh0, kh1, ow, 4, c, m, yrow, rrow), ow += 4;
    } else {  // the left border up to lo, or what is left of the row (at most kMaxP)
      const int64_t np = std::min<int64_t>(kMaxP, (ow < lo ? lo : OW) - ow);
      if (np <= 4) {
        Pixels<4, kKw, kSw, true, kMasked>(d, xrow, kh0, kh1, ow, np, c, m, yrow, rrow);
      } else {
        Pixels<8, kKw, kSw, true, kMasked>(d, xrow, kh0, kh1, ow, np, c, m, yrow, rrow);
      }
      ow += np;
    }
  }
}

template <int kKw, int kSw>
TFN_AVX512 void Rows(const ConvGeom& g, const float* x, const float* f, float* y,
                     const GemmEpilogue& ep, int32_t act, int64_t r0, int64_t r1, int64_t c0) {
  const Dk d{&g, x, f, y, &ep, act};
  const int64_t C = g.C;
  // Pixels [lo, hi) have every window column inside the input.
  const int64_t lo = std::min(g.OW, (g.pl + g.sw - 1) / g.sw);
  const int64_t last = g.W - 1 - (g.KW - 1) * g.dw + g.pl;  // the last inside origin
  const int64_t hi = last < 0 ? lo : std::max(lo, std::min(g.OW, last / g.sw + 1));
  for (int64_t r = r0; r < r1; ++r) {
    const int64_t n = r / g.OH, ih0 = r % g.OH * g.sh - g.pt;
    // Window rows [kh0, kh1) are inside the input.
    int64_t kh0 = 0, kh1 = g.KH;
    while (kh0 < kh1 && ih0 + kh0 * g.dh < 0) ++kh0;
    while (kh1 > kh0 && ih0 + (kh1 - 1) * g.dh >= g.H) --kh1;
    const int64_t xrow = (n * g.H + ih0) * g.W * C;
    float* yrow = y + r * g.OW * C;
    const float* rrow = ep.residual ? ep.residual + r * g.OW * C : nullptr;
    int64_t c = c0;
    for (; c + 16 <= C; c += 16) {
      Block<kKw, kSw, false>(d, xrow, kh0, kh1, lo, hi, c, 0xFFFF, yrow, rrow);
    }
    if (c < C) {
      const __mmask16 m = static_cast<__mmask16>((1u << (C - c)) - 1);
      Block<kKw, kSw, true>(d, xrow, kh0, kh1, lo, hi, c, m, yrow, rrow);
    }
  }
}

}  // namespace

DepthwiseChannelsFn DepthwiseAnyAvx512(const ConvGeom& g) {
  if (g.KH * g.KW > kDepthwiseMaxTaps) return nullptr;
  if (g.sw == 1 && g.dw == 1) {
    if (g.KW == 3) return Rows<3, 1>;
    if (g.KW == 5) return Rows<5, 1>;
    if (g.KW == 7) return Rows<7, 1>;
  }
  if (g.sw == 2 && g.dw == 1) {
    if (g.KW == 3) return Rows<3, 2>;
    if (g.KW == 5) return Rows<5, 2>;
  }
  return Rows<0, 0>;
}

}  // namespace tfn::kernels::conv_internal

#else  // !__x86_64__

namespace tfn::kernels::conv_internal {
DepthwiseChannelsFn DepthwiseAnyAvx512(const ConvGeom&) { return nullptr; }
}  // namespace tfn::kernels::conv_internal

#endif
