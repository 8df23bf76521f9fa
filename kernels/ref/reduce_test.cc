// Tests of the reduction reference kernels: hand-computed values, every op
// and dtype against a naive scatter loop written here, keepdims, negative
// axes, axes given as an input, empty reductions, NaN, integer semantics,
// argmax/argmin ties and NaN (first or last index), and the shape rule's
// errors.
#include <cmath>
#include <limits>

#include "kernels/testing/kernel_test_util.h"

namespace tfn::kernels::testing {
namespace {

using HT = HostTensor;
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

Attrs Axes(std::vector<int64_t> axes, bool keepdims = false) {
  return {{"axes", AttrValue::Ints(std::move(axes))}, {"keepdims", AttrValue::Int(keepdims)}};
}

Attrs Axis(int64_t axis, bool keepdims = false) {
  return {{"axis", AttrValue::Int(axis)}, {"keepdims", AttrValue::Int(keepdims)}};
}

HT Reduce(OpId op, const HT& x, Attrs attrs) {
  auto out = RunOp(op, {x}, std::move(attrs));
  return out.empty() ? HT{} : out[0];
}

TEST(RefReduce, HandComputed) {
  HT x = HT::Of<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_EQ(Reduce(OpId::kReduceSum, x, {}).values<float>(), (std::vector<float>{21}));
  EXPECT_EQ(Reduce(OpId::kReduceSum, x, {}).shape, Shape{});
  EXPECT_EQ(Reduce(OpId::kReduceSum, x, Axes({0})).values<float>(), (std::vector<float>{5, 7, 9}));
  EXPECT_EQ(Reduce(OpId::kReduceSum, x, Axes({1})).values<float>(), (std::vector<float>{6, 15}));
  EXPECT_EQ(Reduce(OpId::kReduceMean, x, Axes({0})).values<float>(),
            (std::vector<float>{2.5f, 3.5f, 4.5f}));
  EXPECT_EQ(Reduce(OpId::kReduceMax, x, Axes({1})).values<float>(), (std::vector<float>{3, 6}));
  EXPECT_EQ(Reduce(OpId::kReduceMin, x, Axes({0})).values<float>(), (std::vector<float>{1, 2, 3}));
  EXPECT_EQ(Reduce(OpId::kReduceProd, x, Axes({1})).values<float>(), (std::vector<float>{6, 120}));
  EXPECT_EQ(Reduce(OpId::kReduceProd, x, {}).values<float>(), (std::vector<float>{720}));
  // Negative axes and keepdims.
  HT k = Reduce(OpId::kReduceSum, x, Axes({-1}, true));
  EXPECT_EQ(k.shape, (Shape{2, 1}));
  EXPECT_EQ(k.values<float>(), (std::vector<float>{6, 15}));
  k = Reduce(OpId::kReduceMax, x, Axes({}, true));
  EXPECT_EQ(k.shape, (Shape{1, 1}));
  EXPECT_EQ(k.values<float>(), (std::vector<float>{6}));
  k = Reduce(OpId::kReduceSum, x, Axes({-2, 1}));
  EXPECT_EQ(k.shape, Shape{});
  EXPECT_EQ(k.values<float>(), (std::vector<float>{21}));
}

TEST(RefReduce, MiddleAxisOf3D) {
  // x[i][j][k] = 100 i + 10 j + k, shape [2,3,2]; sum over j = 300 i + 30 + 3 k.
  std::vector<int32_t> v;
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 3; ++j) {
      for (int k = 0; k < 2; ++k) v.push_back(100 * i + 10 * j + k);
    }
  }
  HT x = HT::Of<int32_t>({2, 3, 2}, v);
  HT s = Reduce(OpId::kReduceSum, x, Axes({1}, true));
  EXPECT_EQ(s.shape, (Shape{2, 1, 2}));
  EXPECT_EQ(s.values<int32_t>(), (std::vector<int32_t>{30, 33, 330, 333}));
  EXPECT_EQ(Reduce(OpId::kReduceMax, x, Axes({0, 2})).values<int32_t>(),
            (std::vector<int32_t>{101, 111, 121}));
}

