// ONNX's QOperator ops through the importer (importers/onnx/ops_qlinear.cc)
// and the runtime: QLinearConv (per-channel weights, asymmetric padding,
// stride 2, 2 groups, bias; and 1-D), QLinearMatMul with a 1-D operand on
// either side, ConvInteger and MatMulInteger with the optional zero points,
// and the errors of ill-typed parameters. The expected values are computed
// here independently of tfn: plain loops over ONNX's NCHW/OIHW layouts, the
// exact sum in int64, then ONNX Runtime's requantization in float32
// (round half to even of acc * (x_scale * w_scale / y_scale), plus the zero
// point, saturated).
#include <gtest/gtest.h>

#include <algorithm>
#include <cfenv>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "importers/onnx/onnx_importer.h"
#include "onnx/onnx_pb.h"
#include "tests/onnx/run_model.h"
#include "tfn/runtime.h"

namespace tfn::onnx_import {
namespace {

using I64 = std::vector<int64_t>;

constexpr int kF = onnx::TensorProto::FLOAT;
constexpr int kU8 = onnx::TensorProto::UINT8;
constexpr int kI8 = onnx::TensorProto::INT8;
constexpr int kI32 = onnx::TensorProto::INT32;

using Model = TestModel;

template <class T>
ConstTensor Tensor(DType dtype, Shape shape, const std::vector<T>& v) {
  return ConstTensor::Copy(dtype, shape, v.data());
}

// Deterministic values in [lo, hi].
std::vector<int32_t> Pattern(size_t n, int32_t lo, int32_t hi, uint32_t seed) {
  std::vector<int32_t> v(n);
  for (size_t i = 0; i < n; ++i) {
    seed = seed * 1664525u + 1013904223u;
    v[i] = lo + static_cast<int32_t>((seed >> 8) % static_cast<uint32_t>(hi - lo + 1));
  }
  return v;
}

// ONNX Runtime's requantization of an exact int32 sum.
int32_t Requantize(int64_t acc, float x_scale, float w_scale, float y_scale, int32_t y_zp,
                   int32_t qmin, int32_t qmax) {
  const float multiplier = x_scale * w_scale / y_scale;
  const float r =
      std::nearbyint(static_cast<float>(acc) * multiplier);  // FE_TONEAREST: half to even
  const int64_t q = static_cast<int64_t>(r) + y_zp;
  return static_cast<int32_t>(std::min<int64_t>(std::max<int64_t>(q, qmin), qmax));
}

// One ONNX convolution on NCHW x and OIHW w, exact: pads {top, left,
// bottom, right} (ONNX's order), padding contributing nothing.
struct ConvGeometry {
  int64_t n, c, h, w, o, kh, kw, group, stride;
  I64 pads;
  int64_t OutH() const { return (h + pads[0] + pads[2] - kh) / stride + 1; }
  int64_t OutW() const { return (w + pads[1] + pads[3] - kw) / stride + 1; }
};

std::vector<int64_t> ConvSums(const ConvGeometry& g, const std::vector<int32_t>& x, int32_t x_zp,
                              const std::vector<int32_t>& w, const std::vector<int32_t>& w_zp) {
  const int64_t oh_n = g.OutH(), ow_n = g.OutW(), cg = g.c / g.group, og = g.o / g.group;
  std::vector<int64_t> out;
  for (int64_t n = 0; n < g.n; ++n) {
    for (int64_t oc = 0; oc < g.o; ++oc) {
      for (int64_t oh = 0; oh < oh_n; ++oh) {
        for (int64_t ow = 0; ow < ow_n; ++ow) {
          int64_t acc = 0;
          for (int64_t ci = 0; ci < cg; ++ci) {
            const int64_t c = oc / og * cg + ci;
            for (int64_t i = 0; i < g.kh; ++i) {
              for (int64_t j = 0; j < g.kw; ++j) {
                const int64_t ih = oh * g.stride - g.pads[0] + i;
                const int64_t iw = ow * g.stride - g.pads[1] + j;
                if (ih < 0 || ih >= g.h || iw < 0 || iw >= g.w) continue;
                const int64_t xv = x[static_cast<size_t>(((n * g.c + c) * g.h + ih) * g.w + iw)];
                const int64_t wv = w[static_cast<size_t>(((oc * cg + ci) * g.kh + i) * g.kw + j)];
                acc += (xv - x_zp) * (wv - w_zp[static_cast<size_t>(oc)]);
              }
            }
          }
          out.push_back(acc);
        }
      }
    }
  }
  return out;
}

TEST(OnnxQLinear, QLinearConvPerChannelPaddedStridedGrouped) {
  ASSERT_EQ(std::fegetround(), FE_TONEAREST);
  // x u8 [2, 4, 6, 7]; w i8 [4, 2, 3, 3] in 2 groups; pads top 1, left 2,
  // bottom 0, right 1; stride 2: y [2, 4, 3, 4].
  const ConvGeometry g{2, 4, 6, 7, 4, 3, 3, 2, 2, {1, 2, 0, 1}};
  const std::vector<int32_t> x = Pattern(2 * 4 * 6 * 7, 0, 255, 1);
  const std::vector<int32_t> w = Pattern(4 * 2 * 3 * 3, -128, 127, 2);
  const float x_scale = 0.02f, y_scale = 0.15f;
  const int32_t x_zp = 131, y_zp = 117;
  const std::vector<float> w_scale = {0.011f, 0.0037f, 0.023f, 0.0061f};
  const std::vector<int32_t> w_zp = {0, 3, -5, 1};
  const std::vector<int32_t> bias = {1200, -3400, 0, 77};

  Model m(10);
  m.Input("x", kU8, {2, 4, 6, 7});
  m.FloatData("x_scale", {}, {x_scale});
  m.Int32Data("x_zero_point", kU8, {}, {x_zp});
  m.Int32Data("w", kI8, {4, 2, 3, 3}, w);
  m.FloatData("w_scale", {4}, w_scale);
  m.Int32Data("w_zero_point", kI8, {4}, w_zp);
  m.FloatData("y_scale", {1}, {y_scale});  // a scalar as a 1-element 1-D tensor
  m.Int32Data("y_zero_point", kU8, {1}, {y_zp});
  m.Int32Data("B", kI32, {4}, bias);
  onnx::NodeProto* n = m.Node("QLinearConv",
                              {"x", "x_scale", "x_zero_point", "w", "w_scale", "w_zero_point",
                               "y_scale", "y_zero_point", "B"},
                              {"y"});
  SetInts(n, "kernel_shape", {3, 3});
  SetInts(n, "pads", {1, 2, 0, 1});  // ONNX: x1_begin, x2_begin, x1_end, x2_end
  SetInts(n, "strides", {2, 2});
  SetInt(n, "group", 2);
  m.Output("y", kU8, {2, 4, 3, 4});

  std::vector<uint8_t> xb(x.begin(), x.end());
  auto out = RunModel(m, {Tensor<uint8_t>(DType::kUInt8, {2, 4, 6, 7}, xb)});
  ASSERT_EQ(out.size(), 1u);
  ASSERT_EQ(out[0].dtype, DType::kUInt8);
  ASSERT_EQ(out[0].shape, (Shape{2, 4, 3, 4}));

  const std::vector<int64_t> sums = ConvSums(g, x, x_zp, w, w_zp);
  const int64_t per_channel = g.OutH() * g.OutW();
  std::vector<uint8_t> want;
  int saturated = 0;
  for (size_t e = 0; e < sums.size(); ++e) {
    const size_t oc = static_cast<size_t>(static_cast<int64_t>(e) / per_channel % g.o);
    const int32_t q = Requantize(sums[e] + bias[oc], x_scale, w_scale[oc], y_scale, y_zp, 0, 255);
    saturated += q == 0 || q == 255;
    want.push_back(static_cast<uint8_t>(q));
  }
  EXPECT_EQ(Values<uint8_t>(out[0]), want);
  // The data reaches both the rounding and (a few elements) the saturation.
  EXPECT_GT(saturated, 0);
  EXPECT_LT(saturated, static_cast<int>(want.size()) / 2);
}

TEST(OnnxQLinear, QLinearConv1DWithRuntimeWeights) {
  // x i8 [1, 2, 5] (NCL), w i8 [3, 2, 2] a graph input too; per-tensor
  // parameters, pads 1 each side: y i8 [1, 3, 6].
  const std::vector<int32_t> x = {10, -20, 30, -40, 50, 1, 2, 3, 4, 5};
  const std::vector<int32_t> w = {1, 2, 3, 4, -1, -2, -3, -4, 5, 0, 0, 5};
  Model m(10);
  m.Input("x", kI8, {1, 2, 5});
  m.Input("w", kI8, {3, 2, 2});
  m.FloatData("x_scale", {}, {0.5f});
  m.Int32Data("x_zero_point", kI8, {}, {-2});
  m.FloatData("w_scale", {}, {0.25f});
  m.Int32Data("w_zero_point", kI8, {}, {1});
  m.FloatData("y_scale", {}, {0.75f});
  m.Int32Data("y_zero_point", kI8, {}, {3});
  onnx::NodeProto* n = m.Node(
      "QLinearConv",
      {"x", "x_scale", "x_zero_point", "w", "w_scale", "w_zero_point", "y_scale", "y_zero_point"},
      {"y"});
  SetInts(n, "pads", {1, 1});
  m.Output("y", kI8, {1, 3, 6});
  std::vector<int8_t> xb(x.begin(), x.end()), wb(w.begin(), w.end());
  auto out = RunModel(m, {Tensor<int8_t>(DType::kInt8, {1, 2, 5}, xb),
                          Tensor<int8_t>(DType::kInt8, {3, 2, 2}, wb)});
  ASSERT_EQ(out.size(), 1u);
  ASSERT_EQ(out[0].shape, (Shape{1, 3, 6}));
  // As a 2-D convolution of height 1.
  const ConvGeometry g{1, 2, 1, 5, 3, 1, 2, 1, 1, {0, 1, 0, 1}};
  const std::vector<int64_t> sums = ConvSums(g, x, -2, w, {1, 1, 1});
  std::vector<int8_t> want;
  for (int64_t s : sums)
    want.push_back(static_cast<int8_t>(Requantize(s, 0.5f, 0.25f, 0.75f, 3, -128, 127)));
  EXPECT_EQ(Values<int8_t>(out[0]), want);
}

// a [M, K] (or [K]) times b [K, N] (or [K]), exact, b's zero point per column.
std::vector<int64_t> MatMulSums(int64_t m, int64_t k, int64_t n, const std::vector<int32_t>& a,
                                int32_t a_zp, const std::vector<int32_t>& b,
                                const std::vector<int32_t>& b_zp) {
  std::vector<int64_t> out;
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      int64_t acc = 0;
      for (int64_t t = 0; t < k; ++t) {
        acc += (int64_t{a[static_cast<size_t>(i * k + t)]} - a_zp) *
               (int64_t{b[static_cast<size_t>(t * n + j)]} - b_zp[static_cast<size_t>(j)]);
      }
      out.push_back(acc);
    }
  }
  return out;
}

