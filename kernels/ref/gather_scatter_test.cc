// Tests of the gather_elements, scatter_elements, gather_nd and scatter_nd
// reference kernels against hand-computed values (ONNX's documented
// examples among them): every axis, negative indices, duplicates under each
// reduction, batch_dims, bools, and the errors for bad indices and shapes.
#include "kernels/testing/kernel_test_util.h"

namespace tfn::kernels::testing {
namespace {

using HT = HostTensor;

Attrs Axis(int64_t axis) { return {{"axis", AttrValue::Int(axis)}}; }
Attrs AxisReduction(int64_t axis, const char* reduction) {
  return {{"axis", AttrValue::Int(axis)}, {"reduction", AttrValue::String(reduction)}};
}

TEST(RefGatherElements, OnnxExamples) {
  auto out =
      RunOp(OpId::kGatherElements,
            {HT::Of<float>({2, 2}, {1, 2, 3, 4}), HT::Of<int64_t>({2, 2}, {0, 0, 1, 0})}, Axis(1));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].shape, (Shape{2, 2}));
  EXPECT_EQ(out[0].values<float>(), (std::vector<float>{1, 1, 4, 3}));
  HT data = HT::Of<int32_t>({3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  out = RunOp(OpId::kGatherElements, {data, HT::Of<int32_t>({2, 3}, {1, 2, 0, 2, 0, 0})}, Axis(0));
  EXPECT_EQ(out[0].shape, (Shape{2, 3}));
  EXPECT_EQ(out[0].values<int32_t>(), (std::vector<int32_t>{4, 8, 3, 7, 2, 3}));
  // Negative indices count from the end of the axis.
  out =
      RunOp(OpId::kGatherElements, {data, HT::Of<int64_t>({2, 3}, {-1, -2, 0, -2, 0, 0})}, Axis(0));
  EXPECT_EQ(out[0].values<int32_t>(), (std::vector<int32_t>{7, 5, 3, 4, 2, 3}));
}

TEST(RefGatherElements, SmallerIndicesAndMiddleAxis) {
  // x[i][j][k] = 100i + 10j + k, shape [2, 3, 2]; indices [2, 1, 1] along axis 1.
  HT x = HT::Of<int64_t>({2, 3, 2}, {0, 1, 10, 11, 20, 21, 100, 101, 110, 111, 120, 121});
  auto out = RunOp(OpId::kGatherElements, {x, HT::Of<int64_t>({2, 1, 1}, {2, -3})}, Axis(-2));
  EXPECT_EQ(out[0].shape, (Shape{2, 1, 1}));
  EXPECT_EQ(out[0].values<int64_t>(), (std::vector<int64_t>{20, 100}));
  // Empty indices give an empty result.
  out = RunOp(OpId::kGatherElements, {x, HT::Of<int64_t>({2, 0, 2}, {})}, Axis(1));
  EXPECT_EQ(out[0].shape, (Shape{2, 0, 2}));
}

TEST(RefGatherElements, Errors) {
  std::string error;
  HT x = HT::Of<float>({2, 2}, {1, 2, 3, 4});
  RunOp(OpId::kGatherElements, {x, HT::Of<int64_t>({1, 2}, {0, 2})}, Axis(1), Variant::kReference,
        &error);
  EXPECT_NE(error.find("outside the valid range"), std::string::npos) << error;
  RunOp(OpId::kGatherElements, {x, HT::Of<int64_t>({1, 2}, {0, -3})}, Axis(1), Variant::kReference,
        &error);
  EXPECT_NE(error.find("outside the valid range"), std::string::npos) << error;
  RunOp(OpId::kGatherElements, {x, HT::Of<int64_t>({2}, {0, 1})}, Axis(0), Variant::kReference,
        &error);
  EXPECT_NE(error.find("must have the rank of"), std::string::npos) << error;
  RunOp(OpId::kGatherElements, {x, HT::Of<int64_t>({1, 3}, {0, 0, 0})}, Axis(0),
        Variant::kReference, &error);
  EXPECT_NE(error.find("larger than"), std::string::npos) << error;
  RunOp(OpId::kGatherElements, {x, HT::Of<int64_t>({1, 1}, {0})}, Axis(2), Variant::kReference,
        &error);
  EXPECT_NE(error.find("axis 2 is out of range"), std::string::npos) << error;
}

TEST(RefScatterElements, OnnxExamples) {
  auto out = RunOp(OpId::kScatterElements,
                   {HT::Of<float>({1, 5}, {1, 2, 3, 4, 5}), HT::Of<int64_t>({1, 2}, {1, 3}),
                    HT::Of<float>({1, 2}, {1.5f, 2.5f})},
                   Axis(1));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].values<float>(), (std::vector<float>{1, 1.5f, 3, 2.5f, 5}));
  out = RunOp(
      OpId::kScatterElements,
      {HT::Of<float>({3, 3}, std::vector<float>(9, 0)), HT::Of<int32_t>({2, 3}, {1, 0, 2, 0, 2, 1}),
       HT::Of<float>({2, 3}, {1, 1.5f, 1.25f, 2, 2.5f, 2.25f})},
      Axis(0));
  EXPECT_EQ(out[0].values<float>(), (std::vector<float>{2, 1.5f, 0, 1, 0, 2.25f, 0, 2.5f, 1.25f}));
  // Negative index -3 of an axis of 5 is 2.
  out = RunOp(OpId::kScatterElements,
              {HT::Of<float>({1, 5}, {1, 2, 3, 4, 5}), HT::Of<int64_t>({1, 2}, {1, -3}),
               HT::Of<float>({1, 2}, {1.5f, 2.5f})},
              Axis(1));
  EXPECT_EQ(out[0].values<float>(), (std::vector<float>{1, 1.5f, 2.5f, 4, 5}));
}

