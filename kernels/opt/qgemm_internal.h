// Internal interface between the QGemm driver (qgemm.cc) and its per-ISA
// microkernels (qgemm_vnni.cc, qgemm_avx2.cc, qgemm.cc's portable one), and
// the requantizing epilogue they share. Not public.
//
// Layouts, the same for every ISA:
//   A: kQMr rows, row r's depth bytes at a + r * lda (k in groups of 4:
//      the group g is the 4 bytes at + 4 * g), uint8 (normalized: an int8 A
//      is packed with its sign bit flipped and its zero point raised by 128);
//   B: panels of kQNr columns (core/packed_layout.h); in a panel the group
//      g is 128 bytes at b + 128 * g, column j's 4 depth bytes at + 4 * j,
//      int8 (a uint8 B is packed with its sign bit flipped, zero point
//      lowered by 128); after the last group a row of the columns' sums.
//      Depth and columns past the matrix are zero.
#pragma once

#include <cstdint>

#include "core/packed_layout.h"
#include "kernels/opt/qgemm.h"

#if defined(TFN_AOT_BITCODE)
// 1 when the AOT target has AVX-512 VNNI: defined by aot/compiler.cc in
// every module it links the kernels into (a constant LLVM folds).
extern "C" const int32_t tfn_aot_target_has_vnni;
#endif

