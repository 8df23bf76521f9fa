// Tests of the top_k reference kernel against hand-computed values: largest
// and smallest along inner and outer axes, ties (the lower index first),
// NaNs, k = 0 and k = n, int32/int64 k, and the errors.
#include <cmath>
#include <limits>

#include "kernels/testing/kernel_test_util.h"

namespace tfn::kernels::testing {
namespace {

using HT = HostTensor;

std::vector<HT> TopK(const HT& x, int64_t k, int64_t axis, bool largest,
                     std::string* error = nullptr) {
  return RunOp(OpId::kTopK, {x, HT::Of<int64_t>({1}, {k})},
               {{"axis", AttrValue::Int(axis)}, {"largest", AttrValue::Int(largest)}},
               Variant::kReference, error);
}

TEST(RefTopK, OnnxExample) {
  HT x = HT::Of<float>({3, 4}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
  auto out = TopK(x, 3, 1, true);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].shape, (Shape{3, 3}));
  EXPECT_EQ(out[0].values<float>(), (std::vector<float>{3, 2, 1, 7, 6, 5, 11, 10, 9}));
  EXPECT_EQ(out[1].dtype, DType::kInt64);
  EXPECT_EQ(out[1].values<int64_t>(), (std::vector<int64_t>{3, 2, 1, 3, 2, 1, 3, 2, 1}));
  out = TopK(x, 3, -1, false);
  EXPECT_EQ(out[0].values<float>(), (std::vector<float>{0, 1, 2, 4, 5, 6, 8, 9, 10}));
  EXPECT_EQ(out[1].values<int64_t>(), (std::vector<int64_t>{0, 1, 2, 0, 1, 2, 0, 1, 2}));
}

TEST(RefTopK, OuterAxisTiesAndNaN) {
  // Along axis 0 of [[5, 1], [2, 1], [5, 3]]: column 0 has a tie of 5s.
  HT x = HT::Of<int32_t>({3, 2}, {5, 1, 2, 1, 5, 3});
  auto out = TopK(x, 2, 0, true);
  EXPECT_EQ(out[0].shape, (Shape{2, 2}));
  EXPECT_EQ(out[0].values<int32_t>(), (std::vector<int32_t>{5, 3, 5, 1}));
  EXPECT_EQ(out[1].values<int64_t>(), (std::vector<int64_t>{0, 2, 2, 0}));
  out = TopK(x, 2, 0, false);
  EXPECT_EQ(out[0].values<int32_t>(), (std::vector<int32_t>{2, 1, 5, 1}));
  EXPECT_EQ(out[1].values<int64_t>(), (std::vector<int64_t>{1, 0, 0, 1}));
  // NaN is above every number: first when largest, last when smallest.
  const double nan = std::numeric_limits<double>::quiet_NaN();
  HT y = HT::Of<double>({4}, {1, nan, -2, 7});
  out = TopK(y, 2, 0, true);
  EXPECT_TRUE(std::isnan(out[0].values<double>()[0]));
  EXPECT_EQ(out[0].values<double>()[1], 7);
  EXPECT_EQ(out[1].values<int64_t>(), (std::vector<int64_t>{1, 3}));
  out = TopK(y, 4, 0, false);
  EXPECT_EQ(out[1].values<int64_t>(), (std::vector<int64_t>{2, 0, 3, 1}));
}

TEST(RefTopK, EdgeSizes) {
  HT x = HT::Of<int64_t>({2, 3}, {3, 1, 2, 6, 4, 5});
  auto out = TopK(x, 0, 1, true);
  EXPECT_EQ(out[0].shape, (Shape{2, 0}));
  out = TopK(x, 3, 1, true);
  EXPECT_EQ(out[0].values<int64_t>(), (std::vector<int64_t>{3, 2, 1, 6, 5, 4}));
  EXPECT_EQ(out[1].values<int64_t>(), (std::vector<int64_t>{0, 2, 1, 0, 2, 1}));
  // k as an int32 scalar.
  out = RunOp(OpId::kTopK, {x, HT::Of<int32_t>({}, {1})}, {});
  EXPECT_EQ(out[0].values<int64_t>(), (std::vector<int64_t>{3, 6}));
}

TEST(RefTopK, Errors) {
  std::string error;
  HT x = HT::Of<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  TopK(x, 4, 1, true, &error);
  EXPECT_NE(error.find("k = 4 must be in [0, 3]"), std::string::npos) << error;
  TopK(x, -1, 1, true, &error);
  EXPECT_NE(error.find("k = -1"), std::string::npos) << error;
  TopK(x, 1, 2, true, &error);
  EXPECT_NE(error.find("axis 2 is out of range"), std::string::npos) << error;
  RunOp(OpId::kTopK, {x, HT::Of<int64_t>({2}, {1, 1})}, {}, Variant::kReference, &error);
  EXPECT_NE(error.find("k must hold one value"), std::string::npos) << error;
  RunOp(OpId::kTopK, {HT::Of<float>({}, {1}), HT::Of<int64_t>({1}, {1})}, {}, Variant::kReference,
        &error);
  EXPECT_NE(error.find("rank >= 1"), std::string::npos) << error;
}

}  // namespace
}  // namespace tfn::kernels::testing
