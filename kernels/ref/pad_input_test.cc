// Tests of pad with its paddings (and constant value) given as inputs, the
// form ONNX's Pad takes when the pads are computed at run time: the same
// results as the attribute form, int32 or int64 paddings, and the errors.
#include "kernels/testing/kernel_test_util.h"

namespace tfn::kernels::testing {
namespace {

using HT = HostTensor;

TEST(RefPadInputs, MatchesTheAttributeForm) {
  HT x = HT::Of<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  for (const char* mode : {"constant", "reflect", "edge"}) {
    Attrs by_attr{{"paddings", AttrValue::Ints({1, 0, 2, 1})},
                  {"mode", AttrValue::String(mode)},
                  {"constant_value", AttrValue::Float(7)}};
    Attrs by_input{{"mode", AttrValue::String(mode)}};
    auto want = RunOp(OpId::kPad, {x}, by_attr);
    auto got = RunOp(OpId::kPad, {x, HT::Of<int64_t>({4}, {1, 0, 2, 1}), HT::Of<float>({}, {7})},
                     by_input);
    ASSERT_EQ(want.size(), 1u);
    ASSERT_EQ(got.size(), 1u) << mode;
    EXPECT_EQ(got[0].shape, (Shape{3, 6})) << mode;
    EXPECT_EQ(got[0].values<float>(), want[0].values<float>()) << mode;
  }
  // int32 paddings; without input 2 the attribute's constant_value applies.
  auto out = RunOp(OpId::kPad, {x, HT::Of<int32_t>({4}, {0, 1, 0, 0})},
                   {{"constant_value", AttrValue::Float(-1)}});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].values<float>(), (std::vector<float>{1, 2, 3, 4, 5, 6, -1, -1, -1}));
}

TEST(RefPadInputs, Errors) {
  HT x = HT::Of<float>({2}, {1, 2});
  std::string error;
  RunOp(OpId::kPad, {x, HT::Of<int64_t>({2}, {1, 1})}, {{"paddings", AttrValue::Ints({1, 1})}},
        Variant::kReference, &error);
  EXPECT_EQ(error, "pad: the paddings are given both as the attribute and as input 1");
  RunOp(OpId::kPad, {x, HT::Of<int64_t>({2}, {-1, 0})}, {}, Variant::kReference, &error);
  EXPECT_EQ(error, "pad: paddings must be >= 0, got [-1,0]");
  RunOp(OpId::kPad, {x, HT::Of<int64_t>({2}, {1, 0}), HT::Of<double>({}, {0})}, {},
        Variant::kReference, &error);
  EXPECT_NE(error.find("must have the same dtype"), std::string::npos) << error;
}

}  // namespace
}  // namespace tfn::kernels::testing
