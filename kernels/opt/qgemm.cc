// The QGemm driver (qgemm.h): operand normalization (A to uint8, B to int8,
// so one multiply-add instruction serves every signedness), packing, the
// zero-point terms, the split between threads, and the portable microkernel.
// The microkernel is chosen here (ActiveIsa).
#include <algorithm>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "kernels/opt/panel_split.h"
#include "kernels/opt/qgemm_internal.h"
#include "kernels/opt/simd.h"
#include "kernels/ref/tensor_util.h"

namespace tfn::kernels {
namespace qgemm_internal {

void QKernelPortable(int64_t k4, const uint8_t* a, int64_t lda, const int8_t* b, int32_t* c,
                     int rows) {
  for (int r = 0; r < rows; ++r) {
    uint32_t acc[kQNr] = {};  // unsigned: wraps like the SIMD kernels, no UB
    const uint8_t* ar = a + r * lda;
    for (int64_t g = 0; g < k4; ++g) {
      const int8_t* bg = b + g * kQPanelGroupBytes;
      for (int t = 0; t < 4; ++t) {
        const int32_t av = ar[4 * g + t];
        for (int j = 0; j < kQNr; ++j) acc[j] += static_cast<uint32_t>(av * bg[4 * j + t]);
      }
    }
    std::memcpy(c + r * kQNr, acc, sizeof(acc));
  }
}

void StoreTilePortable(const int32_t* tile, const QTileFix& fix, const QGemmOutput& out, int64_t i0,
                       int64_t j0, int rows, int cols) {
  StoreTile(tile, fix, out, i0, j0, rows, cols);
}

}  // namespace qgemm_internal

namespace {

using namespace qgemm_internal;

int64_t Groups(int64_t K) { return (K + 3) / 4; }

// The split between threads (panel_split.h) and one thread's scratch slot.
PanelPlan MakePlan(int64_t M, int64_t N, int64_t K, int64_t threads) {
  const int64_t k4 = Groups(K);
  const int64_t nc_max = std::max<int64_t>(kQNr, kPanelBlockBudget / (4 * k4) / kQNr * kQNr);
  PanelPlan p{SplitPanels(M, N, threads, kQMr, kQNr, nc_max), 0};
  const int64_t nc = p.split.nc;
  p.slot_bytes = Align64(nc / kQNr * (k4 + 1) * kQPanelGroupBytes)  // B block
                 + Align64(3 * nc * 4)                              // col_fix, col_sum, col_zp
                 + Align64(kQMr * k4 * 4)                           // an A tile, packed
                 + Align64(2 * kQMr * 4);                           // row_zp, row_sum
  return p;
}

struct Isa {
  QKernelFn kernel;
  StoreTileFn store;
};

Isa ActiveIsa() {
#if defined(TFN_AOT_BITCODE)
  // Compiled code knows its instruction set when it is built (aot/ compiles
  // one bitcode per level): constants, so LLVM drops the other kernels.
  // VNNI is no level of its own: the AOT compiler defines
  // tfn_aot_target_has_vnni from the target's features.
#if defined(__AVX512BW__) && defined(__x86_64__)
  if (tfn_aot_target_has_vnni) return {QKernelVnni, StoreTileVnni};
#endif
#if defined(__AVX2__) && defined(__x86_64__)
  return {QKernelAvx2, StoreTileAvx2};
#endif
#elif defined(__x86_64__)
  if (opt::VnniKernelsActive()) return {QKernelVnni, StoreTileVnni};
  if (opt::ActiveIsa() >= opt::Isa::kAvx2) return {QKernelAvx2, StoreTileAvx2};
#endif
  return {QKernelPortable, StoreTilePortable};
}

int32_t ZeroPoint(const QOperand& o, int64_t index) {
  return o.zero_point ? o.zero_point[index * o.zp_stride] : 0;
}

// The problem after normalization: A's bytes are XORed with a_flip (0x80
// turns int8 into uint8 + 128), B's with b_flip (uint8 into int8 - 128).
struct Problem {
  int64_t M, N, K, k4;
  const QOperand* a;
  const QOperand* b;
  const QGemmOutput* out;
  uint8_t a_flip, b_flip;
  int32_t a_zp_shift, b_zp_shift;  // added to the zero points
  bool a_zp_per_row;               // rank-one term with B's column sums
  bool b_zp_nonzero;               // rank-one term with A's row sums
  bool a_in_place;                 // full tiles read from A directly
  bool a_indirect;                 // A through its indirection table by the VNNI kernel
  Isa isa;
};

int32_t AZeroPoint(const Problem& p, int64_t i) { return ZeroPoint(*p.a, i) + p.a_zp_shift; }
int32_t BZeroPoint(const Problem& p, int64_t j) { return ZeroPoint(*p.b, j) + p.b_zp_shift; }

// Writes columns [0, cols) of four rows (their bytes XORed with flip; rows
// from `valid` on as zeros) as groups of 4 bytes per column: column jj's
// group at dst + (jj / kQNr) * panel_bytes + 4 * (jj % kQNr).
void InterleaveRows(const uint8_t* const rows[4], int valid, int64_t cols, uint8_t flip,
                    int8_t* dst, int64_t panel_bytes) {
  int64_t jj = 0;
#if defined(__SSE2__)
  const __m128i x = _mm_set1_epi8(static_cast<char>(flip));
  __m128i keep[4];
  for (int t = 0; t < 4; ++t) keep[t] = _mm_set1_epi8(t < valid ? -1 : 0);
  for (; jj + 16 <= cols; jj += 16) {
    __m128i r[4];
    for (int t = 0; t < 4; ++t) {
      r[t] = _mm_and_si128(
          keep[t],
          _mm_xor_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(rows[t] + jj)), x));
    }
    // A 4 x 16 byte transpose: bytes of rows 0/1 and 2/3 paired, then the
    // pairs of pairs: each 32-bit lane is one column's 4 depth bytes.
    const __m128i r01l = _mm_unpacklo_epi8(r[0], r[1]), r01h = _mm_unpackhi_epi8(r[0], r[1]);
    const __m128i r23l = _mm_unpacklo_epi8(r[2], r[3]), r23h = _mm_unpackhi_epi8(r[2], r[3]);
    const __m128i q[4] = {_mm_unpacklo_epi16(r01l, r23l), _mm_unpackhi_epi16(r01l, r23l),
                          _mm_unpacklo_epi16(r01h, r23h), _mm_unpackhi_epi16(r01h, r23h)};
    // 16 columns never straddle a panel (kQNr is a multiple of 16).
    int8_t* d = dst + (jj / kQNr) * panel_bytes + 4 * (jj % kQNr);
    for (int u = 0; u < 4; ++u) _mm_storeu_si128(reinterpret_cast<__m128i*>(d + 16 * u), q[u]);
  }
#endif
  for (; jj < cols; ++jj) {
    int8_t* d = dst + (jj / kQNr) * panel_bytes + 4 * (jj % kQNr);
    for (int t = 0; t < 4; ++t) d[t] = static_cast<int8_t>(t < valid ? rows[t][jj] ^ flip : 0);
  }
}

