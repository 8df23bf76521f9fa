// Tests of the optimized concat and split (opt/concat.cc) against the
// reference kernels: random ranks 1-4, every axis, 1-4 parts or 65-134 (some
// empty along the axis), 1-, 4- and 8-byte dtypes and bool, tensors small and
// large enough to split over 2 threads (64 KiB chunks), 1 and 2 threads.
// Tolerance: none (both move values).
#include <random>
#include <string>
#include <vector>

#include "kernels/opt/opt_test_util.h"

namespace tfn::kernels::testing {
namespace {

const DType kTypes[] = {DType::kFloat32, DType::kInt8, DType::kInt64, DType::kBool};

// Parts of `whole` along `axis` with these sizes, as split's outputs.
Shape PartShape(Shape whole, int axis, int64_t size) {
  whole[axis] = size;
  return whole;
}

TEST(ConcatOpt, RandomCasesMatchTheReference) {
  std::mt19937 rng(31);
  for (int i = 0; i < 120; ++i) {
    const int rank = 1 + static_cast<int>(rng() % 4);
    const bool large = i % 4 == 0;  // over 64 KiB: chunks for both threads
    Shape shape;
    for (int d = 0; d < rank; ++d)
      shape.push_back(1 + static_cast<int64_t>(rng() % (large ? 40 : 6)));
    const int axis = static_cast<int>(rng() % rank);
    // Every tenth case many parts (an unrolled recurrence's steps).
    const int parts =
        i % 10 == 5 ? 65 + static_cast<int>(rng() % 70) : 1 + static_cast<int>(rng() % 4);
    const DType dtype = kTypes[rng() % 4];
    std::vector<int64_t> sizes;
    std::vector<HostTensor> inputs;
    for (int k = 0; k < parts; ++k) {
      const int64_t size = rng() % 5 == 0 ? 0 : 1 + static_cast<int64_t>(rng() % 7);
      sizes.push_back(size);
      inputs.push_back(HostTensor::Random(dtype, PartShape(shape, axis, size), 100 + i * 8 + k));
    }
    SCOPED_TRACE("case " + std::to_string(i) + " " + DTypeName(dtype) + " " + ShapeToString(shape) +
                 " axis " + std::to_string(axis));
    const Attrs concat_attrs = {{"axis", AttrValue::Int(axis)}};
    const HostTensor want = RunRef(OpId::kConcat, inputs, concat_attrs);
    ASSERT_EQ(want.shape.rank(), rank);  // the reference ran
    const Attrs split_attrs = {{"axis", AttrValue::Int(axis)}, {"sizes", AttrValue::Ints(sizes)}};
    const std::vector<HostTensor> want_parts =
        RunOp(OpId::kSplit, {want}, split_attrs, Variant::kReference);
    ASSERT_EQ(want_parts.size(), inputs.size());
    for (int threads : {1, 2}) {
      EXPECT_TRUE(BitEqual(RunOpt(OpId::kConcat, inputs, concat_attrs, threads), want))
          << threads << " threads";
      const std::vector<HostTensor> got =
          RunOp(OpId::kSplit, {want}, split_attrs, Variant::kOptimized, nullptr, threads);
      ASSERT_EQ(got.size(), inputs.size());
      for (size_t k = 0; k < got.size(); ++k) {
        EXPECT_TRUE(BitEqual(got[k], want_parts[k]))
            << "part " << k << ", " << threads << " threads";
        EXPECT_TRUE(BitEqual(got[k], inputs[k])) << "part " << k << " is not the input";
      }
    }
  }
}

TEST(ConcatOpt, Selected) {
  EXPECT_EQ(OptimizedSymbol(OpId::kConcat, {{"axis", AttrValue::Int(1)}},
                            {DType::kFloat32, DType::kFloat32}, {4, 4}),
            "tfn_opt_concat");
  EXPECT_EQ(OptimizedSymbol(OpId::kSplit,
                            {{"axis", AttrValue::Int(0)}, {"num_splits", AttrValue::Int(1)}},
                            {DType::kInt8}, {2}),
            "tfn_opt_split");
}

}  // namespace
}  // namespace tfn::kernels::testing
