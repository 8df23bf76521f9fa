// The GEMM driver (gemm.h): scratch layout, the cache-blocked loops around
// the packing routines and microkernels, and the split over threads.
//
// Loop order (per thread, over its block of C):
//   for jc over N in steps of nc        B block kc x nc: packed, stays in L2
//     for pc over K in steps of kc
//       pack B[pc:+kc, jc:+nc] into 32-column panels
//       for ir over M in steps of mr    A micro-panel mr x kc: packed, or read in place
//         pack A[ir:+mr, pc:+kc] (and prefetch the next one into L2), unless
//         the kernels read a row-major A in place
//         for each panel, for each nr-column strip: microkernel
// A row-major B is packed by the microkernels of the first micro-panel as
// they read it (IsaKernels::kernel_pack, where the ISA has them), so packing
// B costs no separate pass over it.
// Packed panels of a block are 64 bytes further apart than their size: with
// kc*128 bytes (a multiple of 4 KiB) every panel's row k would map to the same
// L1 set, and packing (which writes row k of all panels together) would thrash.
// Few rows (M <= IsaKernels::skinny_max_m) take the skinny path instead: no
// packing (except for a transposed B), B streamed once (see SkinnyFn). Its
// results do not depend on how K is blocked, so packed, prepacked and
// in-place B give identical results.
#include "kernels/opt/gemm.h"

#include <algorithm>

#include "kernels/opt/gemm_internal.h"
#include "kernels/ref/tensor_util.h"

namespace tfn::kernels {
namespace {

using gemm_internal::ABytes;
using gemm_internal::IsaKernels;
using gemm_internal::IsaTable;
using gemm_internal::kPanel;
using gemm_internal::kPanelPad;
using gemm_internal::SlotBytes;
// An A of at most this many bytes is read from L2 anyway (the MLP's 64 x
// 784 is 196 KiB): no prefetching of the next micro-panel.
constexpr int64_t kAInL2Bytes = int64_t{256} << 10;
// Below this many multiply-adds a GEMM stays on one thread.
constexpr int64_t kParallelMinMacs = int64_t{1} << 18;

// Prefetches the next A micro-panel into L2 a few lines at a time while the
// microkernels work on the current one (its rows are far apart, too many
// streams for the hardware prefetchers).
class APrefetcher {
 public:
  // Rows [i0, i0+m) x columns [k0, k0+kc) of op(A), a(i,k) = A[i*rs + k*cs].
  APrefetcher(const float* A, int64_t rs, int64_t cs, int64_t i0, int64_t m, int64_t k0, int64_t kc,
              int64_t steps) {
    const bool rows_contiguous = cs == 1;
    base_ = A + i0 * rs + k0 * cs;
    outer_stride_ = rows_contiguous ? rs : cs;
    inner_lines_ = ((rows_contiguous ? kc : m) + 15) / 16;
    total_ = (rows_contiguous ? m : kc) * inner_lines_;
    per_step_ = (total_ + steps - 1) / std::max<int64_t>(1, steps);
  }
  void Step() {
    for (int64_t end = std::min(total_, next_ + per_step_); next_ < end; ++next_) {
      const int64_t outer = next_ / inner_lines_, line = next_ % inner_lines_;
      __builtin_prefetch(base_ + outer * outer_stride_ + line * 16, 0, 2);  // into L2
    }
  }

