// Depthwise int8 convolution (qlinear_conv2d / conv2d_integer with one input
// and one output channel per group), NHWC: for each output pixel the
// channels are the vector lanes, summing (x - x_zero_point) * (w -
// w_zero_point) over the window's taps in int32 (exact: |product| < 2^16,
// at most 2^15 taps), then requantized by QGemm's epilogue (StoreTile,
// qgemm_internal.h), so the result is the GEMM path's and the reference's.
// The filter minus its zero points is made once per call (int32). Output
// rows are split between threads. With AVX-512 the rows run in
// qlinear_depthwise_avx512.cc (16 channels per register, requantized in
// registers), else in the loops below.
#include <algorithm>

#include "kernels/opt/qgemm_internal.h"
#include "kernels/opt/qlinear_internal.h"
#include "kernels/opt/simd.h"

namespace tfn::kernels::qlinear_internal {
namespace {

using qgemm_internal::kQNr;
using qgemm_internal::QTileFix;
using qgemm_internal::StoreTile;

constexpr int kChunk = 512;  // channels per pass (2 KiB of int32 sums on the stack)

// The portable loops (compiled per ISA by TFN_OPT_MULTIVERSION): per output
// pixel, channels in chunks of kChunk, each tap's loop over the whole chunk,
// then the chunk requantized by StoreTile in tiles of kQNr.
TFN_OPT_INLINE void DwBody(const DepthwiseRows& j) {
  const int64_t out_bytes = j.rq->out.kind == QOutKind::kInt32 ? 4 : 1;
  const QTileFix no_fix{};
  for (int64_t row = j.begin; row < j.end; ++row) {
    const int64_t n = row / j.OH, oh = row % j.OH;
    const uint8_t* image = j.x + n * j.H * j.W * j.C;
    for (int64_t ow = 0; ow < j.OW; ++ow) {
      QGemmOutput out = j.rq->out;
      out.data = static_cast<unsigned char*>(j.y) + ((n * j.OH + oh) * j.OW + ow) * j.C * out_bytes;
      out.ldc = 0;
      for (int64_t c0 = 0; c0 < j.C; c0 += kChunk) {
        const int cn = static_cast<int>(std::min<int64_t>(kChunk, j.C - c0));
        int32_t acc[kChunk];
        for (int c = 0; c < cn; ++c) acc[c] = 0;
        for (int64_t kh = 0; kh < j.KH; ++kh) {
          const int64_t ih = oh * j.sh - j.pt + kh * j.dh;
          if (ih < 0 || ih >= j.H) continue;
          for (int64_t kw = 0; kw < j.KW; ++kw) {
            const int64_t iw = ow * j.sw - j.pl + kw * j.dw;
            if (iw < 0 || iw >= j.W) continue;
            const uint8_t* xs = image + (ih * j.W + iw) * j.C + c0;
            const int32_t* ws = j.w + (kh * j.KW + kw) * j.C + c0;
            for (int c = 0; c < cn; ++c) {
              acc[c] += (static_cast<int32_t>(xs[c] ^ j.x_flip) - j.x_zp) * ws[c];
            }
          }
        }
        for (int t = 0; t < cn; t += kQNr) {
          StoreTile(acc + t, no_fix, out, 0, c0 + t, 1, cn - t < kQNr ? cn - t : kQNr);
        }
      }
    }
  }
}

TFN_OPT_MULTIVERSION(RunRows, DepthwiseRows, DwBody)

}  // namespace

int64_t DepthwiseScratchBytes(int64_t KH, int64_t KW, int64_t C) { return 64 + KH * KW * C * 4; }

int32_t RunDepthwise(const QLinearParams& p, const QLinearOperands& q, const Requant& rq, int64_t H,
                     int64_t W, int64_t C, int64_t KH, int64_t KW, int64_t OH, int64_t OW,
                     int64_t pt, int64_t pl, int64_t batch, unsigned char* scratch, TfnTensor& y,
                     const TfnKernelContext* ctx) {
  const auto base = reinterpret_cast<uintptr_t>(scratch);
  auto* w = reinterpret_cast<int32_t*>(scratch + (64 - base % 64) % 64);
  const bool w_signed = q.w->dtype == static_cast<int32_t>(DType::kInt8);
  for (int64_t t = 0; t < KH * KW; ++t) {
    for (int64_t c = 0; c < C; ++c) {
      const int64_t e = t * C + c;
      const int32_t v = w_signed ? static_cast<const int8_t*>(q.w->data)[e]
                                 : static_cast<const uint8_t*>(q.w->data)[e];
      w[e] = v - rq.w_zp[rq.w_zp_stride ? c : 0];
    }
  }
  const bool x_signed = q.x->dtype == static_cast<int32_t>(DType::kInt8);
  const DepthwiseRows job{&rq,
                          static_cast<const uint8_t*>(q.x->data),
                          w,
                          H,
                          W,
                          C,
                          KH,
                          KW,
                          OH,
                          OW,
                          pt,
                          pl,
                          p.conv.strides[0],
                          p.conv.strides[1],
                          p.conv.dilations[0],
                          p.conv.dilations[1],
                          rq.x_zp + (x_signed ? 128 : 0),
                          x_signed ? 0x80 : 0,
                          y.data,
                          0,
                          0};
  const bool avx512 = opt::Avx512KernelsActive();
  auto rows = [&](int64_t b, int64_t e) {
    DepthwiseRows part = job;
    part.begin = b;
    part.end = e;
#if defined(__x86_64__)
    if (avx512) return DepthwiseRowsAvx512(part);
#endif
    RunRows(part);
  };
  (void)avx512;
  const int64_t min_rows =
      std::max<int64_t>(1, opt::kMinParallelChunk / std::max<int64_t>(1, OW * C));
  ParallelFor(ctx, batch * OH, min_rows, rows);
  return TFN_KERNEL_OK;
}

}  // namespace tfn::kernels::qlinear_internal