TEST(RefScatterElements, DuplicatesUnderEachReduction) {
  HT data = HT::Of<int64_t>({5}, {1, 2, 3, 4, 5});
  HT idx = HT::Of<int64_t>({3}, {1, 1, 4});
  HT upd = HT::Of<int64_t>({3}, {10, 20, -7});
  auto run = [&](const char* r) {
    return RunOp(OpId::kScatterElements, {data, idx, upd}, AxisReduction(0, r))[0]
        .values<int64_t>();
  };
  EXPECT_EQ(run("none"), (std::vector<int64_t>{1, 20, 3, 4, -7}));  // the last duplicate wins
  EXPECT_EQ(run("add"), (std::vector<int64_t>{1, 32, 3, 4, -2}));
  EXPECT_EQ(run("mul"), (std::vector<int64_t>{1, 400, 3, 4, -35}));
  EXPECT_EQ(run("max"), (std::vector<int64_t>{1, 20, 3, 4, 5}));
  EXPECT_EQ(run("min"), (std::vector<int64_t>{1, 2, 3, 4, -7}));
  // Bools: add is "or", mul is "and".
  HT b = HT::Of<bool>({3}, {false, true, true});
  HT bi = HT::Of<int64_t>({2}, {0, 1});
  HT bu = HT::Of<bool>({2}, {true, false});
  EXPECT_EQ(RunOp(OpId::kScatterElements, {b, bi, bu}, AxisReduction(0, "add"))[0].values<bool>(),
            (std::vector<bool>{true, true, true}));
  EXPECT_EQ(RunOp(OpId::kScatterElements, {b, bi, bu}, AxisReduction(0, "mul"))[0].values<bool>(),
            (std::vector<bool>{false, false, true}));
}

TEST(RefScatterElements, Errors) {
  std::string error;
  HT data = HT::Of<float>({2, 2}, {1, 2, 3, 4});
  RunOp(OpId::kScatterElements, {data, HT::Of<int64_t>({1, 1}, {2}), HT::Of<float>({1, 1}, {9})},
        Axis(0), Variant::kReference, &error);
  EXPECT_NE(error.find("outside the valid range"), std::string::npos) << error;
  RunOp(OpId::kScatterElements, {data, HT::Of<int64_t>({1, 1}, {0}), HT::Of<float>({1, 2}, {9, 9})},
        Axis(0), Variant::kReference, &error);
  EXPECT_NE(error.find("must have the shape of indices"), std::string::npos) << error;
  RunOp(OpId::kScatterElements, {data, HT::Of<int64_t>({1, 1}, {0}), HT::Of<float>({1, 1}, {9})},
        AxisReduction(0, "sub"), Variant::kReference, &error);
  EXPECT_NE(error.find("reduction 'sub'"), std::string::npos) << error;
  RunOp(OpId::kScatterElements, {data, HT::Of<int64_t>({1, 1}, {0}), HT::Of<double>({1, 1}, {9})},
        Axis(0), Variant::kReference, &error);
  EXPECT_NE(error.find("same dtype"), std::string::npos) << error;
}

