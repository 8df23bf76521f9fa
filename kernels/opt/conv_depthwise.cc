// Depthwise NHWC convolution (conv_internal.h's DepthwiseConv): one input
// and one output channel per group, filter [KH, KW, 1, C]. Memory-bound, so
// a direct loop: 16 channels at a time in a vector register, summed over the
// window's taps inside the input (taps in the padding are skipped: they add
// zero), then bias, residual and relu/clip in the register; other
// activations run over the finished row (still in L1). Where whole windows
// are inside (the interior), a block of 16 channels keeps its filter in
// registers for a sweep along the row; the borders go pixel by pixel.
// Compiled for SSE2, AVX2 and AVX-512 (simd.h). On AVX-512 the intrinsics
// kernels take every window instead: 3x3 ones (stride 1 or 2, undilated, the
// MobileNet layers) conv_depthwise_avx512.cc's for the first C / 16 * 16
// channels, the rest (other windows, and the channel tail of 3x3)
// conv_depthwise_any_avx512.cc's.
// Output rows are split over the threads; each pixel is summed in the same
// order on any thread count.
#include <cstring>

#include "kernels/opt/conv_internal.h"
#include "kernels/opt/simd.h"

namespace tfn::kernels::conv_internal {
namespace {

typedef float V16 __attribute__((vector_size(64)));

// Macros, not functions: a function taking or returning a 64-byte vector
// has a different ABI with and without AVX-512 (GCC's -Wpsabi).
#define TFN_DW_LOAD(dst, p) std::memcpy(&(dst), (p), sizeof(V16))
#define TFN_DW_STORE(p, v) std::memcpy((p), &(v), sizeof(V16))

struct DwJob {
  const ConvGeom* g;
  const float* x;
  const float* f;
  float* y;
  const GemmEpilogue* ep;
  int64_t row_begin, row_end;  // output rows n * OH + oh
  // The AVX-512 3x3 kernel for channels [0, C / 16 * 16) of whole rows, or null.
  DepthwiseRowsFn rows3x3;
  // The AVX-512 kernel of any window for the channels rows3x3 leaves (all
  // when it is null), or null: then this file's body does all.
  DepthwiseChannelsFn any;
};

TFN_OPT_INLINE float ScalarAct(float v, int32_t act, float lo, float hi) {
  if (act == kActRelu) return v < 0.0f ? 0.0f : v;
  if (act == kActClip) {
    v = v < lo ? lo : v;
    return v > hi ? hi : v;
  }
  return v;
}

// relu/clip compare kCmpLanes at a time (simd.h says why).
using opt::kCmpLanes;
using VC = opt::CmpF32;
using IC = opt::CmpI32;

// Stores act(v) (relu or clip; else v) to dst[0, 16).
TFN_OPT_INLINE void StoreAct(float* dst, const V16& v, int32_t act, float lo, float hi) {
  if (act != kActRelu && act != kActClip) {
    TFN_DW_STORE(dst, v);
    return;
  }
  float tmp[16];
  TFN_DW_STORE(tmp, v);
  const VC zero = {}, vlo = zero + lo, vhi = zero + hi;
  for (int h = 0; h < 16; h += kCmpLanes) {
    VC x;
    std::memcpy(&x, tmp + h, sizeof(x));
    if (act == kActRelu) {
      const IC m = x < zero;
      x = (VC)((m & (IC)zero) | (~m & (IC)x));
    } else {
      IC m = x < vlo;
      x = (VC)((m & (IC)vlo) | (~m & (IC)x));
      m = x > vhi;
      x = (VC)((m & (IC)vhi) | (~m & (IC)x));
    }
    std::memcpy(dst + h, &x, sizeof(x));
  }
}

// Each pixel's taps inside the input are listed first (conv.cc sends larger
// windows to the implicit GEMM).
constexpr int kMaxListedTaps = kDepthwiseMaxTaps;
// The interior kernel takes windows up to this size (its filter vectors).
constexpr int kInteriorMaxTaps = 9;

// Channels [c_begin, C) of output pixel (r, ow), any position: the taps
// inside the input, summed in window order (the interior kernel's order).
TFN_OPT_INLINE void Pixel(const DwJob& j, int64_t r, int64_t ow, int64_t c_begin) {
  const ConvGeom& g = *j.g;
  const GemmEpilogue& ep = *j.ep;
  const int64_t C = g.C;
  const int32_t act = ep.needs_row_pass() ? kActNone : ep.act;
  const int64_t n = r / g.OH, oh = r % g.OH;
  const float* image = j.x + n * g.H * g.W * C;
  const float* rrow = ep.residual ? ep.residual + r * g.OW * C : nullptr;
  const float* xs[kMaxListedTaps];
  const float* fs[kMaxListedTaps];
  int nt = 0;
  for (int64_t kh = 0; kh < g.KH; ++kh) {
    const int64_t ih = oh * g.sh - g.pt + kh * g.dh;
    if (ih < 0 || ih >= g.H) continue;
    for (int64_t kw = 0; kw < g.KW; ++kw) {
      const int64_t iw = ow * g.sw - g.pl + kw * g.dw;
      if (iw < 0 || iw >= g.W) continue;
      xs[nt] = image + (ih * g.W + iw) * C;
      fs[nt] = j.f + (kh * g.KW + kw) * C;
      ++nt;
    }
  }
  float* yp = j.y + (r * g.OW + ow) * C;
  int64_t c = c_begin;
  for (;; c += 16) {
    // A tail of fewer than 16 channels is one more block, ending at C, when
    // C >= 16: the channels it does again get the same sum in the same
    // order (the interior kernels' too), so they are rewritten unchanged.
    // Mobile nets' 24, 40, 72, 120 channels ran their last 8 scalar.
    if (c + 16 > C) {
      if (c >= C || C < 16) break;
      c = C - 16;
    }
    V16 acc = {}, xv, fv;
    for (int t = 0; t < nt; ++t) {
      TFN_DW_LOAD(xv, xs[t] + c);
      TFN_DW_LOAD(fv, fs[t] + c);
      acc += xv * fv;
    }
    if (ep.bias) {
      TFN_DW_LOAD(xv, ep.bias + c);
      acc += xv;
    }
    if (rrow) {
      TFN_DW_LOAD(xv, rrow + ow * C + c);
      acc += xv;
    }
    StoreAct(yp + c, acc, act, ep.lo, ep.hi);
  }
  for (; c < C; ++c) {  // C < 16
    float acc = 0.0f;
    for (int t = 0; t < nt; ++t) acc += xs[t][c] * fs[t][c];
    if (ep.bias) acc += ep.bias[c];
    if (rrow) acc += rrow[ow * C + c];
    yp[c] = ScalarAct(acc, act, ep.lo, ep.hi);
  }
}

// Channels [0, C / 16 * 16) of output pixels [ow0, ow1) of row r, whose
// windows are all inside the input: per block of 16 channels the filter is
// loaded once for a sweep along the row, four pixels at a time (for stride 1
// the pixels' loads overlap, and the compiler merges them). kTaps: KH * KW
// when known at compile time (3x3: the filter stays in registers), else 0.
template <int kTaps>
TFN_OPT_INLINE void Interior(const DwJob& j, int64_t r, int64_t ow0, int64_t ow1) {
  const ConvGeom& g = *j.g;
  const GemmEpilogue& ep = *j.ep;
  const int64_t C = g.C;
  const int32_t act = ep.needs_row_pass() ? kActNone : ep.act;
  const int64_t n = r / g.OH, oh = r % g.OH;
  const int taps = kTaps > 0 ? kTaps : static_cast<int>(g.KH * g.KW);
  constexpr int kMax = kTaps > 0 ? kTaps : kInteriorMaxTaps;
  int64_t xo[kMax];  // tap t of pixel ow at j.x + xo[t] + ow * step (>= 0 there)
  for (int64_t kh = 0, t = 0; kh < g.KH; ++kh) {
    for (int64_t kw = 0; kw < g.KW; ++kw, ++t) {
      xo[t] = ((n * g.H + oh * g.sh - g.pt + kh * g.dh) * g.W - g.pl + kw * g.dw) * C;
    }
  }
  const int64_t step = g.sw * C;
  float* yrow = j.y + r * g.OW * C;
  const float* rrow = ep.residual ? ep.residual + r * g.OW * C : nullptr;
  for (int64_t c = 0; c + 16 <= C; c += 16) {
    V16 fv[kMax], bv = {}, xv;
#pragma GCC unroll 9
    for (int t = 0; t < taps; ++t) TFN_DW_LOAD(fv[t], j.f + t * C + c);
    if (ep.bias) TFN_DW_LOAD(bv, ep.bias + c);
    int64_t ow = ow0;
    for (; ow + 4 <= ow1; ow += 4) {
      V16 acc[4] = {};
#pragma GCC unroll 9
      for (int t = 0; t < taps; ++t) {
        const float* xp = j.x + xo[t] + ow * step + c;
#pragma GCC unroll 4
        for (int q = 0; q < 4; ++q) {
          TFN_DW_LOAD(xv, xp + q * step);
          acc[q] += xv * fv[t];
        }
      }
#pragma GCC unroll 4
      for (int q = 0; q < 4; ++q) {
        if (ep.bias) acc[q] += bv;
        if (rrow) {
          TFN_DW_LOAD(xv, rrow + (ow + q) * C + c);
          acc[q] += xv;
        }
        StoreAct(yrow + (ow + q) * C + c, acc[q], act, ep.lo, ep.hi);
      }
    }
    for (; ow < ow1; ++ow) {
      V16 acc = {};
#pragma GCC unroll 9
      for (int t = 0; t < taps; ++t) {
        TFN_DW_LOAD(xv, j.x + xo[t] + ow * step + c);
        acc += xv * fv[t];
      }
      if (ep.bias) acc += bv;
      if (rrow) {
        TFN_DW_LOAD(xv, rrow + ow * C + c);
        acc += xv;
      }
      StoreAct(yrow + ow * C + c, acc, act, ep.lo, ep.hi);
    }
  }
}

// Interior<9> for a 3x3 window, undilated, stride kSw: the same sums in the
// same order, but each window row's input vectors are loaded once for the
// four pixels (6 loads for stride 1, not 12) from one pointer per row, which
// leaves the compiler few addresses to keep (clang spilled Interior's).
// GCC (the runtime's library) compiles Interior<9> better than this (it merges
// the overlapping loads itself, and keeps this one's column vectors in
// memory); clang (AOT bitcode) the other way round (measured on MobileNetV2).
#if defined(__clang__)
constexpr bool kExplicit3x3 = true;
#else
constexpr bool kExplicit3x3 = false;
#endif
template <int kSw>
TFN_OPT_INLINE void Interior3x3(const DwJob& j, int64_t r, int64_t ow0, int64_t ow1) {
  const ConvGeom& g = *j.g;
  const GemmEpilogue& ep = *j.ep;
  const int64_t C = g.C;
  const int32_t act = ep.needs_row_pass() ? kActNone : ep.act;
  const int64_t n = r / g.OH, oh = r % g.OH;
  constexpr int kCols = 3 * kSw + 3;  // input columns of four pixels' windows
  int64_t ro[3];                      // window row kh of pixel ow at j.x + ro[kh] + ow * kSw * C
  for (int kh = 0; kh < 3; ++kh) ro[kh] = ((n * g.H + oh * g.sh - g.pt + kh) * g.W - g.pl) * C;
  float* yrow = j.y + r * g.OW * C;
  const float* rrow = ep.residual ? ep.residual + r * g.OW * C : nullptr;
  for (int64_t c = 0; c + 16 <= C; c += 16) {
    V16 fv[9], bv = {}, xv[kCols];
#pragma GCC unroll 9
    for (int t = 0; t < 9; ++t) TFN_DW_LOAD(fv[t], j.f + t * C + c);
    if (ep.bias) TFN_DW_LOAD(bv, ep.bias + c);
    int64_t ow = ow0;
    for (; ow + 4 <= ow1; ow += 4) {
      V16 acc[4] = {};
#pragma GCC unroll 3
      for (int kh = 0; kh < 3; ++kh) {
        const float* p = j.x + ro[kh] + ow * kSw * C + c;
#pragma GCC unroll 9
        for (int m = 0; m < kCols; ++m) TFN_DW_LOAD(xv[m], p + m * C);
#pragma GCC unroll 3
        for (int kw = 0; kw < 3; ++kw) {
#pragma GCC unroll 4
          for (int q = 0; q < 4; ++q) acc[q] += xv[q * kSw + kw] * fv[kh * 3 + kw];
        }
      }
#pragma GCC unroll 4
      for (int q = 0; q < 4; ++q) {
        if (ep.bias) acc[q] += bv;
        if (rrow) {
          TFN_DW_LOAD(xv[0], rrow + (ow + q) * C + c);
          acc[q] += xv[0];
        }
        StoreAct(yrow + (ow + q) * C + c, acc[q], act, ep.lo, ep.hi);
      }
    }
    for (; ow < ow1; ++ow) {
      V16 acc = {};
#pragma GCC unroll 3
      for (int kh = 0; kh < 3; ++kh) {
        const float* p = j.x + ro[kh] + ow * kSw * C + c;
#pragma GCC unroll 3
        for (int kw = 0; kw < 3; ++kw) {
          TFN_DW_LOAD(xv[0], p + kw * C);
          acc += xv[0] * fv[kh * 3 + kw];
        }
      }
      if (ep.bias) acc += bv;
      if (rrow) {
        TFN_DW_LOAD(xv[0], rrow + ow * C + c);
        acc += xv[0];
      }
      StoreAct(yrow + ow * C + c, acc, act, ep.lo, ep.hi);
    }
  }
}

TFN_OPT_INLINE void DwBody(const DwJob& j) {
  const ConvGeom& g = *j.g;
  const GemmEpilogue& ep = *j.ep;
  const int64_t C = g.C, C16 = C / 16 * 16;
  // Output columns [ow_lo, ow_hi) have every window column inside the input.
  int64_t ow_lo = 0, ow_hi = 0;
  while (ow_lo < g.OW && ow_lo * g.sw - g.pl < 0) ++ow_lo;
  for (ow_hi = ow_lo; ow_hi < g.OW && ow_hi * g.sw - g.pl + (g.KW - 1) * g.dw < g.W; ++ow_hi) {
  }
  const bool interior = C16 > 0 && g.KH * g.KW <= kInteriorMaxTaps && ow_lo < ow_hi;
  for (int64_t r = j.row_begin; r < j.row_end; ++r) {
    const int64_t ih_first = r % g.OH * g.sh - g.pt;
    const bool rows_inside = ih_first >= 0 && ih_first + (g.KH - 1) * g.dh < g.H;
    if (j.any) {
      if (r == j.row_begin) {  // all rows of the range at once (rows3x3 may do two at a time)
        const int32_t act = ep.needs_row_pass() ? kActNone : ep.act;
        if (j.rows3x3) j.rows3x3(g, j.x, j.f, j.y, ep, act, r, j.row_end);
        j.any(g, j.x, j.f, j.y, ep, act, r, j.row_end, j.rows3x3 ? C16 : 0);
      }
    } else if (interior && rows_inside) {
      const bool k3 = g.KH == 3 && g.KW == 3 && g.dh == 1 && g.dw == 1;
      if (kExplicit3x3 && k3 && g.sw == 1) {
        Interior3x3<1>(j, r, ow_lo, ow_hi);
      } else if (kExplicit3x3 && k3 && g.sw == 2) {
        Interior3x3<2>(j, r, ow_lo, ow_hi);
      } else if (g.KH * g.KW == 9) {
        Interior<9>(j, r, ow_lo, ow_hi);
      } else {
        Interior<0>(j, r, ow_lo, ow_hi);
      }
      for (int64_t ow = 0; ow < g.OW; ++ow) {
        const bool done = ow >= ow_lo && ow < ow_hi;
        if (!done || C16 < C) Pixel(j, r, ow, done ? C16 : 0);
      }
    } else {
      for (int64_t ow = 0; ow < g.OW; ++ow) Pixel(j, r, ow, 0);
    }
    if (ep.needs_row_pass()) {
      float* yrow = j.y + r * g.OW * C;
      ApplyActivation(ep, yrow, g.OW * C, 1, g.OW * C);
    }
  }
}

TFN_OPT_MULTIVERSION(RunDepthwise, DwJob, DwBody)

}  // namespace

void DepthwiseConv(const ConvGeom& g, const float* x, const float* f, float* y,
                   const GemmEpilogue& ep, const TfnKernelContext* ctx) {
  const int64_t rows = g.N * g.OH;
  const int64_t per_row = g.OW * g.C * g.KH * g.KW;
  const int64_t min_rows = per_row >= 32768 ? 1 : 32768 / (per_row > 0 ? per_row : 1);
  const bool avx512 = opt::Avx512KernelsActive();
  const DepthwiseChannelsFn any = avx512 ? DepthwiseAnyAvx512(g) : nullptr;
  const DepthwiseRowsFn rows3x3 = any ? Depthwise3x3Avx512(g) : nullptr;
  auto run = [&](int64_t begin, int64_t end) {
    RunDepthwise(DwJob{&g, x, f, y, &ep, begin, end, rows3x3, any});
  };
  ParallelFor(ctx, rows, min_rows, run);
}

}  // namespace tfn::kernels::conv_internal
