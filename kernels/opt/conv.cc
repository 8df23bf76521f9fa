// The optimized float32 NHWC convolution (tfn_opt_conv2d, and
// tfn_opt_fused_conv2d for fused_conv2d: bias, residual and activation
// applied to each tile before it is stored).
//
// Depthwise convolutions (one input and one output channel per group) run a
// direct vectorized kernel (conv_depthwise.cc); fused_conv2d with a Winograd
// filter runs conv_winograd.cc. Everything else is an implicit GEMM per
// group: C[pixels, Cout_g] = A[pixels, K] * B[K, Cout_g] with K = KH*KW*Cg,
// B the filter packed into 32-column panels (GemmPackB's layout, gemm.h:
// prepacked ahead of time for fused_conv2d with packed_out_channels, else
// packed into scratch on each call) and A never materialized: a tile kernel
// (conv_internal.h) broadcasts each pixel's inputs straight from the NHWC
// input through a table of row pointers, one per (run, pixel): a run is a
// window row of KW*C floats (dense, undilated along w), else a tap of Cg
// floats, pointing at zeros where it is in the padding. Grouped/dilated convs
// with few channels per tap copy each pixel's K-long row into a tile first
// (im2col, one tile per thread). A conv that pads copies its input with the
// padding once (up to kPaddedCopyMaxBytes), so every window is inside.
//
// Order: a unit is (block of output-channel panels, pixel tile, group), the
// panel block outermost. A block's packed filter rows are at most
// kFilterBlockBytes, so they stay in L2 while every tile reads them: a
// filter bigger than L2 is read from memory once, not once per tile
// (ResNet-50's 7x7 layers stream 9.4 MB filters past only 4 tiles; tile-
// major order read them 4 times from DRAM, 2.4x the whole layer's time).
//
// Threads: the units, for small images split into more panel blocks as
// well, are cut into contiguous ranges of nearly
// equal size, up to 4 per thread and kGemmMaxThreads in all, which the pool
// hands out as threads come free (each with its own scratch slot); a unit's
// result does not depend on which thread runs it, so results are identical for
// any thread count. They can differ between instruction sets (tile shapes,
// FMA).
#include <algorithm>

#include "kernels/opt/conv_internal.h"
#include "kernels/opt/gemm.h"
#include "kernels/opt/simd.h"
#include "kernels/ref/ref_kernels.h"
#include "kernels/ref/tensor_util.h"