TEST(RefGatherND, OnnxExamples) {
  HT data2 = HT::Of<int32_t>({2, 2}, {0, 1, 2, 3});
  auto out = RunOp(OpId::kGatherND, {data2, HT::Of<int64_t>({2, 2}, {0, 0, 1, 1})}, {});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].shape, (Shape{2}));
  EXPECT_EQ(out[0].values<int32_t>(), (std::vector<int32_t>{0, 3}));
  out = RunOp(OpId::kGatherND, {data2, HT::Of<int64_t>({2, 1}, {1, 0})}, {});
  EXPECT_EQ(out[0].shape, (Shape{2, 2}));
  EXPECT_EQ(out[0].values<int32_t>(), (std::vector<int32_t>{2, 3, 0, 1}));
  HT data3 = HT::Of<float>({2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7});
  out = RunOp(OpId::kGatherND, {data3, HT::Of<int64_t>({2, 2}, {0, 1, 1, 0})}, {});
  EXPECT_EQ(out[0].shape, (Shape{2, 2}));
  EXPECT_EQ(out[0].values<float>(), (std::vector<float>{2, 3, 4, 5}));
  out = RunOp(OpId::kGatherND, {data3, HT::Of<int64_t>({2, 1, 2}, {0, 1, 1, 0})}, {});
  EXPECT_EQ(out[0].shape, (Shape{2, 1, 2}));
  EXPECT_EQ(out[0].values<float>(), (std::vector<float>{2, 3, 4, 5}));
  // batch_dims = 1: each batch indexes its own [2, 2] slice.
  out = RunOp(OpId::kGatherND, {data3, HT::Of<int64_t>({2, 1}, {1, 0})},
              {{"batch_dims", AttrValue::Int(1)}});
  EXPECT_EQ(out[0].shape, (Shape{2, 2}));
  EXPECT_EQ(out[0].values<float>(), (std::vector<float>{2, 3, 4, 5}));
  // Negative indices and a full tuple (scalar results).
  out = RunOp(OpId::kGatherND, {data3, HT::Of<int32_t>({1, 3}, {-1, -1, -2})}, {});
  EXPECT_EQ(out[0].shape, (Shape{1}));
  EXPECT_EQ(out[0].values<float>(), (std::vector<float>{6}));
}

TEST(RefGatherND, Errors) {
  std::string error;
  HT data = HT::Of<float>({2, 2}, {0, 1, 2, 3});
  RunOp(OpId::kGatherND, {data, HT::Of<int64_t>({1, 2}, {0, 2})}, {}, Variant::kReference, &error);
  EXPECT_NE(error.find("outside the valid range"), std::string::npos) << error;
  RunOp(OpId::kGatherND, {data, HT::Of<int64_t>({1, 3}, {0, 0, 0})}, {}, Variant::kReference,
        &error);
  EXPECT_NE(error.find("last dim of indices"), std::string::npos) << error;
  RunOp(OpId::kGatherND, {data, HT::Of<int64_t>({2, 1}, {0, 0})},
        {{"batch_dims", AttrValue::Int(2)}}, Variant::kReference, &error);
  EXPECT_NE(error.find("batch_dims 2"), std::string::npos) << error;
  RunOp(OpId::kGatherND, {data, HT::Of<int64_t>({3, 1}, {0, 0, 0})},
        {{"batch_dims", AttrValue::Int(1)}}, Variant::kReference, &error);
  EXPECT_NE(error.find("(batch) dims"), std::string::npos) << error;
}

TEST(RefScatterND, OnnxExamples) {
  HT data = HT::Of<float>({8}, {1, 2, 3, 4, 5, 6, 7, 8});
  auto out =
      RunOp(OpId::kScatterND,
            {data, HT::Of<int64_t>({4, 1}, {4, 3, 1, 7}), HT::Of<float>({4}, {9, 10, 11, 12})}, {});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].values<float>(), (std::vector<float>{1, 11, 3, 10, 9, 6, 7, 12}));
  // Slices: data [2, 2], one index replaces a row.
  out = RunOp(OpId::kScatterND,
              {HT::Of<int32_t>({2, 2}, {1, 2, 3, 4}), HT::Of<int64_t>({1, 1}, {-1}),
               HT::Of<int32_t>({1, 2}, {7, 8})},
              {});
  EXPECT_EQ(out[0].values<int32_t>(), (std::vector<int32_t>{1, 2, 7, 8}));
  // Duplicates accumulate under add and mul.
  HT dup = HT::Of<int64_t>({2, 1}, {4, 4});
  HT upd = HT::Of<float>({2}, {2, 3});
  out = RunOp(OpId::kScatterND, {data, dup, upd}, {{"reduction", AttrValue::String("add")}});
  EXPECT_EQ(out[0].values<float>(), (std::vector<float>{1, 2, 3, 4, 10, 6, 7, 8}));
  out = RunOp(OpId::kScatterND, {data, dup, upd}, {{"reduction", AttrValue::String("mul")}});
  EXPECT_EQ(out[0].values<float>(), (std::vector<float>{1, 2, 3, 4, 30, 6, 7, 8}));
}

TEST(RefScatterND, Errors) {
  std::string error;
  HT data = HT::Of<float>({2, 2}, {1, 2, 3, 4});
  RunOp(OpId::kScatterND, {data, HT::Of<int64_t>({1, 1}, {2}), HT::Of<float>({1, 2}, {7, 8})}, {},
        Variant::kReference, &error);
  EXPECT_NE(error.find("outside the valid range"), std::string::npos) << error;
  RunOp(OpId::kScatterND, {data, HT::Of<int64_t>({1, 1}, {0}), HT::Of<float>({1, 3}, {7, 8, 9})},
        {}, Variant::kReference, &error);
  EXPECT_NE(error.find("updates f32[1,3] must be [1,2]"), std::string::npos) << error;
}

}  // namespace
}  // namespace tfn::kernels::testing
