// Where the GEMM (gemm.h) keeps things and which kernels it runs: the scratch
// layout (one slot per thread: a packed A micro-panel and a packed B block),
// the prepacked-B size, and the run-time choice of the instruction set (CPU
// detection with __builtin_cpu_supports, the test/benchmark override, the
// per-ISA kernel tables of gemm_internal.h).
#include <algorithm>
#include <atomic>

#include "kernels/opt/gemm.h"
#include "kernels/opt/gemm_internal.h"

namespace tfn::kernels {
namespace {

using gemm_internal::IsaKernels;
using gemm_internal::IsaTable;
using gemm_internal::kPanel;

std::atomic<int> g_forced_isa{0};  // a GemmIsa value; kAuto: none forced

constexpr GemmIsa kAllIsas[] = {GemmIsa::kPortable, GemmIsa::kAvx2, GemmIsa::kAvx512};

int64_t Align64(int64_t bytes) { return (bytes + 63) & ~int64_t{63}; }

// Whether gemm.cc's Run gives each thread a range of rows (all columns)
// rather than a range of columns: when there are too few column panels for
// kMinPanelsPerThread each and more row tiles than panels.
bool SplitsRowsFor(int64_t M, int64_t N, int64_t threads, int mr) {
  const int64_t col_units = (N + kPanel - 1) / kPanel, row_units = (M + mr - 1) / mr;
  return col_units < gemm_internal::kMinPanelsPerThread * threads && row_units > col_units;
}

// The most columns of C one of `threads` threads gets (Run's split; the
// largest over the ISAs, whose tile heights differ).
int64_t ColumnsPerThread(int64_t M, int64_t N, int64_t threads) {
  const int64_t panels = (N + kPanel - 1) / kPanel;
  if (threads <= 1) return panels * kPanel;
  for (GemmIsa isa : kAllIsas) {
    const IsaKernels* t = IsaTable(isa);
    if (t && SplitsRowsFor(M, N, threads, t->mr)) return panels * kPanel;
  }
  return (panels + threads - 1) / threads * kPanel;
}

// A packed kc x nc block of B: panels of kc rows, kPanelPad floats apart.
int64_t BBytes(int64_t N, int64_t K) {
  int64_t bytes = 0;
  for (GemmIsa isa : kAllIsas) {
    if (const IsaKernels* t = IsaTable(isa)) {
      const int64_t panels = (std::min(N, t->nc) + kPanel - 1) / kPanel;
      const int64_t panel = std::min(K, t->kc) * kPanel + gemm_internal::kPanelPad;
      bytes = std::max(bytes, Align64(panels * panel * 4));
    }
  }
  return bytes;
}

}  // namespace

namespace gemm_internal {

int64_t ABytes(int64_t K) {
  int64_t bytes = 0;
  for (GemmIsa isa : kAllIsas) {
    if (const IsaKernels* t = IsaTable(isa)) {
      const int64_t kc = std::min(K, t->kc);
      bytes =
          std::max(bytes, Align64(t->mr * (t->a_rows ? gemm_internal::ARowStride(kc) : kc) * 4));
    }
  }
  return bytes;
}

int64_t SlotBytes(int64_t M, int64_t N, int64_t K, int64_t threads, bool with_b) {
  return ABytes(K) + (with_b ? BBytes(ColumnsPerThread(M, N, threads), K) : 0);
}

bool SplitsRows(int64_t M, int64_t N, int64_t threads, const IsaKernels& isa) {
  return SplitsRowsFor(M, N, threads, isa.mr);
}

const IsaKernels* IsaTable(GemmIsa isa) {
  switch (isa) {
    case GemmIsa::kAvx512:
      return Avx512Kernels();
    case GemmIsa::kAvx2:
      return Avx2Kernels();
    default:
      return PortableKernels();
  }
}

}  // namespace gemm_internal

// 64 bytes: room to align the slots.
int64_t GemmScratchBytes(int64_t M, int64_t N, int64_t K, int threads) {
  if (M <= 0 || N <= 0 || K <= 0) return 0;
  const int64_t t = std::clamp(threads, 1, kGemmMaxThreads);
  return 64 + t * gemm_internal::SlotBytes(M, N, K, t, true);
}

int64_t GemmPrepackedScratchBytes(int64_t M, int64_t N, int64_t K, int threads) {
  if (M <= 0 || N <= 0 || K <= 0) return 0;
  const int64_t t = std::clamp(threads, 1, kGemmMaxThreads);
  return 64 + t * gemm_internal::SlotBytes(M, N, K, t, false);
}

int64_t GemmPackedBBytes(int64_t K, int64_t N) {
  return (N + kPanel - 1) / kPanel * K * kPanel * 4;
}

bool GemmIsaSupported(GemmIsa isa) {
  if (isa == GemmIsa::kAuto || isa == GemmIsa::kPortable) return true;
  if (IsaTable(isa) == nullptr) return false;
#if defined(TFN_AOT_BITCODE)
    // Compiled code knows its instruction set when it is built (aot/ compiles
    // one bitcode per ISA level), and must not depend on libgcc's CPU probe.
#if defined(__AVX512F__)
  if (isa == GemmIsa::kAvx512) return true;
#endif
#if defined(__AVX2__) && defined(__FMA__)
  if (isa == GemmIsa::kAvx2) return true;
#endif
  return false;
#elif defined(__x86_64__)
  // Checks the CPU and that the OS saves the vector registers (XCR0).
  __builtin_cpu_init();
  if (isa == GemmIsa::kAvx512) return __builtin_cpu_supports("avx512f");
  if (isa == GemmIsa::kAvx2) return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#endif
  return false;
}

void GemmForceIsa(GemmIsa isa) { g_forced_isa.store(static_cast<int>(isa)); }

GemmIsa GemmActiveIsa() {
#if defined(TFN_AOT_BITCODE)
  // A constant in compiled code: each bitcode variant has one best ISA, and
  // GemmForceIsa cannot reach an object's internal copy. So LLVM folds the
  // dispatch and drops the other ISAs' kernels, which would otherwise be
  // optimized and emitted into every object (compile time and size).
#if defined(__AVX512F__)
  return GemmIsa::kAvx512;
#elif defined(__AVX2__) && defined(__FMA__)
  return GemmIsa::kAvx2;
#else
  return GemmIsa::kPortable;
#endif
#else
  static const GemmIsa detected = GemmIsaSupported(GemmIsa::kAvx512) ? GemmIsa::kAvx512
                                  : GemmIsaSupported(GemmIsa::kAvx2) ? GemmIsa::kAvx2
                                                                     : GemmIsa::kPortable;
  const GemmIsa forced = static_cast<GemmIsa>(g_forced_isa.load(std::memory_order_relaxed));
  if (forced != GemmIsa::kAuto && GemmIsaSupported(forced)) return forced;
  return detected;
#endif
}

const char* GemmIsaName(GemmIsa isa) {
  switch (isa) {
    case GemmIsa::kAuto:
      return "auto";
    case GemmIsa::kPortable:
      return "portable";
    case GemmIsa::kAvx2:
      return "avx2";
    case GemmIsa::kAvx512:
      return "avx512";
  }
  return "?";
}

}  // namespace tfn::kernels