TEST(OnnxQLinear, QLinearMatMulVectorTimesMatrixPerColumn) {
  // a u8 [5] (a 1-D a: [1, 5] then squeezed), b i8 [5, 3] with per-column
  // scales and zero points: y u8 [3].
  const std::vector<int32_t> a = {200, 3, 77, 128, 255};
  const std::vector<int32_t> b = Pattern(15, -128, 127, 7);
  const std::vector<float> b_scale = {0.01f, 0.02f, 0.005f};
  const std::vector<int32_t> b_zp = {0, -3, 4};
  Model m(10);
  m.Input("a", kU8, {5});
  m.FloatData("a_scale", {}, {0.1f});
  m.Int32Data("a_zero_point", kU8, {}, {128});
  m.Int32Data("b", kI8, {5, 3}, b);
  m.FloatData("b_scale", {3}, b_scale);
  m.Int32Data("b_zero_point", kI8, {3}, b_zp);
  m.FloatData("y_scale", {}, {0.05f});
  m.Int32Data("y_zero_point", kU8, {}, {100});
  m.Node(
      "QLinearMatMul",
      {"a", "a_scale", "a_zero_point", "b", "b_scale", "b_zero_point", "y_scale", "y_zero_point"},
      {"y"});
  m.Output("y", kU8, {3});
  std::vector<uint8_t> ab(a.begin(), a.end());
  auto out = RunModel(m, {Tensor<uint8_t>(DType::kUInt8, {5}, ab)});
  ASSERT_EQ(out.size(), 1u);
  ASSERT_EQ(out[0].dtype, DType::kUInt8);
  ASSERT_EQ(out[0].shape, (Shape{3}));
  const std::vector<int64_t> sums = MatMulSums(1, 5, 3, a, 128, b, b_zp);
  std::vector<uint8_t> want;
  for (size_t j = 0; j < 3; ++j) {
    want.push_back(static_cast<uint8_t>(Requantize(sums[j], 0.1f, b_scale[j], 0.05f, 100, 0, 255)));
  }
  EXPECT_EQ(Values<uint8_t>(out[0]), want);
}