// Naive oracle: scatters every input element into its output cell.
HT NaiveReduce(OpId op, const HT& x, const std::vector<int>& axes) {
  const int rank = x.shape.rank();
  std::vector<bool> reduced(rank, axes.empty());
  for (int a : axes) reduced[a] = true;
  Shape out_shape;
  for (int d = 0; d < rank; ++d) {
    if (!reduced[d]) out_shape.push_back(x.shape[d]);
  }
  const int64_t n_out = NumElements(out_shape);
  std::vector<double> acc(n_out), count(n_out, 0);
  const bool is_int = IsInteger(x.dtype);
  for (int64_t o = 0; o < n_out; ++o) {
    switch (op) {
      case OpId::kReduceProd:
        acc[o] = 1;
        break;
      case OpId::kReduceMax:
        acc[o] = -INFINITY;
        break;
      case OpId::kReduceMin:
        acc[o] = INFINITY;
        break;
      default:
        acc[o] = 0;
    }
  }
  for (int64_t i = 0; i < x.size(); ++i) {
    std::vector<int64_t> coord(rank);
    int64_t rest = i;
    for (int d = rank - 1; d >= 0; --d) {
      coord[d] = rest % x.shape[d];
      rest /= x.shape[d];
    }
    int64_t o = 0;
    for (int d = 0; d < rank; ++d) {
      if (!reduced[d]) o = o * x.shape[d] + coord[d];
    }
    double v = x.at(i);
    count[o] += 1;
    switch (op) {
      case OpId::kReduceSum:
      case OpId::kReduceMean:
        acc[o] += v;
        break;
      case OpId::kReduceProd:
        acc[o] *= v;
        break;
      case OpId::kReduceMax:
        if (!std::isnan(acc[o]) && (std::isnan(v) || v > acc[o])) acc[o] = v;
        break;
      case OpId::kReduceMin:
        if (!std::isnan(acc[o]) && (std::isnan(v) || v < acc[o])) acc[o] = v;
        break;
      default:
        break;
    }
  }
  HT out;
  out.dtype = x.dtype;
  out.shape = out_shape;
  out.bytes.resize(static_cast<size_t>(n_out * DTypeSize(x.dtype)));
  for (int64_t o = 0; o < n_out; ++o) {
    double r = acc[o];
    if (op == OpId::kReduceMean) r = is_int ? std::trunc(acc[o] / count[o]) : acc[o] / count[o];
    VisitDType(x.dtype, [&](auto tag) {
      using T = decltype(tag);
      T t = static_cast<T>(r);
      std::memcpy(out.bytes.data() + o * sizeof(T), &t, sizeof(T));
      return 0;
    });
  }
  return out;
}

TEST(RefReduce, AllOpsAndDTypesAgainstNaiveLoop) {
  const std::vector<std::vector<int>> axis_sets = {{}, {0}, {1}, {2}, {0, 2}, {1, 2}, {0, 1, 2}};
  const OpId ops[] = {OpId::kReduceSum, OpId::kReduceMean, OpId::kReduceMax, OpId::kReduceMin,
                      OpId::kReduceProd};
  uint32_t seed = 7;
  for (DType dt : {DType::kFloat32, DType::kFloat64, DType::kInt32, DType::kInt64}) {
    // Small magnitudes keep integer products exact in the double oracle.
    HT x = HT::Random(dt, {3, 4, 2}, seed++, -3, 3);
    for (OpId op : ops) {
      for (const auto& axes : axis_sets) {
        std::vector<int64_t> attr(axes.begin(), axes.end());
        HT got = Reduce(op, x, Axes(attr));
        // f32 sums are computed in double by both and rounded once: 1e-6 relative.
        EXPECT_TRUE(AllClose(got, NaiveReduce(op, x, axes), 1e-6, 1e-6))
            << OpName(op) << " " << DTypeName(dt) << " axes " << ::testing::PrintToString(axes);
      }
    }
  }
}