namespace tfn::kernels {
namespace {

using conv_internal::ConvGeom;
using conv_internal::ConvIsa;
using conv_internal::ConvTile;
using conv_internal::kConvMaxMr;
using conv_internal::kConvRowStride;

constexpr int64_t kPanel = kGemmPanelWidth;
constexpr int64_t kDirectMinCg = 16;
// Packed filter bytes per panel block (a fraction of a 1-2 MB L2: the tile's
// input rows and outputs need room too).
constexpr int64_t kFilterBlockBytes = int64_t{512} << 10;
// Below this many multiply-adds a convolution stays on one thread.
constexpr int64_t kParallelMinMacs = int64_t{1} << 17;
// Floats per chunk of the padded copy split over threads. Small: a copy made
// by one thread and read by both cost more than it saved (RegNet-X's 14x14
// and 7x7 grouped layers: 1.1x from the second thread with 32K-float
// chunks, 1.4-1.6x with 2K, conv_bench regnetx_g16_*), since each thread's
// tiles read mostly the rows it copied itself (ThreadPool's own shares).
constexpr int64_t kMinParallelCopy = int64_t{1} << 11;

int64_t Align64(int64_t bytes) { return (bytes + 63) & ~int64_t{63}; }

const ConvIsa& ActiveConvIsa() {
  switch (GemmActiveIsa()) {
    case GemmIsa::kAvx512:
      if (const ConvIsa* k = conv_internal::ConvAvx512()) return *k;
      break;
    case GemmIsa::kAvx2:
      if (const ConvIsa* k = conv_internal::ConvAvx2()) return *k;
      break;
    default:
      break;
  }
  return *conv_internal::ConvPortable();
}

// Padding before the first cell, as in ref/conv.cc (SAME: TensorFlow's rule).
int64_t PadBefore(int32_t mode, int64_t in, int64_t out, int64_t window, int64_t stride,
                  int64_t explicit_before) {
  if (mode == 2) return explicit_before;
  if (mode == 0) return 0;
  const int64_t total = std::max<int64_t>((out - 1) * stride + window - in, 0);
  return total / 2;
}

// Decodes the geometry; packed_out > 0: the filter is packed [G, P, KH, KW, Cg, 32]
// or, with winograd, [16, P, Cin, 32] (3x3).
bool Decode(const Conv2DParams& p, const TfnTensor& x, const TfnTensor& f, const TfnTensor& y,
            int64_t packed_out, bool winograd, ConvGeom* g) {
  if (x.rank != 4 || y.rank != 4 || p.groups <= 0) return false;
  g->N = x.dims[0], g->H = x.dims[1], g->W = x.dims[2], g->C = x.dims[3];
  g->G = p.groups;
  if (winograd) {
    if (packed_out <= 0 || f.rank != 4 || f.dims[0] != 16 || f.dims[3] != kPanel || g->G != 1 ||
        p.strides[0] != 1 || p.strides[1] != 1 || p.dilations[0] != 1 || p.dilations[1] != 1 ||
        f.dims[1] != (packed_out + kPanel - 1) / kPanel) {
      return false;
    }
    g->KH = g->KW = 3, g->Cg = f.dims[2], g->Cout = packed_out;
  } else if (packed_out > 0) {
    if (f.rank != 6 || f.dims[0] != g->G || f.dims[5] != kPanel) return false;
    g->KH = f.dims[2], g->KW = f.dims[3], g->Cg = f.dims[4], g->Cout = packed_out;
    if (f.dims[1] != (g->Cout / g->G + kPanel - 1) / kPanel) return false;
  } else {
    if (f.rank != 4) return false;
    g->KH = f.dims[0], g->KW = f.dims[1], g->Cg = f.dims[2], g->Cout = f.dims[3];
  }
  if (g->Cg * g->G != g->C || g->Cout % g->G != 0 || y.dims[0] != g->N || y.dims[3] != g->Cout) {
    return false;
  }
  g->Cout_g = g->Cout / g->G;
  g->OH = y.dims[1], g->OW = y.dims[2];
  g->sh = p.strides[0], g->sw = p.strides[1], g->dh = p.dilations[0], g->dw = p.dilations[1];
  g->pt = PadBefore(p.padding, g->H, g->OH, (g->KH - 1) * g->dh + 1, g->sh, p.pads[0]);
  g->pl = PadBefore(p.padding, g->W, g->OW, (g->KW - 1) * g->dw + 1, g->sw, p.pads[2]);
  return true;
}

// Depthwise convolutions with an HWIO filter take the direct kernel.
bool UseDepthwise(const ConvGeom& g, int64_t packed_out) {
  return g.Cg == 1 && g.Cout_g == 1 && packed_out == 0 &&
         g.KH * g.KW <= conv_internal::kDepthwiseMaxTaps;
}

int64_t Taps(const ConvGeom& g) { return g.KH * g.KW; }
int64_t Depth(const ConvGeom& g) { return Taps(g) * g.Cg; }  // K
int64_t Panels(const ConvGeom& g) { return (g.Cout_g + kPanel - 1) / kPanel; }

// How the tile kernel's A rows are found:
//   kRowTaps: one run per window row (kh): KW * C consecutive floats of the
//     input (dense, undilated along w): long runs, few pointers; pixels whose
//     run crosses the left/right padding get a zero-filled copy in the tile;
//   kTaps: one run per (kh, kw) of Cg floats (grouped or dilated);
//   kIm2Col: each pixel's whole K-long row copied into the tile (grouped or
//     dilated with few channels per tap: short runs would dominate).
enum class Mode { kRowTaps, kTaps, kIm2Col };

// Pixels a multiple of 4 KiB apart as the tiles step over them (C * sw a
// multiple of 1024 floats: ResNet-50's convs over 1024 and 2048 channels,
// and over 512 at stride 2; FCN's 3x3 head over 2048): read in place, a
// tile's 14 rows all map to the same L1 sets, more rows than the cache has
// ways (FCN-ResNet50's 1x1 convs over 2048 channels ran at 110-196 GFLOP/s
// from run to run, its 512-channel ones at 220; the GEMM packs such an A
// for the same reason, gemm.cc). Such convs read a copy of the input whose
// pixels are kAliasPad floats further apart (PixelStride), one run per tap.
bool Aliased(const ConvGeom& g) { return g.C * g.sw % 1024 == 0; }
constexpr int64_t kAliasPad = 16;

Mode ModeOf(const ConvGeom& g) {
  if (g.G == 1 && g.dw == 1 && g.KW > 1 && !Aliased(g)) return Mode::kRowTaps;
  if (g.Cg < kDirectMinCg && Taps(g) > 1) return Mode::kIm2Col;
  return Mode::kTaps;
}
// Floats between a tile's copied rows: whole 64-byte lines plus one, so
// that consecutive rows start in different L1 sets.
int64_t TileRowStride(const ConvGeom& g) { return (Depth(g) + 15) / 16 * 16 + 16; }
int64_t RunTaps(const ConvGeom& g, Mode m) {
  return m == Mode::kRowTaps ? g.KH : m == Mode::kIm2Col ? 1 : Taps(g);
}
int64_t RunLength(const ConvGeom& g, Mode m) {
  return m == Mode::kRowTaps ? g.KW * g.C : m == Mode::kIm2Col ? Depth(g) : g.Cg;
}

// The input with its padding as zeros (the window of every output pixel
// inside): then every tile takes the fast path of ConvJob::Rows. Made when
// the convolution pads and the copy is at most kPaddedCopyMaxBytes.
constexpr int64_t kPaddedCopyMaxBytes = int64_t{2} << 20;

// Size of the padded input: rows and columns up to the last window's end.
void PaddedSize(const ConvGeom& g, int64_t* h, int64_t* w) {
  *h = std::max(g.H + g.pt, (g.OH - 1) * g.sh + (g.KH - 1) * g.dh + 1);
  *w = std::max(g.W + g.pl, (g.OW - 1) * g.sw + (g.KW - 1) * g.dw + 1);
}

// Not when the copy would be mostly padding (dilated convs on small maps,
// ASPP's rate 12 on 14x14): there the tiles skip the taps that read only
// padding (ConvJob::Rows), which the copy would hide. Always for an aliased
// conv (its pixels spread apart), up to kAliasedCopyMaxBytes.
constexpr int64_t kAliasedCopyMaxBytes = int64_t{32} << 20;
int64_t PixelStride(const ConvGeom& g) { return Aliased(g) ? g.C + kAliasPad : g.C; }
bool UsePaddedCopy(const ConvGeom& g) {
  if (ModeOf(g) == Mode::kIm2Col) return false;
  int64_t h, w;
  PaddedSize(g, &h, &w);
  const int64_t bytes = g.N * h * w * PixelStride(g) * 4;
  if (Aliased(g)) return bytes <= kAliasedCopyMaxBytes;
  return (h != g.H || w != g.W || g.pt > 0 || g.pl > 0) && bytes <= kPaddedCopyMaxBytes &&
         h * w <= 2 * g.H * g.W;
}

struct Layout {
  int64_t packed = 0, padded = 0, zeros = 0, slots = 0, slot_bytes = 0, table = 0, total = 0;
};

// Scratch: [packed filter][padded input][zeros][slot 0][slot 1]... each 64-byte
// aligned; a slot is the row-pointer table, then (kRowTaps, kIm2Col) the tile.
Layout ScratchLayout(const ConvGeom& g, bool prepacked) {
  Layout l;
  const Mode mode = ModeOf(g);
  if (!prepacked) l.packed = Align64(g.G * Panels(g) * Depth(g) * kPanel * 4);
  if (UsePaddedCopy(g)) {
    int64_t h, w;
    PaddedSize(g, &h, &w);
    l.padded = Align64(g.N * h * w * PixelStride(g) * 4);
  }
  l.zeros = Align64(RunLength(g, mode) * 4);
  l.table = Align64(RunTaps(g, mode) * kConvRowStride * 8);
  const int64_t tile_floats =
      mode == Mode::kIm2Col ? kConvMaxMr * TileRowStride(g) : kConvMaxMr * Depth(g);
  l.slot_bytes = l.table + (mode != Mode::kTaps ? Align64(tile_floats * 4) : 0);
  l.slots = kGemmMaxThreads;
  l.total = 64 + l.packed + l.padded + l.zeros + l.slots * l.slot_bytes;
  return l;
}

struct ConvJob {
  const ConvIsa* isa;
  const ConvGeom* g;
  Mode mode;
  bool all_inside;  // every window is inside the input (a padded copy)
  bool pointwise;   // 1x1, stride 1, no padding: pixel p's input is x + p * ps
  const float* x;
  int64_t ps;           // floats from one pixel of x to the next (C, or more: Aliased)
  const float* packed;  // [G][P][K][32]
  const float* zeros;   // RunLength floats
  float* y;
  const GemmEpilogue* ep;
  int64_t tiles, tile_units, units, parts;  // tile_units: tiles x groups
  int64_t tile_base, tile_rem;              // pixels / tiles, pixels % tiles
  int64_t col_blocks;                       // a unit is (block of panels, tile, group)
  int64_t block_panels;                     // panels per block (the last may have fewer)
  unsigned char* slots;
  int64_t slot_bytes, table_bytes;