TEST(OnnxQLinear, QLinearMatMulMatrixTimesVector) {
  // a i8 [2, 3] times b i8 [3] (a 1-D b: [3, 1] then squeezed): y i8 [2].
  const std::vector<int32_t> a = {1, -2, 3, 100, 90, -128};
  const std::vector<int32_t> b = {7, -7, 2};
  Model m(10);
  m.Input("a", kI8, {2, 3});
  m.Input("b", kI8, {3});
  m.FloatData("a_scale", {}, {0.5f});
  m.Int32Data("a_zero_point", kI8, {}, {1});
  m.FloatData("b_scale", {}, {0.5f});
  m.Int32Data("b_zero_point", kI8, {}, {-1});
  m.FloatData("y_scale", {}, {2.0f});
  m.Int32Data("y_zero_point", kI8, {}, {-10});
  m.Node(
      "QLinearMatMul",
      {"a", "a_scale", "a_zero_point", "b", "b_scale", "b_zero_point", "y_scale", "y_zero_point"},
      {"y"});
  m.Output("y", kI8, {2});
  std::vector<int8_t> ab(a.begin(), a.end()), bb(b.begin(), b.end());
  auto out = RunModel(
      m, {Tensor<int8_t>(DType::kInt8, {2, 3}, ab), Tensor<int8_t>(DType::kInt8, {3}, bb)});
  ASSERT_EQ(out.size(), 1u);
  ASSERT_EQ(out[0].shape, (Shape{2}));
  // (a - 1) . (b + 1): row 0 (0, -3, 2) . (8, -6, 3) = 24; row 1
  // (99, 89, -129) . (8, -6, 3) = 792 - 534 - 387 = -129. Times 0.5 * 0.5 / 2:
  // 3 and -16.125 -> 3 and -16, plus -10: -7 and -26.
  EXPECT_EQ(Values<int8_t>(out[0]), (std::vector<int8_t>{-7, -26}));
}

