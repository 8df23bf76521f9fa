// Tests of the reshape-above-transpose shape algebra (transpose_reshape.h):
// hand-worked cases, and a brute-force check that the rewritten form moves
// every element where the original does, over random shapes, perms and
// regroupings.
#include "ir/passes/transpose_reshape.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>

namespace tfn::ir {
namespace {

using Dims = std::vector<int64_t>;

// transpose(x, perm) of a row-major array of shape `shape` holding ids.
std::vector<int64_t> Transpose(const std::vector<int64_t>& x, const Dims& shape, const Dims& perm,
                               Dims* out_shape) {
  const size_t n = shape.size();
  Dims strides(n, 1);
  for (size_t d = n; d-- > 1;) strides[d - 1] = strides[d] * shape[d];
  out_shape->clear();
  for (int64_t p : perm) out_shape->push_back(shape[static_cast<size_t>(p)]);
  std::vector<int64_t> y(x.size());
  Dims idx(n, 0);
  for (size_t i = 0; i < y.size(); ++i) {
    int64_t off = 0;
    for (size_t k = 0; k < n; ++k) off += idx[k] * strides[static_cast<size_t>(perm[k])];
    y[i] = x[static_cast<size_t>(off)];
    for (size_t k = n; k-- > 0;) {
      if (++idx[k] < (*out_shape)[k]) break;
      idx[k] = 0;
    }
  }
  return y;
}

TEST(MoveReshapeAboveTranspose, ChannelSplitOfAnNchwViewNeedsNoTranspose) {
  // NHWC [1,3,3,8] seen as NCHW, channels split in 2 x 4.
  auto m = MoveReshapeAboveTranspose({1, 3, 3, 8}, {0, 3, 1, 2}, {1, 2, 4, 3, 3});
  ASSERT_TRUE(m.has_value());
  EXPECT_TRUE(m->q.empty());
  EXPECT_EQ(m->a2, Dims({1, 3, 3, 2, 4}));
  EXPECT_EQ(m->p2, Dims({0, 3, 4, 1, 2}));
}

TEST(MoveReshapeAboveTranspose, ChannelShuffleKeepsTheTransposeThatMovesData) {
  // [1,3,3,2,4] seen as [1,4,2,3,3], merged to 8 channels: 4 x 2 is the
  // shuffle, a transpose of the last two axes of a.
  auto m = MoveReshapeAboveTranspose({1, 3, 3, 2, 4}, {0, 4, 3, 1, 2}, {1, 8, 3, 3});
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->q, Dims({0, 1, 2, 4, 3}));
  EXPECT_EQ(m->a2, Dims({1, 3, 3, 8}));
  EXPECT_EQ(m->p2, Dims({0, 3, 1, 2}));
}

TEST(MoveReshapeAboveTranspose, RejectsInterleavedRuns) {
  // Attention's head merge: [B,h,S,d] seen as [B,S,h,d], h and d merged.
  EXPECT_FALSE(MoveReshapeAboveTranspose({2, 4, 5, 3}, {0, 2, 1, 3}, {2, 5, 12}).has_value());
}

TEST(MoveReshapeAboveTranspose, RejectsWhatHasNoGrouping) {
  EXPECT_FALSE(MoveReshapeAboveTranspose({2, 3}, {1, 0}, {7}).has_value());  // sizes differ
  EXPECT_FALSE(MoveReshapeAboveTranspose({2, 3}, {0, 0}, {6}).has_value());  // not a perm
  EXPECT_FALSE(MoveReshapeAboveTranspose({2, 3}, {1, 0}, {6, 0}).has_value());
}

TEST(MoveReshapeAboveTranspose, MovesEveryElementAsTheOriginal) {
  std::mt19937 rng(5);
  const int64_t sizes[] = {1, 1, 2, 3, 4, 6};
  int checked = 0;
  for (int iter = 0; iter < 3000; ++iter) {
    const size_t n = 1 + rng() % 5;
    Dims a(n), p(n);
    for (int64_t& d : a) d = sizes[rng() % 6];
    std::iota(p.begin(), p.end(), 0);
    std::shuffle(p.begin(), p.end(), rng);
    Dims view;
    for (int64_t e : p) view.push_back(a[static_cast<size_t>(e)]);
    // R: the view's dims regrouped (random merges, splits of 4 and 6, units).
    Dims r;
    for (size_t k = 0; k < view.size(); ++k) {
      int64_t d = view[k];
      if (k + 1 < view.size() && rng() % 3 == 0) d *= view[++k];
      if (d % 2 == 0 && d > 2 && rng() % 2) {
        r.push_back(2), r.push_back(d / 2);
      } else {
        r.push_back(d);
      }
      if (rng() % 5 == 0) r.push_back(1);
    }
    const auto m = MoveReshapeAboveTranspose(a, p, r);
    if (!m) continue;  // runs interleaved in a (RejectsInterleavedRuns)
    const int64_t total = std::accumulate(a.begin(), a.end(), int64_t{1}, std::multiplies<>());
    std::vector<int64_t> x(static_cast<size_t>(total));
    std::iota(x.begin(), x.end(), 0);
    Dims s;
    const std::vector<int64_t> want = Transpose(x, a, p, &s);  // reshape: same order
    std::vector<int64_t> y = x;
    if (!m->q.empty()) {
      Dims qs;
      y = Transpose(x, a, m->q, &qs);
    }
    ASSERT_EQ(std::accumulate(m->a2.begin(), m->a2.end(), int64_t{1}, std::multiplies<>()), total);
    if (!m->p2.empty()) {
      Dims out;
      y = Transpose(y, m->a2, m->p2, &out);
      ASSERT_EQ(out, r);
    } else {
      ASSERT_EQ(m->a2, r);
    }
    ASSERT_EQ(y, want);
    ++checked;
  }
  EXPECT_GT(checked, 1500);
}

}  // namespace
}  // namespace tfn::ir
