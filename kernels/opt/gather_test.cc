// Tests of the optimized gather (opt/gather.cc) against values picked by
// hand-written loops (x[o, indices[j], i]) and against the reference kernel:
// every dtype, axes 0..rank-1, int32 and int64 indices with negative ones,
// rows of one element and of many, indices of any rank, an empty result,
// out-of-range indices (the same error, nothing written), 1 and 2 threads.
// Tolerance: none (gathering moves values).
#include <random>
#include <string>
#include <vector>

#include "kernels/opt/opt_test_util.h"

namespace tfn::kernels::testing {
namespace {

HostTensor Expected(const HostTensor& x, const std::vector<int64_t>& idx, const Shape& idx_shape,
                    int axis) {
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < axis; ++d) outer *= x.shape[d];
  for (int d = axis + 1; d < x.shape.rank(); ++d) inner *= x.shape[d];
  const int64_t n = x.shape[axis], count = static_cast<int64_t>(idx.size());
  std::vector<int64_t> dims;
  for (int d = 0; d < axis; ++d) dims.push_back(x.shape[d]);
  for (int d = 0; d < idx_shape.rank(); ++d) dims.push_back(idx_shape[d]);
  for (int d = axis + 1; d < x.shape.rank(); ++d) dims.push_back(x.shape[d]);
  HostTensor y;
  y.dtype = x.dtype;
  y.shape = Shape(dims);
  const size_t bytes = static_cast<size_t>(DTypeSize(x.dtype));
  y.bytes.resize(static_cast<size_t>(outer * count * inner) * bytes);
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t j = 0; j < count; ++j) {
      const int64_t k = idx[j] < 0 ? idx[j] + n : idx[j];
      for (int64_t i = 0; i < inner; ++i) {
        std::memcpy(y.bytes.data() + ((o * count + j) * inner + i) * bytes,
                    x.bytes.data() + ((o * n + k) * inner + i) * bytes, bytes);
      }
    }
  }
  return y;
}

void Check(const HostTensor& x, const std::vector<int64_t>& idx, const Shape& idx_shape, int axis,
           bool int32_indices) {
  SCOPED_TRACE(ShapeToString(x.shape) + " axis " + std::to_string(axis) + " indices " +
               ShapeToString(idx_shape) + (int32_indices ? " int32 " : " int64 ") +
               DTypeName(x.dtype));
  HostTensor indices = HostTensor::Of<int64_t>(idx_shape, idx);
  if (int32_indices) {
    indices = HostTensor::Of<int32_t>(idx_shape, std::vector<int32_t>(idx.begin(), idx.end()));
  }
  const Attrs attrs = {{"axis", AttrValue::Int(axis)}};
  const HostTensor want = Expected(x, idx, idx_shape, axis);
  ASSERT_TRUE(BitEqual(RunRef(OpId::kGather, {x, indices}, attrs), want)) << "reference";
  for (int threads : {1, 2}) {
    ASSERT_TRUE(BitEqual(RunOpt(OpId::kGather, {x, indices}, attrs, threads), want))
        << threads << " threads";
  }
}

TEST(GatherOpt, ModelGathers) {
  // An embedding lookup (rows of 256), a token pick along a sequence, a class
  // pick of single elements, a large table over threads.
  const HostTensor table = HostTensor::Random(DType::kFloat32, Shape({1000, 256}), 1);
  Check(table, {5, 999, -1, 0, 5, 42}, Shape({2, 3}), 0, false);
  const HostTensor seq = HostTensor::Random(DType::kFloat32, Shape({2, 49, 96}), 2);
  Check(seq, {0, 48, -49}, Shape({3}), 1, true);
  Check(HostTensor::Random(DType::kInt64, Shape({64, 10}), 3), {9, 0, -10}, Shape({3}), 1, false);
  Check(HostTensor::Random(DType::kFloat32, Shape({4096, 512}), 4), std::vector<int64_t>(300, 7),
        Shape({300}), 0, false);
  Check(HostTensor::Random(DType::kBool, Shape({3, 4}), 5), {}, Shape({0}), 1, false);
  Check(HostTensor::Random(DType::kFloat64, Shape({5}), 6), {2}, Shape({}), 0, true);
}

TEST(GatherOpt, RandomGathers) {
  std::mt19937 rng(11);
  const DType dtypes[] = {DType::kFloat32, DType::kFloat64, DType::kInt32, DType::kInt64,
                          DType::kBool};
  const int64_t sizes[] = {1, 2, 3, 7, 16, 33};
  for (int t = 0; t < 200; ++t) {
    const int rank = 1 + static_cast<int>(rng() % 4);
    std::vector<int64_t> dims(rank);
    for (int d = 0; d < rank; ++d) dims[d] = sizes[rng() % (sizeof(sizes) / sizeof(sizes[0]))];
    const int axis = static_cast<int>(rng() % rank);
    const int64_t count = static_cast<int64_t>(rng() % 6);
    std::vector<int64_t> idx(count);
    for (int64_t& v : idx) {
      v = static_cast<int64_t>(rng() % (2 * dims[axis])) - dims[axis];  // [-n, n)
    }
    Check(HostTensor::Random(dtypes[rng() % 5], Shape(dims), 50 + t, -100, 100), idx,
          Shape({count}), axis, rng() % 2 == 0);
  }
}

TEST(GatherOpt, OutOfRangeIsTheReferencesError) {
  const HostTensor x = HostTensor::Random(DType::kFloat32, Shape({4, 3}), 7);
  for (int64_t bad : {int64_t{4}, int64_t{-5}, int64_t{1} << 40}) {
    const HostTensor indices = HostTensor::Of<int64_t>(Shape({2}), {0, bad});
    const Attrs attrs = {{"axis", AttrValue::Int(0)}};
    std::string ref_error, opt_error;
    EXPECT_TRUE(RunOp(OpId::kGather, {x, indices}, attrs, Variant::kReference, &ref_error).empty());
    EXPECT_TRUE(RunOp(OpId::kGather, {x, indices}, attrs, Variant::kOptimized, &opt_error).empty());
    EXPECT_FALSE(opt_error.empty()) << bad;
    EXPECT_EQ(opt_error, ref_error) << bad;
  }
}

TEST(GatherOpt, Selected) {
  EXPECT_EQ(OptimizedSymbol(OpId::kGather, {{"axis", AttrValue::Int(0)}},
                            {DType::kFloat32, DType::kInt64}, {2, 1}),
            "tfn_opt_gather");
}

}  // namespace
}  // namespace tfn::kernels::testing