TEST(RefReduce, IntegerMeanTruncates) {
  HT x = HT::Of<int32_t>({2, 3}, {-7, 0, 0, 7, 1, 0});
  // -7/3 = -2.33 -> -2; 8/3 = 2.67 -> 2
  EXPECT_EQ(Reduce(OpId::kReduceMean, x, Axes({1})).values<int32_t>(),
            (std::vector<int32_t>{-2, 2}));
  HT y = HT::Of<int64_t>({2}, {5, 6});
  EXPECT_EQ(Reduce(OpId::kReduceMean, y, {}).values<int64_t>(), (std::vector<int64_t>{5}));
}

TEST(RefReduce, IntegerSumAndProdWrap) {
  const int32_t big = std::numeric_limits<int32_t>::max();
  HT x = HT::Of<int32_t>({2}, {big, 1});
  EXPECT_EQ(Reduce(OpId::kReduceSum, x, {}).values<int32_t>(),
            (std::vector<int32_t>{std::numeric_limits<int32_t>::min()}));
  HT y = HT::Of<int32_t>({2}, {65536, 65536});  // 2^32 wraps to 0
  EXPECT_EQ(Reduce(OpId::kReduceProd, y, {}).values<int32_t>(), (std::vector<int32_t>{0}));
}

TEST(RefReduce, EmptyReductionsGiveIdentities) {
  HT f = HT::Of<float>({0, 3}, {});
  EXPECT_EQ(Reduce(OpId::kReduceSum, f, Axes({0})).values<float>(), (std::vector<float>(3, 0)));
  EXPECT_EQ(Reduce(OpId::kReduceProd, f, Axes({0})).values<float>(), (std::vector<float>(3, 1)));
  EXPECT_EQ(Reduce(OpId::kReduceMax, f, Axes({0})).values<float>(), (std::vector<float>(3, -kInf)));
  EXPECT_EQ(Reduce(OpId::kReduceMin, f, Axes({0})).values<float>(), (std::vector<float>(3, kInf)));
  for (float v : Reduce(OpId::kReduceMean, f, Axes({0})).values<float>()) {
    EXPECT_TRUE(std::isnan(v));
  }
  // Reducing the other axis gives an empty result.
  HT e = Reduce(OpId::kReduceSum, f, Axes({1}));
  EXPECT_EQ(e.shape, (Shape{0}));
  HT i = HT::Of<int32_t>({0}, {});
  EXPECT_EQ(Reduce(OpId::kReduceSum, i, {}).values<int32_t>(), (std::vector<int32_t>{0}));
  EXPECT_EQ(Reduce(OpId::kReduceProd, i, {}).values<int32_t>(), (std::vector<int32_t>{1}));
  EXPECT_EQ(Reduce(OpId::kReduceMean, i, {}).values<int32_t>(), (std::vector<int32_t>{0}));
  EXPECT_EQ(Reduce(OpId::kReduceMax, i, {}).values<int32_t>(),
            (std::vector<int32_t>{std::numeric_limits<int32_t>::lowest()}));
  EXPECT_EQ(Reduce(OpId::kReduceMin, HT::Of<int64_t>({0}, {}), {}).values<int64_t>(),
            (std::vector<int64_t>{std::numeric_limits<int64_t>::max()}));
}

TEST(RefReduce, ScalarAndSizeOneDims) {
  HT s = HT::Of<double>({}, {4.5});
  EXPECT_EQ(Reduce(OpId::kReduceSum, s, {}).values<double>(), (std::vector<double>{4.5}));
  EXPECT_EQ(Reduce(OpId::kReduceMean, s, {}).values<double>(), (std::vector<double>{4.5}));
  HT x = HT::Of<float>({1, 3, 1}, {1, -2, 3});
  HT r = Reduce(OpId::kReduceMin, x, Axes({0, 2}));
  EXPECT_EQ(r.shape, (Shape{3}));
  EXPECT_EQ(r.values<float>(), (std::vector<float>{1, -2, 3}));
}

