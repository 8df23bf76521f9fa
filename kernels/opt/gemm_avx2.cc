// AVX2+FMA microkernels of the GEMM (gemm.h): a 6x16 register tile, 12 ymm
// accumulators, two 8-float B vectors per k and one broadcast of A per row
// (the classic Haswell shape). Compiled with a per-function target attribute
// so the library builds for generic x86-64; gemm.cc only calls these after
// __builtin_cpu_supports("avx2") and ("fma") said yes.
#include "kernels/opt/gemm_internal.h"

#if defined(__x86_64__)
#include <immintrin.h>

#include <algorithm>

#define TFN_AVX2 __attribute__((target("avx2,fma")))

namespace tfn::kernels::gemm_internal {
namespace {

constexpr int kMr = 6;
constexpr int kNr = 16;

// Independent accumulator sets for short tiles (more FMA chains in flight);
// consecutive k go to different sets, summed at the end.
constexpr int Sets(int m) { return m == 1 ? 4 : m <= 3 ? 2 : 1; }

// One k step into accumulator set `acc0/acc1`.
template <int M>
TFN_AVX2 __attribute__((always_inline)) inline void Step(const float* a, const float* b,
                                                         __m256* acc0, __m256* acc1) {
  const __m256 b0 = _mm256_loadu_ps(b);
  const __m256 b1 = _mm256_loadu_ps(b + 8);
#pragma GCC unroll 8
  for (int i = 0; i < M; ++i) {
    const __m256 ai = _mm256_broadcast_ss(a + i);
    acc0[i] = _mm256_fmadd_ps(ai, b0, acc0[i]);
    acc1[i] = _mm256_fmadd_ps(ai, b1, acc1[i]);
  }
}

// C[0:M, 0:n_valid] (+)= a * b for one tile; see MicroKernelFn.
template <int M>
TFN_AVX2 void KernelAvx2(int64_t kc, const float* a, int64_t /*lda*/, const float* b, int64_t ldb,
                         float* c, int64_t ldc, int64_t n_valid, bool accumulate, float* /*b_pack*/,
                         const TileEpilogue* /*te*/) {
  constexpr int S = Sets(M);
  constexpr int U = S > 1 ? S : 2;  // k unroll
  __m256 s0[S][M], s1[S][M];
#pragma GCC unroll 8
  for (int i = 0; i < M; ++i) {
#pragma GCC unroll 4
    for (int s = 0; s < S; ++s) s0[s][i] = s1[s][i] = _mm256_setzero_ps();
    _mm_prefetch(reinterpret_cast<const char*>(c + i * ldc), _MM_HINT_T0);
  }
  int64_t k = 0;
  for (; k + U <= kc; k += U) {
#pragma GCC unroll 4
    for (int u = 0; u < U; ++u) Step<M>(a + u * M, b + u * ldb, s0[u % S], s1[u % S]);
    a += U * M;
    b += U * ldb;
  }
  const int64_t rem = kc - k;  // < U; unrolled so every set index is a constant
#pragma GCC unroll 4
  for (int u = 0; u < U - 1; ++u) {
    if (u < rem) Step<M>(a + u * M, b + u * ldb, s0[u % S], s1[u % S]);
  }
  __m256 c0[M], c1[M];
#pragma GCC unroll 8
  for (int i = 0; i < M; ++i) {
    c0[i] = s0[0][i];
    c1[i] = s1[0][i];
    if constexpr (S == 4) {
      c0[i] = _mm256_add_ps(_mm256_add_ps(s0[0][i], s0[1][i]), _mm256_add_ps(s0[2][i], s0[3][i]));
      c1[i] = _mm256_add_ps(_mm256_add_ps(s1[0][i], s1[1][i]), _mm256_add_ps(s1[2][i], s1[3][i]));
    } else if constexpr (S == 2) {
      c0[i] = _mm256_add_ps(s0[0][i], s0[1][i]);
      c1[i] = _mm256_add_ps(s1[0][i], s1[1][i]);
    }
  }
  if (n_valid == kNr) {
#pragma GCC unroll 8
    for (int i = 0; i < M; ++i) {
      float* ci = c + i * ldc;
      if (accumulate) {
        c0[i] = _mm256_add_ps(c0[i], _mm256_loadu_ps(ci));
        c1[i] = _mm256_add_ps(c1[i], _mm256_loadu_ps(ci + 8));
      }
      _mm256_storeu_ps(ci, c0[i]);
      _mm256_storeu_ps(ci + 8, c1[i]);
    }
    return;
  }
  // Edge tile: masked loads and stores touch only the valid columns.
  const __m256i iota = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  const __m256i n = _mm256_set1_epi32(static_cast<int>(n_valid));
  const __m256i m0 = _mm256_cmpgt_epi32(n, iota);
  const __m256i m1 = _mm256_cmpgt_epi32(n, _mm256_add_epi32(iota, _mm256_set1_epi32(8)));
#pragma GCC unroll 8
  for (int i = 0; i < M; ++i) {
    float* ci = c + i * ldc;
    if (accumulate) {
      c0[i] = _mm256_add_ps(c0[i], _mm256_maskload_ps(ci, m0));
      c1[i] = _mm256_add_ps(c1[i], _mm256_maskload_ps(ci + 8, m1));
    }
    _mm256_maskstore_ps(ci, m0, c0[i]);
    _mm256_maskstore_ps(ci + 8, m1, c1[i]);
  }
}

// SkinnyFn (see the AVX-512 one): C rows in L1, four rows of B per pass.
TFN_AVX2 void SkinnyAvx2(int64_t m, int64_t n, int64_t K, const float* A, int64_t a_rs,
                         int64_t a_cs, const float* B, int64_t b_rs, int64_t b_ps, float* C,
                         int64_t ldc, bool accumulate) {
  const __m256i iota = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  for (int64_t j0 = 0; j0 < n; j0 += 512) {
    const int64_t w = std::min<int64_t>(512, n - j0);
    if (!accumulate) {
      for (int64_t i = 0; i < m; ++i) std::fill(C + i * ldc + j0, C + i * ldc + j0 + w, 0.0f);
    }
    const float* bj = B + (j0 / 32) * b_ps;  // j0 is a multiple of 32
    for (int64_t k = 0; k < K; k += 4) {
      const int rows = static_cast<int>(std::min<int64_t>(4, K - k));  // 1..4 rows of B
      for (int64_t i = 0; i < m; ++i) {
        const float* ai = A + i * a_rs + k * a_cs;
        __m256 a[4];
        for (int r = 0; r < 4; ++r) a[r] = _mm256_set1_ps(r < rows ? ai[r * a_cs] : 0.0f);
        float* c = C + i * ldc + j0;
        int64_t j = 0;
        for (; j + 8 <= w; j += 8) {
          const float* b = bj + k * b_rs + (j >> 5) * b_ps + (j & 31);
          __m256 t = _mm256_fmadd_ps(a[0], _mm256_loadu_ps(b), _mm256_loadu_ps(c + j));
          for (int r = 1; r < rows; ++r)
            t = _mm256_fmadd_ps(a[r], _mm256_loadu_ps(b + r * b_rs), t);
          _mm256_storeu_ps(c + j, t);
        }
        if (j < w) {
          const __m256i mask = _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(w - j)), iota);
          const float* b = bj + k * b_rs + (j >> 5) * b_ps + (j & 31);
          __m256 t =
              _mm256_fmadd_ps(a[0], _mm256_maskload_ps(b, mask), _mm256_maskload_ps(c + j, mask));
          for (int r = 1; r < rows; ++r) {
            t = _mm256_fmadd_ps(a[r], _mm256_maskload_ps(b + r * b_rs, mask), t);
          }
          _mm256_maskstore_ps(c + j, mask, t);
        }
      }
    }
  }
}

constexpr IsaKernels MakeKernels() {
  IsaKernels k{};
  k.name = "avx2";
  k.mr = kMr;
  k.nr = kNr;
  k.kc = 256;
  k.nc = 512;
  k.kernel[1] = KernelAvx2<1>;
  k.kernel[2] = KernelAvx2<2>;
  k.kernel[3] = KernelAvx2<3>;
  k.kernel[4] = KernelAvx2<4>;
  k.kernel[5] = KernelAvx2<5>;
  k.kernel[6] = KernelAvx2<6>;
  k.pack_a = nullptr;
  k.pack_b = nullptr;
  k.skinny = SkinnyAvx2;
  k.skinny_max_m = 4;
  return k;
}

const IsaKernels kAvx2 = MakeKernels();

}  // namespace

const IsaKernels* Avx2Kernels() { return &kAvx2; }

}  // namespace tfn::kernels::gemm_internal

#else  // !__x86_64__

namespace tfn::kernels::gemm_internal {
const IsaKernels* Avx2Kernels() { return nullptr; }
}  // namespace tfn::kernels::gemm_internal

#endif
