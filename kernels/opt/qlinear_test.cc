// The optimized quantized linear kernels (opt/qlinear.cc on the int8 GEMM,
// opt/qlinear_depthwise.cc) against the reference kernels (ref/qlinear.cc),
// bit for bit, under every instruction set the CPU has and 1 or 2 threads:
// 1x1 (input read in place), 3x3 padded and strided (through the
// indirection table when the filter is symmetric), dilated, grouped and
// depthwise convolutions, matmuls with shared, batched and broadcast b, all
// four dtype pairs, per-tensor and per-channel filter parameters, relu and
// clip, the int32 *_integer ops, and qlinear_add (opt/qlinear_add.cc).
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "kernels/opt/opt_test_util.h"

namespace tfn::kernels::testing {
namespace {

DType Q8(bool is_signed) { return is_signed ? DType::kInt8 : DType::kUInt8; }

HostTensor Bytes(bool is_signed, const Shape& shape, std::mt19937& rng) {
  HostTensor t;
  t.dtype = Q8(is_signed);
  t.shape = shape;
  t.bytes.resize(NumElements(shape));
  for (auto& b : t.bytes) b = static_cast<unsigned char>(rng());
  return t;
}

HostTensor ZeroPoints(bool is_signed, int64_t count, std::mt19937& rng) {
  HostTensor t = Bytes(is_signed, count == 1 ? Shape{} : Shape{count}, rng);
  // Keep zero points near the middle of the range, as calibration makes them.
  for (auto& b : t.bytes) b = static_cast<unsigned char>((is_signed ? 0 : 128) + rng() % 41 - 20);
  return t;
}

HostTensor Scales(int64_t count, float base, std::mt19937& rng) {
  std::vector<float> v(count);
  for (auto& s : v) s = base * (0.5f + (rng() % 1000) / 1000.0f);
  return HostTensor::Of<float>(count == 1 ? Shape{} : Shape{count}, v);
}

HostTensor Bias(int64_t count, std::mt19937& rng) {
  std::vector<int32_t> v(count);
  for (auto& b : v) b = static_cast<int32_t>(rng() % 40001) - 20000;
  return HostTensor::Of<int32_t>(Shape{count}, v);
}

void ExpectSame(OpId op, const std::vector<HostTensor>& in, const Attrs& attrs) {
  std::string error;
  auto ref = RunOp(op, in, attrs, Variant::kReference, &error);
  ASSERT_FALSE(ref.empty()) << error;
  ForEachConfig([&](const std::string& label) {
    const int threads = label.find("2 threads") != std::string::npos ? 2 : 1;
    auto opt = RunOp(op, in, attrs, Variant::kOptimized, &error, threads);
    ASSERT_FALSE(opt.empty()) << label << ": " << error;
    EXPECT_TRUE(BitEqual(opt[0], ref[0])) << label;
  });
}

struct ConvCase {
  int64_t n, h, w, c, kh, kw, cout, groups, stride, dilation;
  std::string padding;
  bool x_signed, w_signed, per_channel;
  std::string act;
};

// symmetric_w: the filter's zero points are 0 (TFLite's int8 weights), so
// the VNNI kernel reads the input through the indirection table (qgemm.h)
// instead of gathering rows.
void CheckConv(const ConvCase& k, uint32_t seed, bool integer, bool symmetric_w = false) {
  SCOPED_TRACE("conv " + std::to_string(k.h) + "x" + std::to_string(k.w) + "x" +
               std::to_string(k.c) + " k" + std::to_string(k.kh) + " cout " +
               std::to_string(k.cout) + " groups " + std::to_string(k.groups) + " " + k.padding +
               " " + k.act + (integer ? " integer" : "") + (symmetric_w ? " symmetric" : ""));
  std::mt19937 rng(seed);
  const HostTensor x = Bytes(k.x_signed, {k.n, k.h, k.w, k.c}, rng);
  const HostTensor f = Bytes(k.w_signed, {k.kh, k.kw, k.c / k.groups, k.cout}, rng);
  Attrs attrs;
  attrs.Set("strides", AttrValue::Ints({k.stride, k.stride}));
  attrs.Set("dilations", AttrValue::Ints({k.dilation, k.dilation}));
  attrs.Set("groups", AttrValue::Int(k.groups));
  attrs.Set("padding", AttrValue::String(k.padding));
  const int64_t wc = k.per_channel ? k.cout : 1;
  auto w_zero_points = [&] {
    HostTensor z = ZeroPoints(k.w_signed, wc, rng);
    if (symmetric_w) {
      for (auto& b : z.bytes) b = k.w_signed ? 0 : 128;  // int8 0, or uint8 128 (flipped: 0)
    }
    return z;
  };
  if (integer) {
    ExpectSame(OpId::kConv2DInteger, {x, f, ZeroPoints(k.x_signed, 1, rng), w_zero_points()},
               attrs);
    return;
  }
  attrs.Set("activation", AttrValue::String(k.act));
  attrs.Set("clip_min", AttrValue::Float(0.0));
  attrs.Set("clip_max", AttrValue::Float(6.0));
  const float window = static_cast<float>(k.kh * k.kw * k.c / k.groups);
  ExpectSame(OpId::kQLinearConv2D,
             {x, Scales(1, 0.05f, rng), ZeroPoints(k.x_signed, 1, rng), f, Scales(wc, 0.01f, rng),
              w_zero_points(), Scales(1, 0.0005f * window, rng), ZeroPoints(k.x_signed, 1, rng),
              Bias(k.cout, rng)},
             attrs);
}

TEST(QLinearKernels, ConvolutionsMatchTheReference) {
  const ConvCase cases[] = {
      {1, 7, 9, 16, 1, 1, 24, 1, 1, 1, "VALID", false, true, false, "none"},  // A in place
      {2, 9, 8, 8, 3, 3, 33, 1, 1, 1, "SAME", false, true, true, "relu"},
      {1, 11, 10, 3, 3, 3, 16, 1, 2, 1, "SAME", true, true, true, "clip"},      // K = 27, int8 x
      {1, 12, 12, 12, 3, 3, 12, 12, 1, 1, "SAME", false, true, true, "relu"},   // depthwise
      {1, 13, 13, 40, 5, 5, 40, 40, 2, 1, "SAME", true, false, false, "none"},  // depthwise 5x5
      {1, 15, 17, 24, 3, 3, 24, 24, 1, 2, "SAME", true, true, true, "relu"},    // dilated
      {2, 9, 21, 16, 3, 3, 16, 16, 2, 1, "VALID", false, false, false, "clip"},
      {1, 10, 10, 16, 3, 3, 32, 4, 1, 2, "VALID", false, false, true, "clip"},  // grouped, dilated
      {1, 5, 6, 64, 1, 1, 40, 1, 2, 1, "VALID", true, false, false, "none"},    // 1x1 strided
  };
  uint32_t seed = 1;
  for (const ConvCase& c : cases) {
    CheckConv(c, seed++, false);
    CheckConv(c, seed++, true);
    CheckConv(c, seed++, false, /*symmetric_w=*/true);
    CheckConv(c, seed++, true, /*symmetric_w=*/true);
  }
}

void CheckMatMul(const Shape& a_shape, const Shape& b_shape, bool a_signed, bool b_signed,
                 bool per_column, const std::string& act, uint32_t seed) {
  SCOPED_TRACE("matmul a " + ShapeToString(a_shape) + " b " + ShapeToString(b_shape) + " " + act);
  std::mt19937 rng(seed);
  const HostTensor a = Bytes(a_signed, a_shape, rng), b = Bytes(b_signed, b_shape, rng);
  const int64_t n = b_shape[b_shape.rank() - 1], k = a_shape[a_shape.rank() - 1];
  const int64_t wc = per_column ? n : 1;
  Attrs attrs;
  attrs.Set("activation", AttrValue::String(act));
  attrs.Set("clip_min", AttrValue::Float(-1.0));
  attrs.Set("clip_max", AttrValue::Float(2.0));
  ExpectSame(OpId::kQLinearMatMul,
             {a, Scales(1, 0.05f, rng), ZeroPoints(a_signed, 1, rng), b, Scales(wc, 0.01f, rng),
              ZeroPoints(b_signed, wc, rng), Scales(1, 0.0005f * static_cast<float>(k), rng),
              ZeroPoints(false, 1, rng), Bias(n, rng)},
             attrs);
  // matmul_integer: per-row a zero points when a is 2-D.
  const int64_t rows = a_shape.rank() == 2 ? a_shape[0] : 1;
  ExpectSame(OpId::kMatMulInteger,
             {a, b, ZeroPoints(a_signed, rows, rng), ZeroPoints(b_signed, wc, rng)}, Attrs());
}

TEST(QLinearKernels, MatMulsMatchTheReference) {
  CheckMatMul({13, 70}, {70, 45}, false, true, true, "none", 1);
  CheckMatMul({1, 512}, {512, 100}, false, true, false, "relu", 2);
  CheckMatMul({2, 3, 17, 33}, {33, 20}, true, false, true, "clip", 3);  // shared b
  CheckMatMul({2, 5, 64}, {2, 64, 9}, true, true, false, "none", 4);    // batched b
  CheckMatMul({5, 16}, {3, 16, 40}, false, false, true, "relu", 5);     // broadcast a
}

// Weights packed as core/packed_layout.h describes (written out here from
// its text, independently of ir/passes/prepack_weights.cc): [G, panels,
// ceil(K/4) + 1, 128] int8, uint8 flipped, column sums last.
HostTensor PackLikeTheLayoutSays(const HostTensor& w, int64_t groups, int64_t K, int64_t n_total) {
  const int64_t n = n_total / groups, panels = (n + 31) / 32, rows = (K + 3) / 4 + 1;
  HostTensor t;
  t.dtype = DType::kInt8;
  t.shape = {groups, panels, rows, 128};
  t.bytes.assign(static_cast<size_t>(groups * panels * rows * 128), 0);
  const unsigned char flip = w.dtype == DType::kUInt8 ? 0x80 : 0;
  for (int64_t g = 0; g < groups; ++g) {
    for (int64_t j = 0; j < n; ++j) {
      const int64_t base = ((g * panels + j / 32) * rows) * 128;
      int32_t sum = 0;
      for (int64_t k = 0; k < K; ++k) {
        const auto v = static_cast<int8_t>(w.bytes[k * n_total + g * n + j] ^ flip);
        t.bytes[base + (k / 4) * 128 + (j % 32) * 4 + k % 4] = static_cast<unsigned char>(v);
        sum += v;
      }
      std::memcpy(&t.bytes[base + (rows - 1) * 128 + (j % 32) * 4], &sum, 4);
    }
  }
  return t;
}

// Prepacked weights (attributes packed_filter / packed_b) give the unpacked
// result, in the reference and the optimized kernels.
TEST(QLinearKernels, PrepackedWeightsGiveTheSameResult) {
  std::mt19937 rng(11);
  for (bool w_signed : {true, false}) {
    const HostTensor x = Bytes(false, {1, 9, 7, 24}, rng);
    const HostTensor f = Bytes(w_signed, {3, 3, 12, 40}, rng);  // 2 groups of 20
    Attrs attrs;
    attrs.Set("groups", AttrValue::Int(2));
    attrs.Set("padding", AttrValue::String("SAME"));
    attrs.Set("activation", AttrValue::String("relu"));
    std::vector<HostTensor> in = {x,
                                  Scales(1, 0.05f, rng),
                                  ZeroPoints(false, 1, rng),
                                  f,
                                  Scales(40, 0.01f, rng),
                                  ZeroPoints(w_signed, 40, rng),
                                  Scales(1, 0.05f, rng),
                                  ZeroPoints(false, 1, rng),
                                  Bias(40, rng)};
    const HostTensor want = RunRef(OpId::kQLinearConv2D, in, attrs);
    in[3] = PackLikeTheLayoutSays(f, 2, 3 * 3 * 12, 40);
    attrs.Set("packed_filter", AttrValue::Ints({3, 3, 12, 40}));
    EXPECT_TRUE(BitEqual(RunRef(OpId::kQLinearConv2D, in, attrs), want)) << "reference";
    ExpectSame(OpId::kQLinearConv2D, in, attrs);

    const HostTensor a = Bytes(false, {5, 70}, rng), b = Bytes(w_signed, {70, 45}, rng);
    std::vector<HostTensor> mm = {a,
                                  Scales(1, 0.05f, rng),
                                  ZeroPoints(false, 1, rng),
                                  b,
                                  Scales(45, 0.01f, rng),
                                  ZeroPoints(w_signed, 45, rng),
                                  Scales(1, 0.05f, rng),
                                  ZeroPoints(false, 1, rng),
                                  Bias(45, rng)};
    const HostTensor want_mm = RunRef(OpId::kQLinearMatMul, mm, Attrs());
    mm[3] = PackLikeTheLayoutSays(b, 1, 70, 45);
    Attrs packed;
    packed.Set("packed_b", AttrValue::Ints({70, 45}));
    EXPECT_TRUE(BitEqual(RunRef(OpId::kQLinearMatMul, mm, packed), want_mm)) << "reference";
    ExpectSame(OpId::kQLinearMatMul, mm, packed);
    EXPECT_TRUE(BitEqual(RunOpt(OpId::kQLinearMatMul, mm, packed, 1), want_mm)) << "optimized";
  }
  // Deep enough that the GEMM's last column block is wider than what is
  // left of the packed matrix (it must not read past its last panel).
  const HostTensor a = Bytes(false, {3, 4608}, rng), b = Bytes(true, {4608, 100}, rng);
  std::vector<HostTensor> mm = {a,
                                Scales(1, 0.05f, rng),
                                ZeroPoints(false, 1, rng),
                                b,
                                Scales(1, 0.01f, rng),
                                ZeroPoints(true, 1, rng),
                                Scales(1, 0.5f, rng),
                                ZeroPoints(false, 1, rng)};
  const HostTensor want = RunRef(OpId::kQLinearMatMul, mm, Attrs());
  mm[3] = PackLikeTheLayoutSays(b, 1, 4608, 100);
  Attrs packed;
  packed.Set("packed_b", AttrValue::Ints({4608, 100}));
  for (int threads : {1, 2}) {
    EXPECT_TRUE(BitEqual(RunOpt(OpId::kQLinearMatMul, mm, packed, threads), want));
  }
}

// quantize_linear / dequantize_linear per tensor (opt/quantize.cc): NaN,
// infinities, huge values, ties at .5 and both 8-bit dtypes.
TEST(QLinearKernels, QuantizeDequantizeMatchTheReference) {
  HostTensor x = Mixed(DType::kFloat32, {3, 1000}, 7, -40, 40, 0.05);
  std::vector<float> ties = {0.5f, 1.5f, 2.5f, -0.5f, -1.5f, 126.5f, -127.5f, 1e9f, -1e9f};
  for (size_t i = 0; i < ties.size(); ++i) std::memcpy(x.bytes.data() + 4 * i, &ties[i], 4);
  for (bool is_signed : {false, true}) {
    Attrs attrs;
    attrs.Set("dtype", AttrValue::Type(Q8(is_signed)));
    const HostTensor scale = HostTensor::Of<float>({}, {0.25f});
    HostTensor zp;
    zp.dtype = Q8(is_signed);
    zp.bytes = {static_cast<unsigned char>(is_signed ? 0xF6 : 131)};  // -10 / 131
    ExpectSame(OpId::kQuantizeLinear, {x, scale, zp}, attrs);
    ExpectSame(OpId::kQuantizeLinear, {x, scale}, attrs);
    std::mt19937 rng(3);
    const HostTensor q = Bytes(is_signed, {5, 999}, rng);
    ExpectSame(OpId::kDequantizeLinear, {q, scale, zp}, Attrs());
  }
}

// qlinear_add: every dtype combination (mixed ones run the reference in
// both variants), relu or not, sizes around the vector width and the
// threads' split, scales that make sums round at .5 and saturate.
TEST(QLinearKernels, AddMatchesTheReference) {
  std::mt19937 rng(11);
  for (int64_t n : {1, 15, 16, 33, 70000}) {
    for (int combo = 0; combo < 8; ++combo) {
      const bool a_signed = combo & 1, b_signed = combo & 2, y_signed = combo & 4;
      for (int relu : {0, 1}) {
        SCOPED_TRACE(std::to_string(n) + " elements, combo " + std::to_string(combo) + ", relu " +
                     std::to_string(relu));
        Attrs attrs;
        attrs.Set("relu", AttrValue::Int(relu));
        ExpectSame(OpId::kQLinearAdd,
                   {Bytes(a_signed, {n}, rng), Scales(1, 0.05f, rng), ZeroPoints(a_signed, 1, rng),
                    Bytes(b_signed, {n}, rng), Scales(1, 0.02f, rng), ZeroPoints(b_signed, 1, rng),
                    Scales(1, 0.04f, rng), ZeroPoints(y_signed, 1, rng)},
                   attrs);
      }
    }
  }
}

// The reference kernel itself, on values worked out by hand.
TEST(QLinearKernels, ReferenceByHand) {
  // qlinear_add, a (scale 0.5, zp 128) + b (scale 0.25, zp 0), y scale 1, zp 10:
  //   10 + 128 -> -59 + 32 = -27 -> -17, saturates to 0
  //   200 + 10 -> 36 + 2.5 = 38.5 -> 38 (half to even) -> 48
  //   0 + 255  -> -64 + 63.75 = -0.25 -> -0 -> 10
  //   255 + 0  -> 63.5 -> 64 (half to even) -> 74
  // relu makes the negative sums 0 (-> 10). int8 y with zp -100 and scale
  // 0.25: -27 -> -108 -100 saturates to -128; 38.5 -> 154 - 100 = 54;
  // -0.25 -> -1 - 100 = -101; 63.5 -> 254 - 100 = 154, saturates to 127.
  {
    const auto qa = HostTensor::Of<uint8_t>({4}, {10, 200, 0, 255});
    const auto qb = HostTensor::Of<uint8_t>({4}, {128, 10, 255, 0});
    std::vector<HostTensor> in = {qa,
                                  HostTensor::Of<float>({}, {0.5f}),
                                  HostTensor::Of<uint8_t>({}, {128}),
                                  qb,
                                  HostTensor::Of<float>({}, {0.25f}),
                                  HostTensor::Of<uint8_t>({}, {0}),
                                  HostTensor::Of<float>({}, {1.0f}),
                                  HostTensor::Of<uint8_t>({}, {10})};
    EXPECT_EQ(RunRef(OpId::kQLinearAdd, in).values<uint8_t>(),
              (std::vector<uint8_t>{0, 48, 10, 74}));
    Attrs relu;
    relu.Set("relu", AttrValue::Int(1));
    EXPECT_EQ(RunRef(OpId::kQLinearAdd, in, relu).values<uint8_t>(),
              (std::vector<uint8_t>{10, 48, 10, 74}));
    in[6] = HostTensor::Of<float>({}, {0.25f});
    in[7] = HostTensor::Of<int8_t>({}, {-100});
    EXPECT_EQ(RunRef(OpId::kQLinearAdd, in).values<int8_t>(),
              (std::vector<int8_t>{-128, 54, -101, 127}));
  }

  // a = [[130, 120]] (zp 128 -> [2, -8]), b = [[3], [-1]] (zp 0):
  // acc = 2*3 + (-8)*(-1) = 14; + bias 6 = 20; * (0.5 * 0.25 / 0.125 = 1)
  // = 20; + y_zp 100 = 120.
  const auto a = HostTensor::Of<uint8_t>({1, 2}, {130, 120});
  const auto b = HostTensor::Of<int8_t>({2, 1}, {3, -1});
  auto y = RunRef(OpId::kQLinearMatMul,
                  {a, HostTensor::Of<float>({}, {0.5f}), HostTensor::Of<uint8_t>({}, {128}), b,
                   HostTensor::Of<float>({}, {0.25f}), HostTensor::Of<int8_t>({}, {0}),
                   HostTensor::Of<float>({}, {0.125f}), HostTensor::Of<uint8_t>({}, {100}),
                   HostTensor::Of<int32_t>({1}, {6})});
  ASSERT_EQ(y.dtype, DType::kUInt8);
  EXPECT_EQ(y.values<uint8_t>(), std::vector<uint8_t>{120});
  // relu: a negative sum clamps to the zero point; clip [0, 1] to q(1) = 108.
  const auto neg = HostTensor::Of<int8_t>({2, 1}, {-3, 1});  // acc = -6 - 8 = -14
  Attrs relu;
  relu.Set("activation", AttrValue::String("relu"));
  y = RunRef(OpId::kQLinearMatMul,
             {a, HostTensor::Of<float>({}, {0.5f}), HostTensor::Of<uint8_t>({}, {128}), neg,
              HostTensor::Of<float>({}, {0.25f}), HostTensor::Of<int8_t>({}, {0}),
              HostTensor::Of<float>({}, {0.125f}), HostTensor::Of<uint8_t>({}, {100})},
             relu);
  EXPECT_EQ(y.values<uint8_t>(), std::vector<uint8_t>{100});
  Attrs clip;
  clip.Set("activation", AttrValue::String("clip"));
  clip.Set("clip_min", AttrValue::Float(0.0));
  clip.Set("clip_max", AttrValue::Float(1.0));
  y = RunRef(OpId::kQLinearMatMul,
             {a, HostTensor::Of<float>({}, {0.5f}), HostTensor::Of<uint8_t>({}, {128}), b,
              HostTensor::Of<float>({}, {0.25f}), HostTensor::Of<int8_t>({}, {0}),
              HostTensor::Of<float>({}, {0.125f}), HostTensor::Of<uint8_t>({}, {100}),
              HostTensor::Of<int32_t>({1}, {6})},
             clip);
  EXPECT_EQ(y.values<uint8_t>(), std::vector<uint8_t>{108});
  // matmul_integer: int32 out, (130-128)*(3-1) + (120-128)*(-1-1) = 4 + 16 = 20.
  y = RunRef(OpId::kMatMulInteger,
             {a, b, HostTensor::Of<uint8_t>({}, {128}), HostTensor::Of<int8_t>({}, {1})});
  ASSERT_EQ(y.dtype, DType::kInt32);
  EXPECT_EQ(y.values<int32_t>(), std::vector<int32_t>{20});
}

}  // namespace
}  // namespace tfn::kernels::testing