 private:
  const float* base_;
  int64_t outer_stride_, inner_lines_, total_, per_step_, next_ = 0;
};

struct Problem {
  int64_t M, N, K;
  const float* A;
  int64_t a_rs, a_cs;  // a(i,k) = A[i*a_rs + k*a_cs]
  const float* B;
  int64_t b_rs, b_cs;     // b(k,j) = B[k*b_rs + j*b_cs]
  const float* packed_b;  // GemmPackB layout, or null
  float* C;
  int64_t ldc;
  bool accumulate;
  bool skinny;             // take IsaKernels::skinny
  const GemmEpilogue* ep;  // applied to each tile after its last K block, or null
};

// The epilogue of C[i0:+rows, j0:+cols] (a tile just finished).
inline void Finish(const Problem& p, int64_t i0, int64_t j0, int64_t rows, int64_t cols) {
  if (p.ep) ApplyEpilogue(*p.ep, p.C + i0 * p.ldc + j0, p.ldc, i0, j0, rows, cols);
}

// Computes C[m0:m1, n0:n1]; n0 is a multiple of 32, m0 of isa.mr. `a_buf` and
// `b_buf` are this thread's 64-byte aligned slot.
void RunBlock(const IsaKernels& isa, const Problem& p, int64_t m0, int64_t m1, int64_t n0,
              int64_t n1, float* a_buf, float* b_buf) {
  if (p.skinny && (p.packed_b || p.b_cs == 1)) {  // B rows readable in place
    const float* b = p.packed_b ? p.packed_b + n0 * p.K : p.B + n0;
    isa.skinny(m1 - m0, n1 - n0, p.K, p.A + m0 * p.a_rs, p.a_rs, p.a_cs, b,
               p.packed_b ? kPanel : p.b_rs, p.packed_b ? p.K * kPanel : kPanel,
               p.C + m0 * p.ldc + n0, p.ldc, p.accumulate);
    Finish(p, m0, n0, m1 - m0, n1 - n0);
    return;
  }
  for (int64_t jc = n0; jc < n1; jc += isa.nc) {
    const int64_t nc = std::min(isa.nc, n1 - jc);
    const int64_t panels = (nc + kPanel - 1) / kPanel;
    // K in blocks of at most isa.kc, balanced (1100 = 3 x ~367, not 512 +
    // 512 + 76: a thin last block costs a pass over C for little work).
    const int64_t k_blocks = (p.K + isa.kc - 1) / isa.kc;
    const int64_t kc_step = (p.K + k_blocks - 1) / k_blocks;
    for (int64_t pc = 0; pc < p.K; pc += kc_step) {
      const int64_t kc = std::min(kc_step, p.K - pc);
      // Panel q of this block starts at base + q*panel_stride, rows 32 floats apart.
      const float* base = b_buf;
      int64_t panel_stride = kc * kPanel + kPanelPad;
      // Row-major B is packed by the first micro-panel's kernels as they read
      // it (all but a ragged last panel); otherwise it is packed here.
      // (Only a full first micro-panel does: the packing kernel has mr rows.)
      const bool fused =
          !p.packed_b && !p.skinny && p.b_cs == 1 && isa.kernel_pack && m1 - m0 >= isa.mr;
      const float* b_src = p.B + pc * p.b_rs + jc * p.b_cs;
      const int64_t packed_here = fused ? nc / kPanel * kPanel : 0;  // columns packed by kernels
      if (p.packed_b) {
        base = p.packed_b + (jc / kPanel) * p.K * kPanel + pc * kPanel;
        panel_stride = p.K * kPanel;
      } else if (packed_here < nc) {
        (isa.pack_b ? isa.pack_b : gemm_internal::PackBGeneric)(
            kc, nc - packed_here, b_src + packed_here * p.b_cs, p.b_rs, p.b_cs,
            b_buf + packed_here / kPanel * panel_stride, panel_stride);
      }
      const bool a_in_l2 = p.M * p.K * 4 <= kAInL2Bytes;
      // Kernels that read A by rows take a row-major A in place (packing it
      // is a visible share of small GEMMs), except when its rows are a
      // multiple of 4 KiB apart: all 14 would then map to the same L1 sets.
      // Those and a transposed A are packed by rows (bench/RESULTS.md,
      // "Figures behind kernel choices").
      const bool a_in_place = isa.a_rows && p.a_cs == 1 && p.a_rs % 1024 != 0;
      const bool acc = p.accumulate || pc > 0;
      const bool last = pc + kc >= p.K;  // the tiles are final after this block
      if (p.skinny) {                    // a transposed B, packed above
        isa.skinny(m1 - m0, nc, kc, p.A + m0 * p.a_rs + pc * p.a_cs, p.a_rs, p.a_cs, base, kPanel,
                   panel_stride, p.C + m0 * p.ldc + jc, p.ldc, acc);
        if (last) Finish(p, m0, jc, m1 - m0, nc);
        continue;
      }
      for (int64_t ir = m0; ir < m1; ir += isa.mr) {
        const int m = static_cast<int>(std::min<int64_t>(isa.mr, m1 - ir));
        const float* a_tile = p.A + ir * p.a_rs + pc * p.a_cs;
        int64_t lda = p.a_rs;
        if (!a_in_place) {
          (isa.pack_a ? isa.pack_a : gemm_internal::PackAGeneric)(m, kc, a_tile, p.a_rs, p.a_cs,
                                                                  a_buf);
          a_tile = a_buf;
          lda = isa.a_rows ? gemm_internal::ARowStride(kc) : m;
        }
        float* c_row = p.C + ir * p.ldc + jc;
        // (Nothing to prefetch when all of A is small enough to stay in L2.)
        APrefetcher next_a(p.A, p.a_rs, p.a_cs, ir + m,
                           a_in_l2 ? 0 : std::min<int64_t>(isa.mr, m1 - ir - m), pc, kc,
                           panels * (kPanel / isa.nr));
        for (int64_t q = 0; q < panels; ++q) {
          const int64_t cols = std::min(kPanel, nc - q * kPanel);
          for (int64_t j0 = 0; j0 < cols; j0 += isa.nr) {
            next_a.Step();
            const int64_t n_valid = std::min<int64_t>(isa.nr, cols - j0);
            const float* b_tile = base + q * panel_stride + j0;
            float* c_tile = c_row + q * kPanel + j0;
            const int64_t col = jc + q * kPanel + j0;
            // The last K block of a tile with a bias/residual/relu/clip
            // epilogue applies it in registers, if the ISA can.
            gemm_internal::TileEpilogue te;
            const bool in_registers = last && p.ep && !p.ep->needs_row_pass() && isa.tile_epilogue;
            if (in_registers) {
              te = {p.ep->bias ? p.ep->bias + col : nullptr,
                    p.ep->residual ? p.ep->residual + ir * p.ep->ldr + col : nullptr,
                    p.ep->ldr,
                    p.ep->act,
                    p.ep->lo,
                    p.ep->hi};
            }
            const gemm_internal::TileEpilogue* tep = in_registers ? &te : nullptr;
            if (ir == m0 && q * kPanel < packed_here) {  // compute and pack (m == mr, nr == 32)
              isa.kernel_pack(kc, a_tile, lda, b_src + q * kPanel, p.b_rs, c_tile, p.ldc, kPanel,
                              acc, b_buf + q * panel_stride, tep);
            } else {
              isa.kernel[m](kc, a_tile, lda, b_tile, kPanel, c_tile, p.ldc, n_valid, acc, nullptr,
                            tep);
            }
            if (last && !in_registers) Finish(p, ir, col, m, n_valid);
          }
        }
      }
    }
  }
}

struct Split {
  const IsaKernels* isa;
  const Problem* p;
  bool by_rows;
  int64_t unit;      // rows or columns per unit (mr or 32)
  int64_t per_part;  // units per part
  int64_t parts;
  unsigned char* slots;
  int64_t slot_bytes;
  int64_t a_bytes;