TEST(RefReduce, NaNAndInf) {
  HT x = HT::Of<float>({2, 3}, {1, kNaN, 3, -kInf, 0, kInf});
  auto mx = Reduce(OpId::kReduceMax, x, Axes({1})).values<float>();
  EXPECT_TRUE(std::isnan(mx[0]));
  EXPECT_EQ(mx[1], kInf);
  auto mn = Reduce(OpId::kReduceMin, x, Axes({1})).values<float>();
  EXPECT_TRUE(std::isnan(mn[0]));
  EXPECT_EQ(mn[1], -kInf);
  auto sm = Reduce(OpId::kReduceSum, x, Axes({1})).values<float>();
  EXPECT_TRUE(std::isnan(sm[0]));
  EXPECT_TRUE(std::isnan(sm[1]));  // -inf + inf
  // The NaN need not come first to win.
  HT y = HT::Of<double>({3}, {5, 7, kNaN});
  EXPECT_TRUE(std::isnan(Reduce(OpId::kReduceMax, y, {}).values<double>()[0]));
}

TEST(RefArgReduce, HandComputedTiesAndNaN) {
  auto arg = [](OpId op, HT x, Attrs attrs) { return Reduce(op, x, attrs).values<int64_t>(); };
  HT x = HT::Of<float>({4}, {1, 3, 3, 2});
  EXPECT_EQ(arg(OpId::kArgMax, x, Axis(0)), (std::vector<int64_t>{1}));  // first of the ties
  EXPECT_EQ(arg(OpId::kArgMin, x, Axis(0)), (std::vector<int64_t>{0}));
  HT t = HT::Of<int32_t>({3}, {2, 1, 1});
  EXPECT_EQ(arg(OpId::kArgMin, t, Axis(-1)), (std::vector<int64_t>{1}));
  HT n = HT::Of<float>({4}, {1, kNaN, 5, kNaN});
  EXPECT_EQ(arg(OpId::kArgMax, n, Axis(0)), (std::vector<int64_t>{1}));  // first NaN wins
  EXPECT_EQ(arg(OpId::kArgMin, n, Axis(0)), (std::vector<int64_t>{1}));
  HT n0 = HT::Of<double>({3}, {kNaN, kInf, -kInf});
  EXPECT_EQ(arg(OpId::kArgMax, n0, Axis(0)), (std::vector<int64_t>{0}));
  EXPECT_EQ(arg(OpId::kArgMin, n0, Axis(0)), (std::vector<int64_t>{0}));
  HT inf = HT::Of<float>({3}, {-kInf, -kInf, 0});
  EXPECT_EQ(arg(OpId::kArgMin, inf, Axis(0)), (std::vector<int64_t>{0}));
  EXPECT_EQ(arg(OpId::kArgMax, HT::Of<float>({2}, {-kInf, -kInf}), Axis(0)),
            (std::vector<int64_t>{0}));
}

