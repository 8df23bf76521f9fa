// The portable parts of the GEMM (gemm.h): microkernels for CPUs without
// AVX2 (and non-x86 targets), a 4x16 tile written with GCC/Clang vector
// extensions (4-float vectors: SSE on baseline x86-64, NEON on AArch64), and
// the generic packing routines (A into micro-panels, B into 32-column panels,
// either layout of each) used by the ISAs without faster ones.
#include <cstring>

#include "kernels/opt/gemm_internal.h"

namespace tfn::kernels::gemm_internal {
namespace {

typedef float V4 __attribute__((vector_size(16)));

constexpr int kMr = 4;
constexpr int kNr = 16;
constexpr int kVecs = kNr / 4;

inline V4 Load(const float* p) {
  V4 v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}

// C[0:M, 0:n_valid] (+)= a * b for one tile; see MicroKernelFn.
template <int M>
void KernelPortable(int64_t kc, const float* a, int64_t /*lda*/, const float* b, int64_t ldb,
                    float* c, int64_t ldc, int64_t n_valid, bool accumulate, float* /*b_pack*/,
                    const TileEpilogue* /*te*/) {
  V4 acc[M][kVecs];
  for (int i = 0; i < M; ++i) {
    for (int v = 0; v < kVecs; ++v) acc[i][v] = V4{0, 0, 0, 0};
  }
  for (int64_t k = 0; k < kc; ++k) {
    V4 bv[kVecs];
    for (int v = 0; v < kVecs; ++v) bv[v] = Load(b + 4 * v);
    for (int i = 0; i < M; ++i) {
      const float ai = a[i];
      const V4 av = {ai, ai, ai, ai};
      for (int v = 0; v < kVecs; ++v) acc[i][v] += av * bv[v];
    }
    a += M;
    b += ldb;
  }
  for (int i = 0; i < M; ++i) {
    float tile[kNr];
    std::memcpy(tile, acc[i], sizeof(tile));
    float* ci = c + i * ldc;
    for (int64_t j = 0; j < n_valid; ++j) ci[j] = accumulate ? ci[j] + tile[j] : tile[j];
  }
}

constexpr IsaKernels MakeKernels() {
  IsaKernels k{};
  k.name = "portable";
  k.mr = kMr;
  k.nr = kNr;
  k.kc = 256;
  k.nc = 512;
  k.kernel[1] = KernelPortable<1>;
  k.kernel[2] = KernelPortable<2>;
  k.kernel[3] = KernelPortable<3>;
  k.kernel[4] = KernelPortable<4>;
  k.pack_a = nullptr;
  k.pack_b = nullptr;
  k.skinny = nullptr;
  k.skinny_max_m = 0;
  return k;
}

const IsaKernels kPortable = MakeKernels();

}  // namespace

const IsaKernels* PortableKernels() { return &kPortable; }

void PackAGeneric(int m, int64_t kc, const float* A, int64_t rs, int64_t cs, float* out) {
  if (rs == 1) {  // op(A) columns are contiguous: copy runs of m
    for (int64_t k = 0; k < kc; ++k) {
      std::memcpy(out + k * m, A + k * cs, static_cast<size_t>(m) * sizeof(float));
    }
    return;
  }
  // Rows contiguous (cs == 1, the usual case): a transpose of m x kc. Walk
  // blocks of 8 k so each source line is reused while it is in L1.
  constexpr int64_t kBlock = 8;
  int64_t k0 = 0;
  for (; k0 + kBlock <= kc; k0 += kBlock) {
    for (int i = 0; i < m; ++i) {
      const float* src = A + i * rs + k0 * cs;
      float* dst = out + k0 * m + i;
      for (int64_t k = 0; k < kBlock; ++k) dst[k * m] = src[k * cs];
    }
  }
  for (int i = 0; i < m; ++i) {
    for (int64_t k = k0; k < kc; ++k) out[k * m + i] = A[i * rs + k * cs];
  }
}

void PackBGeneric(int64_t kc, int64_t nc, const float* B, int64_t rs, int64_t cs, float* out,
                  int64_t panel_stride) {
  const int64_t full = nc / 32, rest = nc % 32;
  if (cs == 1) {
    // Row-major B: row by row, each source row read once front to back.
    for (int64_t k = 0; k < kc; ++k) {
      const float* src = B + k * rs;
      float* dst = out + k * 32;
      for (int64_t q = 0; q < full; ++q) {
        std::memcpy(dst + q * panel_stride, src + q * 32, 32 * sizeof(float));
      }
      if (rest) {
        float* d = dst + full * panel_stride;
        std::memcpy(d, src + full * 32, static_cast<size_t>(rest) * sizeof(float));
        std::memset(d + rest, 0, static_cast<size_t>(32 - rest) * sizeof(float));
      }
    }
    return;
  }
  // Transposed B (columns contiguous): per panel, 64 k at a time so source
  // and destination stay in L1.
  for (int64_t q = 0; q * 32 < nc; ++q) {
    const int64_t cols = q < full ? 32 : rest;
    float* panel = out + q * panel_stride;
    for (int64_t k0 = 0; k0 < kc; k0 += 64) {
      const int64_t k1 = kc < k0 + 64 ? kc : k0 + 64;
      for (int64_t j = 0; j < 32; ++j) {
        const float* src = B + (q * 32 + j) * cs;
        for (int64_t k = k0; k < k1; ++k) panel[k * 32 + j] = j < cols ? src[k * rs] : 0.0f;
      }
    }
  }
}

}  // namespace tfn::kernels::gemm_internal
