// Tests of the cumsum reference kernel against hand-computed values: every
// combination of exclusive and reverse, inner and outer axes, negative axes,
// int32/int64 axis inputs, integer wrapping, empty tensors and the errors.
#include <limits>

#include "kernels/testing/kernel_test_util.h"

namespace tfn::kernels::testing {
namespace {

using HT = HostTensor;

Attrs Flags(bool exclusive, bool reverse) {
  return {{"exclusive", AttrValue::Int(exclusive)}, {"reverse", AttrValue::Int(reverse)}};
}

template <class T>
std::vector<T> CumSum(const HT& x, int64_t axis, Attrs attrs = {}) {
  auto out = RunOp(OpId::kCumSum, {x, HT::Of<int64_t>({}, {axis})}, std::move(attrs));
  if (out.empty()) return {};
  EXPECT_EQ(out[0].shape, x.shape);
  return out[0].values<T>();
}

TEST(RefCumSum, OneDimensionAllModes) {
  HT x = HT::Of<double>({5}, {1, 2, 3, 4, 5});
  EXPECT_EQ(CumSum<double>(x, 0), (std::vector<double>{1, 3, 6, 10, 15}));
  EXPECT_EQ(CumSum<double>(x, 0, Flags(true, false)), (std::vector<double>{0, 1, 3, 6, 10}));
  EXPECT_EQ(CumSum<double>(x, 0, Flags(false, true)), (std::vector<double>{15, 14, 12, 9, 5}));
  EXPECT_EQ(CumSum<double>(x, 0, Flags(true, true)), (std::vector<double>{14, 12, 9, 5, 0}));
  EXPECT_EQ(CumSum<double>(x, -1), (std::vector<double>{1, 3, 6, 10, 15}));
}

TEST(RefCumSum, InnerAndOuterAxes) {
  // [[1, 2, 3], [4, 5, 6]]
  HT x = HT::Of<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_EQ(CumSum<float>(x, 0), (std::vector<float>{1, 2, 3, 5, 7, 9}));
  EXPECT_EQ(CumSum<float>(x, 1), (std::vector<float>{1, 3, 6, 4, 9, 15}));
  EXPECT_EQ(CumSum<float>(x, -2, Flags(false, true)), (std::vector<float>{5, 7, 9, 4, 5, 6}));
  EXPECT_EQ(CumSum<float>(x, 1, Flags(true, true)), (std::vector<float>{5, 3, 0, 11, 6, 0}));
  // A middle axis of a 3-D tensor: x[i][j][k] = 1, so the sums count j.
  HT ones = HT::Of<float>({2, 3, 2}, std::vector<float>(12, 1));
  EXPECT_EQ(CumSum<float>(ones, 1), (std::vector<float>{1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3}));
}

TEST(RefCumSum, IntegersAndAxisDTypes) {
  HT x = HT::Of<int32_t>({4}, {5, -2, 7, 1});
  auto out = RunOp(OpId::kCumSum, {x, HT::Of<int32_t>({}, {0})}, {});
  EXPECT_EQ(out[0].values<int32_t>(), (std::vector<int32_t>{5, 3, 10, 11}));
  // A one-element vector is accepted as the axis too.
  out = RunOp(OpId::kCumSum, {x, HT::Of<int64_t>({1}, {0})}, Flags(true, false));
  EXPECT_EQ(out[0].values<int32_t>(), (std::vector<int32_t>{0, 5, 3, 10}));
  const int64_t kMax = std::numeric_limits<int64_t>::max();
  HT big = HT::Of<int64_t>({2}, {kMax, 1});
  EXPECT_EQ(CumSum<int64_t>(big, 0), (std::vector<int64_t>{kMax, std::numeric_limits<int64_t>::min()}));
}

TEST(RefCumSum, EmptyTensors) {
  auto out = RunOp(OpId::kCumSum, {HT::Of<float>({0, 3}, {}), HT::Of<int64_t>({}, {0})}, {});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].shape, (Shape{0, 3}));
  out = RunOp(OpId::kCumSum, {HT::Of<float>({2, 0}, {}), HT::Of<int64_t>({}, {1})}, {});
  EXPECT_EQ(out[0].shape, (Shape{2, 0}));
}

TEST(RefCumSum, Errors) {
  std::string error;
  HT x = HT::Of<float>({2, 3}, std::vector<float>(6, 1));
  RunOp(OpId::kCumSum, {x, HT::Of<int64_t>({}, {2})}, {}, Variant::kReference, &error);
  EXPECT_NE(error.find("cumsum: axis 2 is out of range for f32[2,3]"), std::string::npos) << error;
  RunOp(OpId::kCumSum, {x, HT::Of<int64_t>({2}, {0, 1})}, {}, Variant::kReference, &error);
  EXPECT_NE(error.find("axis must be a scalar"), std::string::npos) << error;
  RunOp(OpId::kCumSum, {x, HT::Of<float>({}, {0})}, {}, Variant::kReference, &error);
  EXPECT_NE(error.find("must be int32 or int64"), std::string::npos) << error;
  RunOp(OpId::kCumSum, {HT::Of<bool>({2}, {true, false}), HT::Of<int64_t>({}, {0})}, {},
        Variant::kReference, &error);
  EXPECT_NE(error.find("must be"), std::string::npos) << error;
}

}  // namespace
}  // namespace tfn::kernels::testing
