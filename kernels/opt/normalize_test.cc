// Tests of the optimized softmax, log_softmax and layer_norm (opt/normalize.cc)
// against the reference kernels (which compute in double) under every
// instruction set the CPU has and 1 and 2 threads: odd row lengths, many and
// few rows, NaN / +inf / all -inf rows, offset data for layer_norm.
//
// Tolerances (R = the width of the input range, a bound on |x - max|):
// softmax 4 ulp, or relative (2.4e-7 + 6e-8 R), or absolute 1.7e-38 (the
// AVX-512 rows flush terms below that to 0, normalize_avx512.cc) for float32 and
// (4.4e-16 + 1.1e-16 R + 1.1 n 2^-53) for float64 (the rounding of x - max
// in the argument of exp; the row sums of n terms); log_softmax 4 ulp or
// that much absolute; layer_norm within 1 ulp (float32) or 8 ulp (float64)
// of the reference, or 1e-12 absolute near zero, plus for float64 the
// reference's own rounding, 2 n 2^-53 (|y| + 4).
#include <algorithm>
#include <cmath>
#include <limits>

#include "kernels/opt/opt_test_util.h"

namespace tfn::kernels::testing {
namespace {

using HT = HostTensor;

int Threads(const std::string& config) { return config.find("2 threads") != std::string::npos ? 2 : 1; }

std::vector<Shape> SoftmaxShapes() {
  std::vector<Shape> shapes;
  for (const Shape& s : OddShapes()) {
    if (s.rank() == 1) shapes.push_back(s);
  }
  for (const Shape& s : {Shape{5, 3}, Shape{64, 1000}, Shape{3, 4097}, Shape{2, 3, 33},
                         Shape{40000, 2}, Shape{0, 7}, Shape{4, 0}}) {
    shapes.push_back(s);
  }
  return shapes;
}

void CheckSoftmax(OpId op, DType dtype, double lo, double hi, double special) {
  const bool f32 = dtype == DType::kFloat32;
  const double range = hi - lo;
  uint32_t seed = 21;
  for (const Shape& s : SoftmaxShapes()) {
    // float64 adds the rounding of the two row sums, up to 1.1 n 2^-53 relative.
    const double n = s.rank() > 0 ? static_cast<double>(s[s.rank() - 1]) : 1;
    const double rel =
        f32 ? 2.4e-7 + 6e-8 * range : 4.4e-16 + 1.1e-16 * range + 1.1 * n * std::ldexp(1.0, -53);
    const HT x = Mixed(dtype, s, seed++, lo, hi, special);
    const Attrs attrs = {{"axis", AttrValue::Int(-1)}};
    const HT want = RunRef(op, {x}, attrs);
    ForEachConfig([&](const std::string& config) {
      SCOPED_TRACE(::testing::Message() << OpName(op) << " " << DTypeName(dtype) << " "
                                      << ShapeToString(s) << " " << config);
      const HT got = RunOpt(op, {x}, attrs, Threads(config));
      if (op == OpId::kSoftmax) {
        const double tiny = f32 ? 1.7e-38 : 0.0;
        EXPECT_TRUE(Near(got, want, 4,
                         [&](int64_t, double e) { return std::max(rel * std::fabs(e), tiny); }));
      } else {
        EXPECT_TRUE(Near(got, want, 4, [&](int64_t, double) { return rel; }));
      }
    });
  }
}

TEST(OptSoftmax, MatchesReference) {
  for (DType dtype : {DType::kFloat32, DType::kFloat64}) {
    for (OpId op : {OpId::kSoftmax, OpId::kLogSoftmax}) {
      CheckSoftmax(op, dtype, -10, 10, 0);
      CheckSoftmax(op, dtype, -60, 60, 0);
      CheckSoftmax(op, dtype, -10, 10, 0.01);  // NaN, +-inf, huge values in some rows
    }
  }
}

TEST(OptSoftmax, SpecialRows) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  const HT x = HT::Of<float>({5, 3}, {1, 2, 3, -inf, 0, -inf, -inf, -inf, -inf, 1, inf, 2, 1, nan, 2});
  for (OpId op : {OpId::kSoftmax, OpId::kLogSoftmax}) {
    const HT want = RunRef(op, {x}, {{"axis", AttrValue::Int(1)}});
    ForEachConfig([&](const std::string& config) {
      SCOPED_TRACE(config);
      EXPECT_TRUE(Near(RunOpt(op, {x}, {{"axis", AttrValue::Int(1)}}, Threads(config)), want, 4));
    });
  }
}

void CheckLayerNorm(DType dtype, double lo, double hi, double special) {
  struct LnCase {
    Shape shape;
    int64_t axis;
  };
  std::vector<LnCase> cases = {{{5, 3}, 1},       {{64, 1000}, -1}, {{3, 4097}, 1},
                               {{2, 3, 33}, 1},   {{40000, 2}, 1},  {{0, 7}, 1},
                               {{2, 70001}, -1}, {{1}, 0}};
  for (const Shape& s : OddShapes()) {
    if (s.rank() == 1 && s[0] > 0) cases.push_back({s, 0});
  }
  uint32_t seed = 40;
  for (const LnCase& c : cases) {
    const int axis = static_cast<int>(c.axis < 0 ? c.shape.rank() + c.axis : c.axis);
    const Shape tail(c.shape.begin() + axis, c.shape.end());
    const HT x = Mixed(dtype, c.shape, seed++, lo, hi, special);
    const HT scale = HT::Random(dtype, tail, seed++, -2, 2);
    const HT bias = HT::Random(dtype, tail, seed++, -2, 2);
    const Attrs attrs = {{"axis", AttrValue::Int(c.axis)}, {"epsilon", AttrValue::Float(1e-5)}};
    const HT want = RunRef(OpId::kLayerNorm, {x, scale, bias}, attrs);
    ForEachConfig([&](const std::string& config) {
      SCOPED_TRACE(::testing::Message() << DTypeName(dtype) << " " << ShapeToString(c.shape)
                                      << " axis " << c.axis << " range [" << lo << ", " << hi
                                      << ") " << config);
      const HT got = RunOpt(OpId::kLayerNorm, {x, scale, bias}, attrs, Threads(config));
      // float64: the reference's own sums round by up to n 2^-53 relative.
      const double n = static_cast<double>(tail.rank() ? NumElements(tail) : 1);
      const double u = dtype == DType::kFloat32 ? 0 : 2 * n * std::ldexp(1.0, -53);
      EXPECT_TRUE(Near(got, want, dtype == DType::kFloat32 ? 1 : 8,
                       [&](int64_t, double e) { return 1e-12 + u * (std::fabs(e) + 4); }));
    });
  }
}

TEST(OptLayerNorm, MatchesReference) {
  for (DType dtype : {DType::kFloat32, DType::kFloat64}) {
    CheckLayerNorm(dtype, -1, 1, 0);
    CheckLayerNorm(dtype, -3, 3, 0.005);  // NaN / inf rows
  }
  CheckLayerNorm(DType::kFloat32, 999, 1001, 0);  // mean far from 0: the shifted sums
}

TEST(OptSelect, NormalizeKernelsAreChosen) {
  auto symbol = [](OpId op, int64_t axis, DType dtype) {
    Attrs attrs = {{"axis", AttrValue::Int(axis)}, {"epsilon", AttrValue::Float(1e-5)}};
    std::vector<DType> in = {dtype, dtype, dtype};
    std::vector<int> ranks = {3, 1, 1};
    int out_rank = 3;
    NodeSignature node{op, &attrs, op == OpId::kLayerNorm ? 3 : 1, in.data(), ranks.data(), 1,
                       &dtype, &out_rank};
    KernelPlan plan;
    EXPECT_TRUE(PrepareKernel(node, Variant::kOptimized, &plan).ok());
    return std::string(plan.symbol);
  };
  EXPECT_EQ(symbol(OpId::kSoftmax, -1, DType::kFloat32), "tfn_opt_softmax");
  EXPECT_EQ(symbol(OpId::kLogSoftmax, 2, DType::kFloat64), "tfn_opt_softmax");
  EXPECT_EQ(symbol(OpId::kSoftmax, 1, DType::kFloat32), "tfn_ref_softmax");
  EXPECT_EQ(symbol(OpId::kLayerNorm, -1, DType::kFloat32), "tfn_opt_layer_norm");
}

}  // namespace
}  // namespace tfn::kernels::testing
