// Tests of the matmul reference kernel: hand-computed products, transposes,
// batch broadcasting checked against a naive loop written here, integer
// wrapping, empty operands and the shape rule's errors.
#include <algorithm>
#include <cmath>
#include <limits>

#include "kernels/testing/kernel_test_util.h"

namespace tfn::kernels::testing {
namespace {

using HT = HostTensor;

Attrs Transposes(bool ta, bool tb) {
  return {{"transpose_a", AttrValue::Int(ta)}, {"transpose_b", AttrValue::Int(tb)}};
}

// Naive batched matmul with NumPy broadcasting of the batch dims, written
// independently of the kernel: explicit coordinates, computed in double.
HT NaiveMatMul(const HT& a, const HT& b, bool ta, bool tb) {
  const int ra = a.shape.rank(), rb = b.shape.rank();
  const int64_t m = ta ? a.shape[ra - 1] : a.shape[ra - 2];
  const int64_t k = ta ? a.shape[ra - 2] : a.shape[ra - 1];
  const int64_t n = tb ? b.shape[rb - 2] : b.shape[rb - 1];
  const int batch_rank = std::max(ra, rb) - 2;
  Shape out_shape;
  for (int i = 0; i < batch_rank; ++i) {
    int ia = ra - 2 - batch_rank + i, ib = rb - 2 - batch_rank + i;
    int64_t da = ia >= 0 ? a.shape[ia] : 1, db = ib >= 0 ? b.shape[ib] : 1;
    out_shape.push_back(da == 1 ? db : da);
  }
  out_shape.push_back(m);
  out_shape.push_back(n);
  HT out;
  out.dtype = a.dtype;
  out.shape = out_shape;
  out.bytes.resize(static_cast<size_t>(NumElements(out_shape) * DTypeSize(a.dtype)));
  int64_t batches = 1;
  for (int i = 0; i < batch_rank; ++i) batches *= out_shape[i];
  // Linear index of the operand's matrix for output batch coordinates `coord`.
  auto matrix_index = [&](const HT& t, const std::vector<int64_t>& coord) {
    const int r = t.shape.rank();
    int64_t idx = 0;
    for (int i = 0; i < r - 2; ++i) {
      int oi = batch_rank - (r - 2) + i;
      idx = idx * t.shape[i] + (t.shape[i] == 1 ? 0 : coord[oi]);
    }
    return idx;
  };
  for (int64_t bi = 0; bi < batches; ++bi) {
    std::vector<int64_t> coord(batch_rank);
    int64_t rest = bi;
    for (int i = batch_rank - 1; i >= 0; --i) {
      coord[i] = rest % out_shape[i];
      rest /= out_shape[i];
    }
    const int64_t a0 = matrix_index(a, coord) * a.shape[ra - 2] * a.shape[ra - 1];
    const int64_t b0 = matrix_index(b, coord) * b.shape[rb - 2] * b.shape[rb - 1];
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        double acc = 0;
        for (int64_t t = 0; t < k; ++t) {
          double av = ta ? a.at(a0 + t * m + i) : a.at(a0 + i * k + t);
          double bv = tb ? b.at(b0 + j * k + t) : b.at(b0 + t * n + j);
          acc += av * bv;
        }
        VisitDType(a.dtype, [&](auto tag) {
          using T = decltype(tag);
          T v = static_cast<T>(acc);
          std::memcpy(out.bytes.data() + ((bi * m + i) * n + j) * sizeof(T), &v, sizeof(T));
          return 0;
        });
      }
    }
  }
  return out;
}

TEST(RefMatMul, HandComputed) {
  // [[1,2,3],[4,5,6]] x [[7,8],[9,10],[11,12]] = [[58,64],[139,154]]
  HT a = HT::Of<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  HT b = HT::Of<float>({3, 2}, {7, 8, 9, 10, 11, 12});
  auto out = RunOp(OpId::kMatMul, {a, b}, {});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].shape, (Shape{2, 2}));
  EXPECT_EQ(out[0].values<float>(), (std::vector<float>{58, 64, 139, 154}));
  // The same product from stored transposes.
  HT at = HT::Of<float>({3, 2}, {1, 4, 2, 5, 3, 6});
  HT bt = HT::Of<float>({2, 3}, {7, 9, 11, 8, 10, 12});
  EXPECT_EQ(RunOp(OpId::kMatMul, {at, b}, Transposes(true, false))[0].values<float>(),
            (std::vector<float>{58, 64, 139, 154}));
  EXPECT_EQ(RunOp(OpId::kMatMul, {a, bt}, Transposes(false, true))[0].values<float>(),
            (std::vector<float>{58, 64, 139, 154}));
  EXPECT_EQ(RunOp(OpId::kMatMul, {at, bt}, Transposes(true, true))[0].values<float>(),
            (std::vector<float>{58, 64, 139, 154}));
}

TEST(RefMatMul, BatchedWithBroadcastHandComputed) {
  // a: two 1x2 matrices; b: one 2x1 matrix shared by both batches.
  HT a = HT::Of<double>({2, 1, 2}, {1, 2, 3, 4});
  HT b = HT::Of<double>({2, 1}, {10, 100});
  auto out = RunOp(OpId::kMatMul, {a, b}, {});
  EXPECT_EQ(out[0].shape, (Shape{2, 1, 1}));
  EXPECT_EQ(out[0].values<double>(), (std::vector<double>{210, 430}));
  // Batch dims [2,1] and [3] broadcast to [2,3].
  HT a2 = HT::Of<int32_t>({2, 1, 1, 1}, {2, 3});
  HT b2 = HT::Of<int32_t>({3, 1, 1}, {1, 10, 100});
  out = RunOp(OpId::kMatMul, {a2, b2}, {});
  EXPECT_EQ(out[0].shape, (Shape{2, 3, 1, 1}));
  EXPECT_EQ(out[0].values<int32_t>(), (std::vector<int32_t>{2, 20, 200, 3, 30, 300}));
}

