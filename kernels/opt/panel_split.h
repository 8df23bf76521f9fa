// How a GEMM over B panels (qgemm.h, bf16_gemm.h) splits its work between
// threads: C is cut into column blocks of `nc` columns (a multiple of the
// panel width, each block's panels within a cache budget), and when there
// are fewer blocks than threads each block into `row_groups` ranges of row
// tiles. An item is one (block, row group); part p of `parts` takes a
// contiguous run of items. Every element of C is computed the same way
// whatever the split, so results do not depend on the thread count.
// Header-only, no state: usable in AOT bitcode.
#pragma once

#include <algorithm>
#include <cstdint>

#include "kernels/kernel_abi.h"
#include "kernels/ref/tensor_util.h"

namespace tfn::kernels {

// The B panels of one column block stay within this many bytes of L2.
inline constexpr int64_t kPanelBlockBudget = 512 * 1024;
// Below this many multiply-adds a second thread costs more than it saves.
inline constexpr int64_t kPanelParallelMinMacs = 1 << 18;

struct PanelSplit {
  int64_t nc = 0, col_blocks = 0, row_groups = 0, items = 0, parts = 0;
  int64_t row_tiles = 0;  // of `mr` rows

  // Items [ItemBegin(p), ItemEnd(p)) are part p's.
  int64_t ItemBegin(int64_t p) const { return std::min(items, p * PerPart()); }
  int64_t ItemEnd(int64_t p) const { return std::min(items, (p + 1) * PerPart()); }
  int64_t Block(int64_t item) const { return item / row_groups; }
  // Row tiles [TileBegin(item), TileEnd(item)) of the item's row group.
  int64_t TileBegin(int64_t item) const { return item % row_groups * TilesPerGroup(); }
  int64_t TileEnd(int64_t item) const {
    return std::min(row_tiles, (item % row_groups + 1) * TilesPerGroup());
  }

 private:
  int64_t PerPart() const { return (items + parts - 1) / parts; }
  int64_t TilesPerGroup() const { return (row_tiles + row_groups - 1) / row_groups; }
};

// The split of an M x N GEMM with `mr`-row tiles and `nr`-column panels for
// `threads` threads, blocks of at most nc_max columns (a multiple of nr).
// With many rows and few columns (a conv's pixels x channels), the threads
// take ranges of rows and share every column, instead of each reading (and
// packing) all of A for a slice of the columns.
inline PanelSplit SplitPanels(int64_t M, int64_t N, int64_t threads, int64_t mr, int64_t nr,
                              int64_t nc_max) {
  PanelSplit s;
  s.row_tiles = (M + mr - 1) / mr;
  const int64_t per_thread = (N + threads - 1) / threads;
  const int64_t all_columns = (N + nr - 1) / nr * nr;
  if (threads > 1 && s.row_tiles >= 4 * threads && all_columns <= nc_max && N <= 256) {
    s.nc = all_columns;
  } else {
    s.nc = std::min(nc_max, (per_thread + nr - 1) / nr * nr);
  }
  s.col_blocks = (N + s.nc - 1) / s.nc;
  s.row_groups = 1;
  if (s.col_blocks < threads) {
    s.row_groups = std::min(s.row_tiles, (threads + s.col_blocks - 1) / s.col_blocks);
  }
  s.items = s.col_blocks * s.row_groups;
  s.parts = std::min(threads, s.items);
  return s;
}

// The threads a GEMM of `macs` multiply-adds uses: ctx's (when it can run
// work in parallel), at most max_threads, and 1 below kPanelParallelMinMacs.
inline int64_t PanelGemmThreads(const TfnKernelContext* ctx, int64_t macs, int max_threads) {
  int64_t t = ctx && ctx->parallel_for ? std::max(1, ctx->num_threads) : 1;
  t = std::min<int64_t>(t, max_threads);
  return macs < kPanelParallelMinMacs ? 1 : t;
}

// Bytes rounded up to a cache line (scratch slots start on one).
inline int64_t Align64(int64_t n) { return (n + 63) / 64 * 64; }

// A split and the scratch each of its parts works in (its slot).
struct PanelPlan {
  PanelSplit split;
  int64_t slot_bytes = 0;
  int64_t Bytes() const { return 64 + split.parts * slot_bytes; }  // 64: room to align
};

// The scratch for up to `threads` threads (at most max_threads): the most
// that make_plan(t) takes for any thread count t, since a GEMM runs on fewer
// threads when the scratch is short.
template <class MakePlan>
int64_t PanelScratchBytes(int threads, int max_threads, const MakePlan& make_plan) {
  int64_t most = 0;
  for (int t = 1; t <= std::clamp(threads, 1, max_threads); ++t) {
    most = std::max(most, make_plan(t).Bytes());
  }
  return most;
}

// Runs run_part(split, part, slot) for each part of make_plan(threads), in
// parallel through ctx, each part in its own 64-byte-aligned slot of
// `scratch`; with fewer threads' plan while that one does not fit.
// TFN_KERNEL_SCRATCH_TOO_SMALL when one thread's plan does not fit either.
template <class MakePlan, class RunPart>
int32_t RunPanelParts(const TfnKernelContext* ctx, int64_t threads, void* scratch,
                      int64_t scratch_bytes, const MakePlan& make_plan, const RunPart& run_part) {
  PanelPlan plan = make_plan(threads);
  while (threads > 1 && plan.Bytes() > scratch_bytes) plan = make_plan(--threads);
  if (scratch == nullptr || plan.Bytes() > scratch_bytes) return TFN_KERNEL_SCRATCH_TOO_SMALL;
  const auto base = reinterpret_cast<uintptr_t>(scratch);
  unsigned char* slots = static_cast<unsigned char*>(scratch) + (64 - base % 64) % 64;
  auto work = [&](int64_t begin, int64_t end) {
    for (int64_t part = begin; part < end; ++part) {
      run_part(plan.split, part, slots + part * plan.slot_bytes);
    }
  };
  ParallelFor(ctx, plan.split.parts, 1, work);
  return TFN_KERNEL_OK;
}

}  // namespace tfn::kernels
