// Tests of the shape rules of conv2d_transpose, resize and the pooling
// attributes ceil_mode and dilations, through both instantiations (int64 at
// run time, SymDim in the IR).
#include <gtest/gtest.h>

#include <vector>

#include "core/op_def.h"
#include "core/op_def_symbolic.h"

namespace tfn {
namespace {

constexpr DType F = DType::kFloat32;
SymDim S(const char* n) { return SymDim::Symbol(n); }
AttrValue Ints(std::vector<int64_t> v) { return AttrValue::Ints(std::move(v)); }

// Symbolic inference of one output; `values` are the inputs' constant values
// (null: unknown), unknown data-dependent dims are ?d0, ?d1, ...
std::string InferSym(OpId op, std::vector<std::pair<DType, SymShape>> inputs, Attrs attrs,
                     std::vector<const ConstTensor*> values = {}) {
  const OpDef& def = GetOpDef(op);
  Status s = NormalizeAttrs(def, &attrs);
  if (!s.ok()) return s.message();
  std::vector<DType> types;
  std::vector<SymShape> shapes;
  for (const auto& [t, sh] : inputs) {
    types.push_back(t);
    shapes.push_back(sh);
  }
  values.resize(inputs.size(), nullptr);
  DType ot;
  SymShape os;
  int fresh = 0;
  s = InferOpSymbolic(def, attrs, static_cast<int>(inputs.size()), types.data(), shapes.data(),
                      values.data(), 1, &ot, &os,
                      [&] { return SymDim::Symbol("d" + std::to_string(fresh++)); });
  return s.ok() ? SymShapeToString(os) : s.message();
}

// Concrete inference (every value known, as at run time).
std::string Infer(OpId op, std::vector<std::pair<DType, Shape>> inputs, Attrs attrs,
                  std::vector<const ConstTensor*> values = {}) {
  const OpDef& def = GetOpDef(op);
  Status s = NormalizeAttrs(def, &attrs);
  if (!s.ok()) return s.message();
  std::vector<DType> types;
  std::vector<Shape> shapes;
  for (const auto& [t, sh] : inputs) {
    types.push_back(t);
    shapes.push_back(sh);
  }
  values.resize(inputs.size(), nullptr);
  DType ot;
  Shape os;
  s = InferOp(def, attrs, static_cast<int>(inputs.size()), types.data(), shapes.data(),
              values.data(), 1, &ot, &os);
  return s.ok() ? ShapeToString(os) : s.message();
}

TEST(NnRules, Conv2DTranspose) {
  auto ct = [](Shape x, Shape f, Attrs a) {
    return Infer(OpId::kConv2DTranspose, {{F, x}, {F, f}}, std::move(a));
  };
  EXPECT_EQ(ct({1, 3, 3, 1}, {3, 3, 2, 1}, {}), "[1,5,5,2]");
  // (3-1)*3 + 3 + 1 - 2 = 8 rows, (3-1)*2 + 3 + 1 - 4 = 4 columns.
  EXPECT_EQ(ct({1, 3, 3, 1}, {3, 3, 2, 1},
               {{"strides", Ints({3, 2})},
                {"output_padding", Ints({1, 1})},
                {"pads", Ints({1, 1, 2, 2})}}),
            "[1,8,4,2]");
  EXPECT_EQ(ct({1, 4, 4, 6}, {2, 2, 4, 6}, {{"groups", AttrValue::Int(3)}}), "[1,5,5,12]");
  EXPECT_EQ(
      ct({1, 4, 4, 6}, {2, 2, 4, 5}, {}),
      "conv2d_transpose: filter f32[2,2,4,5] expects 5 input channels, input is f32[1,4,4,6]");
  EXPECT_EQ(InferSym(OpId::kConv2DTranspose, {{F, {S("n"), S("h"), 4, 3}}, {F, {3, 3, 8, 3}}},
                     {{"strides", Ints({2, 2})}, {"dilations", Ints({2, 1})}}),
            "[?n,2*?h+3,9,8]");
  // An empty input row with a stride above the window works out to a
  // negative size, (0-1)*3 + 1 = -2: the driver's check of every rule's
  // output says so in both instantiations (found by fuzz_onnx, whose bundle
  // the loader then refused).
  const std::string negative =
      "conv2d_transpose: output 0 would have dim 1 = -2 ([1,-2,4,1]) from inputs f32[1,0,4,1], "
      "f32[1,1,1,1]: ";
  EXPECT_EQ(ct({1, 0, 4, 1}, {1, 1, 1, 1}, {{"strides", Ints({3, 1})}}).rfind(negative, 0), 0u);
  EXPECT_EQ(InferSym(OpId::kConv2DTranspose, {{F, {1, 0, 4, 1}}, {F, {1, 1, 1, 1}}},
                     {{"strides", Ints({3, 1})}})
                .rfind(negative, 0),
            0u);
}

TEST(NnRules, PoolCeilModeAndDilations) {
  auto pool = [](Shape x, Attrs a) { return Infer(OpId::kMaxPool2D, {{F, x}}, std::move(a)); };
  Attrs k3s2{{"ksize", Ints({3, 3})}, {"strides", Ints({2, 2})}};
  EXPECT_EQ(pool({1, 4, 4, 1}, k3s2), "[1,1,1,1]");
  k3s2.Set("ceil_mode", AttrValue::Int(1));
  EXPECT_EQ(pool({1, 4, 4, 1}, k3s2), "[1,2,2,1]");
  // A last window that would start in the trailing padding is dropped.
  Attrs drop{{"ksize", Ints({1, 2})},
             {"strides", Ints({1, 2})},
             {"padding", AttrValue::String("EXPLICIT")},
             {"pads", Ints({0, 0, 1, 1})},
             {"ceil_mode", AttrValue::Int(1)}};
  EXPECT_EQ(pool({1, 1, 5, 1}, drop), "[1,1,3,1]");
  // Dilation 2 spreads a 3-tap window over 5 cells.
  EXPECT_EQ(pool({1, 7, 7, 1}, {{"ksize", Ints({3, 3})}, {"dilations", Ints({2, 2})}}),
            "[1,3,3,1]");
  EXPECT_EQ(InferSym(OpId::kAvgPool2D, {{F, {S("n"), S("h"), 8, 1}}}, k3s2),
            "[?n,floordiv(?h-2,2)+1,4,1]");
  EXPECT_NE(InferSym(OpId::kAvgPool2D, {{F, {S("n"), 1, S("w"), 1}}}, drop).find("static input"),
            std::string::npos);
}

TEST(NnRules, ResizeSizesAndScales) {
  ConstTensor sizes =
      ConstTensor::Copy(DType::kInt64, {4}, std::vector<int64_t>{1, 3, 8, 10}.data());
  ConstTensor scales = ConstTensor::Copy(F, {4}, std::vector<float>{1, 1, 2, 0.5f}.data());
  EXPECT_EQ(Infer(OpId::kResize, {{F, {1, 3, 4, 5}}, {DType::kInt64, {4}}}, {}, {nullptr, &sizes}),
            "[1,3,8,10]");
  // Unknown sizes: constant scales still tell which dims are kept or multiplied.
  EXPECT_EQ(InferSym(OpId::kResize, {{F, {S("n"), 3, S("h"), 6}}, {DType::kInt64, {4}}, {F, {4}}},
                     {}, {nullptr, nullptr, &scales}),
            "[?n,3,2*?h,3]");
  EXPECT_EQ(InferSym(OpId::kResize, {{F, {S("n"), 3}}, {DType::kInt64, {2}}}, {}), "[?d0,?d1]");
  // Empty sizes: the shape follows from x and the constant scales.
  ConstTensor none = ConstTensor::Copy(DType::kInt64, {0}, nullptr);
  EXPECT_EQ(InferSym(OpId::kResize, {{F, {S("n"), 3, S("h"), 6}}, {DType::kInt64, {0}}, {F, {4}}},
                     {}, {nullptr, &none, &scales}),
            "[?n,3,2*?h,3]");
  EXPECT_EQ(Infer(OpId::kResize, {{F, {2, 3, 5, 7}}, {DType::kInt64, {0}}, {F, {4}}}, {},
                  {nullptr, &none, &scales}),
            "[2,3,10,3]");
  EXPECT_NE(InferSym(OpId::kResize, {{F, {1, 3, 4, S("w")}}, {DType::kInt64, {0}}, {F, {4}}}, {},
                     {nullptr, &none, &scales})
                .find("needs the sizes"),
            std::string::npos);
  EXPECT_EQ(
      Infer(OpId::kResize, {{F, {1, 3}}, {DType::kInt64, {2}}},
            {{"coordinate_transformation_mode", AttrValue::String("nearest")}}, {nullptr, &sizes}),
      "resize: coordinate_transformation_mode 'nearest' is not one of half_pixel, "
      "pytorch_half_pixel, align_corners, asymmetric, tf_half_pixel_for_nn, "
      "tf_crop_and_resize");
  EXPECT_EQ(Infer(OpId::kResize, {{F, {1, 3}}, {DType::kInt64, {4}}}, {}, {nullptr, &sizes}),
            "resize: sizes must be [2] (one per axis of x) or [0], got int64[4]");
}

TEST(NnRules, PadWithPaddingsInput) {
  ConstTensor pads = ConstTensor::Copy(DType::kInt64, {4}, std::vector<int64_t>{1, 0, 2, 3}.data());
  EXPECT_EQ(Infer(OpId::kPad, {{F, {2, 3}}, {DType::kInt64, {4}}}, {}, {nullptr, &pads}), "[3,8]");
  // Unknown at trace time: every dim may change.
  EXPECT_EQ(InferSym(OpId::kPad, {{F, {S("n"), 3}}, {DType::kInt64, {4}}}, {}), "[?d0,?d1]");
  EXPECT_EQ(InferSym(OpId::kPad, {{F, {S("n"), 3}}, {DType::kInt64, {3}}}, {}),
            "pad: paddings int64[3] need 2 entries (before, after) per dim of f32[?n,3]");
}

}  // namespace
}  // namespace tfn