TEST(OnnxQLinear, ConvIntegerWithOnlyTheFilterZeroPoint) {
  // x u8 [1, 1, 3, 3], w u8 [2, 1, 2, 2], w_zero_point per channel; no
  // x_zero_point (0): y i32 [1, 2, 2, 2].
  const std::vector<int32_t> x = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  const std::vector<int32_t> w = {1, 1, 1, 1, 10, 0, 0, 10};
  Model m(10);
  m.Input("x", kU8, {1, 1, 3, 3});
  m.Int32Data("w", kU8, {2, 1, 2, 2}, w);
  m.Int32Data("w_zero_point", kU8, {2}, {0, 10});
  m.Node("ConvInteger", {"x", "w", "", "w_zero_point"}, {"y"});
  m.Output("y", kI32, {1, 2, 2, 2});
  std::vector<uint8_t> xb(x.begin(), x.end());
  auto out = RunModel(m, {Tensor<uint8_t>(DType::kUInt8, {1, 1, 3, 3}, xb)});
  ASSERT_EQ(out.size(), 1u);
  ASSERT_EQ(out[0].dtype, DType::kInt32);
  // Channel 0 sums each 2x2 window; channel 1's w - 10 is {0, -10, -10, 0}.
  EXPECT_EQ(Values<int32_t>(out[0]), (std::vector<int32_t>{12, 16, 24, 28, -60, -80, -120, -140}));
}

TEST(OnnxQLinear, MatMulIntegerPerRowAndPerColumnZeroPoints) {
  // A u8 [2, 3] with a_zero_point per row, B i8 [3, 2] per column.
  Model m(10);
  m.Input("A", kU8, {2, 3});
  m.Int32Data("B", kI8, {3, 2}, {1, -1, 2, -2, 3, -3});
  m.Int32Data("a_zero_point", kU8, {2}, {1, 10});
  m.Int32Data("b_zero_point", kI8, {2}, {0, -1});
  m.Node("MatMulInteger", {"A", "B", "a_zero_point", "b_zero_point"}, {"Y"});
  m.Output("Y", kI32, {2, 2});
  auto out = RunModel(m, {Tensor<uint8_t>(DType::kUInt8, {2, 3}, {1, 2, 3, 10, 20, 30})});
  ASSERT_EQ(out.size(), 1u);
  ASSERT_EQ(out[0].dtype, DType::kInt32);
  // A - a_zp = {0, 1, 2; 0, 10, 20}; B - b_zp = {1, 0; 2, -1; 3, -2}.
  EXPECT_EQ(Values<int32_t>(out[0]), (std::vector<int32_t>{8, -5, 80, -50}));
}

