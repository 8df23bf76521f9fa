// Tests of the non_zero and unique reference kernels (outputs sized by their
// shape rules from x's values) against hand-computed values: ONNX's
// documented Unique examples, flattened and per-axis items, both orders,
// NaNs, empty inputs, and the errors.
#include <cmath>
#include <limits>

#include "kernels/testing/kernel_test_util.h"

namespace tfn::kernels::testing {
namespace {

using HT = HostTensor;
using I64 = std::vector<int64_t>;

TEST(RefNonZero, Coordinates) {
  auto out = RunOp(OpId::kNonZero, {HT::Of<bool>({2, 2}, {true, false, true, true})}, {});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].shape, (Shape{2, 3}));
  EXPECT_EQ(out[0].values<int64_t>(), (I64{0, 1, 1, 0, 0, 1}));
  const float nan = std::numeric_limits<float>::quiet_NaN();
  out = RunOp(OpId::kNonZero, {HT::Of<float>({5}, {0, -0.0f, 3, nan, 0})}, {});
  EXPECT_EQ(out[0].shape, (Shape{1, 2}));
  EXPECT_EQ(out[0].values<int64_t>(), (I64{2, 3}));
  out = RunOp(OpId::kNonZero, {HT::Of<int32_t>({}, {7})}, {});  // a scalar: rank 0 coordinates
  EXPECT_EQ(out[0].shape, (Shape{0, 1}));
  out = RunOp(OpId::kNonZero, {HT::Of<int64_t>({2, 0}, {})}, {});
  EXPECT_EQ(out[0].shape, (Shape{2, 0}));
}

struct Unique {
  HT y;
  I64 indices, inverse, counts;
};
Unique RunUnique(const HT& x, Attrs attrs) {
  auto out = RunOp(OpId::kUnique, {x}, std::move(attrs));
  if (out.size() != 4) return {};
  return {out[0], out[1].values<int64_t>(), out[2].values<int64_t>(), out[3].values<int64_t>()};
}

TEST(RefUnique, FlattenedBothOrders) {
  HT x = HT::Of<float>({6}, {2, 1, 1, 3, 4, 3});
  Unique u = RunUnique(x, {{"sorted", AttrValue::Int(0)}});
  EXPECT_EQ(u.y.values<float>(), (std::vector<float>{2, 1, 3, 4}));
  EXPECT_EQ(u.indices, (I64{0, 1, 3, 4}));
  EXPECT_EQ(u.inverse, (I64{0, 1, 1, 2, 3, 2}));
  EXPECT_EQ(u.counts, (I64{1, 2, 2, 1}));
  u = RunUnique(x, {});
  EXPECT_EQ(u.y.values<float>(), (std::vector<float>{1, 2, 3, 4}));
  EXPECT_EQ(u.indices, (I64{1, 0, 3, 4}));
  EXPECT_EQ(u.inverse, (I64{1, 0, 0, 2, 3, 2}));
  EXPECT_EQ(u.counts, (I64{2, 1, 2, 1}));
  // A 2-D input is flattened without an axis.
  u = RunUnique(HT::Of<int32_t>({2, 2}, {5, 5, -1, 5}), {});
  EXPECT_EQ(u.y.shape, (Shape{2}));
  EXPECT_EQ(u.y.values<int32_t>(), (std::vector<int32_t>{-1, 5}));
  EXPECT_EQ(u.indices, (I64{2, 0}));
  EXPECT_EQ(u.inverse, (I64{1, 1, 0, 1}));
  EXPECT_EQ(u.counts, (I64{1, 3}));
}

TEST(RefUnique, Axes) {
  Attrs axis0 = {{"axis", AttrValue::Ints({0})}};
  Unique u = RunUnique(HT::Of<int64_t>({3, 3}, {1, 0, 0, 1, 0, 0, 2, 3, 4}), axis0);
  EXPECT_EQ(u.y.shape, (Shape{2, 3}));
  EXPECT_EQ(u.y.values<int64_t>(), (I64{1, 0, 0, 2, 3, 4}));
  EXPECT_EQ(u.indices, (I64{0, 2}));
  EXPECT_EQ(u.inverse, (I64{0, 0, 1}));
  EXPECT_EQ(u.counts, (I64{2, 1}));
  // ONNX's 3-D example: the items are the slices x[:, j, :].
  HT x3 = HT::Of<float>({2, 4, 2}, {1, 1, 0, 1, 2, 1, 0, 1, 1, 1, 0, 1, 2, 1, 0, 1});
  u = RunUnique(x3, {{"axis", AttrValue::Ints({1})}});
  EXPECT_EQ(u.y.shape, (Shape{2, 3, 2}));
  EXPECT_EQ(u.y.values<float>(), (std::vector<float>{0, 1, 1, 1, 2, 1, 0, 1, 1, 1, 2, 1}));
  EXPECT_EQ(u.indices, (I64{1, 0, 2}));
  EXPECT_EQ(u.inverse, (I64{1, 0, 2, 0}));
  EXPECT_EQ(u.counts, (I64{2, 1, 1}));
  // A negative axis, first-occurrence order.
  u = RunUnique(x3, {{"axis", AttrValue::Ints({-2})}, {"sorted", AttrValue::Int(0)}});
  EXPECT_EQ(u.y.values<float>(), (std::vector<float>{1, 1, 0, 1, 2, 1, 1, 1, 0, 1, 2, 1}));
  EXPECT_EQ(u.indices, (I64{0, 1, 2}));
  EXPECT_EQ(u.inverse, (I64{0, 1, 2, 1}));
  EXPECT_EQ(u.counts, (I64{1, 2, 1}));
}

TEST(RefUnique, NaNsAndEmpty) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Unique u = RunUnique(HT::Of<double>({4}, {nan, 1, nan, 0}), {});
  ASSERT_EQ(u.counts.size(), 3u);  // the NaNs are one item, after the numbers
  EXPECT_EQ(u.y.values<double>()[0], 0);
  EXPECT_EQ(u.y.values<double>()[1], 1);
  EXPECT_TRUE(std::isnan(u.y.values<double>()[2]));
  EXPECT_EQ(u.counts, (I64{1, 1, 2}));
  EXPECT_EQ(u.inverse, (I64{2, 1, 2, 0}));
  u = RunUnique(HT::Of<bool>({0}, {}), {});
  EXPECT_EQ(u.y.shape, (Shape{0}));
  EXPECT_TRUE(u.counts.empty());
  // One-byte items (the kernel copies items as bytes).
  u = RunUnique(HT::Of<bool>({3}, {true, false, true}), {});
  EXPECT_EQ(u.y.values<bool>(), (std::vector<bool>{false, true}));
  EXPECT_EQ(u.inverse, (I64{1, 0, 1}));
  EXPECT_EQ(u.counts, (I64{1, 2}));
}

TEST(RefUnique, Errors) {
  std::string error;
  RunOp(OpId::kUnique, {HT::Of<float>({2}, {1, 2})}, {{"axis", AttrValue::Ints({1})}},
        Variant::kReference, &error);
  EXPECT_NE(error.find("axis 1 is out of range"), std::string::npos) << error;
  RunOp(OpId::kUnique, {HT::Of<float>({2, 2}, {1, 2, 3, 4})}, {{"axis", AttrValue::Ints({0, 1})}},
        Variant::kReference, &error);
  EXPECT_NE(error.find("at most one axis"), std::string::npos) << error;
}

}  // namespace
}  // namespace tfn::kernels::testing
