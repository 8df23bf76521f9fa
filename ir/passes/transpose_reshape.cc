// Implementation of the reshape-above-transpose shape algebra
// (transpose_reshape.h).
#include "ir/passes/transpose_reshape.h"

#include <algorithm>

namespace tfn::ir {

std::optional<ReshapeAboveTranspose> MoveReshapeAboveTranspose(const std::vector<int64_t>& a,
                                                               const std::vector<int64_t>& p,
                                                               const std::vector<int64_t>& r) {
  const size_t n = a.size();
  if (p.size() != n) return std::nullopt;
  std::vector<uint8_t> seen(n, 0);
  for (int64_t e : p) {
    if (e < 0 || e >= static_cast<int64_t>(n) || seen[static_cast<size_t>(e)]) return std::nullopt;
    seen[static_cast<size_t>(e)] = 1;
  }
  // The view's dims other than 1, and the axis of `a` each comes from.
  std::vector<int64_t> vdim, vaxis;
  for (int64_t e : p) {
    const int64_t d = a[static_cast<size_t>(e)];
    if (d <= 0) return std::nullopt;
    if (d != 1) vdim.push_back(d), vaxis.push_back(e);
  }
  std::vector<size_t> rnon;  // indices of R's dims other than 1
  for (size_t j = 0; j < r.size(); ++j) {
    if (r[j] <= 0) return std::nullopt;
    if (r[j] != 1) rnon.push_back(j);
  }
  // Runs: view dims [v0, v1) hold the data of R dims rnon[r0, r1).
  struct Run {
    size_t v0, v1, r0, r1;
    int64_t first_axis;  // the smallest axis of `a` in the run
  };
  std::vector<Run> runs;
  for (size_t i = 0, j = 0; i < vdim.size() || j < rnon.size();) {
    if (i == vdim.size() || j == rnon.size()) return std::nullopt;  // sizes differ
    const size_t i0 = i, j0 = j;
    int64_t pv = vdim[i++], pr = r[rnon[j++]];
    while (pv != pr) {
      if (pv < pr) {
        if (i == vdim.size()) return std::nullopt;
        pv *= vdim[i++];
      } else {
        if (j == rnon.size()) return std::nullopt;
        pr *= r[rnon[j++]];
      }
    }
    const int64_t first = *std::min_element(vaxis.begin() + i0, vaxis.begin() + i);
    runs.push_back({i0, i, j0, j, first});
  }
  // In a's order, each run's axes in the view's order.
  std::sort(runs.begin(), runs.end(),
            [](const Run& x, const Run& y) { return x.first_axis < y.first_axis; });
  std::vector<int64_t> order;
  for (const Run& run : runs)
    order.insert(order.end(), vaxis.begin() + run.v0, vaxis.begin() + run.v1);
  // Each run's axes must be a contiguous range of a's axes (units aside):
  // then transposing `a` only reorders axes inside runs, which the reshape
  // merges anyway. Runs interleaved in `a` would need a transpose moving
  // whole runs past each other besides the one sinking (attention's head
  // merge, [B,h,S,d] seen as [B,S,h,d] -> [B,S,h*d]): not worth it.
  std::vector<int64_t> rank_of(n, -1);  // position among a's axes other than 1
  for (size_t e = 0, k = 0; e < n; ++e) {
    if (a[e] != 1) rank_of[e] = static_cast<int64_t>(k++);
  }
  for (size_t k = 0, at = 0; k < runs.size(); ++k) {
    const size_t len = runs[k].v1 - runs[k].v0;
    for (size_t m = runs[k].v0; m < runs[k].v1; ++m) {
      const int64_t rk = rank_of[static_cast<size_t>(vaxis[m])];
      if (rk < static_cast<int64_t>(at) || rk >= static_cast<int64_t>(at + len))
        return std::nullopt;
    }
    at += len;
  }
  ReshapeAboveTranspose out;
  if (!std::is_sorted(order.begin(), order.end())) {
    for (size_t e = 0; e < n; ++e) {
      if (a[e] == 1) out.q.push_back(static_cast<int64_t>(e));  // unit axes first: no data
    }
    out.q.insert(out.q.end(), order.begin(), order.end());
  }
  // A2: the runs' R dims in a's order, each followed by the unit dims after
  // it in R (leading unit dims of R first).
  std::vector<int64_t> pos(r.size(), -1);
  auto emit = [&](size_t j) {
    pos[j] = static_cast<int64_t>(out.a2.size());
    out.a2.push_back(r[j]);
  };
  for (size_t j = 0; j < r.size() && r[j] == 1; ++j) emit(j);
  for (const Run& run : runs) {
    for (size_t k = run.r0; k < run.r1; ++k) {
      emit(rnon[k]);
      for (size_t j = rnon[k] + 1; j < r.size() && r[j] == 1; ++j) emit(j);
    }
  }
  bool identity = true;
  for (size_t j = 0; j < r.size(); ++j) identity &= pos[j] == static_cast<int64_t>(j);
  if (!identity) out.p2 = pos;
  return out;
}

}  // namespace tfn::ir
