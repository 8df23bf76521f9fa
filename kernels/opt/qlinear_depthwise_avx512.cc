// The AVX-512 depthwise int8 convolution (qlinear_depthwise.cc's fast path):
// 16 channels per zmm of int32 sums, one output pixel at a time along the
// row, the requantization in registers (StoreTile's float operations, so the
// result is the same bit for bit). The filter minus its zero points comes
// widened to int32 ([taps][C]); x's zero point is subtracted per tap.
// qlinear_depthwise.cc calls it only when opt::Avx512KernelsActive().
#if defined(__x86_64__)
#include <immintrin.h>

#include "kernels/opt/avx512_target.h"  // after immintrin.h: GCC 12 header warning
#include "kernels/opt/qlinear_internal.h"

#define TFN_AVX512_BW __attribute__((target("avx512f,avx512vl,avx512bw,fma")))

namespace tfn::kernels::qlinear_internal {

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
      for (int64_t ow = 0; ow < j.OW; ++ow) {
        __m512i acc = bias;
        for (int64_t kh = 0; kh < j.KH; ++kh) {
          const int64_t ih = oh * j.sh - j.pt + kh * j.dh;
          if (ih < 0 || ih >= j.H) continue;
          for (int64_t kw = 0; kw < j.KW; ++kw) {
            const int64_t iw = ow * j.sw - j.pl + kw * j.dw;
            if (iw < 0 || iw >= j.W) continue;
            const __m128i bytes = _mm_maskz_loadu_epi8(m, image + (ih * j.W + iw) * j.C + c0);
            const __m512i xv =
                _mm512_sub_epi32(_mm512_xor_si512(_mm512_cvtepu8_epi32(bytes), flip), x_zp);
            const __m512i wv = _mm512_maskz_loadu_epi32(m, j.w + (kh * j.KW + kw) * j.C + c0);
            acc = _mm512_add_epi32(acc, _mm512_mullo_epi32(xv, wv));
          }
        }
        unsigned char* dst = static_cast<unsigned char*>(j.y) +
                             (((n * j.OH + oh) * j.OW + ow) * j.C + c0) * out_bytes;
        if (!quantized) {
          _mm512_mask_storeu_epi32(dst, m, acc);
          continue;
        }
        __m512 f = _mm512_mul_ps(_mm512_cvtepi32_ps(acc), scale);
        f = _mm512_max_ps(_mm512_min_ps(f, hi), lo);
        f = _mm512_sub_ps(_mm512_add_ps(f, round), round);
        _mm512_mask_cvtepi32_storeu_epi8(dst, m, _mm512_add_epi32(_mm512_cvttps_epi32(f), out_zp));
      }
    }
  }
}

}  // namespace tfn::kernels::qlinear_internal

#endif  // __x86_64__