  // Fills the pointer table (and the tile) of pixels [p0, p0+m) of group gi.
  // Returns the taps the tile must sum: all of them, except that taps before
  // the first and after the last that any pixel reads inside the input are
  // left out (they would add only zeros: windows at the border, dilated convs
  // on small maps). The B rows of tap t start at t * RunLength * 32.
  struct TapRange {
    int64_t first, count;
  };
  TapRange Rows(int64_t p0, int m, int64_t gi, const float** table, float* tile) const {
    const ConvGeom& c = *g;
    const int64_t cg = c.Cg;
    const int64_t ps = this->ps;  // kRowTaps reads runs of KW * C: there ps == C (ModeOf)
    const TapRange all{0, RunTaps(c, mode)};
    if (pointwise) {  // MobileNet's expand/project convs: no index arithmetic
      const float* origin = x + p0 * ps + gi * cg;
      for (int i = 0; i < m; ++i) table[i] = origin + i * ps;
      return all;
    }
    // Each pixel's window origin (ih0, iw0) and the input there (an address
    // only used once known inside); `inside`: every window is in the input.
    const float* origin[kConvMaxMr];
    int64_t ih0[kConvMaxMr], iw0[kConvMaxMr];
    bool inside = true;
    // One division where there is one image (a tile is only a few hundred
    // cycles of work for small convs like LeNet's, divisions cost ~15 each).
    int64_t n = 0, rest = p0;
    if (c.N > 1) {
      n = p0 / (c.OH * c.OW);
      rest = p0 - n * c.OH * c.OW;
    }
    int64_t oh = rest / c.OW, ow = rest - oh * c.OW;
    if (mode == Mode::kRowTaps && all_inside) {  // a padded copy: no checks, step along the row
      auto at = [&] {
        return x + ((n * c.H + oh * c.sh - c.pt) * c.W + ow * c.sw - c.pl) * c.C + gi * cg;
      };
      const int64_t row_step = c.dh * c.W * c.C;
      const float* o = at();
      for (int i = 0; i < m; ++i) {
        for (int64_t kh = 0; kh < c.KH; ++kh) table[kh * kConvRowStride + i] = o + kh * row_step;
        if (++ow == c.OW) {
          ow = 0;
          if (++oh == c.OH) oh = 0, ++n;
          o = at();
        } else {
          o += c.sw * c.C;
        }
      }
      return all;
    }
    for (int i = 0; i < m; ++i) {
      ih0[i] = oh * c.sh - c.pt;
      iw0[i] = ow * c.sw - c.pl;
      origin[i] = x + ((n * c.H + ih0[i]) * c.W + iw0[i]) * ps + gi * cg;
      if (!all_inside) {
        inside = inside && ih0[i] >= 0 && ih0[i] + (c.KH - 1) * c.dh < c.H && iw0[i] >= 0 &&
                 iw0[i] + (c.KW - 1) * c.dw < c.W;
      }
      if (++ow == c.OW) {
        ow = 0;
        if (++oh == c.OH) oh = 0, ++n;
      }
    }
    // Live taps of the tile: [first_live, last_live].
    int64_t first_live = all.count, last_live = -1;
    auto live = [&](int64_t t) {
      first_live = std::min(first_live, t);
      last_live = std::max(last_live, t);
    };
    auto live_range = [&]() {
      return last_live < 0 ? TapRange{0, 1} : TapRange{first_live, last_live - first_live + 1};
    };
    if (mode == Mode::kRowTaps) {
      const int64_t run = c.KW * c.C, row_step = c.dh * c.W * c.C;
      for (int i = 0; i < m; ++i) {
        const float** row = table + i;
        const bool h_in = iw0[i] >= 0 && iw0[i] + c.KW <= c.W;
        if (inside || (h_in && ih0[i] >= 0 && ih0[i] + (c.KH - 1) * c.dh < c.H)) {
          for (int64_t kh = 0; kh < c.KH; ++kh)
            row[kh * kConvRowStride] = origin[i] + kh * row_step;
          live(0);
          live(c.KH - 1);
          continue;
        }
        for (int64_t kh = 0; kh < c.KH; ++kh) {
          const int64_t ih = ih0[i] + kh * c.dh;
          const float* src = origin[i] + kh * row_step;
          if (ih >= 0 && ih < c.H && iw0[i] < c.W && iw0[i] + c.KW > 0) live(kh);
          if (ih < 0 || ih >= c.H) {
            row[kh * kConvRowStride] = zeros;
          } else if (h_in) {
            row[kh * kConvRowStride] = src;
          } else {  // the run crosses the padding: a copy with zeros there
            float* dst = tile + (i * c.KH + kh) * run;
            const int64_t k0 = iw0[i] < 0 ? -iw0[i] * c.C : 0;
            const int64_t k1 = iw0[i] + c.KW > c.W ? (c.W - iw0[i]) * c.C : run;
            for (int64_t k = 0; k < run; ++k) dst[k] = 0.0f;
            for (int64_t k = k0; k < k1; ++k) dst[k] = src[k];
            row[kh * kConvRowStride] = dst;
          }
        }
      }
      return live_range();
    }
    if (mode == Mode::kIm2Col) {
      const int64_t stride = TileRowStride(c);
      for (int i = 0; i < m; ++i) {
        float* dst = tile + i * stride;
        for (int64_t kh = 0; kh < c.KH; ++kh) {
          const int64_t ih = ih0[i] + kh * c.dh;
          for (int64_t kw = 0; kw < c.KW; ++kw, dst += cg) {
            const int64_t iw = iw0[i] + kw * c.dw;
            if (ih >= 0 && ih < c.H && iw >= 0 && iw < c.W) {
              const float* src = origin[i] + (kh * c.dh * c.W + kw * c.dw) * ps;
              std::copy(src, src + cg, dst);
            } else {
              std::fill(dst, dst + cg, 0.0f);
            }
          }
        }
        table[i] = tile + i * stride;
      }
      return all;
    }
    if (inside) {  // the common case: no bounds checks
      const float** row = table;
      for (int64_t kh = 0; kh < c.KH; ++kh) {
        for (int64_t kw = 0; kw < c.KW; ++kw, row += kConvRowStride) {
          const int64_t off = (kh * c.dh * c.W + kw * c.dw) * ps;
          for (int i = 0; i < m; ++i) row[i] = origin[i] + off;
        }
      }
      return all;
    }
    for (int i = 0; i < m; ++i) {
      for (int64_t kh = 0; kh < c.KH; ++kh) {
        const int64_t ih = ih0[i] + kh * c.dh;
        for (int64_t kw = 0; kw < c.KW; ++kw) {
          const int64_t iw = iw0[i] + kw * c.dw;
          const bool in = ih >= 0 && ih < c.H && iw >= 0 && iw < c.W;
          const float* src = in ? origin[i] + (kh * c.dh * c.W + kw * c.dw) * ps : zeros;
          table[(kh * c.KW + kw) * kConvRowStride + i] = src;
          if (in) live(kh * c.KW + kw);
        }
      }
    }
    return live_range();
  }

