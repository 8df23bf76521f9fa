// Winograd F(2x2, 3x3) convolution (conv_internal.h's WinogradConv) for
// fused_conv2d with a Winograd-packed filter (winograd=1, made ahead of time
// by ir/passes/prepack_weights: U = G g G^T, one [Cin, Cout] panel-packed
// matrix per position xi of the 4x4 transformed tile). 2.25x fewer
// multiplies than the direct convolution:
//
//   for each block of Tb 2x2 output tiles (one thread each):
//     V[xi][t][ci] = (B^T d_t B)[xi]     input transform, 16 channels at a time
//     M[xi] = V[xi] . U[xi]              16 GEMMs [Tb, Cin] x [Cin, Cout] with
//                                        the conv tile kernels (A read in place),
//                                        each U panel used by all the block's
//                                        row tiles while it is in L1/L2
//     y_t = A^T M_t A + bias + residual, activation     output transform
//
// Every block reads all of U (16 Cin Cout floats: 16 MB at 512 channels), so
// blocks are as large as a quarter of U allows (at least kBlockBudgetBytes of
// V and M): ResNet-50's 7x7x512 layers are one block, not two.
//
// B^T = [1 0 -1 0; 0 1 1 0; 0 -1 1 0; 0 1 0 -1], A^T = [1 1 1 0; 0 1 -1 -1].
// The transforms are adds and subtracts only (compiled for SSE2, AVX2 and
// AVX-512, simd.h). A tile's sums do not depend on the block it is in (the
// blocks are balanced over the threads), so results are identical for any
// thread count. Accuracy: the input transform adds up
// to 4 inputs and the output transform up to 9 products' sums, so the error
// bound is a small multiple of the direct convolution's (conv_test.cc).
#include <algorithm>
#include <cstring>

#include "kernels/opt/conv_internal.h"
#include "kernels/opt/gemm.h"
#include "kernels/opt/simd.h"