// The bytes of one packed panel: its depth groups, then the row of its
// columns' sums (core/packed_layout.h).
int64_t PanelBytes(int64_t k4) { return (k4 + 1) * kQPanelGroupBytes; }

// Packs columns [j0, j0 + nc) of B (all depth) into panels with their sums
// row, in the layout of prepacked weights.
void PackBBlock(const Problem& p, int64_t j0, int64_t nc, int8_t* packed) {
  const QOperand& b = *p.b;
  const auto* data = static_cast<const uint8_t*>(b.data);
  const int64_t cols = std::min(nc, p.N - j0);
  const int64_t panel_bytes = PanelBytes(p.k4);
  std::memset(packed, 0, static_cast<size_t>(nc / kQNr * panel_bytes));
  uint32_t sum[kQNr];  // wrapping sums of one panel's columns
  auto store_sums = [&](int64_t panel) {
    std::memcpy(packed + panel * panel_bytes + p.k4 * kQPanelGroupBytes, sum, sizeof(sum));
  };
  if (b.cs == 1) {
    // Row-major B (weights [K, N]): the column sums panel by panel, then
    // four rows at a time interleaved into the panels.
    for (int64_t panel = 0; panel * kQNr < cols; ++panel) {
      const int64_t n = std::min<int64_t>(kQNr, cols - panel * kQNr);
      std::fill(sum, sum + kQNr, 0u);
      for (int64_t k = 0; k < p.K; ++k) {
        const uint8_t* row = data + k * b.rs + j0 + panel * kQNr;
        for (int64_t j = 0; j < n; ++j) {
          sum[j] += static_cast<uint32_t>(static_cast<int8_t>(row[j] ^ p.b_flip));
        }
      }
      store_sums(panel);
    }
    for (int64_t g = 0; g < p.k4; ++g) {
      const uint8_t* rows[4];
      for (int t = 0; t < 4; ++t) {
        // Depth past K reads row 0 and is masked to zero below.
        rows[t] = data + std::min<int64_t>(4 * g + t, p.K - 1) * b.rs + j0;
      }
      const int valid = static_cast<int>(std::min<int64_t>(4, p.K - 4 * g));
      InterleaveRows(rows, valid, cols, p.b_flip, packed + g * kQPanelGroupBytes, panel_bytes);
    }
  } else {
    // Column-major B (weights [N, K], a transposed GEMM): each column is a run.
    for (int64_t panel = 0; panel * kQNr < cols; ++panel) {
      std::fill(sum, sum + kQNr, 0u);
      for (int64_t j = 0; j < std::min<int64_t>(kQNr, cols - panel * kQNr); ++j) {
        const uint8_t* col = data + (j0 + panel * kQNr + j) * b.cs;
        int8_t* dst = packed + panel * panel_bytes + 4 * j;
        for (int64_t k = 0; k < p.K; ++k) {
          const auto v = static_cast<int8_t>(col[k * b.rs] ^ p.b_flip);
          dst[(k / 4) * kQPanelGroupBytes + k % 4] = v;
          sum[j] += static_cast<uint32_t>(v);
        }
      }
      store_sums(panel);
    }
  }
}

