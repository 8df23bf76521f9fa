// The AVX-512 depthwise int8 convolution (qlinear_depthwise.cc's fast path):
// 16 channels per zmm of int32 sums, four output pixels at a time inside the
// input (one at a time at its edges), the requantization in registers (StoreTile's float
// operations, so the result is the same bit for bit). The filter minus its zero points comes
// widened to int32 ([taps][C]); x's zero point is subtracted per tap at the edges and once per
// window inside (zp * sum of the taps' weights).
// qlinear_depthwise.cc calls it only when opt::Avx512KernelsActive().
#if defined(__x86_64__)
#include <immintrin.h>

#include <algorithm>

#include "kernels/opt/avx512_target.h"  // after immintrin.h: GCC 12 header warning
#include "kernels/opt/qlinear_internal.h"

#define TFN_AVX512_BW __attribute__((target("avx512f,avx512vl,avx512bw,fma")))
#define TFN_AVX512_BW_INLINE TFN_AVX512_BW __attribute__((always_inline)) inline

namespace tfn::kernels::qlinear_internal {

namespace {

// x - x_zero_point for the 16 channels at `at` (masked), as int32.
TFN_AVX512_BW_INLINE __m512i Input(const uint8_t* at, __mmask16 m, __m512i flip, __m512i x_zp) {
  return _mm512_sub_epi32(_mm512_xor_si512(_mm512_cvtepu8_epi32(_mm_maskz_loadu_epi8(m, at)), flip),
                          x_zp);
}

// StoreTile's requantization of 16 int32 sums, in registers.
struct Requantize {
  __mmask16 m;
  bool quantized;
  __m512 scale, lo, hi, round;
  __m512i out_zp;
};

TFN_AVX512_BW_INLINE void Store(const Requantize& r, __m512i acc, unsigned char* dst) {
  if (!r.quantized) {
    _mm512_mask_storeu_epi32(dst, r.m, acc);
    return;
  }
  __m512 f = _mm512_mul_ps(_mm512_cvtepi32_ps(acc), r.scale);
  f = _mm512_max_ps(_mm512_min_ps(f, r.hi), r.lo);
  f = _mm512_sub_ps(_mm512_add_ps(f, r.round), r.round);
  _mm512_mask_cvtepi32_storeu_epi8(dst, r.m, _mm512_add_epi32(_mm512_cvttps_epi32(f), r.out_zp));
}

// Output pixels [*ow, ow_hi) of one row and 16-channel block, four at a
// time, windows inside the input: sums start at `start` (bias - x_zp * sum
// of the weights), so a tap is a load, a multiply and an add per pixel (and
// the flip for an int8 input). Leaves *ow at the first pixel not done.
template <bool kFlip>
TFN_AVX512_BW_INLINE void Interior(const DepthwiseRows& j, const uint8_t* image, int64_t ih0,
                                   int64_t c0, __mmask16 m, __m512i start, __m512i flip,
                                   const Requantize& rq, unsigned char* row_dst, int64_t out_bytes,
                                   int64_t* ow_io, int64_t ow_hi) {
  const int64_t step = j.sw * j.C;
  int64_t ow = *ow_io;
  for (; ow + 4 <= ow_hi; ow += 4) {
    __m512i a0 = start, a1 = start, a2 = start, a3 = start;
    for (int64_t kh = 0; kh < j.KH; ++kh) {
      const uint8_t* at = image + ((ih0 + kh * j.dh) * j.W + ow * j.sw - j.pl) * j.C + c0;
      for (int64_t kw = 0; kw < j.KW; ++kw, at += j.dw * j.C) {
        const __m512i wv = _mm512_maskz_loadu_epi32(m, j.w + (kh * j.KW + kw) * j.C + c0);
        __m512i x0 = _mm512_cvtepu8_epi32(_mm_maskz_loadu_epi8(m, at));
        __m512i x1 = _mm512_cvtepu8_epi32(_mm_maskz_loadu_epi8(m, at + step));
        __m512i x2 = _mm512_cvtepu8_epi32(_mm_maskz_loadu_epi8(m, at + 2 * step));
        __m512i x3 = _mm512_cvtepu8_epi32(_mm_maskz_loadu_epi8(m, at + 3 * step));
        if (kFlip) {
          x0 = _mm512_xor_si512(x0, flip);
          x1 = _mm512_xor_si512(x1, flip);
          x2 = _mm512_xor_si512(x2, flip);
          x3 = _mm512_xor_si512(x3, flip);
        }
        a0 = _mm512_add_epi32(a0, _mm512_mullo_epi32(x0, wv));
        a1 = _mm512_add_epi32(a1, _mm512_mullo_epi32(x1, wv));
        a2 = _mm512_add_epi32(a2, _mm512_mullo_epi32(x2, wv));
        a3 = _mm512_add_epi32(a3, _mm512_mullo_epi32(x3, wv));
      }
    }
    unsigned char* d = row_dst + ow * j.C * out_bytes;
    Store(rq, a0, d);
    Store(rq, a1, d + j.C * out_bytes);
    Store(rq, a2, d + 2 * j.C * out_bytes);
    Store(rq, a3, d + 3 * j.C * out_bytes);
  }
  *ow_io = ow;
}

}  // namespace

TFN_AVX512_BW void DepthwiseRowsAvx512(const DepthwiseRows& j) {
  const QGemmOutput& out = j.rq->out;
  const bool quantized = out.kind != QOutKind::kInt32;
  const __m512 lo = _mm512_set1_ps(static_cast<float>(out.qmin - out.zero_point));
  const __m512 hi = _mm512_set1_ps(static_cast<float>(out.qmax - out.zero_point));
  const __m512 round = _mm512_set1_ps(12582912.0f);  // 1.5 * 2^23, as StoreTile
  const __m512i out_zp = _mm512_set1_epi32(out.zero_point);
  const __m512i x_zp = _mm512_set1_epi32(j.x_zp);
  const __m512i flip = _mm512_set1_epi32(j.x_flip);
  const int64_t out_bytes = quantized ? 1 : 4;
  for (int64_t row = j.begin; row < j.end; ++row) {
    const int64_t n = row / j.OH, oh = row % j.OH;
    const uint8_t* image = j.x + n * j.H * j.W * j.C;
    for (int64_t c0 = 0; c0 < j.C; c0 += 16) {
      const int cn = j.C - c0 < 16 ? static_cast<int>(j.C - c0) : 16;
      const __mmask16 m = static_cast<__mmask16>((1u << cn) - 1);
      const __m512i bias =
          out.bias ? _mm512_maskz_loadu_epi32(m, out.bias + c0) : _mm512_setzero_si512();
      const __m512 scale =
          quantized ? _mm512_maskz_loadu_ps(m, out.scale + c0) : _mm512_setzero_ps();
      const Requantize rq{m, quantized, scale, lo, hi, round, out_zp};
      auto dst = [&](int64_t ow) {
        return static_cast<unsigned char*>(j.y) +
               (((n * j.OH + oh) * j.OW + ow) * j.C + c0) * out_bytes;
      };
      // Columns whose window is inside the input, on a row whose window is
      // inside too: four pixels at a time without bounds checks, each weight
      // vector loaded once for the four.
      int64_t ow_lo = 0, ow_hi = 0;
      const int64_t ih0 = oh * j.sh - j.pt;
      if (ih0 >= 0 && ih0 + (j.KH - 1) * j.dh < j.H) {
        ow_lo = (j.pl + j.sw - 1) / j.sw;
        const int64_t last = j.W - 1 - (j.KW - 1) * j.dw + j.pl;  // ow * sw <= last
        ow_hi = last < 0 ? 0 : std::min<int64_t>(j.OW, last / j.sw + 1);
        ow_hi = std::max(ow_hi, ow_lo);
      }
      int64_t ow = ow_lo;
      // Inside the input every tap is summed, so sum (x - zp) * w = sum x * w
      // - zp * sum w (exact: int32 wraps alike): the zero point goes into the
      // starting sums, and a uint8 input needs no flip either, leaving a
      // load, a multiply and an add per tap and pixel.
      __m512i wsum = _mm512_setzero_si512();
      for (int64_t t = 0; t < j.KH * j.KW; ++t) {
        wsum = _mm512_add_epi32(wsum, _mm512_maskz_loadu_epi32(m, j.w + t * j.C + c0));
      }
      const __m512i start = _mm512_sub_epi32(bias, _mm512_mullo_epi32(x_zp, wsum));
      unsigned char* row_dst = dst(0);
      if (j.x_flip != 0) {
        Interior<true>(j, image, ih0, c0, m, start, flip, rq, row_dst, out_bytes, &ow, ow_hi);
      } else {
        Interior<false>(j, image, ih0, c0, m, start, flip, rq, row_dst, out_bytes, &ow, ow_hi);
      }
      // The edges and the leftovers: one pixel at a time, with checks.
      for (int64_t o = 0; o < j.OW; ++o) {
        if (o >= ow_lo && o < ow) continue;  // done above
        __m512i acc = bias;
        for (int64_t kh = 0; kh < j.KH; ++kh) {
          const int64_t ih = ih0 + kh * j.dh;
          if (ih < 0 || ih >= j.H) continue;
          for (int64_t kw = 0; kw < j.KW; ++kw) {
            const int64_t iw = o * j.sw - j.pl + kw * j.dw;
            if (iw < 0 || iw >= j.W) continue;
            const __m512i wv = _mm512_maskz_loadu_epi32(m, j.w + (kh * j.KW + kw) * j.C + c0);
            acc = _mm512_add_epi32(
                acc,
                _mm512_mullo_epi32(Input(image + (ih * j.W + iw) * j.C + c0, m, flip, x_zp), wv));
          }
        }
        Store(rq, acc, dst(o));
      }
    }
  }
}

}  // namespace tfn::kernels::qlinear_internal

#endif  // __x86_64__