  void operator()(int64_t begin, int64_t end) const {
    // The chunk's first index names its scratch slot: chunks run
    // concurrently, the parts of one chunk one after the other.
    unsigned char* slot = slots + begin * slot_bytes;
    float* a_buf = reinterpret_cast<float*>(slot);
    float* b_buf = reinterpret_cast<float*>(slot + a_bytes);
    for (int64_t t = begin; t < end; ++t) {
      int64_t lo = t * per_part * unit, hi = (t + 1) * per_part * unit;
      if (by_rows) {
        RunBlock(*isa, *p, lo, std::min(hi, p->M), 0, p->N, a_buf, b_buf);
      } else {
        RunBlock(*isa, *p, 0, p->M, lo, std::min(hi, p->N), a_buf, b_buf);
      }
    }
  }
};

int32_t Run(const IsaKernels& isa, const Problem& p, void* scratch, int64_t scratch_bytes,
            const TfnKernelContext* ctx) {
  if (p.M == 0 || p.N == 0) return TFN_KERNEL_OK;
  if (p.K == 0) {
    if (!p.accumulate) {
      for (int64_t i = 0; i < p.M; ++i) std::fill(p.C + i * p.ldc, p.C + i * p.ldc + p.N, 0.0f);
    }
    Finish(p, 0, 0, p.M, p.N);
    return TFN_KERNEL_OK;
  }
  const bool with_b = p.packed_b == nullptr && !(p.skinny && p.b_cs == 1);
  int64_t threads = ctx && ctx->parallel_for ? std::max(1, ctx->num_threads) : 1;
  threads = std::min(threads, int64_t{kGemmMaxThreads});
  if (p.M * p.N * p.K < kParallelMinMacs) threads = 1;
  // As many threads as the scratch memory has slots for.
  while (threads > 1 && 64 + threads * SlotBytes(p.M, p.N, p.K, threads, with_b) > scratch_bytes) {
    --threads;
  }
  const int64_t slot_bytes = SlotBytes(p.M, p.N, p.K, threads, with_b);
  if (scratch == nullptr || 64 + slot_bytes > scratch_bytes) return TFN_KERNEL_SCRATCH_TOO_SMALL;

  const int64_t col_units = (p.N + kPanel - 1) / kPanel, row_units = (p.M + isa.mr - 1) / isa.mr;
  Split s{};
  s.isa = &isa;
  s.p = &p;
  s.by_rows = gemm_internal::SplitsRows(p.M, p.N, threads, isa);
  s.unit = s.by_rows ? isa.mr : kPanel;
  const int64_t units = s.by_rows ? row_units : col_units;
  s.per_part = (units + threads - 1) / threads;
  s.parts = (units + s.per_part - 1) / s.per_part;
  uintptr_t base = reinterpret_cast<uintptr_t>(scratch);
  s.slots = static_cast<unsigned char*>(scratch) + ((64 - base % 64) % 64);
  s.slot_bytes = slot_bytes;
  s.a_bytes = ABytes(p.K);
  ParallelFor(ctx, s.parts, 1, s);
  return TFN_KERNEL_OK;
}

}  // namespace

int32_t Gemm(int64_t M, int64_t N, int64_t K, const float* A, int64_t lda, bool trans_a,
             const float* B, int64_t ldb, bool trans_b, float* C, int64_t ldc, bool accumulate,
             void* scratch, int64_t scratch_bytes, const TfnKernelContext* ctx,
             const GemmEpilogue* ep) {
  Problem p{M,
            N,
            K,
            A,
            trans_a ? 1 : lda,
            trans_a ? lda : 1,
            B,
            trans_b ? 1 : ldb,
            trans_b ? ldb : 1,
            nullptr,
            C,
            ldc,
            accumulate,
            false,
            ep && !ep->empty() ? ep : nullptr};
  const IsaKernels& isa = *IsaTable(GemmActiveIsa());
  p.skinny = isa.skinny != nullptr && M <= isa.skinny_max_m;
  return Run(isa, p, scratch, scratch_bytes, ctx);
}

void GemmPackB(int64_t K, int64_t N, const float* B, int64_t ldb, bool trans_b, float* packed) {
  const IsaKernels& isa = *IsaTable(GemmActiveIsa());
  const int64_t rs = trans_b ? 1 : ldb, cs = trans_b ? ldb : 1;
  if (K == 0) return;  // nothing to pack; B and packed may be null
  // Panel by panel: the panels are K*128 bytes apart, often a multiple of
  // 4 KiB, so writing row k of all panels together would thrash L1 sets.
  for (int64_t j = 0; j < N; j += kPanel) {
    (isa.pack_b ? isa.pack_b : gemm_internal::PackBGeneric)(K, std::min(kPanel, N - j), B + j * cs,
                                                            rs, cs, packed + j * K, K * kPanel);
  }
}

int32_t GemmPrepacked(int64_t M, int64_t N, int64_t K, const float* A, int64_t lda, bool trans_a,
                      const float* packed_b, float* C, int64_t ldc, bool accumulate, void* scratch,
                      int64_t scratch_bytes, const TfnKernelContext* ctx, const GemmEpilogue* ep) {
  Problem p{M,
            N,
            K,
            A,
            trans_a ? 1 : lda,
            trans_a ? lda : 1,
            nullptr,
            0,
            0,
            packed_b,
            C,
            ldc,
            accumulate,
            false,
            ep && !ep->empty() ? ep : nullptr};
  const IsaKernels& isa = *IsaTable(GemmActiveIsa());
  p.skinny = isa.skinny != nullptr && M <= isa.skinny_max_m;  // the same rule as Gemm's
  return Run(isa, p, scratch, scratch_bytes, ctx);
}

}  // namespace tfn::kernels