// The per-column terms of columns [j0, j0 + nc) from their panels' sums:
// col_sum = sum_k b' - K * zb', col_zp = zb', col_fix = -za * col_sum
// (per-tensor za).
void ColumnTerms(const Problem& p, int64_t j0, int64_t nc, const int8_t* panels, int32_t* col_fix,
                 int32_t* col_sum, int32_t* col_zp) {
  const int64_t cols = std::min(nc, p.N - j0);
  for (int64_t jj = 0; jj < nc; ++jj) {
    // Past N a block may hold no panel (prepacked B ends with the matrix).
    int32_t sum = 0;
    if (jj < cols) {
      std::memcpy(
          &sum,
          panels + (jj / kQNr) * PanelBytes(p.k4) + p.k4 * kQPanelGroupBytes + 4 * (jj % kQNr), 4);
    }
    const int32_t zb = jj < cols ? BZeroPoint(p, j0 + jj) : 0;
    col_zp[jj] = zb;
    col_sum[jj] = WrapSub(sum, WrapMul(static_cast<int32_t>(p.K), zb));
    col_fix[jj] = p.a_zp_per_row ? 0 : WrapSub(0, WrapMul(AZeroPoint(p, 0), col_sum[jj]));
  }
}

// Rows [i0, i0 + rows) of A into `packed` (kQMr rows of 4 * k4 bytes, zeros
// past the matrix), with their sums (when B has zero points).
void PackATile(const Problem& p, int64_t i0, int rows, uint8_t* packed, int32_t* row_sum) {
  const QOperand& a = *p.a;
  const auto* data = static_cast<const uint8_t*>(a.data);
  const int64_t width = 4 * p.k4;
  std::memset(packed, 0, static_cast<size_t>(kQMr * width));
  for (int r = 0; r < rows; ++r) {
    const uint8_t* src = data + (i0 + r) * a.rs;
    uint8_t* dst = packed + r * width;
    if (a.indirect) {  // the row's taps gathered (other ISAs, or B's zero points need row sums)
      for (int64_t t = 0; t < a.taps; ++t) {
        std::memcpy(dst + t * a.tap_bytes, a.indirect[(i0 + r) * a.taps + t],
                    static_cast<size_t>(a.tap_bytes));
      }
      for (int64_t k = 0; k < p.K && p.a_flip; ++k) dst[k] ^= p.a_flip;
    } else if (a.cs == 1) {
      for (int64_t k = 0; k < p.K; ++k) dst[k] = src[k] ^ p.a_flip;
    } else {
      for (int64_t k = 0; k < p.K; ++k) dst[k] = src[k * a.cs] ^ p.a_flip;
    }
  }
  if (!p.b_zp_nonzero) return;
  for (int r = 0; r < kQMr; ++r) {
    uint32_t sum = 0;
    for (int64_t k = 0; k < p.K; ++k) sum += packed[r * width + k];
    row_sum[r] = static_cast<int32_t>(sum);
  }
}