  void Unit(int64_t u, const float** table, float* tile) const {
    const ConvGeom& c = *g;
    const int64_t bi = u / tile_units, tg = u % tile_units;
    const int64_t gi = c.G == 1 ? 0 : tg % c.G, ti = c.G == 1 ? tg : tg / c.G;
    // Balanced tiles: 49 pixels are 13 + 12 + 12 + 12, not 14 + 14 + 14 + 7
    // (a short tile runs the kernel at a fraction of its speed).
    const int64_t p0 = ti * tile_base + std::min(ti, tile_rem);
    const int m = static_cast<int>(tile_base + (ti < tile_rem ? 1 : 0));
    const TapRange taps = Rows(p0, m, gi, table, tile);
    ConvTile t{};
    t.taps = taps.count;
    t.cg = RunLength(c, mode);
    t.rows = table + taps.first * kConvRowStride;
    const int64_t tap_offset = taps.first * t.cg * kPanel;  // the first tap's B rows
    t.ldc = c.Cout;
    t.ldr = ep->ldr;
    t.act = ep->needs_row_pass() ? kActNone : ep->act;
    t.lo = ep->lo;
    t.hi = ep->hi;
    const int64_t col0 = gi * c.Cout_g;
    const float* b_group = packed + gi * Panels(c) * Depth(c) * kPanel;
    const int64_t q0 = bi * block_panels, q1 = std::min(Panels(c), q0 + block_panels);
    // This tile's share of the next block's filter rows, prefetched while
    // it computes (spread over its kernel calls), so that block is in L2
    // when its first tile starts.
    const int64_t calls = (q1 - q0) * ((kPanel + isa->nr - 1) / isa->nr);
    const char* pf = nullptr;
    int64_t pf_lines_per_call = 0;
    if (col_blocks > 1 && q1 < Panels(c)) {
      const int64_t next_lines = (std::min(Panels(c), q1 + block_panels) - q1) * Depth(c) * 2;
      const int64_t share_begin = next_lines * ti / tiles,
                    share_end = next_lines * (ti + 1) / tiles;
      pf = reinterpret_cast<const char*>(b_group + q1 * Depth(c) * kPanel) + 64 * share_begin;
      pf_lines_per_call = (share_end - share_begin + calls - 1) / calls;
    }
    for (int64_t q = q0; q < q1; ++q) {
      for (int64_t j0 = 0; j0 < kPanel && q * kPanel + j0 < c.Cout_g; j0 += isa->nr) {
        const int64_t col = col0 + q * kPanel + j0;
        t.b = b_group + q * Depth(c) * kPanel + tap_offset + j0;
        t.c = y + p0 * c.Cout + col;
        t.n_valid = std::min<int64_t>(isa->nr, c.Cout_g - q * kPanel - j0);
        t.bias = ep->bias ? ep->bias + col : nullptr;
        t.residual = ep->residual ? ep->residual + p0 * ep->ldr + col : nullptr;
        t.prefetch = pf;
        t.prefetch_lines = pf_lines_per_call;
        if (pf) pf += 64 * pf_lines_per_call;
        // A last panel with at most 16 or 8 columns takes a narrow kernel, if any.
        conv_internal::PickTile(*isa, m, t.n_valid)(t);
      }
    }
    if (ep->needs_row_pass()) {
      const int64_t c0 = q0 * kPanel, c1 = std::min(c.Cout_g, q1 * kPanel);
      ApplyActivation(*ep, y + p0 * c.Cout + col0 + c0, c.Cout, m, c1 - c0);
    }
  }

