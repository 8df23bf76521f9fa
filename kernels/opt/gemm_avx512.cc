// AVX-512 microkernels of the GEMM (gemm.h): a 14x32 register tile, 28 zmm
// accumulators, two 16-float B vectors per k and one broadcast of A per row.
// Compiled with a per-function target attribute so the library itself still
// builds (and runs, through the other kernels) for generic x86-64; gemm.cc
// only calls these after __builtin_cpu_supports("avx512f") said yes.
#include "kernels/opt/gemm_internal.h"

#if defined(__x86_64__)
#include <immintrin.h>

#include <algorithm>
#include <utility>

#include "kernels/opt/avx512_target.h"

namespace tfn::kernels::gemm_internal {
namespace {

constexpr int kMr = 14;
static_assert(kMr <= 15, "ARows addresses 15 rows");
constexpr int kNr = 32;

// Independent accumulator sets for short tiles: with M rows there are only
// 2*M FMA chains, too few to hide the FMA latency when M is small, so
// consecutive k go to different sets that are summed at the end.
constexpr int Sets(int m) { return m == 1 ? 4 : m <= 3 ? 2 : 1; }

// Rows of A read in place: a(i, k) for the tile's row i at k from three base
// pointers (rows 0, 5, 10) and the byte offsets lda and 3 lda, so that every
// row is one x86 address [base + index * 1|2|4] (rows 0-4 from the first
// base: 0, L, 2L, 3L, 4L). A row pointer each (14) would not fit in the 16
// general registers: GCC spilled them and reloaded one per multiply-add.
// The bases pass through an empty asm after each step: otherwise clang's
// loop strength reduction rebuilt the rows as chains of adds, and the
// registers those took made it spill accumulators in the 14-row kernel of
// the AOT bitcode (bench/RESULTS.md, "Figures behind kernel choices").
struct ARows {
  const char* p[3];
  int64_t l, l3;  // lda and 3 lda, in bytes