void RowSums(const Problem& p, const uint8_t* a, int64_t lda, int32_t* row_sum) {
  for (int r = 0; r < kQMr; ++r) {
    uint32_t sum = 0;
    for (int64_t k = 0; k < p.K; ++k) sum += a[r * lda + k];
    row_sum[r] = static_cast<int32_t>(sum);
  }
}

// Part `part` of the split, in its scratch slot (MakePlan's layout).
void RunPart(const Problem& pr, const PanelSplit& split, int64_t part, unsigned char* slot) {
  const int64_t nc = split.nc, k4 = pr.k4;
  auto* b_block = reinterpret_cast<int8_t*>(slot);
  slot += Align64(nc / kQNr * (k4 + 1) * kQPanelGroupBytes);
  auto* col_fix = reinterpret_cast<int32_t*>(slot);
  int32_t* col_sum = col_fix + nc;
  int32_t* col_zp = col_sum + nc;
  slot += Align64(3 * nc * 4);
  auto* a_tile = reinterpret_cast<uint8_t*>(slot);
  slot += Align64(kQMr * k4 * 4);
  auto* row_zp = reinterpret_cast<int32_t*>(slot);
  int32_t* row_sum = row_zp + kQMr;

  int64_t packed_block = -1;
  alignas(64) int32_t tile[kQMr * kQNr];
  for (int64_t item = split.ItemBegin(part); item < split.ItemEnd(part); ++item) {
    const int64_t block = split.Block(item);
    const int64_t j0 = block * nc;
    const int8_t* panels = b_block;
    if (pr.b->packed) {
      panels = pr.b->packed + (j0 / kQNr) * PanelBytes(k4);  // prepacked: read in place
    } else if (block != packed_block) {
      PackBBlock(pr, j0, nc, b_block);
    }
    if (block != packed_block) {
      ColumnTerms(pr, j0, nc, panels, col_fix, col_sum, col_zp);
      packed_block = block;
    }
    const int64_t cols_in_block = std::min(nc, pr.N - j0);
    for (int64_t t = split.TileBegin(item); t < split.TileEnd(item); ++t) {
      const int64_t i0 = t * kQMr;
      const int rows = static_cast<int>(std::min<int64_t>(kQMr, pr.M - i0));
      const uint8_t* a = nullptr;
      int64_t lda = 0;
      if (pr.a_indirect) {
        // read through the table by the kernel
      } else if (pr.a_in_place && rows == kQMr) {
        a = static_cast<const uint8_t*>(pr.a->data) + i0 * pr.a->rs;
        lda = pr.a->rs;
        if (pr.b_zp_nonzero) RowSums(pr, a, lda, row_sum);
      } else {
        PackATile(pr, i0, rows, a_tile, row_sum);
        a = a_tile;
        lda = 4 * k4;
      }
      if (pr.a_zp_per_row) {
        for (int r = 0; r < kQMr; ++r) row_zp[r] = r < rows ? AZeroPoint(pr, i0 + r) : 0;
      }
      for (int64_t jp = 0; jp < cols_in_block; jp += kQNr) {
        const int8_t* panel = panels + (jp / kQNr) * PanelBytes(k4);
        if (pr.a_indirect) {
          QKernelVnniIndirect(pr.a->taps, pr.a->tap_bytes / 4, pr.a->indirect + i0 * pr.a->taps,
                              panel, tile, rows);
        } else {
          pr.isa.kernel(k4, a, lda, panel, tile, rows);
        }
        QTileFix fix{nullptr,
                     col_fix + jp,
                     pr.a_zp_per_row ? row_zp : nullptr,
                     col_sum + jp,
                     pr.b_zp_nonzero ? row_sum : nullptr,
                     pr.b_zp_nonzero ? col_zp + jp : nullptr};
        pr.isa.store(tile, fix, *pr.out, i0, j0 + jp, rows,
                     static_cast<int>(std::min<int64_t>(kQNr, cols_in_block - jp)));
      }
    }
  }
}

}  // namespace

