// Implementation of CastHalfRange (cast_half.h): 16 elements per step,
// masked loads and stores for the tail.
#include "kernels/opt/cast_half.h"

#include "kernels/opt/simd.h"

#if defined(TFN_OPT_X86)
#include <immintrin.h>

#include "kernels/opt/avx512_target.h"  // GCC 12's -Wmaybe-uninitialized in its own header
#endif

namespace tfn::kernels::opt {
namespace {

#if defined(TFN_OPT_X86)
TFN_OPT_TARGET_AVX512 __mmask16 TailMask(int64_t n) {
  return n >= 16 ? static_cast<__mmask16>(0xFFFF) : static_cast<__mmask16>((1u << n) - 1);
}

// float16 → float32 (exact).
TFN_OPT_TARGET_AVX512 void HalfToFloat(const uint16_t* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; i += 16) {
    const __mmask16 m = TailMask(n - i);
    _mm512_mask_storeu_ps(y + i, m, _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(m, x + i)));
  }
}

// float32 → float16, round to nearest even (what FloatToHalfBits does, NaN
// quieted with its payload's top bits kept).
TFN_OPT_TARGET_AVX512 void FloatToHalf(const float* x, uint16_t* y, int64_t n) {
  for (int64_t i = 0; i < n; i += 16) {
    const __mmask16 m = TailMask(n - i);
    const __m256i h = _mm512_cvtps_ph(_mm512_maskz_loadu_ps(m, x + i),
                                      _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    _mm256_mask_storeu_epi16(y + i, m, h);
  }
}

// bfloat16 → float32 (exact: the bits are the float's top half).
TFN_OPT_TARGET_AVX512 void BFloat16ToFloat(const uint16_t* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; i += 16) {
    const __mmask16 m = TailMask(n - i);
    const __m512i w = _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(m, x + i));
    _mm512_mask_storeu_ps(y + i, m, _mm512_castsi512_ps(_mm512_slli_epi32(w, 16)));
  }
}

// float32 → bfloat16 bits of 16 floats: (u + 0x7fff + lsb) >> 16 rounds to
// nearest even, or u >> 16 truncates; NaN keeps its top bits and gets the
// quiet bit.
TFN_OPT_TARGET_AVX512 __m512i BFloat16Bits(__m512 v, __m512i round, __m512i one) {
  const __m512i u = _mm512_castps_si512(v);
  const __m512i top = _mm512_srli_epi32(u, 16);
  const __m512i r =
      _mm512_srli_epi32(_mm512_add_epi32(u, _mm512_add_epi32(round, _mm512_and_si512(top, one))), 16);
  const __mmask16 nan = _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
  return _mm512_mask_mov_epi32(r, nan, _mm512_or_si512(top, _mm512_set1_epi32(0x40)));
}

TFN_OPT_TARGET_AVX512 void FloatToBFloat16(const float* x, uint16_t* y, int64_t n, bool truncate) {
  const __m512i round = _mm512_set1_epi32(truncate ? 0 : 0x7fff);
  const __m512i one = _mm512_set1_epi32(truncate ? 0 : 1);
  int64_t i = 0;
  // Two vectors per step, packed into one 32-lane store (vpmovdw to memory
  // is slow on AMD's cores; a permute of the two halves is not).
  const __m512i order = _mm512_set_epi16(31, 29, 27, 25, 23, 21, 19, 17, 15, 13, 11, 9, 7, 5, 3, 1,
                                         30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
  for (; i + 32 <= n; i += 32) {
    const __m512i a = BFloat16Bits(_mm512_loadu_ps(x + i), round, one);
    const __m512i b = BFloat16Bits(_mm512_loadu_ps(x + i + 16), round, one);
    // a and b hold one 16-bit result in the low half of each 32-bit lane:
    // interleave-free packing by permuting the 16-bit halves of (b << 16 | a).
    const __m512i both = _mm512_or_si512(a, _mm512_slli_epi32(b, 16));
    _mm512_storeu_si512(y + i, _mm512_permutexvar_epi16(order, both));
  }
  for (; i < n; i += 16) {
    const __mmask16 m = TailMask(n - i);
    const __m512i r = BFloat16Bits(_mm512_maskz_loadu_ps(m, x + i), round, one);
    _mm256_mask_storeu_epi16(y + i, m, _mm512_cvtepi32_epi16(r));
  }
}
#endif

}  // namespace

bool CastHalfRange(DType from, DType to, const void* x, void* y, int64_t begin, int64_t end,
                   bool bfloat16_truncate) {
#if defined(TFN_OPT_X86)
  if (!Avx512KernelsActive()) return false;
  const int64_t n = end - begin;
  if (from == DType::kFloat16 && to == DType::kFloat32) {
    HalfToFloat(static_cast<const uint16_t*>(x) + begin, static_cast<float*>(y) + begin, n);
  } else if (from == DType::kFloat32 && to == DType::kFloat16) {
    FloatToHalf(static_cast<const float*>(x) + begin, static_cast<uint16_t*>(y) + begin, n);
  } else if (from == DType::kBFloat16 && to == DType::kFloat32) {
    BFloat16ToFloat(static_cast<const uint16_t*>(x) + begin, static_cast<float*>(y) + begin, n);
  } else if (from == DType::kFloat32 && to == DType::kBFloat16) {
    FloatToBFloat16(static_cast<const float*>(x) + begin, static_cast<uint16_t*>(y) + begin, n,
                    bfloat16_truncate);
  } else {
    return false;
  }
  return true;
#else
  (void)from, (void)to, (void)x, (void)y, (void)begin, (void)end, (void)bfloat16_truncate;
  return false;
#endif
}

}  // namespace tfn::kernels::opt
