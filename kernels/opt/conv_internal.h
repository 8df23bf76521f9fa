// Internal interface between the convolution driver (conv.cc) and its
// per-ISA tile kernels (conv_avx512.cc, conv_avx2.cc, conv_portable.cc).
// Not public.
//
// A tile kernel computes up to `mr` output pixels x up to `nr` output
// channels of an NHWC convolution as a GEMM whose A matrix is read in place
// ("implicit im2col"): output pixel i reads, for each tap t (a (kh, kw) of
// the window, or one run of an im2col copy), cg consecutive floats at
// rows[t * kConvRowStride + i] (a pointer into the input, or to zeros where
// the tap falls into the padding). B is one 32-column panel of the packed
// filter (kernels/opt/gemm.h's GemmPackB layout, K = taps * cg rows of 32
// floats), read from column j0 on. The whole K is summed in registers, then
// the epilogue (bias, residual, relu/clip) is applied in registers and the
// tile is stored; other activations are left to ApplyActivation.
#pragma once

#include <cstdint>

#include "kernels/kernel_abi.h"
#include "kernels/opt/epilogue.h"

namespace tfn::kernels::conv_internal {

inline constexpr int kConvMaxMr = 16;
// Entries per tap in the row-pointer table (>= every ISA's mr).
inline constexpr int kConvRowStride = kConvMaxMr;

struct ConvTile {
  int64_t taps;
  int64_t cg;                // floats per tap and pixel
  const float* const* rows;  // [taps][kConvRowStride] pointers
  const float* b;            // packed panel, already offset to column j0: b(k, j) = b[k*32 + j]
  float* c;                  // c(i, j) = c[i * ldc + j]
  int64_t ldc;
  int64_t n_valid;        // 1..nr columns to store
  const float* bias;      // bias[j], or null
  const float* residual;  // residual[i * ldr + j], or null
  int64_t ldr;
  int32_t act;  // kActNone, kActRelu or kActClip are done in registers
  float lo, hi;
  // A hint: prefetch_lines 64-byte lines from `prefetch` on into L2, about
  // one per k step, while the tile computes (the filter rows the next units
  // read, so memory-bound filters stream during compute). Null: none. At
  // most taps * cg lines are used; kernels may ignore it.
  const char* prefetch;
  int64_t prefetch_lines;
};

using ConvTileFn = void (*)(const ConvTile& t);

struct ConvIsa {
  const char* name;
  int mr;  // pixels per full tile
  int nr;  // columns per call: 32 (the whole panel) or 16 (called for j0 = 0, 16)
  ConvTileFn tile[kConvMaxMr + 1];  // tile[m] for 1 <= m <= mr
  // Optional kernels for n_valid <= 16 (half the work of tile[m]),
  // n_valid <= 8 (a quarter) and 16 < n_valid <= 24, or null.
  ConvTileFn narrow[kConvMaxMr + 1];
  ConvTileFn narrow8[kConvMaxMr + 1];
  ConvTileFn narrow24[kConvMaxMr + 1];
};

// The kernel of `isa` for an m-pixel tile of n_valid columns.
inline ConvTileFn PickTile(const ConvIsa& isa, int m, int64_t n_valid) {
  if (n_valid <= 8 && isa.narrow8[m]) return isa.narrow8[m];
  if (n_valid <= 16 && isa.narrow[m]) return isa.narrow[m];
  if (n_valid > 16 && n_valid <= 24 && isa.narrow24[m]) return isa.narrow24[m];
  return isa.tile[m];
}

// The geometry of one NHWC convolution (filter [KH, KW, Cg, Cout], groups G,
// Cg = C / G input and Cout_g = Cout / G output channels per group), padding
// resolved to the top/left amounts.
struct ConvGeom {
  int64_t N, H, W, C;
  int64_t KH, KW, Cg, Cout, G, Cout_g;
  int64_t OH, OW;
  int64_t sh, sw, dh, dw, pt, pl;
};

// The largest window (KH * KW) DepthwiseConv takes.
inline constexpr int64_t kDepthwiseMaxTaps = 64;

// Depthwise convolution (Cg == 1, Cout_g == 1) with the filter in HWIO
// ([KH, KW, 1, C]) and the epilogue `ep` (bias, residual; ldr = C), directly
// on the NHWC tensors (conv_depthwise.cc). Splits rows over ctx's threads.
void DepthwiseConv(const ConvGeom& g, const float* x, const float* f, float* y,
                   const GemmEpilogue& ep, const TfnKernelContext* ctx);

// A depthwise kernel for output rows [r0, r1) and channels [0, C / 16 * 16),
// `act` (kActNone, kActRelu or kActClip) applied in registers; the caller
// does the C % 16 tail and other activations.
using DepthwiseRowsFn = void (*)(const ConvGeom& g, const float* x, const float* f, float* y,
                                 const GemmEpilogue& ep, int32_t act, int64_t r0, int64_t r1);
// The AVX-512 3x3 kernel (conv_depthwise_avx512.cc) if it takes g (undilated,
// stride 1 or 2, C >= 16) and is compiled in, else null. Call only on a CPU
// with AVX-512.
DepthwiseRowsFn Depthwise3x3Avx512(const ConvGeom& g);

// A depthwise kernel for output rows [r0, r1) and channels [c0, C), all of
// them, `act` (kActNone, kActRelu or kActClip) applied in registers; the
// caller does other activations.
using DepthwiseChannelsFn = void (*)(const ConvGeom& g, const float* x, const float* f, float* y,
                                     const GemmEpilogue& ep, int32_t act, int64_t r0, int64_t r1,
                                     int64_t c0);
// The AVX-512 kernel of any depthwise window, stride and dilation
// (conv_depthwise_any_avx512.cc; the last block of channels masked) if it is
// compiled in and KH * KW <= kDepthwiseMaxTaps, else null. Call only on a
// CPU with AVX-512.
DepthwiseChannelsFn DepthwiseAnyAvx512(const ConvGeom& g);

// The AVX-512 kernel of grouped convolutions with Cg == Cout_g in {2, 4, 8}
// and C % 16 == 0 (conv_grouped_avx512.cc), HWIO filter, all C channels of
// rows [r0, r1); null when it does not take g. Call only on a CPU with AVX-512.
DepthwiseRowsFn SmallGroupConvAvx512(const ConvGeom& g);

// Winograd F(2x2, 3x3) (conv_winograd.cc) of a 3x3, stride-1, ungrouped
// convolution whose filter u is packed as fused_conv2d's winograd=1 layout
// ([16][ceil(Cout/32)][C][32]), with the epilogue ep (ldr = Cout). scratch:
// WinogradScratchBytes, 64-byte aligned; blocks of tiles are split over up to
// `threads` threads of ctx.
int64_t WinogradScratchBytes(const ConvGeom& g);
void WinogradConv(const ConvGeom& g, const float* x, const float* u, float* y,
                  const GemmEpilogue& ep, unsigned char* scratch, const ConvIsa& isa,
                  int64_t threads, const TfnKernelContext* ctx);

// Null when the ISA is not compiled in (non-x86 targets).
const ConvIsa* ConvAvx512();
const ConvIsa* ConvAvx2();
const ConvIsa* ConvPortable();

}  // namespace tfn::kernels::conv_internal
