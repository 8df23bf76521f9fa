// The AVX-512 VNNI microkernel of QGemm (qgemm_internal.h): a 12 x 32 int32
// tile in 24 zmm accumulators (two passes of 12 under clang); per group of 4 depth bytes, two 64-byte
// loads of the B panel and, for each row, a broadcast of A's 4 bytes and
// two vpdpbusd (u8 x s8 products summed in fours into int32, no
// saturation). Built with a per-function target so the library still runs
// on CPUs without VNNI: qgemm.cc calls it only when CPUID reports
// avx512f, avx512bw and avx512vnni.
#if defined(__x86_64__)
#include <immintrin.h>

#include <cstring>

#include "kernels/opt/avx512_target.h"  // after immintrin.h: GCC 12 header warning
#include "kernels/opt/qgemm_internal.h"

#define TFN_VNNI __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni,fma")))

namespace tfn::kernels::qgemm_internal {

namespace {

// The step both kernels take per group of 4 depth bytes: the B panel's two
// 64-byte halves at bg, and for each row r its 4 bytes at row_at(r),
// broadcast, into two vpdpbusd.
template <int R, class RowAt>
TFN_VNNI __attribute__((always_inline)) inline void Group(__m512i (&acc)[R][2], const int8_t* bg,
                                                          const RowAt& row_at) {
  const __m512i b0 = _mm512_loadu_si512(bg);
  const __m512i b1 = _mm512_loadu_si512(bg + 64);
#pragma GCC unroll 12
  for (int r = 0; r < R; ++r) {
    int32_t quad;
    std::memcpy(&quad, row_at(r), 4);
    const __m512i av = _mm512_set1_epi32(quad);
    acc[r][0] = _mm512_dpbusd_epi32(acc[r][0], av, b0);
    acc[r][1] = _mm512_dpbusd_epi32(acc[r][1], av, b1);
  }
}

template <int R>
TFN_VNNI __attribute__((always_inline)) inline void StoreRows(const __m512i (&acc)[R][2],
                                                              int32_t* c) {
#pragma GCC unroll 12
  for (int r = 0; r < R; ++r) {
    _mm512_storeu_si512(c + r * kQNr, acc[r][0]);
    _mm512_storeu_si512(c + r * kQNr + 16, acc[r][1]);
  }
}

// Rows [0, R) of the tile, all kQNr columns, from A rows at a (stride lda).
template <int R>
TFN_VNNI __attribute__((always_inline)) inline void Rows(int64_t k4, const uint8_t* a,
                                                         int64_t lda, const int8_t* b,
                                                         int32_t* c) {
  __m512i acc[R][2];
#pragma GCC unroll 12
  for (int r = 0; r < R; ++r) acc[r][0] = acc[r][1] = _mm512_setzero_si512();
  for (int64_t g = 0; g < k4; ++g) {
    Group<R>(acc, b + g * kQPanelGroupBytes, [&](int r) { return a + r * lda + 4 * g; });
  }
  StoreRows<R>(acc, c);
}

}  // namespace

// One instance per row count, so a partial tile does only its rows' work.
// clang (the AOT bitcode) spills some of 24 accumulators: there a tile of
// more than 6 rows is two passes (12 accumulators each), which read the B
// panel twice from L1 instead.
#if defined(__clang__)
constexpr int kPassRows = kQMr / 2;
#else
constexpr int kPassRows = kQMr;
#endif

template <class Fn>
TFN_VNNI __attribute__((always_inline)) inline void ByRows(int rows, const Fn& pass) {
  for (int r0 = 0; r0 < rows; r0 += kPassRows) {
    const int n = rows - r0 < kPassRows ? rows - r0 : kPassRows;
    pass(r0, n);
  }
}

TFN_VNNI void QKernelVnni(int64_t k4, const uint8_t* a, int64_t lda, const int8_t* b, int32_t* c,
                          int rows) {
  using Fn = void (*)(int64_t, const uint8_t*, int64_t, const int8_t*, int32_t*);
  static constexpr Fn kRows[] = {
    Rows<1>,
    Rows<2>,
    Rows<3>,
    Rows<4>,
    Rows<5>,
    Rows<6>,
#if !defined(__clang__)
    Rows<7>,
    Rows<8>,
    Rows<9>,
    Rows<10>,
    Rows<11>,
    Rows<12>
#endif
  };
  ByRows(rows, [&](int r0, int n) { kRows[n - 1](k4, a + r0 * lda, lda, b, c + r0 * kQNr); });
}

namespace {

// Rows [0, R) of the tile through the indirection table: per tap, R row
// pointers, then the tap's c4 groups (Group, as Rows). Rows keeps its own
// row addressing: rows as a + r * lda ran ~2% faster on mobilenet_v2_qdq's
// small-K 1x1 convs than through an array of row pointers (measured).
template <int R>
TFN_VNNI __attribute__((always_inline)) inline void RowsIndirect(int64_t taps, int64_t c4,
                                                                 const uint8_t* const* rows,
                                                                 const int8_t* b, int32_t* c) {
  __m512i acc[R][2];
#pragma GCC unroll 12
  for (int r = 0; r < R; ++r) acc[r][0] = acc[r][1] = _mm512_setzero_si512();
  for (int64_t t = 0; t < taps; ++t) {
    const uint8_t* a[R];
#pragma GCC unroll 12
    for (int r = 0; r < R; ++r) a[r] = rows[r * taps + t];
    const int8_t* bt = b + t * c4 * kQPanelGroupBytes;
    for (int64_t g = 0; g < c4; ++g) {
      Group<R>(acc, bt + g * kQPanelGroupBytes, [&](int r) { return a[r] + 4 * g; });
    }
  }
  StoreRows<R>(acc, c);
}

}  // namespace

TFN_VNNI void QKernelVnniIndirect(int64_t taps, int64_t c4, const uint8_t* const* table,
                                  const int8_t* b, int32_t* c, int rows) {
  using Fn = void (*)(int64_t, int64_t, const uint8_t* const*, const int8_t*, int32_t*);
  static constexpr Fn kRows[] = {
    RowsIndirect<1>,
    RowsIndirect<2>,
    RowsIndirect<3>,
    RowsIndirect<4>,
    RowsIndirect<5>,
    RowsIndirect<6>,
#if !defined(__clang__)
    RowsIndirect<7>,
    RowsIndirect<8>,
    RowsIndirect<9>,
    RowsIndirect<10>,
    RowsIndirect<11>,
    RowsIndirect<12>
#endif
  };
  ByRows(rows, [&](int r0, int n) { kRows[n - 1](taps, c4, table + r0 * taps, b, c + r0 * kQNr); });
}

// StoreTile (qgemm_internal.h) in zmm registers, 16 columns at a time under
// a mask; the same float operations, so bit-identical to it.
TFN_VNNI void StoreTileVnni(const int32_t* tile, const QTileFix& fix, const QGemmOutput& out,
                            int64_t i0, int64_t j0, int rows, int cols) {
  const bool quantized = out.kind == QOutKind::kUint8 || out.kind == QOutKind::kInt8;
  const __m512 lo = _mm512_set1_ps(static_cast<float>(out.qmin - out.zero_point));
  const __m512 hi = _mm512_set1_ps(static_cast<float>(out.qmax - out.zero_point));
  const __m512 round = _mm512_set1_ps(12582912.0f);
  const __m512i zp = _mm512_set1_epi32(out.zero_point);
  for (int h = 0; h * 16 < cols; ++h) {
    const int n = cols - 16 * h < 16 ? cols - 16 * h : 16;
    const __mmask16 m = static_cast<__mmask16>((1u << n) - 1);
    const int64_t j = j0 + 16 * h;
    // The per-column terms, loaded once for all rows.
    __m512i col =
        fix.col_fix ? _mm512_maskz_loadu_epi32(m, fix.col_fix + 16 * h) : _mm512_setzero_si512();
    if (out.bias && !out.channel_is_row) {
      col = _mm512_add_epi32(col, _mm512_maskz_loadu_epi32(m, out.bias + j));
    }
    const __m512i col_sum =
        fix.row_zp ? _mm512_maskz_loadu_epi32(m, fix.col_sum + 16 * h) : _mm512_setzero_si512();
    const __m512i col_zp =
        fix.col_zp ? _mm512_maskz_loadu_epi32(m, fix.col_zp + 16 * h) : _mm512_setzero_si512();
    __m512 col_scale = _mm512_set1_ps(1.0f), col_fbias = _mm512_setzero_ps();
    if (out.kind != QOutKind::kInt32 && !out.channel_is_row) {
      col_scale =
          out.scale_stride ? _mm512_maskz_loadu_ps(m, out.scale + j) : _mm512_set1_ps(out.scale[0]);
      if (out.fbias) col_fbias = _mm512_maskz_loadu_ps(m, out.fbias + j);
    }
    for (int r = 0; r < rows; ++r) {
      const int64_t i = i0 + r;
      __m512i v = _mm512_maskz_loadu_epi32(m, tile + r * kQNr + 16 * h);
      // Wrapping int32 sums: any order gives StoreTile's result.
      if (fix.row_fix) v = _mm512_add_epi32(v, _mm512_set1_epi32(fix.row_fix[r]));
      v = _mm512_add_epi32(v, col);
      if (fix.row_zp) {
        v = _mm512_sub_epi32(v, _mm512_mullo_epi32(_mm512_set1_epi32(fix.row_zp[r]), col_sum));
      }
      if (fix.col_zp) {
        v = _mm512_sub_epi32(v, _mm512_mullo_epi32(_mm512_set1_epi32(fix.row_sum[r]), col_zp));
      }
      if (out.bias && out.channel_is_row) v = _mm512_add_epi32(v, _mm512_set1_epi32(out.bias[i]));
      if (out.kind == QOutKind::kInt32) {
        _mm512_mask_storeu_epi32(static_cast<int32_t*>(out.data) + i * out.ldc + j, m, v);
        continue;
      }
      __m512 scale = col_scale, fbias = col_fbias;
      if (out.channel_is_row) {
        scale = _mm512_set1_ps(out.scale[i * out.scale_stride]);
        if (out.fbias) fbias = _mm512_set1_ps(out.fbias[i]);
      }
      __m512 f = _mm512_mul_ps(_mm512_cvtepi32_ps(v), scale);
      if (!quantized) {
        if (out.fbias) f = _mm512_add_ps(f, fbias);
        _mm512_mask_storeu_ps(static_cast<float*>(out.data) + i * out.ldc + j, m, f);
        continue;
      }
      // min_ps(f, hi) is `f < hi ? f : hi` (NaN gives hi), then the same
      // for lo; the rounding constant as in StoreTile.
      f = _mm512_max_ps(_mm512_min_ps(f, hi), lo);
      f = _mm512_sub_ps(_mm512_add_ps(f, round), round);
      const __m512i q = _mm512_add_epi32(_mm512_cvttps_epi32(f), zp);
      // Values are within [qmin, qmax]: truncating to bytes is exact.
      _mm512_mask_cvtepi32_storeu_epi8(static_cast<uint8_t*>(out.data) + i * out.ldc + j, m, q);
    }
  }
}

}  // namespace tfn::kernels::qgemm_internal

#endif  // __x86_64__