namespace tfn::kernels::qgemm_internal {

inline constexpr int kQMr = 12;
static_assert(kQGemmIndirectPadRows == kQMr - 1, "an indirection table covers the last tile");
inline constexpr int kQNr = kInt8PanelWidth;
inline constexpr int64_t kQPanelGroupBytes = kInt8PanelRowBytes;

// c[r * kQNr + j] = sum over k4 groups of A row r . B panel column j, for
// rows r < `rows` (1..kQMr) of the kQMr x kQNr tile (int32, wrapping): a
// last partial tile (a 7x7 conv's 49 pixels, a matmul's single row) does
// only its rows' work. Rows up to kQMr of A are readable.
using QKernelFn = void (*)(int64_t k4, const uint8_t* a, int64_t lda, const int8_t* b, int32_t* c,
                           int rows);

void QKernelPortable(int64_t k4, const uint8_t* a, int64_t lda, const int8_t* b, int32_t* c,
                     int rows);
void QKernelAvx2(int64_t k4, const uint8_t* a, int64_t lda, const int8_t* b, int32_t* c, int rows);
void QKernelVnni(int64_t k4, const uint8_t* a, int64_t lda, const int8_t* b, int32_t* c, int rows);
// The same tile with A through an indirection table (QOperand::indirect):
// row r's tap t at table[r * taps + t], c4 groups of 4 bytes per tap (B's
// group t * c4 + g pairs with bytes 4g..4g+3 of the tap).
void QKernelVnniIndirect(int64_t taps, int64_t c4, const uint8_t* const* table, const int8_t* b,
                         int32_t* c, int rows);

// What turns a tile's dot products into outputs: acc = dot + row_fix[i] +
// col_fix[j] - row_zp[i] * col_sum[j] - row_sum[i] * col_zp[j] (each term
// only when its arrays are given; indices local to the tile), then QGemmOutput.
struct QTileFix {
  const int32_t* row_fix;  // kQMr entries or null
  const int32_t* col_fix;  // kQNr entries or null
  const int32_t* row_zp;   // with col_sum: za per row (rank-one term) or null
  const int32_t* col_sum;  // sum_k b(k, j) - K * zb(j)
  const int32_t* row_sum;  // with col_zp: sum_k a(i, k) or null
  const int32_t* col_zp;
};

// Wrapping int32 arithmetic (ONNX Runtime's accumulators wrap; signed
// overflow would be undefined behaviour in C++).
inline int32_t WrapAdd(int32_t x, int32_t y) {
  return static_cast<int32_t>(static_cast<uint32_t>(x) + static_cast<uint32_t>(y));
}
inline int32_t WrapSub(int32_t x, int32_t y) {
  return static_cast<int32_t>(static_cast<uint32_t>(x) - static_cast<uint32_t>(y));
}
inline int32_t WrapMul(int32_t x, int32_t y) {
  return static_cast<int32_t>(static_cast<uint32_t>(x) * static_cast<uint32_t>(y));
}

// Writes rows [0, rows) x columns [0, cols) of the tile (whose top-left is
// output element (i0, j0)) to out. Inlined into each ISA's file so that the
// loops over j vectorize with that file's instruction set.
__attribute__((always_inline)) inline void StoreTile(const int32_t* tile, const QTileFix& fix,
                                                     const QGemmOutput& out, int64_t i0, int64_t j0,
                                                     int rows, int cols) {
  for (int r = 0; r < rows; ++r) {
    int32_t v[kQNr];
    const int32_t* t = tile + r * kQNr;
    const int32_t rf = fix.row_fix ? fix.row_fix[r] : 0;
    for (int j = 0; j < cols; ++j) v[j] = WrapAdd(t[j], rf);
    if (fix.col_fix)
      for (int j = 0; j < cols; ++j) v[j] = WrapAdd(v[j], fix.col_fix[j]);
    if (fix.row_zp) {
      const int32_t z = fix.row_zp[r];
      for (int j = 0; j < cols; ++j) v[j] = WrapSub(v[j], WrapMul(z, fix.col_sum[j]));
    }
    if (fix.col_zp) {
      const int32_t s = fix.row_sum[r];
      for (int j = 0; j < cols; ++j) v[j] = WrapSub(v[j], WrapMul(s, fix.col_zp[j]));
    }
    const int64_t i = i0 + r;
    if (out.bias) {
      if (out.channel_is_row) {
        for (int j = 0; j < cols; ++j) v[j] = WrapAdd(v[j], out.bias[i]);
      } else {
        for (int j = 0; j < cols; ++j) v[j] = WrapAdd(v[j], out.bias[j0 + j]);
      }
    }
    if (out.kind == QOutKind::kInt32) {
      int32_t* c = static_cast<int32_t*>(out.data) + i * out.ldc + j0;
      for (int j = 0; j < cols; ++j) c[j] = v[j];
      continue;
    }
    float s[kQNr];
    for (int j = 0; j < cols; ++j) {
      const int64_t ch = out.channel_is_row ? i : j0 + j;
      s[j] = out.scale[ch * out.scale_stride];
    }
    if (out.kind == QOutKind::kFloat) {
      float* c = static_cast<float*>(out.data) + i * out.ldc + j0;
      for (int j = 0; j < cols; ++j) c[j] = static_cast<float>(v[j]) * s[j];
      if (out.fbias) {
        for (int j = 0; j < cols; ++j) c[j] += out.fbias[out.channel_is_row ? i : j0 + j];
      }
      continue;
    }
    // Clamping the scaled value to [qmin - zp, qmax - zp] before rounding
    // equals clamping after it (the bounds are integers). `f < hi ? f : hi`
    // sends NaN to hi (as minps does) and vectorizes on every ISA, unlike
    // fminf. Adding and subtracting 1.5 * 2^23 rounds a float of magnitude
    // below 2^22 to the nearest integer, ties to even (the default rounding
    // mode), with no libm call; the clamped values are far below that.
    const float lo = static_cast<float>(out.qmin - out.zero_point);
    const float hi = static_cast<float>(out.qmax - out.zero_point);
    constexpr float kRound = 12582912.0f;  // 1.5 * 2^23
    int32_t q[kQNr];
    for (int j = 0; j < cols; ++j) {
      float f = static_cast<float>(v[j]) * s[j];
      f = f < hi ? f : hi;
      f = f > lo ? f : lo;
      q[j] = static_cast<int32_t>((f + kRound) - kRound) + out.zero_point;
    }
    if (out.kind == QOutKind::kUint8) {
      uint8_t* c = static_cast<uint8_t*>(out.data) + i * out.ldc + j0;
      for (int j = 0; j < cols; ++j) c[j] = static_cast<uint8_t>(q[j]);
    } else {
      int8_t* c = static_cast<int8_t*>(out.data) + i * out.ldc + j0;
      for (int j = 0; j < cols; ++j) c[j] = static_cast<int8_t>(q[j]);
    }
  }
}

using StoreTileFn = void (*)(const int32_t* tile, const QTileFix& fix, const QGemmOutput& out,
                             int64_t i0, int64_t j0, int rows, int cols);
void StoreTilePortable(const int32_t* tile, const QTileFix& fix, const QGemmOutput& out, int64_t i0,
                       int64_t j0, int rows, int cols);
void StoreTileAvx2(const int32_t* tile, const QTileFix& fix, const QGemmOutput& out, int64_t i0,
                   int64_t j0, int rows, int cols);
void StoreTileVnni(const int32_t* tile, const QTileFix& fix, const QGemmOutput& out, int64_t i0,
                   int64_t j0, int rows, int cols);

}  // namespace tfn::kernels::qgemm_internal