  void operator()(int64_t begin, int64_t end) const {
    // The chunk's first index names its scratch slot (chunks run concurrently).
    unsigned char* slot = slots + begin * slot_bytes;
    const float** table = reinterpret_cast<const float**>(slot);
    float* tile = reinterpret_cast<float*>(slot + table_bytes);
    // Parts of nearly equal size: units * k / parts rounded down.
    for (int64_t u = units * begin / parts; u < units * end / parts; ++u) Unit(u, table, tile);
  }
};

int32_t RunConv(const Conv2DParams& p, const TfnTensor* in, int32_t num_inputs, TfnTensor& out,
                int64_t packed_out, bool winograd, bool has_residual, const GemmEpilogue& act,
                const TfnKernelContext* ctx) {
  const int32_t f32 = static_cast<int32_t>(DType::kFloat32);
  if (in[0].dtype != f32 || in[1].dtype != f32 || out.dtype != f32) return TFN_KERNEL_UNSUPPORTED;
  ConvGeom g;
  if (!Decode(p, in[0], in[1], out, packed_out, winograd, &g)) return TFN_KERNEL_BAD_SHAPE;
  const int bias_at = p.has_bias ? 2 : -1, res_at = has_residual ? (p.has_bias ? 3 : 2) : -1;
  if (num_inputs <= std::max(bias_at, res_at)) return TFN_KERNEL_BAD_SHAPE;
  GemmEpilogue ep = act;
  ep.ldr = g.Cout;
  if (bias_at >= 0) {
    if (in[bias_at].dtype != f32 || NumElementsOf(in[bias_at]) != g.Cout)
      return TFN_KERNEL_BAD_SHAPE;
    ep.bias = DataOf<float>(in[bias_at]);
  }
  if (res_at >= 0) {
    const TfnTensor& r = in[res_at];
    if (r.dtype != f32 || r.rank != 4 || NumElementsOf(r) != NumElementsOf(out)) {
      return TFN_KERNEL_BAD_SHAPE;
    }
    ep.residual = DataOf<float>(r);
  }
  const float* x = DataOf<float>(in[0]);
  const float* f = DataOf<float>(in[1]);
  float* y = DataOf<float>(out);
  const int64_t pixels = g.N * g.OH * g.OW;
  if (pixels == 0 || g.Cout == 0) return TFN_KERNEL_OK;
  if (UseDepthwise(g, packed_out)) {
    conv_internal::DepthwiseConv(g, x, f, y, ep, ctx);
    return TFN_KERNEL_OK;
  }
  if (packed_out == 0 && opt::Avx512KernelsActive()) {
    if (conv_internal::DepthwiseRowsFn rows = conv_internal::SmallGroupConvAvx512(g)) {
      const int32_t act_in_registers = ep.needs_row_pass() ? kActNone : ep.act;
      const int64_t per_row = g.OW * g.Cout * Depth(g);
      const int64_t min_rows = per_row >= kParallelMinMacs ? 1 : kParallelMinMacs / per_row;
      auto run = [&](int64_t r0, int64_t r1) {
        rows(g, x, f, y, ep, act_in_registers, r0, r1);
        if (ep.needs_row_pass()) {
          ApplyActivation(ep, y + r0 * g.OW * g.Cout, g.Cout, (r1 - r0) * g.OW, g.Cout);
        }
      };
      ParallelFor(ctx, g.N * g.OH, min_rows, run);
      return TFN_KERNEL_OK;
    }
  }
  int64_t threads = ctx && ctx->parallel_for ? std::clamp(ctx->num_threads, 1, kGemmMaxThreads) : 1;
  if (pixels * g.Cout * Depth(g) < kParallelMinMacs) threads = 1;
  const int64_t need =
      winograd ? conv_internal::WinogradScratchBytes(g) : ScratchLayout(g, packed_out > 0).total;
  if (!ctx || !ctx->scratch || ctx->scratch_bytes < need) return TFN_KERNEL_SCRATCH_TOO_SMALL;
  unsigned char* base = static_cast<unsigned char*>(ctx->scratch);
  base += (64 - reinterpret_cast<uintptr_t>(base) % 64) % 64;
  if (winograd) {
    conv_internal::WinogradConv(g, x, f, y, ep, base, ActiveConvIsa(), threads, ctx);
    return TFN_KERNEL_OK;
  }
  const Layout l = ScratchLayout(g, packed_out > 0);
  const float* packed = f;
  if (packed_out == 0) {
    float* dst = reinterpret_cast<float*>(base);
    for (int64_t gi = 0; gi < g.G; ++gi) {
      GemmPackB(Depth(g), g.Cout_g, f + gi * g.Cout_g, g.Cout, false,
                dst + gi * Panels(g) * Depth(g) * kPanel);
    }
    packed = dst;
  }
  float* zeros = reinterpret_cast<float*>(base + l.packed + l.padded);
  const Mode mode = ModeOf(g);
  std::fill(zeros, zeros + RunLength(g, mode), 0.0f);
  ConvGeom run = g;  // the geometry the tiles see (the padded copy's, if any)
  if (l.padded > 0) {
    float* xp = reinterpret_cast<float*>(base + l.packed);
    PaddedSize(g, &run.H, &run.W);
    run.pt = run.pl = 0;
    // Row by row, zeros only where the padding is (the stem's input is 600 KB),
    // split over the threads like the tiles (rows in memory order, so each
    // thread copies about the rows its tiles read first). Pixels ps floats
    // apart (the kAliasPad floats after each are never read).
    const int64_t ps = PixelStride(g);
    const int64_t row = run.W * ps, left = g.pl * g.C, body = g.W * g.C;
    const float* src_x = x;
    auto copy = [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        const int64_t n = r / run.H, hp = r % run.H, h = hp - g.pt;
        float* dst = xp + r * row;
        if (h < 0 || h >= g.H) {
          std::fill(dst, dst + row, 0.0f);
          continue;
        }
        const float* src = src_x + (n * g.H + h) * body;
        if (ps == g.C) {
          std::fill(dst, dst + left, 0.0f);
          std::copy(src, src + body, dst + left);
          std::fill(dst + left + body, dst + row, 0.0f);
          continue;
        }
        for (int64_t w = 0; w < run.W; ++w) {
          const int64_t iw = w - g.pl;
          if (iw < 0 || iw >= g.W) {
            std::fill(dst + w * ps, dst + w * ps + g.C, 0.0f);
          } else {
            std::copy(src + iw * g.C, src + (iw + 1) * g.C, dst + w * ps);
          }
        }
      }
    };
    ParallelFor(threads > 1 ? ctx : nullptr, g.N * run.H, 1 + kMinParallelCopy / row, copy);
    x = xp;
  }

