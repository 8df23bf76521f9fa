// Tests of range, tile and split with their parameters as run-time inputs
// (read by the shape rules, as ONNX's Range, Tile and Split take them):
// hand-computed values, integer and float ranges, and the errors for bad
// values.
#include "kernels/testing/kernel_test_util.h"

namespace tfn::kernels::testing {
namespace {

using HT = HostTensor;

TEST(RefRangeInputs, IntegerAndFloat) {
  auto out = RunOp(OpId::kRange,
                   {HT::Of<int32_t>({}, {10}), HT::Of<int32_t>({}, {4}), HT::Of<int32_t>({}, {-3})},
                   {{"dtype", AttrValue::Type(DType::kInt32)}});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].values<int32_t>(), (std::vector<int32_t>{10, 7}));
  out = RunOp(OpId::kRange,
              {HT::Of<float>({}, {0.5f}), HT::Of<float>({}, {2}), HT::Of<float>({}, {0.5f})},
              {{"dtype", AttrValue::Type(DType::kFloat32)}});
  EXPECT_EQ(out[0].values<float>(), (std::vector<float>{0.5f, 1, 1.5f}));
  // int64 counts exactly beyond 2^53.
  const int64_t big = (int64_t{1} << 60) + 1;
  out = RunOp(
      OpId::kRange,
      {HT::Of<int64_t>({}, {big}), HT::Of<int64_t>({}, {big + 4}), HT::Of<int64_t>({}, {3})}, {});
  EXPECT_EQ(out[0].values<int64_t>(), (std::vector<int64_t>{big, big + 3}));
  // An empty range.
  out = RunOp(OpId::kRange,
              {HT::Of<int64_t>({}, {3}), HT::Of<int64_t>({}, {1}), HT::Of<int64_t>({}, {1})}, {});
  EXPECT_EQ(out[0].shape, (Shape{0}));
}

TEST(RefRangeInputs, Errors) {
  std::string error;
  RunOp(OpId::kRange,
        {HT::Of<int64_t>({}, {0}), HT::Of<int64_t>({}, {3}), HT::Of<int64_t>({}, {0})}, {},
        Variant::kReference, &error);
  EXPECT_NE(error.find("'delta' must not be 0"), std::string::npos) << error;
  RunOp(OpId::kRange,
        {HT::Of<int64_t>({2}, {0, 1}), HT::Of<int64_t>({}, {3}), HT::Of<int64_t>({}, {1})}, {},
        Variant::kReference, &error);
  EXPECT_NE(error.find("start must be a scalar"), std::string::npos) << error;
  RunOp(OpId::kRange, {HT::Of<int64_t>({}, {0}), HT::Of<int64_t>({}, {3})}, {}, Variant::kReference,
        &error);
  EXPECT_NE(error.find("all as attributes or all as inputs"), std::string::npos) << error;
  RunOp(OpId::kRange,
        {HT::Of<double>({}, {0}), HT::Of<double>({}, {1e300}), HT::Of<double>({}, {1e-300})}, {},
        Variant::kReference, &error);
  EXPECT_NE(error.find("too many elements"), std::string::npos) << error;
}

TEST(RefTileInput, Multiples) {
  auto out =
      RunOp(OpId::kTile, {HT::Of<int32_t>({1, 2}, {1, 2}), HT::Of<int64_t>({2}, {2, 2})}, {});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].shape, (Shape{2, 4}));
  EXPECT_EQ(out[0].values<int32_t>(), (std::vector<int32_t>{1, 2, 1, 2, 1, 2, 1, 2}));
  std::string error;
  RunOp(OpId::kTile, {HT::Of<int32_t>({1, 2}, {1, 2}), HT::Of<int64_t>({1}, {2})}, {},
        Variant::kReference, &error);
  EXPECT_NE(error.find("need one entry per dim"), std::string::npos) << error;
  RunOp(OpId::kTile, {HT::Of<int32_t>({1, 2}, {1, 2}), HT::Of<int64_t>({2}, {1, -1})}, {},
        Variant::kReference, &error);
  EXPECT_NE(error.find("multiples must be >= 0"), std::string::npos) << error;
  RunOp(OpId::kTile, {HT::Of<int32_t>({1, 2}, {1, 2}), HT::Of<int64_t>({2}, {1, int64_t{1} << 62})},
        {}, Variant::kReference, &error);
  EXPECT_NE(error.find("overflow"), std::string::npos) << error;
}

TEST(RefSplitInput, Sizes) {
  auto out =
      RunOp(OpId::kSplit, {HT::Of<float>({6}, {1, 2, 3, 4, 5, 6}), HT::Of<int64_t>({2}, {2, 4})},
            {{"num_splits", AttrValue::Int(2)}});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].values<float>(), (std::vector<float>{1, 2}));
  EXPECT_EQ(out[1].values<float>(), (std::vector<float>{3, 4, 5, 6}));
  // Zero-sized parts along axis 1.
  out =
      RunOp(OpId::kSplit, {HT::Of<int32_t>({2, 2}, {1, 2, 3, 4}), HT::Of<int32_t>({3}, {0, 2, 0})},
            {{"num_splits", AttrValue::Int(3)}, {"axis", AttrValue::Int(1)}});
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].shape, (Shape{2, 0}));
  EXPECT_EQ(out[1].values<int32_t>(), (std::vector<int32_t>{1, 2, 3, 4}));
  EXPECT_EQ(out[2].shape, (Shape{2, 0}));
  std::string error;
  HT x = HT::Of<float>({6}, {1, 2, 3, 4, 5, 6});
  RunOp(OpId::kSplit, {x, HT::Of<int64_t>({2}, {2, 3})}, {{"num_splits", AttrValue::Int(2)}},
        Variant::kReference, &error);
  EXPECT_NE(error.find("do not add up"), std::string::npos) << error;
  RunOp(OpId::kSplit, {x, HT::Of<int64_t>({3}, {2, 2, 2})}, {{"num_splits", AttrValue::Int(2)}},
        Variant::kReference, &error);
  EXPECT_NE(error.find("one entry per output"), std::string::npos) << error;
  const int64_t huge = int64_t{1} << 62;
  RunOp(OpId::kSplit, {x, HT::Of<int64_t>({2}, {huge, huge})}, {{"num_splits", AttrValue::Int(2)}},
        Variant::kReference, &error);
  EXPECT_NE(error.find("must be >= 0 and add up"), std::string::npos) << error;
}

}  // namespace
}  // namespace tfn::kernels::testing
