// Tests of the softmax, log_softmax and layer_norm reference kernels:
// hand-computed values, every axis against naive formulas written here,
// numerical stability, NaN/inf rows, empty tensors and the shape rule's errors.
#include <cmath>
#include <limits>

#include "kernels/testing/kernel_test_util.h"

namespace tfn::kernels::testing {
namespace {

using HT = HostTensor;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

Attrs Axis(int64_t axis) { return {{"axis", AttrValue::Int(axis)}}; }

TEST(RefSoftmax, HandComputed) {
  // exp(-2), exp(-1), exp(0) over their sum 1.5032147244080551.
  const std::vector<double> soft = {0.09003057317038046, 0.24472847105479767, 0.6652409557748219};
  const std::vector<double> logsoft = {-2.4076059644443806, -1.4076059644443804,
                                       -0.4076059644443804};
  HT x = HT::Of<float>({3}, {1, 2, 3});
  EXPECT_TRUE(AllClose(RunOp(OpId::kSoftmax, {x}, {})[0],
                       HT::Of<float>({3}, {0.09003057f, 0.24472847f, 0.66524096f}), 1e-6, 0));
  auto d = RunOp(OpId::kLogSoftmax, {HT::Of<double>({3}, {1, 2, 3})}, {});
  EXPECT_TRUE(AllClose(d[0], HT::Of<double>({3}, logsoft), 1e-14, 0));
  d = RunOp(OpId::kSoftmax, {HT::Of<double>({3}, {1, 2, 3})}, {});
  EXPECT_TRUE(AllClose(d[0], HT::Of<double>({3}, soft), 1e-14, 0));
  // Shifting every input by 1000 changes nothing: the max is subtracted
  // first, so exp never overflows.
  d = RunOp(OpId::kSoftmax, {HT::Of<double>({3}, {1001, 1002, 1003})}, {});
  EXPECT_TRUE(AllClose(d[0], HT::Of<double>({3}, soft), 1e-14, 0));
  d = RunOp(OpId::kLogSoftmax, {HT::Of<double>({3}, {-1001, -1000, -999})}, {});
  EXPECT_TRUE(AllClose(d[0], HT::Of<double>({3}, logsoft), 1e-12, 0));
  // Size-1 axis: softmax 1, log_softmax 0.
  EXPECT_EQ(RunOp(OpId::kSoftmax, {HT::Of<float>({2, 1}, {5, -7})}, {})[0].values<float>(),
            (std::vector<float>{1, 1}));
  EXPECT_EQ(RunOp(OpId::kLogSoftmax, {HT::Of<float>({2, 1}, {5, -7})}, {})[0].values<float>(),
            (std::vector<float>{0, 0}));
}

// Naive softmax along `axis` straight from the definition (no max shift;
// the random inputs are small).
HT NaiveSoftmax(const HT& x, int axis, bool log) {
  const int rank = x.shape.rank();
  std::vector<int64_t> strides(rank, 1);
  for (int d = rank - 2; d >= 0; --d) strides[d] = strides[d + 1] * x.shape[d + 1];
  HT out = x;
  for (int64_t i = 0; i < x.size(); ++i) {
    const int64_t pos = (i / strides[axis]) % x.shape[axis];
    const int64_t row0 = i - pos * strides[axis];
    double sum = 0;
    for (int64_t t = 0; t < x.shape[axis]; ++t) sum += std::exp(x.at(row0 + t * strides[axis]));
    const double v = log ? x.at(i) - std::log(sum) : std::exp(x.at(i)) / sum;
    VisitDType(x.dtype, [&](auto tag) {
      using T = decltype(tag);
      T t = static_cast<T>(v);
      std::memcpy(out.bytes.data() + i * sizeof(T), &t, sizeof(T));
      return 0;
    });
  }
  return out;
}

TEST(RefSoftmax, EveryAxisAgainstNaiveFormula) {
  uint32_t seed = 3;
  for (DType dt : {DType::kFloat32, DType::kFloat64}) {
    HT x = HT::Random(dt, {2, 3, 4}, seed++, -3, 3);
    for (int axis = -3; axis < 3; ++axis) {
      const int a = axis < 0 ? axis + 3 : axis;
      // f32: both compute in double and round once; 1e-6 relative covers
      // the different summation orders.
      const double tol = dt == DType::kFloat32 ? 1e-6 : 1e-13;
      EXPECT_TRUE(
          AllClose(RunOp(OpId::kSoftmax, {x}, Axis(axis))[0], NaiveSoftmax(x, a, false), tol, tol))
          << DTypeName(dt) << " axis " << axis;
      EXPECT_TRUE(AllClose(RunOp(OpId::kLogSoftmax, {x}, Axis(axis))[0], NaiveSoftmax(x, a, true),
                           tol, tol))
          << DTypeName(dt) << " axis " << axis;
    }
  }
}

TEST(RefSoftmax, NaNAndInfinities) {
  // Row 0 holds a NaN: all NaN. Row 1: -inf gets probability 0.
  HT x = HT::Of<double>({2, 2}, {kNaN, 1, -kInf, 0});
  auto v = RunOp(OpId::kSoftmax, {x}, {})[0].values<double>();
  EXPECT_TRUE(std::isnan(v[0]) && std::isnan(v[1]));
  EXPECT_EQ(v[2], 0);
  EXPECT_EQ(v[3], 1);
  v = RunOp(OpId::kLogSoftmax, {x}, {})[0].values<double>();
  EXPECT_TRUE(std::isnan(v[0]) && std::isnan(v[1]));
  EXPECT_EQ(v[2], -kInf);
  EXPECT_EQ(v[3], 0);
  // +inf in a row, or a row of only -inf: NaN (inf - inf), as in TensorFlow.
  v = RunOp(OpId::kSoftmax, {HT::Of<double>({2, 2}, {kInf, 0, -kInf, -kInf})}, {})[0]
          .values<double>();
  for (double e : v) EXPECT_TRUE(std::isnan(e));
}

TEST(RefSoftmax, EmptyTensors) {
  auto out = RunOp(OpId::kSoftmax, {HT::Of<float>({0, 3}, {})}, {});
  EXPECT_EQ(out[0].shape, (Shape{0, 3}));
  out = RunOp(OpId::kLogSoftmax, {HT::Of<float>({2, 0}, {})}, Axis(1));
  EXPECT_EQ(out[0].shape, (Shape{2, 0}));
}

TEST(RefSoftmax, Errors) {
  std::string error;
  RunOp(OpId::kSoftmax, {HT::Of<float>({2, 3}, std::vector<float>(6))}, Axis(2),
        Variant::kReference, &error);
  EXPECT_EQ(error, "softmax: axis 2 is out of range for f32[2,3]");
  RunOp(OpId::kSoftmax, {HT::Of<float>({}, {1})}, {}, Variant::kReference, &error);
  EXPECT_EQ(error, "softmax: axis -1 is out of range for f32[]");
  RunOp(OpId::kLogSoftmax, {HT::Of<int32_t>({2}, {1, 2})}, {}, Variant::kReference, &error);
  EXPECT_EQ(error, "log_softmax: argument 'x' must be f32 or f64, got int32");
}

Attrs LayerNormAttrs(int64_t axis, double epsilon) {
  return {{"axis", AttrValue::Int(axis)}, {"epsilon", AttrValue::Float(epsilon)}};
}

TEST(RefLayerNorm, HandComputed) {
  // mean 2.5, biased variance 1.25, so (x - 2.5) / 1.1180339887498949.
  HT x = HT::Of<double>({1, 4}, {1, 2, 3, 4});
  auto out = RunOp(OpId::kLayerNorm,
                   {x, HT::Of<double>({4}, {1, 1, 1, 1}), HT::Of<double>({4}, {0, 0, 0, 0})},
                   LayerNormAttrs(-1, 0));
  EXPECT_TRUE(AllClose(out[0],
                       HT::Of<double>({1, 4}, {-1.3416407864998738, -0.4472135954999579,
                                               0.4472135954999579, 1.3416407864998738}),
                       1e-14, 1e-15));
  out = RunOp(OpId::kLayerNorm,
              {x, HT::Of<double>({4}, {1, 2, 3, 4}), HT::Of<double>({4}, {0.5, 0.5, 0.5, 0.5})},
              LayerNormAttrs(1, 0));
  EXPECT_TRUE(AllClose(out[0],
                       HT::Of<double>({1, 4}, {-0.8416407864998738, -0.3944271909999158,
                                               1.8416407864998737, 5.866563145999495}),
                       1e-14, 1e-15));
  // A constant row has variance 0: epsilon keeps it finite, the result is the bias.
  out = RunOp(OpId::kLayerNorm,
              {HT::Of<float>({3}, {5, 5, 5}), HT::Of<float>({3}, {2, 2, 2}),
               HT::Of<float>({3}, {1, -1, 0})},
              {});
  EXPECT_EQ(out[0].values<float>(), (std::vector<float>{1, -1, 0}));
}

// Naive layer norm over the trailing dims from `axis`.
HT NaiveLayerNorm(const HT& x, const HT& scale, const HT& bias, int axis, double eps) {
  int64_t cols = 1;
  for (int d = axis; d < x.shape.rank(); ++d) cols *= x.shape[d];
  HT out = x;
  for (int64_t r = 0; r < x.size() / cols; ++r) {
    std::vector<double> row(cols);
    for (int64_t c = 0; c < cols; ++c) row[c] = x.at(r * cols + c);
    double mean = 0, sq = 0;
    for (double v : row) mean += v / static_cast<double>(cols);
    for (double v : row) sq += (v - mean) * (v - mean) / static_cast<double>(cols);
    for (int64_t c = 0; c < cols; ++c) {
      double v = (row[c] - mean) / std::sqrt(sq + eps) * scale.at(c) + bias.at(c);
      VisitDType(x.dtype, [&](auto tag) {
        using T = decltype(tag);
        T t = static_cast<T>(v);
        std::memcpy(out.bytes.data() + (r * cols + c) * sizeof(T), &t, sizeof(T));
        return 0;
      });
    }
  }
  return out;
}

TEST(RefLayerNorm, EveryAxisAgainstNaiveFormula) {
  uint32_t seed = 11;
  const Shape shape{2, 3, 4};
  for (DType dt : {DType::kFloat32, DType::kFloat64}) {
    HT x = HT::Random(dt, shape, seed++, -5, 5);
    for (int axis = -3; axis < 3; ++axis) {
      const int a = axis < 0 ? axis + 3 : axis;
      Shape norm;
      for (int d = a; d < 3; ++d) norm.push_back(shape[d]);
      HT scale = HT::Random(dt, norm, seed++, 0.5, 2);
      HT bias = HT::Random(dt, norm, seed++, -1, 1);
      auto out = RunOp(OpId::kLayerNorm, {x, scale, bias}, LayerNormAttrs(axis, 1e-3));
      ASSERT_EQ(out.size(), 1u);
      const double tol = dt == DType::kFloat32 ? 1e-6 : 1e-12;
      EXPECT_TRUE(AllClose(out[0], NaiveLayerNorm(x, scale, bias, a, 1e-3), tol, tol))
          << DTypeName(dt) << " axis " << axis;
    }
  }
}

TEST(RefLayerNorm, EmptyRows) {
  auto out = RunOp(
      OpId::kLayerNorm,
      {HT::Of<float>({0, 3}, {}), HT::Of<float>({3}, {1, 1, 1}), HT::Of<float>({3}, {0, 0, 0})},
      {});
  EXPECT_EQ(out[0].shape, (Shape{0, 3}));
}

TEST(RefLayerNorm, Errors) {
  std::string error;
  HT x = HT::Of<float>({2, 3}, std::vector<float>(6));
  RunOp(OpId::kLayerNorm, {x, HT::Of<float>({2}, {1, 1}), HT::Of<float>({3}, {0, 0, 0})}, {},
        Variant::kReference, &error);
  EXPECT_EQ(error,
            "layer_norm: scale must have the normalized shape [3] of x f32[2,3], got f32[2]");
  RunOp(OpId::kLayerNorm, {x, HT::Of<float>({3}, {1, 1, 1}), HT::Of<float>({3}, {0, 0, 0})},
        LayerNormAttrs(0, 1e-5), Variant::kReference, &error);
  EXPECT_NE(error.find("scale must have the normalized shape [2,3]"), std::string::npos) << error;
  RunOp(OpId::kLayerNorm, {x, HT::Of<double>({3}, {1, 1, 1}), HT::Of<double>({3}, {0, 0, 0})}, {},
        Variant::kReference, &error);
  EXPECT_NE(error.find("same dtype"), std::string::npos) << error;
}

}  // namespace
}  // namespace tfn::kernels::testing
