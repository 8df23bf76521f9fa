// The bf16 GEMM driver (bf16_gemm.h): B packing, A rounded to bfloat16 per
// row tile, the split between threads, the tile store with its epilogue,
// and the portable microkernel. The microkernel is chosen here.
#include <algorithm>
#include <atomic>
#include <cstring>

#include "core/half.h"
#include "kernels/opt/bf16_gemm.h"
#include "kernels/opt/bf16_gemm_internal.h"
#include "kernels/opt/cast_half.h"
#include "kernels/opt/panel_split.h"
#include "kernels/opt/simd.h"
#include "kernels/ref/tensor_util.h"

namespace tfn::kernels {
namespace bf16_gemm_internal {

void Bf16KernelPortable(int64_t k2, const uint16_t* a, int64_t lda, const uint16_t* b, float* c,
                        int rows, bool half) {
  (void)half;  // the portable kernel computes every column
  for (int r = 0; r < rows; ++r) {
    float acc[kBNr] = {};
    const uint16_t* ar = a + r * lda;
    for (int64_t g = 0; g < k2; ++g) {
      const float a0 = BFloat16BitsToFloat(ar[2 * g]), a1 = BFloat16BitsToFloat(ar[2 * g + 1]);
      const uint16_t* bg = b + g * kBf16PanelRowElems;
      for (int j = 0; j < kBNr; ++j) {
        // Each product is exact in float32; only the sums round.
        acc[j] = (acc[j] + a1 * BFloat16BitsToFloat(bg[2 * j + 1])) +
                 a0 * BFloat16BitsToFloat(bg[2 * j]);
      }
    }
    std::memcpy(c + r * kBNr, acc, sizeof(acc));
  }
}

}  // namespace bf16_gemm_internal

namespace {

using namespace bf16_gemm_internal;

int64_t Pairs(int64_t K) { return (K + 1) / 2; }
int64_t PanelElems(int64_t k2) { return k2 * kBf16PanelRowElems; }

// Set by Bf16GemmAllowVdpbf16psForTesting(false): the AVX-512F kernel runs
// on a CPU with BF16 too, so the suite tests it.
std::atomic<bool> g_vdpbf16ps_allowed{true};

Bf16KernelFn ActiveKernel() {
#if defined(TFN_AOT_BITCODE)
  // AOT objects know their target when they are compiled: BF16 from the
  // target's features (aot/compiler.cc), AVX-512 from the bitcode's level.
#if defined(__AVX512F__) && defined(__x86_64__)
  return tfn_aot_target_has_bf16 ? Bf16KernelAvx512Bf16 : Bf16KernelAvx512F;
#endif
#elif defined(__x86_64__)
  if (opt::Bf16KernelsActive() && g_vdpbf16ps_allowed.load(std::memory_order_relaxed)) {
    return Bf16KernelAvx512Bf16;
  }
  if (opt::Avx512KernelsActive()) return Bf16KernelAvx512F;
#endif
  return Bf16KernelPortable;
}

// The split between threads (panel_split.h) and one thread's scratch slot.
PanelPlan MakePlan(int64_t M, int64_t N, int64_t K, int64_t threads) {
  const int64_t k2 = Pairs(K);
  const int64_t nc_max = std::max<int64_t>(kBNr, kPanelBlockBudget / (2 * PanelElems(k2)) * kBNr);
  return PanelPlan{SplitPanels(M, N, threads, kBMr, kBNr, nc_max),
                   Align64(kBMr * 2 * k2 * 2)};  // an A tile in bfloat16
}

struct Problem {
  int64_t M, N, K, k2;
  const float* A;
  int64_t lda;
  const uint16_t* B;
  float* C;
  int64_t ldc;
  const GemmEpilogue* ep;
  Bf16KernelFn kernel;
};

// Rows [i0, i0 + rows) of A as bfloat16 (rounded as tfn's cast rounds),
// each 2 * k2 long, the depth past K zero (the kernels read `rows` rows).
void PackATile(const Problem& p, int64_t i0, int rows, uint16_t* packed) {
  const int64_t width = 2 * p.k2;
  for (int r = 0; r < rows; ++r) {
    const float* src = p.A + (i0 + r) * p.lda;
    uint16_t* dst = packed + r * width;
    if (!opt::CastHalfRange(DType::kFloat32, DType::kBFloat16, src, dst, 0, p.K, false)) {
      for (int64_t k = 0; k < p.K; ++k) dst[k] = FloatToBFloat16Bits(src[k]);
    }
    if (p.K < width) dst[p.K] = 0;
  }
}

// Part `part` of the split; its slot holds an A tile.
void RunPart(const Problem& pr, const PanelSplit& split, int64_t part, unsigned char* slot) {
  auto* a_tile = reinterpret_cast<uint16_t*>(slot);
  const int64_t nc = split.nc;
  alignas(64) float tile[kBMr * kBNr];
  for (int64_t item = split.ItemBegin(part); item < split.ItemEnd(part); ++item) {
    const int64_t j0 = split.Block(item) * nc, cols_in_block = std::min(nc, pr.N - j0);
    for (int64_t t = split.TileBegin(item); t < split.TileEnd(item); ++t) {
      const int64_t i0 = t * kBMr;
      const int rows = static_cast<int>(std::min<int64_t>(kBMr, pr.M - i0));
      PackATile(pr, i0, rows, a_tile);
      for (int64_t jp = 0; jp < cols_in_block; jp += kBNr) {
        const int64_t j = j0 + jp, cols = std::min<int64_t>(kBNr, cols_in_block - jp);
        pr.kernel(pr.k2, a_tile, 2 * pr.k2, pr.B + (j / kBNr) * PanelElems(pr.k2), tile, rows,
                  cols <= kBNr / 2);
        float* c = pr.C + i0 * pr.ldc + j;
        for (int r = 0; r < rows; ++r) {
          std::memcpy(c + r * pr.ldc, tile + r * kBNr, static_cast<size_t>(cols) * 4);
        }
        if (pr.ep && !pr.ep->empty()) ApplyEpilogue(*pr.ep, c, pr.ldc, i0, j, rows, cols);
      }
    }
  }
}

}  // namespace

int64_t Bf16PackedBElems(int64_t K, int64_t N) {
  return (N + kBNr - 1) / kBNr * PanelElems(Pairs(K));
}

void Bf16PackB(int64_t K, int64_t N, const uint16_t* B, int64_t rs, int64_t cs, uint16_t* packed) {
  std::memset(packed, 0, static_cast<size_t>(Bf16PackedBElems(K, N)) * 2);
  for (int64_t k = 0; k < K; ++k) {
    for (int64_t j = 0; j < N; ++j) packed[Bf16PackedOffset(Pairs(K), k, j)] = B[k * rs + j * cs];
  }
}

int64_t Bf16GemmScratchBytes(int64_t M, int64_t N, int64_t K, int threads) {
  if (M <= 0 || N <= 0) return 0;
  return PanelScratchBytes(threads, kBf16GemmMaxThreads,
                           [&](int64_t t) { return MakePlan(M, N, std::max<int64_t>(K, 1), t); });
}

int32_t Bf16Gemm(int64_t M, int64_t N, int64_t K, const float* A, int64_t lda,
                 const uint16_t* packed_b, float* C, int64_t ldc, const GemmEpilogue* ep,
                 void* scratch, int64_t scratch_bytes, const TfnKernelContext* ctx) {
  if (M <= 0 || N <= 0) return TFN_KERNEL_OK;
  const Problem p{M, N, K, Pairs(K), A, lda, packed_b, C, ldc, ep, ActiveKernel()};
  return RunPanelParts(
      ctx, PanelGemmThreads(ctx, M * N * K, kBf16GemmMaxThreads), scratch, scratch_bytes,
      [&](int64_t t) { return MakePlan(M, N, K, t); },
      [&](const PanelSplit& split, int64_t part, unsigned char* slot) {
        RunPart(p, split, part, slot);
      });
}

const char* Bf16GemmKernelName() {
  const Bf16KernelFn k = ActiveKernel();
#if defined(__x86_64__)
  if (k == Bf16KernelAvx512Bf16) return "avx512bf16";
  if (k == Bf16KernelAvx512F) return "avx512";
#endif
  (void)k;
  return "portable";
}

bool Bf16GemmAllowVdpbf16psForTesting(bool allow) { return g_vdpbf16ps_allowed.exchange(allow); }

}  // namespace tfn::kernels