  TFN_AVX512 __attribute__((always_inline)) ARows(const float* a, int64_t lda) {
    l = lda * 4;
    l3 = 3 * l;
    for (int j = 0; j < 3; ++j) p[j] = reinterpret_cast<const char*>(a) + 5 * j * l;
  }
  // a(i, k + u).
  TFN_AVX512 __attribute__((always_inline)) float At(int i, int u) const {
    const char* base = p[i / 5] + 4 * u;
    const int j = i % 5;
    const char* at = j == 0   ? base
                     : j == 1 ? base + l
                     : j == 2 ? base + 2 * l
                     : j == 3 ? base + l3
                              : base + 4 * l;
    return *reinterpret_cast<const float*>(at);
  }
  TFN_AVX512 __attribute__((always_inline)) void Advance(int64_t k) {
    for (int j = 0; j < 3; ++j) {
      p[j] += 4 * k;
      asm("" : "+r"(p[j]));
    }
  }
};

// One k step into accumulator set `acc0/acc1`; with kPack, also stores the
// row of B into the packed panel `bp`.
// With kHalf, only the first 16 columns (acc1 untouched).
template <int M, bool kPack, bool kHalf>
TFN_AVX512 __attribute__((always_inline)) inline void Step(const ARows& a, int u, const float* b,
                                                           float* bp, __m512* acc0, __m512* acc1) {
  const __m512 b0 = _mm512_loadu_ps(b);
  const __m512 b1 = kHalf ? _mm512_setzero_ps() : _mm512_loadu_ps(b + 16);
  if constexpr (kPack) {
    _mm512_store_ps(bp, b0);
    _mm512_store_ps(bp + 16, b1);
  }
#pragma GCC unroll 16
  for (int i = 0; i < M; ++i) {
    const __m512 ai = _mm512_set1_ps(a.At(i, u));
    acc0[i] = _mm512_fmadd_ps(ai, b0, acc0[i]);
    if constexpr (!kHalf) acc1[i] = _mm512_fmadd_ps(ai, b1, acc1[i]);
  }
}

// The k loop of a tile: c0/c1[i] = row i of a * b (columns 0-15, 16-31),
// with the tile of C fetched into L1 on the way. With kPack, B is also copied
// into the packed panel b_pack. With kHalf, only the first 16 columns (c1 is
// zero): half the multiply-adds; each element is the same sequence of
// operations either way.
template <int M, bool kPack, bool kHalf>
TFN_AVX512 __attribute__((always_inline)) inline void Accumulate(int64_t kc, const float* a,
                                                                 int64_t lda, const float* b,
                                                                 int64_t ldb, const float* c,
                                                                 int64_t ldc, float* b_pack,
                                                                 __m512* c0, __m512* c1) {
  ARows rows(a, lda);
  constexpr int S = Sets(M);
  constexpr int U = S > 1 ? S : 2;  // k unroll
  __m512 s0[S][M], s1[S][M];
#pragma GCC unroll 16
  for (int i = 0; i < M; ++i) {
#pragma GCC unroll 4
    for (int s = 0; s < S; ++s) s0[s][i] = s1[s][i] = _mm512_setzero_ps();
  }
  // The tile of C is fetched into L1 shortly before the end of the k loop
  // (earlier, the stream of B would evict it again).
  const int64_t k_fetch_c = kc - std::min<int64_t>(kc, 64);
  int64_t k = 0;
  // (Not unrolled: one copy of the k loop serves both phases. Clang copies
  // it for the half-width loop otherwise; GCC keeps one copy by itself.)
#if defined(__clang__)
#pragma clang loop unroll(disable)
#endif
  for (int phase = 0; phase < 2; ++phase) {
    for (const int64_t end = phase == 0 ? k_fetch_c : kc; k + U <= end; k += U) {
#pragma GCC unroll 4
      for (int u = 0; u < U; ++u) {
        Step<M, kPack, kHalf>(rows, u, b + u * ldb, kPack ? b_pack + u * kNr : nullptr, s0[u % S],
                              s1[u % S]);
      }
      rows.Advance(U);
      b += U * ldb;
      if constexpr (kPack) b_pack += U * kNr;
    }
    if (phase == 0) {
#pragma GCC unroll 16
      for (int i = 0; i < M; ++i) {
        _mm_prefetch(reinterpret_cast<const char*>(c + i * ldc), _MM_HINT_T0);
        _mm_prefetch(reinterpret_cast<const char*>(c + i * ldc + 16), _MM_HINT_T0);
      }
    }
  }
  const int64_t rem = kc - k;  // < U; unrolled so every set index is a constant
#pragma GCC unroll 4
  for (int u = 0; u < U - 1; ++u) {
    if (u < rem) {
      Step<M, kPack, kHalf>(rows, u, b + u * ldb, kPack ? b_pack + u * kNr : nullptr, s0[u % S],
                            s1[u % S]);
    }
  }
#pragma GCC unroll 16
  for (int i = 0; i < M; ++i) {
    c0[i] = s0[0][i];
    c1[i] = s1[0][i];
    if constexpr (S == 4) {
      c0[i] = _mm512_add_ps(_mm512_add_ps(s0[0][i], s0[1][i]), _mm512_add_ps(s0[2][i], s0[3][i]));
      c1[i] = _mm512_add_ps(_mm512_add_ps(s1[0][i], s1[1][i]), _mm512_add_ps(s1[2][i], s1[3][i]));
    } else if constexpr (S == 2) {
      c0[i] = _mm512_add_ps(s0[0][i], s0[1][i]);
      c1[i] = _mm512_add_ps(s1[0][i], s1[1][i]);
    }
  }
}

// C[0:M, 0:n_valid] (+)= a * b for one tile, then the epilogue `te` in
// registers unless it is null; see MicroKernelFn. With kPack (n_valid == 32),
// B is also copied into the packed panel b_pack. A narrow tile (n_valid <= 16:
// the last panel of N = 10, 48, ...) takes the half-width k loop.
// The half width and the epilogue are run-time choices, not template ones:
// each is decided once per tile, outside the k loop, so the checks cost
// nothing measurable, while separate instances (there were 70) multiplied the
// kernels' code, and with it the AOT compile time of every object (which
// links them) and the runtime's size. The stores and the epilogue are shared.
template <int M, bool kPack>
TFN_AVX512 void KernelAvx512(int64_t kc, const float* a, int64_t lda, const float* b, int64_t ldb,
                             float* c, int64_t ldc, int64_t n_valid, bool accumulate, float* b_pack,
                             const TileEpilogue* te) {
  __m512 c0[M], c1[M];
  if (!kPack && n_valid <= 16) {
    Accumulate<M, false, true>(kc, a, lda, b, ldb, c, ldc, nullptr, c0, c1);
  } else {
    Accumulate<M, kPack, false>(kc, a, lda, b, ldb, c, ldc, b_pack, c0, c1);
  }
  // Masked loads and stores touch only the valid columns of an edge tile.
  const __mmask16 m0 = n_valid >= 16 ? 0xFFFF : static_cast<__mmask16>((1u << n_valid) - 1);
  const __mmask16 m1 = n_valid <= 16 ? 0 : static_cast<__mmask16>((1u << (n_valid - 16)) - 1);
  if (te == nullptr) {
#pragma GCC unroll 16
    for (int i = 0; i < M; ++i) {
      float* ci = c + i * ldc;
      if (accumulate) {
        c0[i] = _mm512_add_ps(c0[i], _mm512_maskz_loadu_ps(m0, ci));
        c1[i] = _mm512_add_ps(c1[i], _mm512_maskz_loadu_ps(m1, ci + 16));
      }
      _mm512_mask_storeu_ps(ci, m0, c0[i]);
      _mm512_mask_storeu_ps(ci + 16, m1, c1[i]);
    }
    return;
  }
  // The epilogue, without a branch per row (the code stays small): a term
  // that is absent adds -0 (x + -0 == x for every x, -0 included; a load
  // with an empty mask reads nothing and gives -0), and the activation is
  // min(hi, max(lo, x)) with [lo, hi] = [-inf, inf] (none), [0, inf] (relu)
  // or te's (clip). max_ps(a, b) / min_ps(a, b) return b when either is NaN
  // (and for max(0, -0)): NaN and -0 pass, as in ApplyEpilogue.
  const __m512 neg0 = _mm512_set1_ps(-0.0f);
  const __mmask16 a0 = accumulate ? m0 : 0, a1 = accumulate ? m1 : 0;
  const __m512 bias0 = te->bias ? _mm512_mask_loadu_ps(neg0, m0, te->bias) : neg0;
  const __m512 bias1 = te->bias ? _mm512_mask_loadu_ps(neg0, m1, te->bias + 16) : neg0;
  const __mmask16 r0 = te->residual ? m0 : 0, r1 = te->residual ? m1 : 0;
  const float* res = te->residual ? te->residual : c;  // (never read through without one)
  const int64_t ldr = te->residual ? te->ldr : 0;
  constexpr float kInf = __builtin_inff();
  const __m512 lo = _mm512_set1_ps(te->act == kActClip   ? te->lo
                                   : te->act == kActRelu ? 0.0f
                                                         : -kInf);
  const __m512 hi = _mm512_set1_ps(te->act == kActClip ? te->hi : kInf);
#pragma GCC unroll 16
  for (int i = 0; i < M; ++i) {
    float* ci = c + i * ldc;
    const float* ri = res + i * ldr;
    c0[i] = _mm512_add_ps(c0[i], _mm512_mask_loadu_ps(neg0, a0, ci));
    c1[i] = _mm512_add_ps(c1[i], _mm512_mask_loadu_ps(neg0, a1, ci + 16));
    c0[i] = _mm512_add_ps(_mm512_add_ps(c0[i], bias0), _mm512_mask_loadu_ps(neg0, r0, ri));
    c1[i] = _mm512_add_ps(_mm512_add_ps(c1[i], bias1), _mm512_mask_loadu_ps(neg0, r1, ri + 16));
    c0[i] = _mm512_min_ps(hi, _mm512_max_ps(lo, c0[i]));
    c1[i] = _mm512_min_ps(hi, _mm512_max_ps(lo, c1[i]));
    _mm512_mask_storeu_ps(ci, m0, c0[i]);
    _mm512_mask_storeu_ps(ci + 16, m1, c1[i]);
  }
}

// One row of C against B in 32-column panels of K rows each (contiguous):
// four panels at a time, each read front to back, so the weights stream as
// four sequential runs (MobileNet's classifier, 1280 x 1000: 5 MB that come
// from memory on every call). Row by row across all panels instead (below)
// walks 16 panels 160 KB apart at once, which streams far below the memory
// bandwidth. Each element is
// the same chain of FMAs in k order as below, so results are identical.
TFN_AVX512 void SkinnyPanelsAvx512(int64_t n, int64_t K, const float* A, int64_t a_cs,
                                   const float* B, float* C, bool accumulate) {
  constexpr int kVecs = 8;  // 4 panels of 2 vectors: 8 independent chains
  int64_t j0 = 0;
  // Whole groups of four panels: plain loads at fixed offsets. With a mask
  // and a pointer per vector (the tail's loop below) GCC reloads each mask
  // from the stack before its load, and AlexNet's 9216 x 4096 weights
  // streamed at 21 GB/s instead of 44 (bench/RESULTS.md).
  for (; j0 + kVecs * 16 <= n; j0 += kVecs * 16) {
    const float* b = B + j0 * K;
    const int64_t panel = K * 32;
    __m512 t[kVecs];
#pragma GCC unroll 8
    for (int q = 0; q < kVecs; ++q) {
      t[q] = accumulate ? _mm512_loadu_ps(C + j0 + q * 16) : _mm512_setzero_ps();
    }
    for (int64_t k = 0; k < K; ++k) {
      const __m512 a = _mm512_set1_ps(A[k * a_cs]);
      const float* bk = b + k * 32;
#pragma GCC unroll 8
      for (int q = 0; q < kVecs; ++q) {
        t[q] = _mm512_fmadd_ps(a, _mm512_loadu_ps(bk + (q / 2) * panel + (q % 2) * 16), t[q]);
      }
    }
#pragma GCC unroll 8
    for (int q = 0; q < kVecs; ++q) _mm512_storeu_ps(C + j0 + q * 16, t[q]);
  }
  for (; j0 < n; j0 += kVecs * 16) {
    __mmask16 mask[kVecs];
    __m512 t[kVecs];
    // Where vector q reads row 0. Vectors past n point into the first panel
    // (mask 0): a masked load whose masked-off lanes lie in unmapped memory
    // past the weights is many times slower on Zen 4 (bench/RESULTS.md,
    // "Figures behind kernel choices").
    const float* bq[kVecs];
    const float* b = B + j0 * K;  // j0 / 32 panels of K * 32 floats
    for (int q = 0; q < kVecs; ++q) {
      const int64_t left = n - j0 - q * 16;
      mask[q] = left >= 16 ? static_cast<__mmask16>(0xFFFF)
                : left > 0 ? static_cast<__mmask16>((1u << left) - 1)
                           : static_cast<__mmask16>(0);
      bq[q] = left > 0 ? b + (q / 2) * K * 32 + (q % 2) * 16 : b;
      t[q] = accumulate ? _mm512_maskz_loadu_ps(mask[q], C + j0 + q * 16) : _mm512_setzero_ps();
    }
    for (int64_t k = 0; k < K; ++k) {
      const __m512 a = _mm512_set1_ps(A[k * a_cs]);
      for (int q = 0; q < kVecs; ++q) {
        t[q] = _mm512_fmadd_ps(a, _mm512_maskz_loadu_ps(mask[q], bq[q] + k * 32), t[q]);
      }
    }
    for (int q = 0; q < kVecs; ++q) _mm512_mask_storeu_ps(C + j0 + q * 16, mask[q], t[q]);
  }
}

// SkinnyFn: per 512-column chunk, C rows stay in L1 while four rows of B at a
// time stream by; each element of C is one chain of FMAs in k order.
TFN_AVX512 void SkinnyAvx512(int64_t m, int64_t n, int64_t K, const float* A, int64_t a_rs,
                             int64_t a_cs, const float* B, int64_t b_rs, int64_t b_ps, float* C,
                             int64_t ldc, bool accumulate) {
  if (m == 1 && b_rs == 32 && b_ps == K * 32) {  // a GEMV over prepacked panels
    SkinnyPanelsAvx512(n, K, A, a_cs, B, C, accumulate);
    return;
  }
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
        __m512 a[4];
        for (int r = 0; r < 4; ++r) a[r] = _mm512_set1_ps(r < rows ? ai[r * a_cs] : 0.0f);
        float* c = C + i * ldc + j0;
        for (int64_t j = 0; j < w; j += 16) {
          const __mmask16 mask = w - j >= 16 ? 0xFFFF : static_cast<__mmask16>((1u << (w - j)) - 1);
          const float* b = bj + k * b_rs + (j >> 5) * b_ps + (j & 31);
          __m512 t = _mm512_maskz_loadu_ps(mask, c + j);
          t = _mm512_fmadd_ps(a[0], _mm512_maskz_loadu_ps(mask, b), t);
          if (rows == 4) {  // the steady state
            t = _mm512_fmadd_ps(a[1], _mm512_maskz_loadu_ps(mask, b + b_rs), t);
            t = _mm512_fmadd_ps(a[2], _mm512_maskz_loadu_ps(mask, b + 2 * b_rs), t);
            t = _mm512_fmadd_ps(a[3], _mm512_maskz_loadu_ps(mask, b + 3 * b_rs), t);
          } else {
            for (int r = 1; r < rows; ++r) {
              t = _mm512_fmadd_ps(a[r], _mm512_maskz_loadu_ps(mask, b + r * b_rs), t);
            }
          }
          _mm512_mask_storeu_ps(c + j, mask, t);
        }
      }
    }
  }
}

