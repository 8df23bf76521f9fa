// Tests of the reduced-precision dtypes in the kernels: cast between every
// kind of dtype (hand-computed values: rounding ties, saturation, wrap-around,
// NaN), quantize_linear and dequantize_linear per tensor and per axis, and the
// data-movement kernels on float16/bfloat16/int8/uint8 — in the reference and
// the optimized variant (which must agree bit for bit).
#include <cmath>
#include <limits>

#include "kernels/testing/kernel_test_util.h"

namespace tfn::kernels::testing {
namespace {

using HT = HostTensor;

Attrs CastTo(DType t, bool truncate = false) {
  Attrs a;
  a.Set("dtype", AttrValue::Type(t));
  if (truncate) a.Set("truncate", AttrValue::Int(1));
  return a;
}

// Runs op in both variants, checks they agree byte for byte, returns the reference's.
HT RunBoth(OpId op, std::vector<HT> inputs, const Attrs& attrs, int threads = 1) {
  std::string error;
  auto ref = RunOp(op, inputs, attrs, Variant::kReference, &error, threads);
  EXPECT_EQ(ref.size(), 1u) << error;
  auto opt = RunOp(op, inputs, attrs, Variant::kOptimized, &error, threads);
  EXPECT_EQ(opt.size(), 1u) << error;
  if (ref.size() != 1 || opt.size() != 1) return HT();
  EXPECT_EQ(ref[0].dtype, opt[0].dtype);
  EXPECT_EQ(ref[0].bytes, opt[0].bytes) << OpName(op) << ": the variants disagree";
  return ref[0];
}

std::vector<uint16_t> Bits(const HT& t) { return t.values<uint16_t>(); }

TEST(ReducedPrecision, CastFloat32ToFloat16RoundsToNearestEven) {
  const float inf = std::numeric_limits<float>::infinity();
  // 1 + 2^-11 is halfway between 1 and 1 + 2^-10: to even (1). 1 + 3*2^-11
  // is halfway between 1 + 2^-10 and 1 + 2^-9: to even (1 + 2^-9). 65519.9
  // rounds to 65504 (the largest), 65520 (halfway) to inf. 2^-25 is halfway
  // between 0 and the smallest subnormal 2^-24: to even (0); 3*2^-26 → 2^-24.
  HT x = HT::Of<float>({10}, {1.0f, 1.00048828125f, 1.00146484375f, -2.0f, 65519.9f, 65520.0f,
                              std::ldexp(1.0f, -25), 3 * std::ldexp(1.0f, -26), 0.1f, -inf});
  HT y = RunBoth(OpId::kCast, {x}, CastTo(DType::kFloat16));
  EXPECT_EQ(y.dtype, DType::kFloat16);
  EXPECT_EQ(Bits(y), (std::vector<uint16_t>{0x3C00, 0x3C00, 0x3C02, 0xC000, 0x7BFF, 0x7C00, 0x0000,
                                            0x0001, 0x2E66, 0xFC00}));
  HT back = RunBoth(OpId::kCast, {y}, CastTo(DType::kFloat32));
  EXPECT_EQ(back.values<float>(),
            (std::vector<float>{1.0f, 1.0f, 1.001953125f, -2.0f, 65504.0f, inf, 0.0f,
                                std::ldexp(1.0f, -24), 0.0999755859375f, -inf}));
}

TEST(ReducedPrecision, CastToBFloat16RoundsOrTruncates) {
  auto f = [](uint32_t bits) {
    float v;
    std::memcpy(&v, &bits, 4);
    return v;
  };
  // 0x3F808000 is halfway between 0x3F80 and 0x3F81: to even. 0x3F818000:
  // halfway, to even 0x3F82. 0x3F81FFFF rounds up, truncates down.
  HT x = HT::Of<float>({4}, {f(0x3F808000), f(0x3F818000), f(0x3F81FFFF), f(0xC0490FDB)});
  EXPECT_EQ(Bits(RunBoth(OpId::kCast, {x}, CastTo(DType::kBFloat16))),
            (std::vector<uint16_t>{0x3F80, 0x3F82, 0x3F82, 0xC049}));
  EXPECT_EQ(Bits(RunBoth(OpId::kCast, {x}, CastTo(DType::kBFloat16, true))),
            (std::vector<uint16_t>{0x3F80, 0x3F81, 0x3F81, 0xC049}));
  HT b = HT::Of<BFloat16>({2}, {BFloat16::FromBits(0x3FC0), BFloat16::FromBits(0xC2F7)});
  EXPECT_EQ(RunBoth(OpId::kCast, {b}, CastTo(DType::kFloat64)).values<double>(),
            (std::vector<double>{1.5, -123.5}));
}

TEST(ReducedPrecision, CastIntegersWrapFloatsSaturate) {
  // int → smaller int wraps modulo 2^bits (C's conversion); float → int
  // truncates toward zero, saturates, NaN → 0.
  HT i = HT::Of<int32_t>({4}, {300, -129, 255, -1});
  EXPECT_EQ(RunBoth(OpId::kCast, {i}, CastTo(DType::kInt8)).values<int8_t>(),
            (std::vector<int8_t>{44, 127, -1, -1}));
  EXPECT_EQ(RunBoth(OpId::kCast, {i}, CastTo(DType::kUInt16)).values<uint16_t>(),
            (std::vector<uint16_t>{300, 65407, 255, 65535}));
  const float nan = std::numeric_limits<float>::quiet_NaN();
  HT f = HT::Of<float>({5}, {300.7f, -5.5f, 2.9f, nan, -0.9f});
  EXPECT_EQ(RunBoth(OpId::kCast, {f}, CastTo(DType::kUInt8)).values<uint8_t>(),
            (std::vector<uint8_t>{255, 0, 2, 0, 0}));
  EXPECT_EQ(RunBoth(OpId::kCast, {f}, CastTo(DType::kInt16)).values<int16_t>(),
            (std::vector<int16_t>{300, -5, 2, 0, 0}));
  // uint64 above 2^63 stays exact through the wide value.
  HT u = HT::Of<uint64_t>({2}, {18446744073709551615ull, 9223372036854775808ull});
  EXPECT_EQ(RunBoth(OpId::kCast, {u}, CastTo(DType::kFloat64)).values<double>(),
            (std::vector<double>{18446744073709551616.0, 9223372036854775808.0}));
  EXPECT_EQ(RunBoth(OpId::kCast, {u}, CastTo(DType::kInt64)).values<int64_t>(),
            (std::vector<int64_t>{-1, std::numeric_limits<int64_t>::min()}));
  HT b = HT::Of<uint8_t>({3}, {0, 2, 255});
  EXPECT_EQ(RunBoth(OpId::kCast, {b}, CastTo(DType::kBool)).values<bool>(),
            (std::vector<bool>{false, true, true}));
}

TEST(ReducedPrecision, CastOfALargeTensorOnTwoThreads) {
  HT x = HT::Random(DType::kFloat32, {3, 70001}, 7, -70000, 70000);
  HT h = RunBoth(OpId::kCast, {x}, CastTo(DType::kFloat16), 2);
  const std::vector<float> xs = x.values<float>();
  const std::vector<uint16_t> hs = Bits(h);
  for (size_t k = 0; k < xs.size(); k += 997) ASSERT_EQ(hs[k], FloatToHalfBits(xs[k])) << k;
}

TEST(ReducedPrecision, DataMovementOnEveryDtypeSize) {
  HT h = HT::Of<Float16>({2, 3}, {1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f});
  Attrs perm;
  perm.Set("perm", AttrValue::Ints({1, 0}));
  HT t = RunBoth(OpId::kTranspose, {h}, perm);
  EXPECT_EQ(t.shape, (Shape{3, 2}));
  EXPECT_EQ(Bits(t), (std::vector<uint16_t>{0x3C00, 0x4400, 0x4000, 0x4500, 0x4200, 0x4600}));
  HT q = HT::Of<int8_t>({2, 2}, {-1, 2, -3, 4});
  Attrs axis;
  axis.Set("axis", AttrValue::Int(1));
  HT c = RunBoth(OpId::kConcat, {q, q}, axis);
  EXPECT_EQ(c.values<int8_t>(), (std::vector<int8_t>{-1, 2, -1, 2, -3, 4, -3, 4}));
  HT g = RunBoth(
      OpId::kGather,
      {HT::Of<uint64_t>({3}, {7, 8, 18446744073709551615ull}), HT::Of<int64_t>({2}, {2, 0})},
      Attrs());
  EXPECT_EQ(g.values<uint64_t>(), (std::vector<uint64_t>{18446744073709551615ull, 7}));
  Attrs pad;
  pad.Set("paddings", AttrValue::Ints({1, 0}));
  pad.Set("constant_value", AttrValue::Float(7));
  HT p = RunBoth(OpId::kPad, {HT::Of<uint8_t>({2}, {200, 201})}, pad);
  EXPECT_EQ(p.values<uint8_t>(), (std::vector<uint8_t>{7, 200, 201}));
  pad.Set("constant_value", AttrValue::Float(-1.5));
  p = RunBoth(OpId::kPad, {HT::Of<BFloat16>({1}, {BFloat16(2.0f)})}, pad);
  EXPECT_EQ(Bits(p), (std::vector<uint16_t>{0xBFC0, 0x4000}));
}

HT Quantize(std::vector<HT> in, DType to, int64_t axis = 1, std::string* error = nullptr) {
  Attrs a;
  a.Set("dtype", AttrValue::Type(to));
  a.Set("axis", AttrValue::Int(axis));
  if (error) {
    auto out = RunOp(OpId::kQuantizeLinear, in, a, Variant::kReference, error);
    return out.empty() ? HT() : out[0];
  }
  return RunBoth(OpId::kQuantizeLinear, in, a);
}

HT Dequantize(std::vector<HT> in, int64_t axis = 1) {
  Attrs a;
  a.Set("axis", AttrValue::Int(axis));
  return RunBoth(OpId::kDequantizeLinear, in, a);
}

TEST(ReducedPrecision, QuantizePerTensor) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  // x / 0.5 = -2, 0.5, 1, 3, 5, 2000, -2000, 2.5, NaN; half to even: 0.5 → 0,
  // 2.5 → 2; + 3; saturated to [-128, 127]; NaN → 0.
  HT x = HT::Of<float>({9}, {-1.0f, 0.25f, 0.5f, 1.5f, 2.5f, 1000.0f, -1000.0f, 1.25f, nan});
  HT y = Quantize({x, HT::Of<float>({}, {0.5f}), HT::Of<int8_t>({}, {3})}, DType::kInt8);
  EXPECT_EQ(y.dtype, DType::kInt8);
  EXPECT_EQ(y.values<int8_t>(), (std::vector<int8_t>{1, 3, 4, 6, 8, 127, -128, 5, 0}));
  // No zero point: 0, and the output dtype the attribute names.
  HT u = Quantize({HT::Of<float>({3}, {-1.0f, 25.4f, 300.0f}), HT::Of<float>({1}, {0.1f})},
                  DType::kUInt8);
  EXPECT_EQ(u.values<uint8_t>(), (std::vector<uint8_t>{0, 254, 255}));
}

TEST(ReducedPrecision, QuantizePerAxisAndFromFloat16) {
  HT x = HT::Of<float>({2, 3}, {1.0f, 1.0f, 1.0f, -2.0f, -2.0f, -2.0f});
  HT s = HT::Of<float>({3}, {1.0f, 0.5f, 0.25f});
  HT zp = HT::Of<uint8_t>({3}, {0, 10, 128});
  HT y = Quantize({x, s, zp}, DType::kUInt8, 1);
  EXPECT_EQ(y.values<uint8_t>(), (std::vector<uint8_t>{1, 12, 132, 0, 6, 120}));
  // Along axis 0 with negative axis numbering.
  HT y0 = Quantize({x, HT::Of<float>({2}, {0.5f, 2.0f}), HT::Of<int8_t>({2}, {0, 0})}, DType::kInt8,
                   -2);
  EXPECT_EQ(y0.values<int8_t>(), (std::vector<int8_t>{2, 2, 2, -1, -1, -1}));
  HT h = HT::Of<Float16>({2}, {Float16(3.0f), Float16(-7.0f)});
  HT yh = Quantize({h, HT::Of<Float16>({}, {Float16(2.0f)})}, DType::kInt8);
  EXPECT_EQ(yh.values<int8_t>(), (std::vector<int8_t>{2, -4}));  // 1.5 → 2, -3.5 → -4
}

TEST(ReducedPrecision, DequantizePerTensorPerAxisAndInt32) {
  HT x = HT::Of<uint8_t>({4}, {0, 128, 129, 255});
  HT y = Dequantize({x, HT::Of<float>({}, {0.5f}), HT::Of<uint8_t>({}, {128})});
  EXPECT_EQ(y.dtype, DType::kFloat32);
  EXPECT_EQ(y.values<float>(), (std::vector<float>{-64.0f, 0.0f, 0.5f, 63.5f}));
  HT q = HT::Of<int8_t>({2, 2}, {-128, 127, 1, -1});
  HT yq = Dequantize({q, HT::Of<float>({2}, {1.0f, 0.25f}), HT::Of<int8_t>({2}, {0, 1})}, 0);
  EXPECT_EQ(yq.values<float>(), (std::vector<float>{-128.0f, 127.0f, 0.0f, -0.5f}));
  // int32 (a bias at input_scale × weight_scale), no zero point, float16 scale.
  HT b = HT::Of<int32_t>({2}, {1000000, -3});
  HT yb = Dequantize({b, HT::Of<Float16>({}, {Float16(0.125f)})});
  EXPECT_EQ(yb.dtype, DType::kFloat16);
  EXPECT_EQ(Bits(yb), (std::vector<uint16_t>{0x7C00, 0xB600}));  // 125000 → inf, -0.375
}

TEST(ReducedPrecision, QuantizeErrorsNameTheInput) {
  std::string error;
  HT x = HT::Of<float>({2, 3}, {0, 0, 0, 0, 0, 0});
  Quantize({x, HT::Of<float>({2}, {1, 1})}, DType::kInt8, 1, &error);
  EXPECT_NE(
      error.find("scale f32[2] must hold one value, or one per index of axis 1 of x f32[2,3]"),
      std::string::npos)
      << error;
  Quantize({x, HT::Of<float>({3}, {1, 1, 1}), HT::Of<int8_t>({1}, {0})}, DType::kInt8, 1, &error);
  EXPECT_NE(error.find("zero_point int8[1] must hold one value, or one per index of axis 1"),
            std::string::npos)
      << error;
  Quantize({x, HT::Of<float>({}, {1}), HT::Of<uint8_t>({}, {0})}, DType::kInt8, 1, &error);
  EXPECT_NE(error.find("zero_point uint8[] must have the output dtype int8"), std::string::npos)
      << error;
  Quantize({x, HT::Of<float>({}, {1})}, DType::kFloat32, 1, &error);
  EXPECT_NE(error.find("dtype must be int8, uint8, int16, uint16 or int32, got f32"),
            std::string::npos)
      << error;
}

}  // namespace
}  // namespace tfn::kernels::testing