TEST(RefArgReduce, SelectLastIndex) {
  auto last = [](OpId op, HT x, int64_t axis, Variant v = Variant::kReference) {
    Attrs a = Axis(axis);
    a.Set("select_last_index", AttrValue::Int(1));
    return RunOp(op, {x}, a, v)[0].values<int64_t>();
  };
  HT x = HT::Of<float>({5}, {1, 3, 3, 1, 2});
  EXPECT_EQ(last(OpId::kArgMax, x, 0), (std::vector<int64_t>{2}));  // last of the ties
  EXPECT_EQ(last(OpId::kArgMin, x, 0), (std::vector<int64_t>{3}));
  // [[2, 2], [1, 2]] along axis 0: column 0 has its max at 0, column 1 a tie.
  HT m = HT::Of<int32_t>({2, 2}, {2, 2, 1, 2});
  EXPECT_EQ(last(OpId::kArgMax, m, 0), (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(last(OpId::kArgMin, m, 1), (std::vector<int64_t>{1, 0}));
  // NaN is still the extreme; the last NaN wins.
  HT n = HT::Of<double>({4}, {kNaN, 5, kNaN, 7});
  EXPECT_EQ(last(OpId::kArgMax, n, 0), (std::vector<int64_t>{2}));
  EXPECT_EQ(last(OpId::kArgMin, n, 0), (std::vector<int64_t>{2}));
  // The optimized variant gives the same answer (it keeps the reference kernel).
  EXPECT_EQ(last(OpId::kArgMax, x, 0, Variant::kOptimized), (std::vector<int64_t>{2}));
}

TEST(RefReduce, AxesAsInput) {
  HT x = HT::Of<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  Attrs keep{{"keepdims", AttrValue::Int(1)}};
  for (Variant v : {Variant::kReference, Variant::kOptimized}) {
    auto out = RunOp(OpId::kReduceSum, {x, HT::Of<int64_t>({1}, {-1})}, keep, v);
    EXPECT_EQ(out[0].shape, (Shape{2, 1}));
    EXPECT_EQ(out[0].values<float>(), (std::vector<float>{6, 15}));
    out = RunOp(OpId::kReduceMax, {x, HT::Of<int32_t>({1}, {0})}, {}, v);
    EXPECT_EQ(out[0].values<float>(), (std::vector<float>{4, 5, 6}));
    out = RunOp(OpId::kReduceProd, {x, HT::Of<int64_t>({0}, {})}, {}, v);  // empty: every axis
    EXPECT_EQ(out[0].shape, Shape{});
    EXPECT_EQ(out[0].values<float>(), (std::vector<float>{720}));
  }
}

TEST(RefArgReduce, AxesAndKeepdims) {
  // [[1, 9, 3], [7, 2, 8]]
  HT x = HT::Of<int64_t>({2, 3}, {1, 9, 3, 7, 2, 8});
  HT r = Reduce(OpId::kArgMax, x, Axis(0));
  EXPECT_EQ(r.dtype, DType::kInt64);
  EXPECT_EQ(r.shape, (Shape{3}));
  EXPECT_EQ(r.values<int64_t>(), (std::vector<int64_t>{1, 0, 1}));
  r = Reduce(OpId::kArgMax, x, Axis(1, true));
  EXPECT_EQ(r.shape, (Shape{2, 1}));
  EXPECT_EQ(r.values<int64_t>(), (std::vector<int64_t>{1, 2}));
  r = Reduce(OpId::kArgMin, x, Axis(-1));
  EXPECT_EQ(r.values<int64_t>(), (std::vector<int64_t>{0, 1}));
  // A 3D tensor along the middle axis: x[i][j][k] = (j == 2 - k) ? 10 : j, so
  // the max of column k sits at j = 2 - k.
  std::vector<double> v;
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 3; ++j) {
      for (int k = 0; k < 3; ++k) v.push_back(j == 2 - k ? 10 : j);
    }
  }
  r = Reduce(OpId::kArgMax, HT::Of<double>({2, 3, 3}, v), Axis(1));
  EXPECT_EQ(r.values<int64_t>(), (std::vector<int64_t>{2, 1, 0, 2, 1, 0}));
  // Empty non-reduced dims give an empty result.
  r = Reduce(OpId::kArgMax, HT::Of<float>({0, 3}, {}), Axis(1));
  EXPECT_EQ(r.shape, (Shape{0}));
}

TEST(RefReduce, Errors) {
  std::string error;
  HT x = HT::Of<float>({2, 3}, std::vector<float>(6, 1));
  RunOp(OpId::kReduceSum, {x}, Axes({2}), Variant::kReference, &error);
  EXPECT_EQ(error, "reduce_sum: axis 2 is out of range for f32[2,3] (expected -2 <= axis < 2)");
  RunOp(OpId::kReduceMax, {x}, Axes({1, -1}), Variant::kReference, &error);
  EXPECT_EQ(error, "reduce_max: axis -1 is listed twice");
  RunOp(OpId::kArgMax, {x}, Axis(-3), Variant::kReference, &error);
  EXPECT_NE(error.find("argmax: axis -3 is out of range"), std::string::npos) << error;
  RunOp(OpId::kArgMin, {HT::Of<float>({2, 0}, {})}, Axis(1), Variant::kReference, &error);
  EXPECT_NE(error.find("cannot take the arg of an empty axis"), std::string::npos) << error;
  RunOp(OpId::kReduceSum, {HT::Of<bool>({1}, {true})}, {}, Variant::kReference, &error);
  EXPECT_NE(error.find("must be"), std::string::npos) << error;
}

}  // namespace
}  // namespace tfn::kernels::testing
