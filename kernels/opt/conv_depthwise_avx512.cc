// AVX-512 depthwise 3x3 convolution (undilated, stride 1 or 2), the
// MobileNet layer, written with intrinsics: conv_depthwise.cc's generic
// vector-extension body is compiled by GCC (the runtime's library) with
// its filter and row pointers spilled to the stack and relu/clip done 4 lanes
// at a time, and by clang (AOT bitcode, -ffp-contract=off) with separate
// multiplies and adds; this one keeps the sums in zmm registers and uses FMA.
//
// Order: per output row (two at a time for stride 1, which share 2 of their 4
// input rows), chunks of 8 (then 4, then 1) pixels (of 4, then 1, for two
// rows), and for each chunk every block of 16 channels: input and output are
// walked in address order (a chunk's 3 x 10 input pixels stay in L1), the
// filter is read from L1. Each window row's input vectors are loaded once for
// the chunk. Taps in the padding are skipped: rows per template (top/bottom
// rows), columns per pixel (the first and last pixels). Each pixel sums its
// taps in window order, starting from zero, then adds bias and residual and
// applies relu or clip, as conv_depthwise.cc's Pixel does (which also does the
// C % 16 tail).
#include "kernels/opt/conv_internal.h"

#if defined(__x86_64__)
#include <immintrin.h>

#include "kernels/opt/avx512_target.h"