  const ConvIsa& isa = ActiveConvIsa();
  ConvJob job{};
  job.isa = &isa;
  job.g = &run;
  job.mode = mode;
  job.all_inside = l.padded > 0;
  job.pointwise = mode == Mode::kTaps && Taps(run) == 1 && run.sh == 1 && run.sw == 1 &&
                  run.pt == 0 && run.pl == 0 && run.OH == run.H && run.OW == run.W;
  job.x = x;
  job.ps = l.padded > 0 ? PixelStride(g) : g.C;
  job.packed = packed;
  job.zeros = zeros;
  job.y = y;
  job.ep = &ep;
  job.tiles = (pixels + isa.mr - 1) / isa.mr;
  job.tile_base = pixels / job.tiles;
  job.tile_rem = pixels % job.tiles;
  // Panels per block: the filter rows of a block within kFilterBlockBytes.
  job.block_panels = std::clamp<int64_t>(kFilterBlockBytes / (Depth(g) * kPanel * 4), 1, Panels(g));
  job.col_blocks = (Panels(g) + job.block_panels - 1) / job.block_panels;
  threads = std::min(threads, job.tiles * g.G * Panels(g));
  // With threads, kPartsPerThread parts each (as many as there are scratch
  // slots at most): the pool hands parts out as threads come free, so a
  // thread that starts late (woken, or preempted on a busy machine) takes
  // fewer instead of holding up the end.
  constexpr int64_t kPartsPerThread = 4;
  const int64_t want =
      threads > 1 ? std::min<int64_t>(kGemmMaxThreads, kPartsPerThread * threads) : 1;
  // Parts differ by at most one unit; with fewer than kUnitsPerPart units
  // per part that unit is a large share (MobileNet's 14x14 layers: 14 tiles
  // in 8 parts gave one thread 8 tiles, the other 6), so small images split
  // each tile's output channels into blocks of whole panels as well (the
  // same tile kernel calls, so results do not change).
  constexpr int64_t kUnitsPerPart = 4;
  const int64_t tile_units = job.tiles * g.G;
  if (want > 1 && tile_units * job.col_blocks < kUnitsPerPart * want) {
    const int64_t blocks =
        std::min(Panels(g), (kUnitsPerPart * want + tile_units - 1) / tile_units);
    job.block_panels = std::min(job.block_panels, (Panels(g) + blocks - 1) / blocks);
    job.col_blocks = (Panels(g) + job.block_panels - 1) / job.block_panels;
  }
  job.tile_units = tile_units;
  job.units = tile_units * job.col_blocks;
  job.slots = base + l.packed + l.padded + l.zeros;
  job.slot_bytes = l.slot_bytes;
  job.table_bytes = l.table;
  const int64_t parts = std::min(want, job.units);
  job.parts = parts;
  ParallelFor(ctx, parts, 1, job);
  return TFN_KERNEL_OK;
}

int64_t Scratch(const Conv2DParams& p, const TfnTensor* in, const TfnTensor& out,
                int64_t packed_out, bool winograd) {
  ConvGeom g;
  if (!Decode(p, in[0], in[1], out, packed_out, winograd, &g)) return 0;
  if (winograd) return conv_internal::WinogradScratchBytes(g);
  if (UseDepthwise(g, packed_out)) return 0;
  return ScratchLayout(g, packed_out > 0).total;
}

GemmEpilogue ActivationOf(const FusedConv2DParams& p) {
  GemmEpilogue ep;
  ep.act = p.activation;
  ep.lo = p.clip_min;
  ep.hi = p.clip_max;
  ep.alpha = p.act_alpha;
  ep.beta = p.act_beta;
  return ep;
}

}  // namespace

