// core/memory_plan.h: hand-computed plans, and for random buffers with
// concrete and symbolic sizes a brute-force check of the one property a plan
// must have (buffers alive at the same time never overlap, all lie inside
// the total), with symbolic plans evaluated at several dims.
#include "core/memory_plan.h"

#include <gtest/gtest.h>

#include <map>
#include <random>

namespace tfn {
namespace {

using Concrete = BufferLifetime<int64_t>;

TEST(MemoryPlan, BuffersThatAreNotAliveTogetherShareMemory) {
  // 0 and 2 never live at once; 1 lives with both.
  std::vector<Concrete> b = {{0, 1, 256}, {1, 2, 128}, {2, 3, 256}};
  BufferPlacement<int64_t> p = PlaceBuffers(b);
  EXPECT_EQ(p.offset[0], 0);
  EXPECT_EQ(p.offset[2], 0);
  EXPECT_EQ(p.offset[1], 256);
  EXPECT_EQ(p.total, 384);
}

TEST(MemoryPlan, LargestFirstFillsTheGapsBelow) {
  // Greedy by size: the 1024-byte buffer goes first at 0; the two small ones
  // alive with it stack above it, and the last one (alive only with the
  // second small one) reuses offset 0 after the large one has died.
  std::vector<Concrete> b = {{0, 2, 64}, {1, 3, 1024}, {2, 4, 64}, {4, 5, 512}};
  BufferPlacement<int64_t> p = PlaceBuffers(b);
  EXPECT_EQ(p.offset[1], 0);
  EXPECT_EQ(p.offset[3], 0);
  EXPECT_EQ(p.offset[0], 1024);
  EXPECT_EQ(p.offset[2], 1088);  // alive with 0 at step 2 and with 3 at step 4
  EXPECT_EQ(p.total, 1152);
}

TEST(MemoryPlan, ABufferIsNeverWrittenOverItsInputAtTheSameStep) {
  // The second buffer is written at the step that last reads the first.
  BufferPlacement<int64_t> p = PlaceBuffers(std::vector<Concrete>{{0, 1, 64}, {1, 2, 64}});
  EXPECT_NE(p.offset[0], p.offset[1]);
  EXPECT_EQ(p.total, 128);
}

TEST(MemoryPlan, SymbolicSizesShareOnlyWhatIsKnownToFit) {
  SymDim n = SymDim::Symbol("n");
  SymDim m = SymDim::Symbol("m");
  // 0 (n*256) dies before 2 (n*128) is made: 2 fits in 0's place for every n.
  // 1 (m*64) is alive with both; whether it is larger is unknown.
  std::vector<BufferLifetime<SymDim>> b = {{0, 1, n * 256}, {1, 2, m * 64}, {2, 3, n * 128}};
  BufferPlacement<SymDim> p = PlaceBuffers(b);
  EXPECT_EQ(p.offset[2], p.offset[0]);
  EXPECT_EQ(p.offset[0], SymDim(0));
  EXPECT_EQ(p.offset[1], n * 256);
  EXPECT_EQ(p.total, n * 256 + m * 64);
}

// Evaluates a size for bindings of n and m.
int64_t At(const SymDim& d, int64_t n, int64_t m) {
  int64_t v = 0;
  EXPECT_TRUE(Evaluate(
      d,
      [&](const std::string& name, int64_t* out) {
        *out = name == "n" ? n : m;
        return true;
      },
      &v));
  return v;
}

// Checks a plan evaluated at concrete sizes.
void CheckNoOverlap(const std::vector<BufferLifetime<int64_t>>& b,
                    const std::vector<int64_t>& offset, int64_t total, const std::string& what) {
  for (size_t i = 0; i < b.size(); ++i) {
    ASSERT_GE(offset[i], 0) << what;
    ASSERT_LE(offset[i] + b[i].bytes, total) << what << ": buffer " << i << " past the total";
    for (size_t j = i + 1; j < b.size(); ++j) {
      bool alive_together = b[i].first <= b[j].last && b[j].first <= b[i].last;
      bool apart = offset[i] + b[i].bytes <= offset[j] || offset[j] + b[j].bytes <= offset[i];
      ASSERT_TRUE(!alive_together || apart) << what << ": buffers " << i << " and " << j;
    }
  }
}

TEST(MemoryPlan, RandomPlansNeverOverlapBuffersAliveTogether) {
  std::mt19937 rng(7);
  SymDim n = SymDim::Symbol("n");
  SymDim m = SymDim::Symbol("m");
  for (int trial = 0; trial < 200; ++trial) {
    int count = 1 + static_cast<int>(rng() % 24);
    std::vector<BufferLifetime<SymDim>> sym;
    std::vector<Concrete> concrete;
    for (int i = 0; i < count; ++i) {
      int32_t first = static_cast<int32_t>(rng() % 16);
      int32_t last = first + static_cast<int32_t>(rng() % 6);
      int64_t c = 64 * (1 + static_cast<int64_t>(rng() % 8));
      SymDim bytes = rng() % 3 == 0 ? SymDim(c) : (rng() % 2 ? n * c : m * c + SymDim(64));
      sym.push_back({first, last, bytes});
      concrete.push_back({first, last, c * (1 + static_cast<int64_t>(rng() % 4))});
    }
    BufferPlacement<int64_t> cp = PlaceBuffers(concrete);
    CheckNoOverlap(concrete, cp.offset, cp.total, "concrete trial " + std::to_string(trial));
    BufferPlacement<SymDim> sp = PlaceBuffers(sym);
    for (auto [nv, mv] :
         std::vector<std::pair<int64_t, int64_t>>{{0, 0}, {1, 1}, {1, 9}, {7, 2}, {64, 3}}) {
      std::vector<Concrete> at;
      std::vector<int64_t> offset;
      for (size_t i = 0; i < sym.size(); ++i) {
        at.push_back({sym[i].first, sym[i].last, At(sym[i].bytes, nv, mv)});
        offset.push_back(At(sp.offset[i], nv, mv));
      }
      CheckNoOverlap(at, offset, At(sp.total, nv, mv),
                     "symbolic trial " + std::to_string(trial) + " at n=" + std::to_string(nv) +
                         " m=" + std::to_string(mv));
    }
  }
}

}  // namespace
}  // namespace tfn
