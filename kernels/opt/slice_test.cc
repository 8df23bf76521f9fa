// Tests of the optimized slice (opt/slice.cc, strided_copy.cc): random
// slices of ranks 1-5 with negative, open and out-of-range bounds and
// strides of either sign, every dtype, against values picked by Python's
// slice rules written out here (an independent oracle: the kernels share
// ResolveSliceView), and against the reference kernel; the channel splits of
// a ShuffleNet block; bounds given as inputs; 1 and 2 threads. Tolerance:
// none (slicing moves values).
#include <random>
#include <string>
#include <vector>

#include "kernels/opt/opt_test_util.h"

namespace tfn::kernels::testing {
namespace {

// A bound past either end (+kOpen: the end side, -kOpen: the start side), as
// the importers write absent bounds.
constexpr int64_t kOpen = int64_t{1} << 62;

// The indices Python's x[begin:end:stride] takes from a dim of size n
// (Python clamps huge bounds the same way).
std::vector<int64_t> PythonIndices(int64_t n, int64_t begin, int64_t end, int64_t stride) {
  auto norm = [&](int64_t v, int64_t lo, int64_t hi) {
    if (v < 0) v += n;
    return v < lo ? lo : v > hi ? hi : v;
  };
  std::vector<int64_t> out;
  if (stride > 0) {
    for (int64_t i = norm(begin, 0, n), e = norm(end, 0, n); i < e; i += stride) out.push_back(i);
  } else {
    for (int64_t i = norm(begin, -1, n - 1), e = norm(end, -1, n - 1); i > e; i += stride) {
      out.push_back(i);
    }
  }
  return out;
}

// x's elements at the picked indices, in row-major order of the result.
HostTensor Expected(const HostTensor& x, const std::vector<std::vector<int64_t>>& picks) {
  const int rank = x.shape.rank();
  std::vector<int64_t> dims;
  int64_t count = 1;
  for (const auto& p : picks) {
    dims.push_back(static_cast<int64_t>(p.size()));
    count *= static_cast<int64_t>(p.size());
  }
  HostTensor y;
  y.dtype = x.dtype;
  y.shape = Shape(dims);
  const size_t bytes = static_cast<size_t>(DTypeSize(x.dtype));
  y.bytes.resize(static_cast<size_t>(count) * bytes);
  for (int64_t i = 0; i < count; ++i) {
    int64_t rest = i, src = 0, stride = 1;
    for (int d = rank - 1; d >= 0; --d) {
      const int64_t k = rest % dims[d];
      rest /= dims[d];
      src += picks[d][k] * stride;
      stride *= x.shape[d];
    }
    std::memcpy(y.bytes.data() + i * bytes, x.bytes.data() + src * bytes, bytes);
  }
  return y;
}

void Check(const HostTensor& x, const std::vector<int64_t>& begin, const std::vector<int64_t>& end,
           const std::vector<int64_t>& strides) {
  SCOPED_TRACE(ShapeToString(x.shape) + " begin " + ::testing::PrintToString(begin) + " end " +
               ::testing::PrintToString(end) + " strides " + ::testing::PrintToString(strides) +
               " " + DTypeName(x.dtype));
  std::vector<std::vector<int64_t>> picks;
  for (int d = 0; d < x.shape.rank(); ++d) {
    picks.push_back(PythonIndices(x.shape[d], begin[d], end[d], strides[d]));
  }
  const HostTensor want = Expected(x, picks);
  const Attrs attrs = {{"begin", AttrValue::Ints(begin)},
                       {"end", AttrValue::Ints(end)},
                       {"strides", AttrValue::Ints(strides)}};
  ASSERT_TRUE(BitEqual(RunRef(OpId::kSlice, {x}, attrs), want)) << "reference";
  for (int threads : {1, 2}) {
    ASSERT_TRUE(BitEqual(RunOpt(OpId::kSlice, {x}, attrs, threads), want)) << threads << " threads";
  }
}

TEST(SliceOpt, ShuffleNetChannelSplits) {
  // NHWC halves along channels (one memcpy per pixel), and large enough to split over threads.
  const HostTensor a = HostTensor::Random(DType::kFloat32, Shape({1, 28, 28, 116}), 1);
  Check(a, {0, 0, 0, 0}, {kOpen, kOpen, kOpen, 58}, {1, 1, 1, 1});
  Check(a, {0, 0, 0, 58}, {kOpen, kOpen, kOpen, kOpen}, {1, 1, 1, 1});
  const HostTensor b = HostTensor::Random(DType::kFloat32, Shape({1, 56, 56, 232}), 2);
  Check(b, {0, 0, 0, 116}, {kOpen, kOpen, kOpen, 232}, {1, 1, 1, 1});
  // NCHW halves (whole planes), an every-other-channel pick, a reversal.
  const HostTensor c = HostTensor::Random(DType::kFloat32, Shape({1, 24, 14, 14}), 3);
  Check(c, {0, 12, 0, 0}, {kOpen, kOpen, kOpen, kOpen}, {1, 1, 1, 1});
  Check(c, {0, 1, 0, 0}, {kOpen, kOpen, kOpen, kOpen}, {1, 2, 1, 1});
  Check(c, {0, kOpen, 0, kOpen}, {kOpen, -kOpen, kOpen, -kOpen}, {1, -1, 1, -1});
  // A lone strided dim, and an empty result.
  Check(HostTensor::Random(DType::kInt64, Shape({100000}), 4), {5}, {-3}, {7});
  Check(HostTensor::Random(DType::kInt32, Shape({4, 6}), 5), {0, 4}, {kOpen, 2}, {1, 1});
}

TEST(SliceOpt, RandomSlices) {
  std::mt19937 rng(7);
  const DType dtypes[] = {DType::kFloat32, DType::kFloat64, DType::kInt32, DType::kInt64,
                          DType::kBool};
  const int64_t sizes[] = {1, 2, 3, 5, 16, 17, 40};
  for (int i = 0; i < 300; ++i) {
    const int rank = 1 + static_cast<int>(rng() % 5);
    std::vector<int64_t> dims(rank), begin(rank), end(rank), strides(rank);
    int64_t total = 1;
    for (int d = 0; d < rank; ++d) {
      dims[d] = sizes[rng() % (sizeof(sizes) / sizeof(sizes[0]))];
      total *= dims[d];
      auto bound = [&]() -> int64_t {
        switch (rng() % 6) {
          case 0:
            return kOpen;
          case 5:
            return -kOpen;
          case 1:
            return -static_cast<int64_t>(rng() % (dims[d] + 3));
          default:
            return static_cast<int64_t>(rng() % (dims[d] + 3));
        }
      };
      begin[d] = bound();
      end[d] = bound();
      const int64_t s = 1 + static_cast<int64_t>(rng() % 3);
      strides[d] = rng() % 4 == 0 ? -s : s;
    }
    if (total > 200000) continue;
    Check(HostTensor::Random(dtypes[rng() % 5], Shape(dims), 100 + i, -100, 100), begin, end,
          strides);
  }
}

TEST(SliceOpt, BoundsGivenAsInputs) {
  const HostTensor x = HostTensor::Random(DType::kFloat32, Shape({3, 10, 8}), 9);
  const HostTensor begin = HostTensor::Of<int64_t>(Shape({3}), {1, -7, 0});
  const HostTensor end = HostTensor::Of<int32_t>(Shape({3}), {3, 10, 8});
  const HostTensor strides = HostTensor::Of<int64_t>(Shape({3}), {1, 2, -3});
  for (bool with_strides : {false, true}) {
    std::vector<HostTensor> in = {x, begin, end};
    if (with_strides) in.push_back(strides);
    const Attrs attrs = {{"begin", AttrValue::Ints({})}, {"end", AttrValue::Ints({})}};
    const HostTensor want = RunRef(OpId::kSlice, in, attrs);
    const std::vector<int64_t> s =
        with_strides ? std::vector<int64_t>{1, 2, -3} : std::vector<int64_t>{1, 1, 1};
    std::vector<std::vector<int64_t>> picks = {PythonIndices(3, 1, 3, s[0]),
                                               PythonIndices(10, -7, 10, s[1]),
                                               PythonIndices(8, 0, 8, s[2])};
    ASSERT_TRUE(BitEqual(want, Expected(x, picks))) << "reference, strides " << with_strides;
    for (int threads : {1, 2}) {
      ASSERT_TRUE(BitEqual(RunOpt(OpId::kSlice, in, attrs, threads), want)) << threads;
    }
  }
}

TEST(SliceOpt, Selected) {
  EXPECT_EQ(OptimizedSymbol(OpId::kSlice,
                            {{"begin", AttrValue::Ints({0})}, {"end", AttrValue::Ints({2})}},
                            {DType::kFloat32}, {1}),
            "tfn_opt_slice");
}

}  // namespace
}  // namespace tfn::kernels::testing