TEST(RefMatMul, RandomAgainstNaiveLoop) {
  struct Case {
    Shape a, b;
    bool ta, tb;
  };
  const Case cases[] = {
      {{3, 4}, {4, 5}, false, false},
      {{4, 3}, {4, 5}, true, false},
      {{3, 4}, {5, 4}, false, true},
      {{4, 3}, {5, 4}, true, true},
      {{2, 1, 3, 4}, {5, 4, 2}, false, false},
      {{1, 4, 3}, {3, 2, 4}, true, true},
      {{2, 3, 1, 7}, {2, 1, 7, 1}, false, false},
      {{6, 1, 1}, {1, 1, 6}, false, false},
  };
  uint32_t seed = 1;
  for (const Case& c : cases) {
    for (DType dt : {DType::kFloat32, DType::kFloat64, DType::kInt32, DType::kInt64}) {
      HT a = HT::Random(dt, c.a, seed++, -10, 10);
      HT b = HT::Random(dt, c.b, seed++, -10, 10);
      auto out = RunOp(OpId::kMatMul, {a, b}, Transposes(c.ta, c.tb));
      ASSERT_EQ(out.size(), 1u);
      // f32: the kernel and the naive loop both sum in double; 1e-6 covers
      // the final rounding. Integers are exact.
      EXPECT_TRUE(AllClose(out[0], NaiveMatMul(a, b, c.ta, c.tb), 1e-6, 1e-6))
          << DTypeName(dt) << " a" << ShapeToString(c.a) << " b" << ShapeToString(c.b);
    }
  }
}

TEST(RefMatMul, AccumulatesF32InDouble) {
  // 1e8 + 1 - 1e8: a float accumulator loses the 1; double keeps it.
  HT a = HT::Of<float>({1, 3}, {1e8f, 1, -1e8f});
  HT b = HT::Of<float>({3, 1}, {1, 1, 1});
  EXPECT_EQ(RunOp(OpId::kMatMul, {a, b}, {})[0].values<float>(), (std::vector<float>{1}));
}

TEST(RefMatMul, IntegersWrap) {
  const int32_t big = std::numeric_limits<int32_t>::max();
  HT a = HT::Of<int32_t>({1, 2}, {big, 1});
  HT b = HT::Of<int32_t>({2, 1}, {1, 1});
  EXPECT_EQ(RunOp(OpId::kMatMul, {a, b}, {})[0].values<int32_t>(),
            (std::vector<int32_t>{std::numeric_limits<int32_t>::min()}));
}

TEST(RefMatMul, NaNAndInf) {
  const float inf = std::numeric_limits<float>::infinity();
  HT a = HT::Of<float>({2, 1}, {inf, 1});
  HT b = HT::Of<float>({1, 2}, {0, 2});
  auto v = RunOp(OpId::kMatMul, {a, b}, {})[0].values<float>();
  EXPECT_TRUE(std::isnan(v[0]));  // inf * 0
  EXPECT_EQ(v[1], inf);
  EXPECT_EQ(v[2], 0);
  EXPECT_EQ(v[3], 2);
}

TEST(RefMatMul, EmptyOperands) {
  // K = 0: every output is an empty sum.
  auto out = RunOp(OpId::kMatMul, {HT::Of<float>({2, 0}, {}), HT::Of<float>({0, 3}, {})}, {});
  EXPECT_EQ(out[0].shape, (Shape{2, 3}));
  EXPECT_EQ(out[0].values<float>(), (std::vector<float>(6, 0.f)));
  out =
      RunOp(OpId::kMatMul, {HT::Of<float>({0, 4}, {}), HT::Random(DType::kFloat32, {4, 3}, 1)}, {});
  EXPECT_EQ(out[0].shape, (Shape{0, 3}));
  out = RunOp(OpId::kMatMul, {HT::Of<float>({0, 2, 4}, {}), HT::Random(DType::kFloat32, {4, 3}, 1)},
              {});
  EXPECT_EQ(out[0].shape, (Shape{0, 2, 3}));
}

TEST(RefMatMul, Errors) {
  std::string error;
  RunOp(OpId::kMatMul,
        {HT::Of<float>({2, 3}, std::vector<float>(6)), HT::Of<float>({2, 2}, {1, 2, 3, 4})}, {},
        Variant::kReference, &error);
  EXPECT_NE(error.find("matmul: inner dimensions differ"), std::string::npos) << error;
  RunOp(OpId::kMatMul, {HT::Of<float>({3}, {1, 2, 3}), HT::Of<float>({3, 1}, {1, 2, 3})}, {},
        Variant::kReference, &error);
  EXPECT_NE(error.find("inputs must have rank >= 2"), std::string::npos) << error;
  RunOp(OpId::kMatMul, {HT::Of<float>({2, 1, 1}, {1, 2}), HT::Of<float>({3, 1, 1}, {1, 2, 3})}, {},
        Variant::kReference, &error);
  EXPECT_NE(error.find("batch dimensions cannot be broadcast"), std::string::npos) << error;
  RunOp(OpId::kMatMul, {HT::Of<bool>({1, 1}, {true}), HT::Of<bool>({1, 1}, {true})}, {},
        Variant::kReference, &error);
  EXPECT_NE(error.find("must be"), std::string::npos) << error;
  RunOp(OpId::kMatMul, {HT::Of<float>({1, 1}, {1}), HT::Of<double>({1, 1}, {1})}, {},
        Variant::kReference, &error);
  EXPECT_NE(error.find("same dtype"), std::string::npos) << error;
}

}  // namespace
}  // namespace tfn::kernels::testing
