// Portable tile kernels of the convolution (conv_internal.h) for CPUs without
// AVX2 and non-x86 targets: 4 output pixels x 16 output channels in GCC/Clang
// vector extensions (4-float vectors: SSE on baseline x86-64, NEON on
// AArch64), called twice per 32-column panel.
#include <cstring>

#include "kernels/opt/conv_internal.h"

namespace tfn::kernels::conv_internal {
namespace {

typedef float V4 __attribute__((vector_size(16)));

constexpr int kMr = 4;
constexpr int kVecs = 4;  // 16 columns

inline V4 Load(const float* p) {
  V4 v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}

template <int M>
void TilePortable(const ConvTile& t) {
  V4 acc[M][kVecs];
  for (int i = 0; i < M; ++i) {
    for (int v = 0; v < kVecs; ++v) acc[i][v] = V4{0, 0, 0, 0};
  }
  const float* b = t.b;
  const float* const* rows = t.rows;
  for (int64_t tap = 0; tap < t.taps; ++tap, rows += kConvRowStride) {
    const float* p[M];
    for (int i = 0; i < M; ++i) p[i] = rows[i];
    for (int64_t ci = 0; ci < t.cg; ++ci, b += 32) {
      V4 bv[kVecs];
      for (int v = 0; v < kVecs; ++v) bv[v] = Load(b + 4 * v);
      for (int i = 0; i < M; ++i) {
        const float ai = p[i][ci];
        const V4 av = {ai, ai, ai, ai};
        for (int v = 0; v < kVecs; ++v) acc[i][v] += av * bv[v];
      }
    }
  }
  const int64_t n = t.n_valid < 16 ? t.n_valid : 16;
  for (int i = 0; i < M; ++i) {
    float tile[16];
    std::memcpy(tile, acc[i], sizeof(tile));
    float* c = t.c + i * t.ldc;
    for (int64_t j = 0; j < n; ++j) {
      float v = tile[j];
      if (t.bias) v += t.bias[j];
      if (t.residual) v += t.residual[i * t.ldr + j];
      if (t.act == kActRelu) {
        v = v < 0.0f ? 0.0f : v;
      } else if (t.act == kActClip) {
        v = v < t.lo ? t.lo : v;
        v = v > t.hi ? t.hi : v;
      }
      c[j] = v;
    }
  }
}

constexpr ConvIsa MakeIsa() {
  ConvIsa k{};
  k.name = "portable";
  k.mr = kMr;
  k.nr = 16;
  k.tile[1] = TilePortable<1>;
  k.tile[2] = TilePortable<2>;
  k.tile[3] = TilePortable<3>;
  k.tile[4] = TilePortable<4>;
  return k;
}

const ConvIsa kPortable = MakeIsa();

}  // namespace

const ConvIsa* ConvPortable() { return &kPortable; }

}  // namespace tfn::kernels::conv_internal