template <int... Ms>
constexpr IsaKernels MakeKernels(std::integer_sequence<int, Ms...>) {
  IsaKernels k{};
  k.name = "avx512";
  k.mr = kMr;
  k.nr = kNr;
  // A is read in place (a_rows) and streamed from L2 like B, so the K block
  // is not bounded by L1: whole K up to 1024 saves passes over C and tile
  // set-ups.
  // nc = 256 keeps a packed B block (kc x nc) at 1 MiB, as 512 x 512 was.
  k.kc = 1024;
  k.nc = 256;
  ((k.kernel[Ms + 1] = KernelAvx512<Ms + 1, false>), ...);  // full and half width
  // Only the full tile packs: the first micro-panel of a block has mr rows
  // unless the block has fewer rows than that (gemm.cc then packs B apart).
  k.kernel_pack = KernelAvx512<kMr, true>;
  k.tile_epilogue = true;
  k.a_rows = true;
  k.pack_a = PackAAvx512;
  k.pack_b = PackBAvx512;
  k.skinny = SkinnyAvx512;
  k.skinny_max_m = 4;
  return k;
}

const IsaKernels kAvx512 = MakeKernels(std::make_integer_sequence<int, kMr>());

}  // namespace

const IsaKernels* Avx512Kernels() { return &kAvx512; }

}  // namespace tfn::kernels::gemm_internal

#else  // !__x86_64__

namespace tfn::kernels::gemm_internal {
const IsaKernels* Avx512Kernels() { return nullptr; }
}  // namespace tfn::kernels::gemm_internal

#endif