int64_t QGemmScratchBytes(int64_t M, int64_t N, int64_t K, int threads) {
  if (M <= 0 || N <= 0) return 0;
  return PanelScratchBytes(threads, kQGemmMaxThreads,
                           [&](int64_t t) { return MakePlan(M, N, std::max<int64_t>(K, 1), t); });
}

int32_t QGemm(int64_t M, int64_t N, int64_t K, const QOperand& a, const QOperand& b,
              const QGemmOutput& out, void* scratch, int64_t scratch_bytes,
              const TfnKernelContext* ctx) {
  if (M <= 0 || N <= 0) return TFN_KERNEL_OK;
  Problem p{};
  p.M = M;
  p.N = N;
  p.K = K;
  p.k4 = Groups(K);
  p.a = &a;
  p.b = &b;
  p.out = &out;
  p.a_flip = a.is_signed ? 0x80 : 0;
  p.a_zp_shift = a.is_signed ? 128 : 0;
  // Prepacked B is int8 already, its zero points given for those bytes.
  p.b_flip = b.is_signed || b.packed ? 0 : 0x80;
  p.b_zp_shift = b.is_signed || b.packed ? 0 : -128;
  p.a_zp_per_row = a.zero_point && a.zp_stride != 0;
  p.b_zp_nonzero = false;
  for (int64_t j = 0; j < (b.zp_stride ? N : 1); ++j) p.b_zp_nonzero |= BZeroPoint(p, j) != 0;
  p.a_in_place = !a.indirect && !a.is_signed && a.cs == 1 && (K % 4 == 0 || a.zero_padded) && K > 0;
  p.isa = ActiveIsa();
#if defined(__x86_64__) && (!defined(TFN_AOT_BITCODE) || defined(__AVX512BW__))
  // Only the VNNI kernel reads through the table; the others gather the rows.
  p.a_indirect = a.indirect && !a.is_signed && !p.b_zp_nonzero && p.isa.kernel == QKernelVnni;
#endif

  return RunPanelParts(
      ctx, PanelGemmThreads(ctx, M * N * K, kQGemmMaxThreads), scratch, scratch_bytes,
      [&](int64_t t) { return MakePlan(M, N, K, t); },
      [&](const PanelSplit& split, int64_t part, unsigned char* slot) {
        RunPart(p, split, part, slot);
      });
}

const char* QGemmKernelName() {
  const QKernelFn kernel = ActiveIsa().kernel;
  return kernel == QKernelPortable ? "portable" : kernel == QKernelAvx2 ? "avx2" : "avx512vnni";
}

}  // namespace tfn::kernels