TFN_SCRATCH(tfn_opt_conv2d_scratch) {
  if (num_inputs < 2 || num_outputs != 1) return 0;
  return Scratch(*static_cast<const Conv2DParams*>(params), inputs, outputs[0], 0, false);
}

TFN_KERNEL(tfn_opt_conv2d) {
  if (num_inputs < 2 || num_outputs != 1) return TFN_KERNEL_BAD_SHAPE;
  return RunConv(*static_cast<const Conv2DParams*>(params), inputs, num_inputs, outputs[0], 0,
                 false, false, GemmEpilogue(), ctx);
}

TFN_SCRATCH(tfn_opt_fused_conv2d_scratch) {
  if (num_inputs < 2 || num_outputs != 1) return 0;
  const auto& p = *static_cast<const FusedConv2DParams*>(params);
  return Scratch(p.conv, inputs, outputs[0], p.packed_out_channels, p.winograd != 0);
}

TFN_KERNEL(tfn_opt_fused_conv2d) {
  if (num_inputs < 2 || num_outputs != 1) return TFN_KERNEL_BAD_SHAPE;
  const auto& p = *static_cast<const FusedConv2DParams*>(params);
  return RunConv(p.conv, inputs, num_inputs, outputs[0], p.packed_out_channels, p.winograd != 0,
                 p.has_residual != 0, ActivationOf(p), ctx);
}

}  // namespace tfn::kernels
