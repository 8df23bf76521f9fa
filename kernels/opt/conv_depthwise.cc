// Depthwise NHWC convolution (conv_internal.h's DepthwiseConv): one input
// and one output channel per group, filter [KH, KW, 1, C]. Memory-bound, so
// a direct loop: per output pixel, 16 channels at a time in a vector
// register, summed over the window's taps inside the input (taps in the
// padding are skipped: they add zero), then bias, residual and relu/clip in
// the register; other activations run over the finished row (still in L1).
// Compiled for SSE2, AVX2 and AVX-512 (simd.h). Output rows are split over
// the threads; each pixel is summed in the same order on any thread count.
#include <cstring>

#include "kernels/opt/conv_internal.h"
#include "kernels/opt/simd.h"

namespace tfn::kernels::conv_internal {
namespace {

typedef float V16 __attribute__((vector_size(64)));
typedef int32_t I16 __attribute__((vector_size(64)));

// Macros, not functions: a function taking or returning a 64-byte vector
// has a different ABI with and without AVX-512 (GCC's -Wpsabi).
#define TFN_DW_LOAD(dst, p) std::memcpy(&(dst), (p), sizeof(V16))
#define TFN_DW_STORE(p, v) std::memcpy((p), &(v), sizeof(V16))
// m ? a : b per lane (m: all ones or zeros).
#define TFN_DW_SELECT(m, a, b) ((V16)(((m) & (I16)(a)) | (~(m) & (I16)(b))))

struct DwJob {
  const ConvGeom* g;
  const float* x;
  const float* f;
  float* y;
  const GemmEpilogue* ep;
  int64_t row_begin, row_end;  // output rows n * OH + oh
};

TFN_OPT_INLINE float ScalarAct(float v, int32_t act, float lo, float hi) {
  if (act == kActRelu) return v < 0.0f ? 0.0f : v;
  if (act == kActClip) {
    v = v < lo ? lo : v;
    return v > hi ? hi : v;
  }
  return v;
}

// Each pixel's taps inside the input are listed first (conv.cc sends larger
// windows to the implicit GEMM).
constexpr int kMaxListedTaps = kDepthwiseMaxTaps;

TFN_OPT_INLINE void DwBody(const DwJob& j) {
  const ConvGeom& g = *j.g;
  const GemmEpilogue& ep = *j.ep;
  const int64_t C = g.C;
  const int32_t act = ep.transcendental() ? kActNone : ep.act;
  const V16 zero = {}, lo = zero + ep.lo, hi = zero + ep.hi;
  const float* xs[kMaxListedTaps];
  const float* fs[kMaxListedTaps];
  for (int64_t r = j.row_begin; r < j.row_end; ++r) {
    const int64_t n = r / g.OH, oh = r % g.OH;
    const float* image = j.x + n * g.H * g.W * C;
    float* yrow = j.y + r * g.OW * C;
    const float* rrow = ep.residual ? ep.residual + r * g.OW * C : nullptr;
    const int64_t ih_first = oh * g.sh - g.pt;
    const bool rows_inside = ih_first >= 0 && ih_first + (g.KH - 1) * g.dh < g.H;
    const int64_t step = g.sw * C;  // from one output pixel's input to the next's
    for (int64_t ow = 0; ow < g.OW; ++ow) {
      // Four pixels whose windows are all inside: each filter vector is
      // loaded once for the four (5 loads per 4 multiply-adds, not 8).
      if (rows_inside && ow + 4 <= g.OW && ow * g.sw - g.pl >= 0 &&
          (ow + 3) * g.sw - g.pl + (g.KW - 1) * g.dw < g.W) {
        int nt = 0;
        for (int64_t kh = 0; kh < g.KH; ++kh) {
          for (int64_t kw = 0; kw < g.KW; ++kw) {
            xs[nt] = image + ((ih_first + kh * g.dh) * g.W + ow * g.sw - g.pl + kw * g.dw) * C;
            fs[nt] = j.f + (kh * g.KW + kw) * C;
            ++nt;
          }
        }
        float* yp = yrow + ow * C;
        int64_t c = 0;
        for (; c + 16 <= C; c += 16) {
          V16 acc[4] = {zero, zero, zero, zero}, xv, fv;
          for (int t = 0; t < nt; ++t) {
            TFN_DW_LOAD(fv, fs[t] + c);
            for (int q = 0; q < 4; ++q) {
              TFN_DW_LOAD(xv, xs[t] + q * step + c);
              acc[q] += xv * fv;
            }
          }
          for (int q = 0; q < 4; ++q) {
            if (ep.bias) {
              TFN_DW_LOAD(xv, ep.bias + c);
              acc[q] += xv;
            }
            if (rrow) {
              TFN_DW_LOAD(xv, rrow + (ow + q) * C + c);
              acc[q] += xv;
            }
            if (act == kActRelu) {
              acc[q] = TFN_DW_SELECT(acc[q] < zero, zero, acc[q]);
            } else if (act == kActClip) {
              acc[q] = TFN_DW_SELECT(acc[q] < lo, lo, acc[q]);
              acc[q] = TFN_DW_SELECT(acc[q] > hi, hi, acc[q]);
            }
            TFN_DW_STORE(yp + q * C + c, acc[q]);
          }
        }
        for (; c < C; ++c) {
          for (int q = 0; q < 4; ++q) {
            float acc = 0.0f;
            for (int t = 0; t < nt; ++t) acc += xs[t][q * step + c] * fs[t][c];
            if (ep.bias) acc += ep.bias[c];
            if (rrow) acc += rrow[(ow + q) * C + c];
            yp[q * C + c] = ScalarAct(acc, act, ep.lo, ep.hi);
          }
        }
        ow += 3;
        continue;
      }
      // The taps inside the input (the others add zero): input and filter rows.
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
      float* yp = yrow + ow * C;
      int64_t c = 0;
      for (; c + 16 <= C; c += 16) {
        V16 acc = zero, xv, fv;
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
        if (act == kActRelu) {
          acc = TFN_DW_SELECT(acc < zero, zero, acc);
        } else if (act == kActClip) {
          acc = TFN_DW_SELECT(acc < lo, lo, acc);
          acc = TFN_DW_SELECT(acc > hi, hi, acc);
        }
        TFN_DW_STORE(yp + c, acc);
      }
      for (; c < C; ++c) {
        float acc = 0.0f;
        for (int t = 0; t < nt; ++t) acc += xs[t][c] * fs[t][c];
        if (ep.bias) acc += ep.bias[c];
        if (rrow) acc += rrow[ow * C + c];
        yp[c] = ScalarAct(acc, act, ep.lo, ep.hi);
      }
    }
    if (ep.transcendental()) ApplyActivation(ep, yrow, g.OW * C, 1, g.OW * C);
  }
}

TFN_OPT_MULTIVERSION(RunDepthwise, DwJob, DwBody)

}  // namespace

void DepthwiseConv(const ConvGeom& g, const float* x, const float* f, float* y,
                   const GemmEpilogue& ep, const TfnKernelContext* ctx) {
  const int64_t rows = g.N * g.OH;
  const int64_t per_row = g.OW * g.C * g.KH * g.KW;
  const int64_t min_rows = per_row >= 32768 ? 1 : 32768 / (per_row > 0 ? per_row : 1);
  auto run = [&](int64_t begin, int64_t end) { RunDepthwise(DwJob{&g, x, f, y, &ep, begin, end}); };
  ParallelFor(ctx, rows, min_rows, run);
}

}  // namespace tfn::kernels::conv_internal