namespace tfn::kernels::conv_internal {
namespace {

constexpr int64_t kPanel = kGemmPanelWidth;
constexpr int64_t kBlockBudgetBytes = 512 * 1024;      // V and M of one block, at least
constexpr int64_t kMaxBlockBudgetBytes = 4096 * 1024;  // and at most

typedef float V16 __attribute__((vector_size(64)));
typedef int32_t I16 __attribute__((vector_size(64)));

int64_t Align64(int64_t b) { return (b + 63) & ~int64_t{63}; }
int64_t TilesH(const ConvGeom& g) { return (g.OH + 1) / 2; }
int64_t TilesW(const ConvGeom& g) { return (g.OW + 1) / 2; }

// Tiles per block: V and M within the budget (a quarter of U's bytes,
// clamped), a multiple of 14 (>= 14).
int64_t BlockTiles(const ConvGeom& g) {
  const int64_t per_tile = 16 * 4 * (g.C + g.Cout);
  const int64_t budget =
      std::clamp<int64_t>(16 * 4 * g.C * g.Cout / 4, kBlockBudgetBytes, kMaxBlockBudgetBytes);
  const int64_t t = std::max<int64_t>(14, budget / per_tile / 14 * 14);
  return std::min(t, (g.N * TilesH(g) * TilesW(g) + 13) / 14 * 14);
}

struct Slot {
  int64_t v, m, table, bytes;  // offsets and size, 64-byte aligned
};
Slot SlotLayout(const ConvGeom& g) {
  const int64_t tb = BlockTiles(g);
  Slot s;
  s.v = 0;
  s.m = Align64(16 * tb * g.C * 4);
  s.table = s.m + Align64(16 * tb * g.Cout * 4);
  s.bytes = s.table + Align64(tb * 8);  // a row pointer per tile of the block
  return s;
}

template <class T>
TFN_OPT_INLINE void Load(T* v, const float* p) {
  std::memcpy(v, p, sizeof(T));
}
template <class T>
TFN_OPT_INLINE void Store(float* p, const T* v) {
  std::memcpy(p, v, sizeof(T));
}

TFN_OPT_INLINE void Activate(float* v, int32_t act, float lo, float hi) {
  if (act == kActRelu) *v = *v < 0.0f ? 0.0f : *v;
  if (act == kActClip) {
    *v = *v < lo ? lo : *v;
    *v = *v > hi ? hi : *v;
  }
}
TFN_OPT_INLINE void Activate(V16* v, int32_t act, float lo, float hi) {
  const V16 zero = {}, l = zero + lo, h = zero + hi;
  if (act == kActRelu) {
    const I16 m = *v < zero;
    *v = (V16)((m & (I16)zero) | (~m & (I16)*v));
  } else if (act == kActClip) {
    I16 m = *v < l;
    *v = (V16)((m & (I16)l) | (~m & (I16)*v));
    m = *v > h;
    *v = (V16)((m & (I16)h) | (~m & (I16)*v));
  }
}

struct Job {
  const ConvGeom* g;
  const float* x;
  float* y;
  const GemmEpilogue* ep;
  float* v;  // [16][tb][C]
  float* m;  // [16][tb][Cout]
  int64_t tb, t0, nt;
};

// Input transform of channels [c, c + width) of tile t (T: V16 or float).
template <class T>
TFN_OPT_INLINE void InputChunk(const Job& j, int64_t t, int64_t c) {
  const ConvGeom& g = *j.g;
  const int64_t tile = j.t0 + t, per_image = TilesH(g) * TilesW(g);
  const int64_t n = tile / per_image, th = tile % per_image / TilesW(g), tw = tile % TilesW(g);
  const int64_t ih0 = 2 * th - g.pt, iw0 = 2 * tw - g.pl;
  const float* image = j.x + n * g.H * g.W * g.C + c;
  T d[4][4], s[4][4];
  for (int r = 0; r < 4; ++r) {
    for (int q = 0; q < 4; ++q) {
      const int64_t ih = ih0 + r, iw = iw0 + q;
      if (ih >= 0 && ih < g.H && iw >= 0 && iw < g.W) {
        Load(&d[r][q], image + (ih * g.W + iw) * g.C);
      } else {
        d[r][q] = T{};
      }
    }
  }
  for (int q = 0; q < 4; ++q) {  // B^T d
    s[0][q] = d[0][q] - d[2][q];
    s[1][q] = d[1][q] + d[2][q];
    s[2][q] = d[2][q] - d[1][q];
    s[3][q] = d[1][q] - d[3][q];
  }
  float* out = j.v + t * g.C + c;
  const int64_t xi_stride = j.tb * g.C;
  for (int r = 0; r < 4; ++r) {  // (B^T d) B
    const T w[4] = {s[r][0] - s[r][2], s[r][1] + s[r][2], s[r][2] - s[r][1], s[r][1] - s[r][3]};
    for (int q = 0; q < 4; ++q) Store(out + (4 * r + q) * xi_stride, &w[q]);
  }
}

TFN_OPT_INLINE void InputBody(const Job& j) {
  for (int64_t t = 0; t < j.nt; ++t) {
    int64_t c = 0;
    for (; c + 16 <= j.g->C; c += 16) InputChunk<V16>(j, t, c);
    for (; c < j.g->C; ++c) InputChunk<float>(j, t, c);
  }
}

// Output transform of channels [c, c + width) of tile t, with the epilogue.
template <class T>
TFN_OPT_INLINE void OutputChunk(const Job& j, int64_t t, int64_t c) {
  const ConvGeom& g = *j.g;
  const GemmEpilogue& ep = *j.ep;
  const int64_t tile = j.t0 + t, per_image = TilesH(g) * TilesW(g);
  const int64_t n = tile / per_image, th = tile % per_image / TilesW(g), tw = tile % TilesW(g);
  const float* in = j.m + t * g.Cout + c;
  const int64_t xi_stride = j.tb * g.Cout;
  T m[16], s[2][4];
  for (int xi = 0; xi < 16; ++xi) Load(&m[xi], in + xi * xi_stride);
  for (int q = 0; q < 4; ++q) {  // A^T M
    s[0][q] = m[q] + m[4 + q] + m[8 + q];
    s[1][q] = m[4 + q] - m[8 + q] - m[12 + q];
  }
  T bias = T{};
  if (ep.bias) Load(&bias, ep.bias + c);
  const int32_t act = ep.needs_row_pass() ? kActNone : ep.act;
  for (int r = 0; r < 2; ++r) {
    const int64_t oh = 2 * th + r;
    if (oh >= g.OH) break;
    const T out[2] = {s[r][0] + s[r][1] + s[r][2], s[r][1] - s[r][2] - s[r][3]};
    for (int q = 0; q < 2; ++q) {
      const int64_t ow = 2 * tw + q;
      if (ow >= g.OW) break;
      const int64_t at = ((n * g.OH + oh) * g.OW + ow) * g.Cout + c;
      T v = out[q];
      if (ep.bias) v += bias;
      if (ep.residual) {
        T res;
        Load(&res, ep.residual + at);
        v += res;
      }
      Activate(&v, act, ep.lo, ep.hi);
      Store(j.y + at, &v);
    }
  }
}

TFN_OPT_INLINE void OutputBody(const Job& j) {
  const ConvGeom& g = *j.g;
  for (int64_t t = 0; t < j.nt; ++t) {
    int64_t c = 0;
    for (; c + 16 <= g.Cout; c += 16) OutputChunk<V16>(j, t, c);
    for (; c < g.Cout; ++c) OutputChunk<float>(j, t, c);
    if (j.ep->needs_row_pass()) {
      const int64_t tile = j.t0 + t, per_image = TilesH(g) * TilesW(g);
      const int64_t n = tile / per_image, th = tile % per_image / TilesW(g), tw = tile % TilesW(g);
      for (int64_t oh = 2 * th; oh < std::min(2 * th + 2, g.OH); ++oh) {
        const int64_t ow1 = std::min(2 * tw + 2, g.OW);
        ApplyActivation(*j.ep, j.y + ((n * g.OH + oh) * g.OW + 2 * tw) * g.Cout, g.Cout,
                        ow1 - 2 * tw, g.Cout);
      }
    }
  }
}

TFN_OPT_MULTIVERSION(RunInput, Job, InputBody)
TFN_OPT_MULTIVERSION(RunOutput, Job, OutputBody)

}  // namespace

int64_t WinogradScratchBytes(const ConvGeom& g) {
  return 64 + kGemmMaxThreads * SlotLayout(g).bytes;
}

void WinogradConv(const ConvGeom& g, const float* x, const float* u, float* y,
                  const GemmEpilogue& ep, unsigned char* scratch, const ConvIsa& isa,
                  int64_t threads, const TfnKernelContext* ctx) {
  const Slot slot = SlotLayout(g);
  // Blocks of (nearly) equal size, as many as a multiple of the threads:
  // ConvStack's 784 tiles were 6 x 126 + 28, 504 tiles for one thread of two
  // and 280 for the other. Each tile's sums are the same in any block.
  const int64_t tiles = g.N * TilesH(g) * TilesW(g);
  threads = std::max<int64_t>(1, threads);
  int64_t blocks = (tiles + BlockTiles(g) - 1) / BlockTiles(g);
  blocks = (blocks + threads - 1) / threads * threads;
  const int64_t tb = std::min(BlockTiles(g), ((tiles + blocks - 1) / blocks + 13) / 14 * 14);
  blocks = (tiles + tb - 1) / tb;
  const int64_t panels = (g.Cout + kPanel - 1) / kPanel;
  threads = std::min(threads, blocks);
  const int64_t per_part = (blocks + threads - 1) / threads;
  const int64_t parts = (blocks + per_part - 1) / per_part;
  auto run = [&](int64_t begin, int64_t end) {
    // The chunk's first index names its scratch slot (chunks run concurrently).
    unsigned char* mine = scratch + begin * slot.bytes;
    Job j{&g,
          x,
          y,
          &ep,
          reinterpret_cast<float*>(mine + slot.v),
          reinterpret_cast<float*>(mine + slot.m),
          tb,
          0,
          0};
    const float** table = reinterpret_cast<const float**>(mine + slot.table);
    for (int64_t b = begin * per_part; b < std::min(blocks, end * per_part); ++b) {
      j.t0 = b * tb;
      j.nt = std::min(tb, tiles - j.t0);
      RunInput(j);
      ConvTile t{};
      t.taps = 1;
      t.cg = g.C;
      t.rows = table;
      t.ldc = g.Cout;
      t.act = kActNone;
      for (int xi = 0; xi < 16; ++xi) {
        for (int64_t i = 0; i < j.nt; ++i) table[i] = j.v + (xi * tb + i) * g.C;
        for (int64_t q = 0; q < panels; ++q) {
          // The next panel of U (2 C lines, contiguous) is prefetched while
          // this one computes: U is streamed from memory once per block.
          const bool last = xi == 15 && q + 1 == panels;
          const char* pf =
              last ? nullptr
                   : reinterpret_cast<const char*>(u + ((xi * panels + q + 1) * g.C) * kPanel);
          for (int64_t j0 = 0; j0 < kPanel && q * kPanel + j0 < g.Cout; j0 += isa.nr) {
            t.b = u + ((xi * panels + q) * g.C) * kPanel + j0;
            t.n_valid = std::min<int64_t>(isa.nr, g.Cout - q * kPanel - j0);
            for (int64_t r0 = 0; r0 < j.nt; r0 += isa.mr) {
              const int m = static_cast<int>(std::min<int64_t>(isa.mr, j.nt - r0));
              t.rows = table + r0;
              t.c = j.m + (xi * tb + r0) * g.Cout + q * kPanel + j0;
              t.prefetch = pf;
              t.prefetch_lines = pf ? g.C : 0;  // one per k step
              if (pf) pf += 64 * g.C;
              PickTile(isa, m, t.n_valid)(t);
            }
          }
        }
      }
      RunOutput(j);
    }
  };
  ParallelFor(ctx, parts, 1, run);
}

}  // namespace tfn::kernels::conv_internal