namespace tfn::kernels::conv_internal {
namespace {

struct Dw {
  const ConvGeom* g;
  const float* x;
  const float* f;
  float* y;
  const GemmEpilogue* ep;
  int32_t act;
  int64_t C16;
};

// bias, residual, then relu/clip; stores 16 channels.
TFN_AVX512_INLINE void Finish(const Dw& d, __m512 acc, int64_t c, float* yp, const float* rp) {
  const GemmEpilogue& ep = *d.ep;
  if (ep.bias) acc = _mm512_add_ps(acc, _mm512_loadu_ps(ep.bias + c));
  if (rp) acc = _mm512_add_ps(acc, _mm512_loadu_ps(rp + c));
  _mm512_storeu_ps(yp + c, ReluOrClip(acc, d.act, ep.lo, ep.hi));
}

// kPix pixels from ow whose window columns are all inside the input; window
// rows [kKh0, kKh1) are inside. xo: offset of input row ih0 (the window's
// first row, maybe outside), column 0.
template <int kSw, int kPix, int kKh0, int kKh1>
TFN_AVX512_INLINE void Chunk(const Dw& d, int64_t xo, int64_t ow, float* yrow, const float* rrow) {
  const ConvGeom& g = *d.g;
  const int64_t C = g.C;
  constexpr int kCols = (kPix - 1) * kSw + 3;
  const float* base = d.x + xo + (ow * kSw - g.pl) * C;
  float* yp = yrow + ow * C;
  const float* rp = rrow ? rrow + ow * C : nullptr;
  for (int64_t c = 0; c < d.C16; c += 16) {
    __m512 acc[kPix];
#pragma GCC unroll 8
    for (int q = 0; q < kPix; ++q) acc[q] = _mm512_setzero_ps();
#pragma GCC unroll 3
    for (int kh = kKh0; kh < kKh1; ++kh) {
      const float* p = base + kh * g.W * C + c;
      __m512 xv[kCols];
#pragma GCC unroll 17
      for (int m = 0; m < kCols; ++m) xv[m] = _mm512_loadu_ps(p + m * C);
#pragma GCC unroll 3
      for (int kw = 0; kw < 3; ++kw) {
        const __m512 fv = _mm512_loadu_ps(d.f + (kh * 3 + kw) * C + c);
#pragma GCC unroll 8
        for (int q = 0; q < kPix; ++q) acc[q] = _mm512_fmadd_ps(xv[q * kSw + kw], fv, acc[q]);
      }
    }
#pragma GCC unroll 8
    for (int q = 0; q < kPix; ++q) Finish(d, acc[q], c, yp + q * C, rp ? rp + q * C : nullptr);
  }
}

// One pixel anywhere: its taps inside the input, in window order.
TFN_AVX512 void Border(const Dw& d, int64_t n, int64_t oh, int64_t ow, float* yrow,
                       const float* rrow) {
  const ConvGeom& g = *d.g;
  const int64_t C = g.C;
  int64_t xo[9], fo[9];
  int nt = 0;
  for (int64_t kh = 0; kh < 3; ++kh) {
    const int64_t ih = oh * g.sh - g.pt + kh;
    if (ih < 0 || ih >= g.H) continue;
    for (int64_t kw = 0; kw < 3; ++kw) {
      const int64_t iw = ow * g.sw - g.pl + kw;
      if (iw < 0 || iw >= g.W) continue;
      xo[nt] = ((n * g.H + ih) * g.W + iw) * C;
      fo[nt] = (kh * 3 + kw) * C;
      ++nt;
    }
  }
  float* yp = yrow + ow * C;
  const float* rp = rrow ? rrow + ow * C : nullptr;
  for (int64_t c = 0; c < d.C16; c += 16) {
    __m512 acc = _mm512_setzero_ps();
    for (int t = 0; t < nt; ++t) {
      acc =
          _mm512_fmadd_ps(_mm512_loadu_ps(d.x + xo[t] + c), _mm512_loadu_ps(d.f + fo[t] + c), acc);
    }
    Finish(d, acc, c, yp, rp);
  }
}

// Pixels [ow0, ow1) of one row, all inside along w, rows [kKh0, kKh1) inside.
template <int kSw, int kKh0, int kKh1>
TFN_AVX512 void Sweep(const Dw& d, int64_t xo, int64_t ow0, int64_t ow1, float* yrow,
                      const float* rrow) {
  int64_t ow = ow0;
  for (; ow + 8 <= ow1; ow += 8) Chunk<kSw, 8, kKh0, kKh1>(d, xo, ow, yrow, rrow);
  if (ow + 4 <= ow1) Chunk<kSw, 4, kKh0, kKh1>(d, xo, ow, yrow, rrow), ow += 4;
  for (; ow < ow1; ++ow) Chunk<kSw, 1, kKh0, kKh1>(d, xo, ow, yrow, rrow);
}

// Chunk<1, kPix, 0, 3> for two output rows at once (stride 1): the 4 input
// rows are loaded once for both (3 loads of each input vector become 2).
// Each pixel still sums its window rows in order.
template <int kPix>
TFN_AVX512_INLINE void Chunk2(const Dw& d, int64_t xo, int64_t ow, float* yrow, const float* rrow) {
  const ConvGeom& g = *d.g;
  const int64_t C = g.C, ystep = g.OW * C;
  constexpr int kCols = kPix + 2;
  const float* base = d.x + xo + (ow - g.pl) * C;
  float* yp = yrow + ow * C;
  const float* rp = rrow ? rrow + ow * C : nullptr;
  for (int64_t c = 0; c < d.C16; c += 16) {
    __m512 a0[kPix], a1[kPix];
#pragma GCC unroll 8
    for (int q = 0; q < kPix; ++q) a0[q] = a1[q] = _mm512_setzero_ps();
#pragma GCC unroll 4
    for (int k = 0; k < 4; ++k) {
      const float* p = base + k * g.W * C + c;
      __m512 xv[kCols];
#pragma GCC unroll 10
      for (int m = 0; m < kCols; ++m) xv[m] = _mm512_loadu_ps(p + m * C);
#pragma GCC unroll 3
      for (int kw = 0; kw < 3; ++kw) {
        if (k < 3) {
          const __m512 fv = _mm512_loadu_ps(d.f + (k * 3 + kw) * C + c);
#pragma GCC unroll 8
          for (int q = 0; q < kPix; ++q) a0[q] = _mm512_fmadd_ps(xv[q + kw], fv, a0[q]);
        }
        if (k > 0) {
          const __m512 fv = _mm512_loadu_ps(d.f + ((k - 1) * 3 + kw) * C + c);
#pragma GCC unroll 8
          for (int q = 0; q < kPix; ++q) a1[q] = _mm512_fmadd_ps(xv[q + kw], fv, a1[q]);
        }
      }
    }
#pragma GCC unroll 8
    for (int q = 0; q < kPix; ++q) {
      Finish(d, a0[q], c, yp + q * C, rp ? rp + q * C : nullptr);
      Finish(d, a1[q], c, yp + ystep + q * C, rp ? rp + ystep + q * C : nullptr);
    }
  }
}

// Pixels [ow0, ow1) of two rows, stride 1, all window rows and columns inside.
// Chunks of 4 pixels, not 8: 2 x 8 accumulators and 10 input vectors made
// clang (the AOT bitcode) spill zmm registers in the channel loop, and in the
// AOT object the reload stalled there (4% of MobileNet-v2's time); at 4 there
// are no spills and the kernel alone is as fast as at 8 with either compiler.
TFN_AVX512 void Sweep2(const Dw& d, int64_t xo, int64_t ow0, int64_t ow1, float* yrow,
                       const float* rrow) {
  int64_t ow = ow0;
  for (; ow + 4 <= ow1; ow += 4) Chunk2<4>(d, xo, ow, yrow, rrow);
  for (; ow < ow1; ++ow) Chunk2<1>(d, xo, ow, yrow, rrow);
}

template <int kSw>
using SweepFn = void (*)(const Dw&, int64_t, int64_t, int64_t, float*, const float*);

template <int kSw>
TFN_AVX512 void Rows(const Dw& d, int64_t r0, int64_t r1) {
  const ConvGeom& g = *d.g;
  const int64_t C = g.C;
  // Output columns [ow_lo, ow_hi) have every window column inside the input.
  int64_t ow_lo = 0, ow_hi = 0;
  while (ow_lo < g.OW && ow_lo * kSw - g.pl < 0) ++ow_lo;
  for (ow_hi = ow_lo; ow_hi < g.OW && ow_hi * kSw - g.pl + 2 < g.W; ++ow_hi) {
  }
  for (int64_t r = r0; r < r1; ++r) {
    const int64_t n = r / g.OH, oh = r % g.OH, ih0 = oh * g.sh - g.pt;
    const int64_t kh0 = ih0 < 0 ? -ih0 : 0, kh1 = ih0 + 3 > g.H ? g.H - ih0 : 3;
    float* yrow = d.y + r * g.OW * C;
    const float* rrow = d.ep->residual ? d.ep->residual + r * g.OW * C : nullptr;
    // Rows r and r + 1 of one image, stride 1, every window row inside: both at once.
    if (kSw == 1 && g.sh == 1 && r + 1 < r1 && oh + 1 < g.OH && ih0 >= 0 && ih0 + 4 <= g.H &&
        ow_lo < ow_hi) {
      float* yrow1 = yrow + g.OW * C;
      const float* rrow1 = rrow ? rrow + g.OW * C : nullptr;
      for (int64_t ow = 0; ow < ow_lo; ++ow) {
        Border(d, n, oh, ow, yrow, rrow), Border(d, n, oh + 1, ow, yrow1, rrow1);
      }
      Sweep2(d, (n * g.H + ih0) * g.W * C, ow_lo, ow_hi, yrow, rrow);
      for (int64_t ow = ow_hi; ow < g.OW; ++ow) {
        Border(d, n, oh, ow, yrow, rrow), Border(d, n, oh + 1, ow, yrow1, rrow1);
      }
      ++r;
      continue;
    }
    SweepFn<kSw> sweep = nullptr;
    if (kh0 == 0 && kh1 == 3) sweep = Sweep<kSw, 0, 3>;
    if (kh0 == 1 && kh1 == 3) sweep = Sweep<kSw, 1, 3>;
    if (kh0 == 0 && kh1 == 2) sweep = Sweep<kSw, 0, 2>;
    if (!sweep || ow_lo >= ow_hi) {
      for (int64_t ow = 0; ow < g.OW; ++ow) Border(d, n, oh, ow, yrow, rrow);
      continue;
    }
    for (int64_t ow = 0; ow < ow_lo; ++ow) Border(d, n, oh, ow, yrow, rrow);
    sweep(d, (n * g.H + ih0) * g.W * C, ow_lo, ow_hi, yrow, rrow);
    for (int64_t ow = ow_hi; ow < g.OW; ++ow) Border(d, n, oh, ow, yrow, rrow);
  }
}

void Depthwise3x3(const ConvGeom& g, const float* x, const float* f, float* y,
                  const GemmEpilogue& ep, int32_t act, int64_t r0, int64_t r1) {
  const Dw d{&g, x, f, y, &ep, act, g.C / 16 * 16};
  if (g.sw == 1) {
    Rows<1>(d, r0, r1);
  } else {
    Rows<2>(d, r0, r1);
  }
}

}  // namespace

DepthwiseRowsFn Depthwise3x3Avx512(const ConvGeom& g) {
  const bool fits =
      g.KH == 3 && g.KW == 3 && g.dh == 1 && g.dw == 1 && (g.sw == 1 || g.sw == 2) && g.C >= 16;
  return fits ? Depthwise3x3 : nullptr;
}

}  // namespace tfn::kernels::conv_internal

#else  // !__x86_64__

namespace tfn::kernels::conv_internal {
DepthwiseRowsFn Depthwise3x3Avx512(const ConvGeom&) { return nullptr; }
}  // namespace tfn::kernels::conv_internal

#endif
