// The importer's reduced-precision and quantized dtypes: float16 arithmetic
// (computed in float32 by the context and rounded back), the small and
// unsigned integers (computed in int32/int64, wrapping back as the narrow
// dtype does), uint64 (refused where no wider dtype holds it), Cast to
// BFLOAT16 (truncated, as ONNX specifies) against Cast to FLOAT16 (rounded to
// nearest even), and QuantizeLinear/DequantizeLinear per tensor and per axis.
// Every model is imported, exported to a bundle and run; the expected values
// are worked out by hand in the comments.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "importers/onnx/onnx_importer.h"
#include "onnx/onnx_pb.h"
#include "tests/onnx/run_model.h"
#include "tfn/runtime.h"

namespace tfn::onnx_import {
namespace {

using I64 = std::vector<int64_t>;

using Model = TestModel;

constexpr int kF = onnx::TensorProto::FLOAT;
constexpr int kF16 = onnx::TensorProto::FLOAT16;
constexpr int kBF16 = onnx::TensorProto::BFLOAT16;

template <class T>
ConstTensor Tensor(DType dtype, Shape shape, std::vector<T> v) {
  return ConstTensor::Copy(dtype, shape, v.data());
}
ConstTensor Halfs(Shape shape, const std::vector<float>& v) {
  std::vector<Float16> h(v.begin(), v.end());
  return ConstTensor::Copy(DType::kFloat16, shape, h.data());
}


// The 16-bit patterns of a float16 or bfloat16 tensor.
std::vector<uint16_t> Bits(const ConstTensor& t) {
  std::vector<uint16_t> out(static_cast<size_t>(t.num_elements()));
  std::memcpy(out.data(), t.data, out.size() * 2);
  return out;
}

TEST(OnnxDTypes, Float16ArithmeticRoundsBackToFloat16) {
  Model m;
  m.Input("a", kF16, {4});
  m.Input("b", kF16, {4});
  // w = {2, 0.5, 1, -2} as float16 bit patterns in int32_data.
  m.Int32Data("w", kF16, {4}, {0x4000, 0x3800, 0x3C00, 0xC000});
  m.Node("Add", {"a", "b"}, {"sum"});
  m.Node("Mul", {"a", "w"}, {"product"});
  m.Output("sum", kF16, {4});
  m.Output("product", kF16, {4});
  // float16(0.1) = 0x2E66 = 0.0999755859375, float16(0.2) = 0x3266 = 0.199951171875.
  auto out =
      RunModel(m, {Halfs({4}, {1.5f, -2.25f, 65504, 0.1f}), Halfs({4}, {0.25f, 1, 32, 0.2f})});
  ASSERT_EQ(out.size(), 2u);
  ASSERT_EQ(out[0].dtype, DType::kFloat16);
  ASSERT_EQ(out[1].dtype, DType::kFloat16);
  // 1.5 + 0.25 = 1.75 (0x3F00); -2.25 + 1 = -1.25 (0xBD00); 65504 + 32 = 65536
  // lies halfway between 65504 (odd mantissa 0x3FF) and 2^16, rounds to even:
  // past the largest float16, +inf (0x7C00); 0.0999755859375 + 0.199951171875
  // = 0.2999267578125 = 1228.5 * 2^-12, halfway, rounds to the even 1228 *
  // 2^-12 = 0.2998046875 (0x34CC), not 0.3000488 (0x34CD).
  EXPECT_EQ(Bits(out[0]), (std::vector<uint16_t>{0x3F00, 0xBD00, 0x7C00, 0x34CC}));
  // 1.5 * 2 = 3 (0x4200); -2.25 * 0.5 = -1.125 (0xBC80); 65504 * 1 = 65504
  // (0x7BFF); 0.0999755859375 * -2 = -0.199951171875 (0xB266), all exact.
  EXPECT_EQ(Bits(out[1]), (std::vector<uint16_t>{0x4200, 0xBC80, 0x7BFF, 0xB266}));
}

// A float16 Conv (NCHW, moved to tfn's NHWC by transposes) with a bias,
// then Relu: the float16 weights are cast at import, the result rounds back.
TEST(OnnxDTypes, Float16ConvThroughTheLayoutPasses) {
  Model m;
  m.Input("x", kF16, {1, 1, 2, 2});
  m.Int32Data("w", kF16, {2, 1, 1, 1}, {0x4000, 0xBC00});  // {2, -1}
  m.Int32Data("b", kF16, {2}, {0x3800, 0});                // {0.5, 0}
  m.Node("Conv", {"x", "w", "b"}, {"conv"});
  m.Node("Relu", {"conv"}, {"y"});
  m.Output("y", kF16, {1, 2, 2, 2});
  auto out = RunModel(m, {Halfs({1, 1, 2, 2}, {1, -2, 0.25f, 3})});
  ASSERT_EQ(out.size(), 1u);
  ASSERT_EQ(out[0].dtype, DType::kFloat16);
  // Channel 0: relu(2x + 0.5) = {2.5, 0, 1, 6.5}; channel 1: relu(-x) = {0, 2, 0, 0}.
  const std::vector<Float16> h = Values<Float16>(out[0]);
  EXPECT_EQ(std::vector<float>(h.begin(), h.end()),
            (std::vector<float>{2.5f, 0, 1, 6.5f, 0, 2, 0, 0}));
}

TEST(OnnxDTypes, SmallAndUnsignedIntegersComputeWiderAndWrapBack) {
  Model m;
  m.Input("a", onnx::TensorProto::UINT8, {3});
  m.Input("b", onnx::TensorProto::UINT8, {3});
  m.Input("c", onnx::TensorProto::UINT16, {2});
  m.Input("d", onnx::TensorProto::UINT16, {2});
  m.Input("e", onnx::TensorProto::UINT32, {2});
  m.Input("f", onnx::TensorProto::UINT32, {2});
  m.Input("g", onnx::TensorProto::INT8, {3});
  m.Input("h", onnx::TensorProto::INT8, {3});
  m.Node("Add", {"a", "b"}, {"add"});
  m.Node("Sub", {"a", "b"}, {"sub"});
  m.Node("Mul", {"c", "d"}, {"mul"});
  m.Node("Max", {"e", "f"}, {"max"});
  m.Node("Less", {"g", "h"}, {"less"});
  m.Node("Div", {"g", "h"}, {"div"});
  onnx::NodeProto* arg = m.Node("ArgMax", {"a"}, {"argmax"});
  SetInt(arg, "axis", 0);
  SetInt(arg, "keepdims", 0);
  m.Output("add", onnx::TensorProto::UINT8, {3});
  m.Output("sub", onnx::TensorProto::UINT8, {3});
  m.Output("mul", onnx::TensorProto::UINT16, {2});
  m.Output("max", onnx::TensorProto::UINT32, {2});
  m.Output("less", onnx::TensorProto::BOOL, {3});
  m.Output("div", onnx::TensorProto::INT8, {3});
  m.Output("argmax", onnx::TensorProto::INT64, {});
  auto out = RunModel(m, {Tensor<uint8_t>(DType::kUInt8, {3}, {250, 3, 16}),
                          Tensor<uint8_t>(DType::kUInt8, {3}, {10, 4, 17}),
                          Tensor<uint16_t>(DType::kUInt16, {2}, {65535, 300}),
                          Tensor<uint16_t>(DType::kUInt16, {2}, {65535, 300}),
                          Tensor<uint32_t>(DType::kUInt32, {2}, {4000000000u, 1}),
                          Tensor<uint32_t>(DType::kUInt32, {2}, {3, 4294967295u}),
                          Tensor<int8_t>(DType::kInt8, {3}, {-128, 7, -7}),
                          Tensor<int8_t>(DType::kInt8, {3}, {-1, 2, 2})});
  ASSERT_EQ(out.size(), 7u);
  // 250 + 10 = 260 = 4 mod 256; 3 - 4 and 16 - 17 wrap to 255.
  EXPECT_EQ(Values<uint8_t>(out[0]), (std::vector<uint8_t>{4, 7, 33}));
  EXPECT_EQ(Values<uint8_t>(out[1]), (std::vector<uint8_t>{240, 255, 255}));
  // 65535^2 = 0xFFFE0001 = 1 mod 2^16 (past int32's range, where the int32
  // product wraps too); 300^2 = 90000 = 24464 mod 2^16.
  EXPECT_EQ(out[2].dtype, DType::kUInt16);
  EXPECT_EQ(Values<uint16_t>(out[2]), (std::vector<uint16_t>{1, 24464}));
  // Beyond int32: uint32 is computed in int64.
  EXPECT_EQ(Values<uint32_t>(out[3]), (std::vector<uint32_t>{4000000000u, 4294967295u}));
  // Comparisons and ArgMax keep their own dtypes (bool, int64), not cast back.
  ASSERT_EQ(out[4].dtype, DType::kBool);
  EXPECT_EQ(Values<bool>(out[4]), (std::vector<bool>{true, false, true}));
  // -128 / -1 = 128 wraps to -128, as int8 division does in C; 7 / 2 = 3 and
  // -7 / 2 = -3 (truncation, tfn's integer division).
  EXPECT_EQ(Values<int8_t>(out[5]), (std::vector<int8_t>{-128, 3, -3}));
  ASSERT_EQ(out[6].dtype, DType::kInt64);
  EXPECT_EQ(Values<int64_t>(out[6]), (std::vector<int64_t>{0}));
}

TEST(OnnxDTypes, Uint64IsCastButNotComputedOn) {
  Model m;
  m.Input("x", onnx::TensorProto::UINT64, {2});
  SetInt(m.Node("Cast", {"x"}, {"y"}), "to", onnx::TensorProto::DOUBLE);
  m.Output("y", onnx::TensorProto::DOUBLE, {2});
  auto out = RunModel(m, {Tensor<uint64_t>(DType::kUInt64, {2}, {uint64_t{1} << 63, 5})});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(Values<double>(out[0]), (std::vector<double>{9223372036854775808.0, 5}));

  Model add;
  add.Input("a", onnx::TensorProto::UINT64, {2});
  add.Input("b", onnx::TensorProto::UINT64, {2});
  add.Node("Add", {"a", "b"}, {"sum"});
  add.Output("sum", onnx::TensorProto::UINT64, {2});
  std::string error;
  RunModel(add, {}, &error);
  EXPECT_NE(error.find("node 'sum' (Add): tfn's add on uint64 is not supported"), std::string::npos)
      << error;
  EXPECT_NE(error.find("no wider dtype holds every uint64"), std::string::npos) << error;
}

TEST(OnnxDTypes, CastToBFloat16TruncatesAndToFloat16Rounds) {
  Model m;
  m.Input("x", kF, {4});
  m.Input("like", kBF16, {1});
  onnx::NodeProto* bf = m.Node("Cast", {"x"}, {"bf16"});
  SetInt(bf, "to", kBF16);
  onnx::NodeProto* h = m.Node("Cast", {"x"}, {"f16"});
  SetInt(h, "to", kF16);
  m.Node("CastLike", {"x", "like"}, {"like_bf16"});
  onnx::NodeProto* back = m.Node("Cast", {"bf16"}, {"back"});
  SetInt(back, "to", kF);
  m.Output("bf16", kBF16, {4});
  m.Output("f16", kF16, {4});
  m.Output("like_bf16", kBF16, {4});
  m.Output("back", kF, {4});
  // x: 1.505859375 (0x3FC0C000), 1 + 2^-11 (0x3F801000), 1 + 3 * 2^-11
  // (0x3F803000) and the float just above -3 (0xC03FFFFF).
  uint32_t bits[4] = {0x3FC0C000u, 0x3F801000u, 0x3F803000u, 0xC03FFFFFu};
  std::vector<float> x(4);
  std::memcpy(x.data(), bits, sizeof(bits));
  auto out = RunModel(
      m, {Tensor<float>(DType::kFloat32, {4}, x), Tensor<uint16_t>(DType::kBFloat16, {1}, {0})});
  ASSERT_EQ(out.size(), 4u);
  // BFLOAT16 keeps the high 16 bits: 0x3FC0 (1.5) and 0xC03F (-2.984375)
  // where rounding to nearest would give 0x3FC1 and 0xC040 (-3).
  ASSERT_EQ(out[0].dtype, DType::kBFloat16);
  EXPECT_EQ(Bits(out[0]), (std::vector<uint16_t>{0x3FC0, 0x3F80, 0x3F80, 0xC03F}));
  EXPECT_EQ(Bits(out[2]), Bits(out[0]));  // CastLike to a BFLOAT16 truncates too
  // FLOAT16 rounds to nearest even: 1.505859375 = 1542 * 2^-10 is exact
  // (0x3E06); 1 + 2^-11 is halfway between 1 and 1 + 2^-10 and goes to the
  // even 1 (0x3C00); 1 + 3 * 2^-11 is halfway between mantissas 1 and 2 and
  // goes to 2 (0x3C02, where truncation gives 0x3C01); -2.9999998 rounds to -3
  // (0xC200).
  ASSERT_EQ(out[1].dtype, DType::kFloat16);
  EXPECT_EQ(Bits(out[1]), (std::vector<uint16_t>{0x3E06, 0x3C00, 0x3C02, 0xC200}));
  // bfloat16 back to float is exact.
  EXPECT_EQ(Values<float>(out[3]), (std::vector<float>{1.5f, 1.0f, 1.0f, -2.984375f}));
}

TEST(OnnxDTypes, QuantizeLinearPerTensor) {
  Model m;
  m.Input("x", kF, {6});
  m.FloatData("scale", {}, {2});
  m.Int32Data("zero_point", onnx::TensorProto::UINT8, {}, {10});
  m.Node("QuantizeLinear", {"x", "scale", "zero_point"}, {"y"});
  m.Output("y", onnx::TensorProto::UINT8, {6});
  auto out = RunModel(m, {Tensor<float>(DType::kFloat32, {6}, {5, 7, -3, 1000, -1000, 0.9f})});
  ASSERT_EQ(out.size(), 1u);
  ASSERT_EQ(out[0].dtype, DType::kUInt8);
  // x / 2 = 2.5, 3.5, -1.5 round half to even to 2, 4, -2, plus 10; 500 + 10
  // saturates to 255, -500 + 10 to 0; 0.45 rounds to 0.
  EXPECT_EQ(Values<uint8_t>(out[0]), (std::vector<uint8_t>{12, 14, 8, 255, 0, 10}));
}

TEST(OnnxDTypes, QuantizeLinearWithoutZeroPointIsUint8AtOpset10) {
  Model m(10);
  m.Input("x", kF, {4});
  m.FloatData("scale", {}, {1});
  m.Node("QuantizeLinear", {"x", "scale"}, {"y"});
  m.Output("y", onnx::TensorProto::UINT8, {4});
  auto out = RunModel(m, {Tensor<float>(DType::kFloat32, {4}, {-5, 254.5f, 255.5f, 3})});
  ASSERT_EQ(out.size(), 1u);
  ASSERT_EQ(out[0].dtype, DType::kUInt8);
  // -5 saturates to 0; 254.5 rounds to the even 254; 255.5 to 256, saturated to 255.
  EXPECT_EQ(Values<uint8_t>(out[0]), (std::vector<uint8_t>{0, 254, 255, 3}));
}

TEST(OnnxDTypes, QuantizeLinearPerAxis) {
  Model m;
  m.Input("x", kF, {2, 3});
  m.FloatData("scale", {3}, {1, 0.5f, 4});
  m.Int32Data("zero_point", onnx::TensorProto::INT8, {3}, {0, -10, 100});
  m.Node("QuantizeLinear", {"x", "scale", "zero_point"}, {"y"});  // axis 1 by default
  m.Output("y", onnx::TensorProto::INT8, {2, 3});
  auto out =
      RunModel(m, {Tensor<float>(DType::kFloat32, {2, 3}, {1.5f, 1.25f, 10, -130, -60, 110})});
  ASSERT_EQ(out.size(), 1u);
  ASSERT_EQ(out[0].dtype, DType::kInt8);
  // Column 0 (scale 1, zero 0): 1.5 -> 2 (even), -130 saturates to -128.
  // Column 1 (0.5, -10): 2.5 -> 2, -8; -120 - 10 = -130 saturates to -128.
  // Column 2 (4, 100): 2.5 -> 2, 102; 27.5 -> 28, 128 saturates to 127.
  EXPECT_EQ(Values<int8_t>(out[0]), (std::vector<int8_t>{2, -8, 102, -128, -128, 127}));
}

TEST(OnnxDTypes, DequantizeLinearPerTensorAndPerAxis) {
  Model m;
  m.Input("q", onnx::TensorProto::UINT8, {4});
  m.FloatData("scale", {}, {0.5f});
  m.Int32Data("zero_point", onnx::TensorProto::UINT8, {}, {128});
  m.Node("DequantizeLinear", {"q", "scale", "zero_point"}, {"y"});
  m.Input("p", onnx::TensorProto::INT8, {2, 2});
  m.FloatData("row_scale", {2}, {0.5f, 2});
  m.Int32Data("row_zero", onnx::TensorProto::INT8, {2}, {1, -3});
  SetInt(m.Node("DequantizeLinear", {"p", "row_scale", "row_zero"}, {"z"}), "axis", 0);
  m.Output("y", kF, {4});
  m.Output("z", kF, {2, 2});
  auto out = RunModel(m, {Tensor<uint8_t>(DType::kUInt8, {4}, {0, 3, 128, 255}),
                          Tensor<int8_t>(DType::kInt8, {2, 2}, {-128, 127, 0, 5})});
  ASSERT_EQ(out.size(), 2u);
  // (q - 128) * 0.5.
  EXPECT_EQ(Values<float>(out[0]), (std::vector<float>{-64, -62.5f, 0, 63.5f}));
  // Row 0: (p - 1) * 0.5; row 1: (p + 3) * 2.
  EXPECT_EQ(Values<float>(out[1]), (std::vector<float>{-64.5f, 63, 6, 16}));
}

TEST(OnnxDTypes, RangeOfInt16) {
  Model m;
  for (const char* name : {"start", "limit", "delta"}) m.Input(name, onnx::TensorProto::INT16, {});
  m.Node("Range", {"start", "limit", "delta"}, {"y"});
  m.Output("y", onnx::TensorProto::INT16, {-1});
  auto out = RunModel(
      m, {Tensor<int16_t>(DType::kInt16, {}, {-300}), Tensor<int16_t>(DType::kInt16, {}, {300}),
          Tensor<int16_t>(DType::kInt16, {}, {250})});
  ASSERT_EQ(out.size(), 1u);
  ASSERT_EQ(out[0].dtype, DType::kInt16);
  EXPECT_EQ(Values<int16_t>(out[0]), (std::vector<int16_t>{-300, -50, 200}));
}

}  // namespace
}  // namespace tfn::onnx_import