// A QLinearConv whose parameters are initializers, `replaced` by one named
// `replaced`_bad of the given type (all ones).
Model ConvWith(const std::string& replaced, int elem_type, const I64& dims) {
  Model m(10);
  m.Input("x", kU8, {1, 2, 4, 4});
  auto param = [&](const std::string& name, int type, const I64& d, std::vector<float> v) {
    std::string n = name;
    if (name == replaced) {
      n += "_bad";
      type = elem_type;
      v.assign(static_cast<size_t>(dims.empty() ? 1 : dims[0]), 1);
    }
    if (type == kF) {
      m.FloatData(n, name == replaced ? dims : d, v);
    } else {
      m.Int32Data(n, type, name == replaced ? dims : d, std::vector<int32_t>(v.begin(), v.end()));
    }
    return n;
  };
  std::vector<std::string> in = {"x",
                                 param("x_scale", kF, {}, {0.1f}),
                                 param("x_zero_point", kU8, {}, {0}),
                                 param("w", kI8, {3, 2, 1, 1}, {1, 2, 3, 4, 5, 6}),
                                 param("w_scale", kF, {3}, {0.1f, 0.2f, 0.3f}),
                                 param("w_zero_point", kI8, {3}, {0, 0, 0}),
                                 param("y_scale", kF, {}, {0.5f}),
                                 param("y_zero_point", kU8, {}, {0})};
  m.Node("QLinearConv", in, {"conv"});
  m.Output("conv", kU8, {1, 3, 4, 4});
  return m;
}

std::string ImportError(const Model& m) {
  absl::StatusOr<ImportResult> imported = ImportOnnxBytes(m.model.SerializeAsString(), ".");
  return imported.ok() ? std::string("imported") : std::string(imported.status().message());
}

TEST(OnnxQLinear, ZeroPointOfTheWrongDtypeNamesTheInput) {
  const std::string error = ImportError(ConvWith("x_zero_point", kI8, {}));
  EXPECT_NE(error.find("node 'conv' (QLinearConv): expected x_zero_point of x's dtype uint8"),
            std::string::npos)
      << error;
  EXPECT_NE(error.find("got x_zero_point ('x_zero_point_bad', int8[])"), std::string::npos)
      << error;

  const std::string w_error = ImportError(ConvWith("w_zero_point", kU8, {3}));
  EXPECT_NE(w_error.find("expected w_zero_point of w's dtype int8"), std::string::npos) << w_error;
  EXPECT_NE(w_error.find("'w_zero_point_bad'"), std::string::npos) << w_error;
}

TEST(OnnxQLinear, PerChannelParametersMustHaveOneValuePerOutputChannel) {
  const std::string error = ImportError(ConvWith("w_scale", kF, {2}));
  EXPECT_NE(error.find("expected w_scale to hold one value or one per output channel (3), "
                       "got w_scale ('w_scale_bad', f32[2])"),
            std::string::npos)
      << error;
  const std::string x_error = ImportError(ConvWith("x_scale", kF, {3}));
  EXPECT_NE(x_error.find("expected x_scale to hold one value (per-tensor quantization)"),
            std::string::npos)
      << x_error;
  const std::string type_error = ImportError(ConvWith("y_scale", kI32, {}));
  EXPECT_NE(type_error.find("expected y_scale of float32, got y_scale ('y_scale_bad', int32[])"),
            std::string::npos)
      << type_error;
  // The unchanged model imports.
  EXPECT_EQ(ImportError(ConvWith("", kF, {})), "imported");
}

TEST(OnnxQLinear, PerRowQuantizedAIsRefusedAsUnsupported) {
  // ONNX allows a_scale per row of a; tfn's qlinear_matmul takes a per tensor.
  Model m(10);
  m.Input("a", kU8, {2, 3});
  m.FloatData("a_scale", {2}, {0.1f, 0.2f});
  m.Int32Data("a_zero_point", kU8, {}, {0});
  m.Int32Data("b", kU8, {3, 2}, {1, 2, 3, 4, 5, 6});
  m.FloatData("b_scale", {}, {0.1f});
  m.Int32Data("b_zero_point", kU8, {}, {0});
  m.FloatData("y_scale", {}, {0.1f});
  m.Int32Data("y_zero_point", kU8, {}, {0});
  m.Node(
      "QLinearMatMul",
      {"a", "a_scale", "a_zero_point", "b", "b_scale", "b_zero_point", "y_scale", "y_zero_point"},
      {"y"});
  m.Output("y", kU8, {2, 2});
  const std::string error = ImportError(m);
  EXPECT_NE(error.find("node 'y' (QLinearMatMul): per-row quantization of a (a_scale "
                       "('a_scale', f32[2]); quantize a per tensor) is not supported"),
            std::string::npos)
      << error;
}

}  // namespace
}  // namespace tfn::onnx_import
