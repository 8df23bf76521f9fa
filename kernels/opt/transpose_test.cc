// Tests of the optimized transpose (opt/transpose.cc) against the reference
// kernel: every dtype, ranks 0-6, random permutations and shapes with size-1
// and size-0 dims and odd sizes around the 16x16 tile, the layout changes of
// the comparison models (NCHW <-> NHWC, attention heads), 1 and 2 threads.
// Tolerance: none (bit-identical: transposing moves values).
#include <algorithm>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "kernels/opt/opt_test_util.h"

namespace tfn::kernels::testing {
namespace {

void Check(const Shape& shape, const std::vector<int64_t>& perm, DType dtype, uint32_t seed) {
  SCOPED_TRACE(ShapeToString(shape) + " perm " + ::testing::PrintToString(perm) + " " +
               DTypeName(dtype));
  const HostTensor x = HostTensor::Random(dtype, shape, seed, -100, 100);
  const Attrs attrs = {{"perm", AttrValue::Ints(perm)}};
  const HostTensor want = RunRef(OpId::kTranspose, {x}, attrs);
  // Every instruction set the CPU has (the AVX-512 interleave of short rows).
  for (opt::Isa isa : {opt::Isa::kAvx512, opt::Isa::kAvx2, opt::Isa::kPortable}) {
    const opt::Isa old_cap = opt::SetIsaCapForTesting(isa);
    for (int threads : {1, 2}) {
      const HostTensor got = RunOpt(OpId::kTranspose, {x}, attrs, threads);
      EXPECT_TRUE(BitEqual(got, want)) << threads << " threads, isa " << static_cast<int>(isa);
    }
    opt::SetIsaCapForTesting(old_cap);
  }
}

TEST(TransposeOpt, ModelLayouts) {
  Check(Shape({1, 32, 56, 56}), {0, 2, 3, 1}, DType::kFloat32, 1);
  Check(Shape({1, 56, 56, 32}), {0, 3, 1, 2}, DType::kFloat32, 2);
  Check(Shape({1, 3, 224, 224}), {0, 2, 3, 1}, DType::kFloat32, 3);
  // Inner output dims of 2..4 (unrolled strips; for 4-byte elements the
  // AVX-512 interleave) with a partial last strip; ShuffleNet's channel
  // shuffle in NHWC (groups of 2); batch 2 of 4 channels.
  Check(Shape({2, 3, 5, 7}), {0, 2, 3, 1}, DType::kFloat32, 11);
  Check(Shape({1, 7, 7, 2, 58}), {0, 1, 2, 4, 3}, DType::kFloat32, 14);
  Check(Shape({2, 4, 6, 11}), {0, 2, 3, 1}, DType::kFloat32, 15);
  Check(Shape({1, 3, 10, 10}), {0, 2, 3, 1}, DType::kInt32, 16);
  Check(Shape({3, 2, 37}), {0, 2, 1}, DType::kFloat32, 17);
  Check(Shape({1, 4, 9, 9}), {0, 2, 3, 1}, DType::kBool, 12);
  Check(Shape({2, 40}), {1, 0}, DType::kFloat64, 13);
  // Short contiguous rows moved as a run (a filter gradient's [N, H, W, 6]
  // -> [H, W, N, 6]), big enough to be split over the threads.
  Check(Shape({64, 24, 24, 6}), {1, 2, 0, 3}, DType::kFloat32, 18);
  Check(Shape({3, 5, 7, 31}), {2, 0, 1, 3}, DType::kInt64, 19);
  Check(Shape({1, 128, 4, 64}), {0, 2, 1, 3}, DType::kFloat32, 4);
  Check(Shape({1, 128, 4, 64}), {0, 2, 3, 1}, DType::kFloat32, 5);
  Check(Shape({2, 17, 33}), {0, 2, 1}, DType::kFloat64, 6);
  Check(Shape({31, 1, 15}), {2, 1, 0}, DType::kBool, 7);
  Check(Shape({5, 0, 3}), {2, 0, 1}, DType::kInt64, 8);
  Check(Shape({}), {}, DType::kInt32, 9);
  Check(Shape({7}), {0}, DType::kFloat32, 10);
}

TEST(TransposeOpt, RandomPermutations) {
  std::mt19937 rng(42);
  const DType dtypes[] = {DType::kFloat32, DType::kFloat64, DType::kInt32, DType::kInt64,
                          DType::kBool};
  const int64_t sizes[] = {1, 1, 2, 3, 5, 15, 16, 17, 33};
  for (int i = 0; i < 300; ++i) {
    const int rank = 1 + static_cast<int>(rng() % 6);
    std::vector<int64_t> dims(rank), perm(rank);
    int64_t total = 1;
    for (int d = 0; d < rank; ++d) {
      dims[d] = sizes[rng() % (sizeof(sizes) / sizeof(sizes[0]))];
      total *= dims[d];
    }
    if (total > 200000) continue;
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), rng);
    Check(Shape(dims), perm, dtypes[rng() % 5], 100 + i);
  }
}

TEST(TransposeOpt, Selected) {
  EXPECT_EQ(
      OptimizedSymbol(OpId::kTranspose, {{"perm", AttrValue::Ints({1, 0})}}, {DType::kInt32}, {2}),
      "tfn_opt_transpose");
}

}  // namespace
}  // namespace tfn::kernels::testing
