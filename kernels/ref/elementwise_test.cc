// Tests of the elementwise reference kernels against hand-computed values:
// every unary and binary op, float predicates, broadcasting, where, cast,
// edge cases.
#include <cmath>
#include <limits>

#include "kernels/testing/kernel_test_util.h"

namespace tfn::kernels::testing {
namespace {

using HT = HostTensor;
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

std::vector<float> Unary(OpId op, std::vector<float> x, Attrs attrs = {}) {
  auto out = RunOp(op, {HT::Of<float>({static_cast<int64_t>(x.size())}, x)}, attrs);
  return out.empty() ? std::vector<float>{} : out[0].values<float>();
}

void ExpectFloats(const std::vector<float>& got, const std::vector<float>& want, float tol = 1e-6f) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << "element " << i;
    } else if (std::isinf(want[i])) {
      EXPECT_EQ(got[i], want[i]) << "element " << i;
    } else {
      EXPECT_NEAR(got[i], want[i], tol * (1 + std::fabs(want[i]))) << "element " << i;
    }
  }
}

TEST(RefUnary, HandComputed) {
  ExpectFloats(Unary(OpId::kNeg, {1, -2, 0}), {-1, 2, 0});
  ExpectFloats(Unary(OpId::kAbs, {-3, 2, kNaN}), {3, 2, kNaN});
  ExpectFloats(Unary(OpId::kSign, {-3, 0, 2, kNaN}), {-1, 0, 1, kNaN});
  ExpectFloats(Unary(OpId::kRelu, {-1, 0, 3, kNaN}), {0, 0, 3, kNaN});
  ExpectFloats(Unary(OpId::kExp, {0, 1, -kInf}), {1, 2.718281828f, 0});
  ExpectFloats(Unary(OpId::kLog, {1, 2.718281828f, 0, -1}), {0, 1, -kInf, kNaN});
  ExpectFloats(Unary(OpId::kSqrt, {4, 0, -1}), {2, 0, kNaN});
  ExpectFloats(Unary(OpId::kRsqrt, {4, 0}), {0.5f, kInf});
  ExpectFloats(Unary(OpId::kTanh, {0, 100, -100}), {0, 1, -1});
  ExpectFloats(Unary(OpId::kSigmoid, {0, 100, -100}), {0.5f, 1, 0});
  ExpectFloats(Unary(OpId::kErf, {0, 0.5f, -3}), {0, 0.5204998778f, -0.9999779095f});
  ExpectFloats(Unary(OpId::kSin, {0, 1.5707963f}), {0, 1});
  ExpectFloats(Unary(OpId::kCos, {0, 3.14159265f}), {1, -1});
  ExpectFloats(Unary(OpId::kFloor, {1.5f, -1.5f}), {1, -2});
  ExpectFloats(Unary(OpId::kCeil, {1.5f, -1.5f}), {2, -1});
  ExpectFloats(Unary(OpId::kRound, {0.5f, 1.5f, 2.5f, -0.5f, 2.6f}), {0, 2, 2, -0.f, 3});
}

TEST(RefUnary, InverseAndHyperbolicTrig) {
  ExpectFloats(Unary(OpId::kTan, {0, 0.7853981634f, -0.7853981634f}), {0, 1, -1});
  ExpectFloats(Unary(OpId::kAsin, {0, 1, -0.5f, 2}), {0, 1.5707963268f, -0.5235987756f, kNaN});
  ExpectFloats(Unary(OpId::kAcos, {1, 0, -1, 2}), {0, 1.5707963268f, 3.1415926536f, kNaN});
  ExpectFloats(Unary(OpId::kAtan, {0, 1, -kInf}), {0, 0.7853981634f, -1.5707963268f});
  ExpectFloats(Unary(OpId::kSinh, {0, 1, -1}), {0, 1.1752011936f, -1.1752011936f});
  ExpectFloats(Unary(OpId::kCosh, {0, 1, -1}), {1, 1.5430806348f, 1.5430806348f});
  ExpectFloats(Unary(OpId::kAsinh, {0, 1, -1}), {0, 0.8813735870f, -0.8813735870f});
  ExpectFloats(Unary(OpId::kAcosh, {1, 2, 0.5f}), {0, 1.3169578969f, kNaN});
  ExpectFloats(Unary(OpId::kAtanh, {0, 0.5f, 1, 2}), {0, 0.5493061443f, kInf, kNaN});
}

TEST(RefUnary, FloatPredicates) {
  HT x = HT::Of<float>({5}, {1, kInf, -kInf, kNaN, 0});
  EXPECT_EQ(RunOp(OpId::kIsInf, {x}, {})[0].values<bool>(),
            (std::vector<bool>{false, true, true, false, false}));
  auto nan = RunOp(OpId::kIsNan, {HT::Of<double>({3}, {0, std::nan(""), kInf})}, {});
  EXPECT_EQ(nan[0].dtype, DType::kBool);
  EXPECT_EQ(nan[0].values<bool>(), (std::vector<bool>{false, true, false}));
  // The optimized variant keeps the reference kernel (a bool output).
  EXPECT_EQ(RunOp(OpId::kIsNan, {x}, {}, Variant::kOptimized)[0].values<bool>(),
            (std::vector<bool>{false, false, false, true, false}));
}

TEST(RefUnary, GeluBothForms) {
  // gelu(1) = 0.5 * (1 + erf(1/sqrt(2))) = 0.8413447
  ExpectFloats(Unary(OpId::kGelu, {0, 1, -1}), {0, 0.8413447f, -0.1586553f});
  // tanh form: 0.5 * (1 + tanh(sqrt(2/pi) * (1 + 0.044715))) = 0.8411920
  ExpectFloats(Unary(OpId::kGelu, {1}, {{"approximate", AttrValue::String("tanh")}}),
               {0.8411920f});
  std::string error;
  RunOp(OpId::kGelu, {HT::Of<float>({1}, {1})}, {{"approximate", AttrValue::String("fast")}},
        Variant::kReference, &error);
  EXPECT_NE(error.find("approximate must be 'none' or 'tanh'"), std::string::npos);
}

TEST(RefUnary, IntegerAndBool) {
  auto out = RunOp(OpId::kAbs, {HT::Of<int32_t>({3}, {-5, 0, 7})}, {});
  EXPECT_EQ(out[0].values<int32_t>(), (std::vector<int32_t>{5, 0, 7}));
  out = RunOp(OpId::kLogicalNot, {HT::Of<bool>({2}, {true, false})}, {});
  EXPECT_EQ(out[0].values<bool>(), (std::vector<bool>{false, true}));
  std::string error;
  RunOp(OpId::kExp, {HT::Of<int32_t>({1}, {1})}, {}, Variant::kReference, &error);
  EXPECT_EQ(error, "exp: argument 'x' must be f32 or f64, got int32");
}

TEST(RefUnary, EmptyTensor) {
  auto out = RunOp(OpId::kExp, {HT::Of<float>({0, 3}, {})}, {});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].shape, (Shape{0, 3}));
}

TEST(RefBinary, ArithmeticWithBroadcasting) {
  auto out = RunOp(OpId::kAdd, {HT::Of<float>({2, 1}, {1, 2}), HT::Of<float>({3}, {10, 20, 30})},
                   {});
  EXPECT_EQ(out[0].shape, (Shape{2, 3}));
  EXPECT_EQ(out[0].values<float>(), (std::vector<float>{11, 21, 31, 12, 22, 32}));
  out = RunOp(OpId::kSub, {HT::Of<float>({}, {5}), HT::Of<float>({2}, {1, 2})}, {});
  EXPECT_EQ(out[0].values<float>(), (std::vector<float>{4, 3}));
  out = RunOp(OpId::kMul, {HT::Of<double>({2, 2}, {1, 2, 3, 4}), HT::Of<double>({2, 1}, {2, 3})},
              {});
  EXPECT_EQ(out[0].values<double>(), (std::vector<double>{2, 4, 9, 12}));
  out = RunOp(OpId::kDiv, {HT::Of<float>({3}, {1, -1, 0}), HT::Of<float>({}, {0})}, {});
  ExpectFloats(out[0].values<float>(), {kInf, -kInf, kNaN});
  out = RunOp(OpId::kPow, {HT::Of<float>({2}, {2, 9}), HT::Of<float>({2}, {10, 0.5f})}, {});
  ExpectFloats(out[0].values<float>(), {1024, 3});
  out = RunOp(OpId::kMaximum, {HT::Of<float>({3}, {1, kNaN, 3}), HT::Of<float>({3}, {2, 0, kNaN})},
              {});
  ExpectFloats(out[0].values<float>(), {2, kNaN, kNaN});
  out = RunOp(OpId::kMinimum, {HT::Of<float>({2}, {1, 5}), HT::Of<float>({2}, {2, 4})}, {});
  ExpectFloats(out[0].values<float>(), {1, 4});
}

TEST(RefBinary, IntegerSemantics) {
  auto i32 = [](std::vector<int32_t> v) {
    return HT::Of<int32_t>({static_cast<int64_t>(v.size())}, v);
  };
  auto out = RunOp(OpId::kDiv, {i32({7, -7, 7, 5}), i32({2, 2, 0, -1})}, {});
  EXPECT_EQ(out[0].values<int32_t>(), (std::vector<int32_t>{3, -3, 0, -5}));
  out = RunOp(OpId::kMod, {i32({7, -7, 7, 7}), i32({3, 3, -3, 0})}, {});
  EXPECT_EQ(out[0].values<int32_t>(), (std::vector<int32_t>{1, 2, -2, 0}));
  out = RunOp(OpId::kPow, {i32({2, 3, 2, -1}), i32({10, 0, -1, 3})}, {});
  EXPECT_EQ(out[0].values<int32_t>(), (std::vector<int32_t>{1024, 1, 0, -1}));
  int32_t kMin = std::numeric_limits<int32_t>::min();
  out = RunOp(OpId::kDiv, {i32({kMin}), i32({-1})}, {});
  EXPECT_EQ(out[0].values<int32_t>(), (std::vector<int32_t>{kMin}));  // wraps, no trap
  out = RunOp(OpId::kMod, {HT::Of<float>({2}, {-7, 7}), HT::Of<float>({2}, {3, -3})}, {});
  ExpectFloats(out[0].values<float>(), {2, -2});
}

TEST(RefBinary, FModHasTheDividendsSign) {
  auto i64 = [](std::vector<int64_t> v) {
    return HT::Of<int64_t>({static_cast<int64_t>(v.size())}, v);
  };
  auto out = RunOp(OpId::kFMod, {i64({7, -7, 7, -7, 7, 7}), i64({3, 3, -3, -3, 0, -1})}, {});
  EXPECT_EQ(out[0].values<int64_t>(), (std::vector<int64_t>{1, -1, 1, -1, 0, 0}));
  out = RunOp(OpId::kFMod, {HT::Of<float>({4}, {-7, 7, 5.5f, 1}), HT::Of<float>({4}, {3, -3, 2, 0})},
              {});
  ExpectFloats(out[0].values<float>(), {-1, 1, 1.5f, kNaN});
  out = RunOp(OpId::kFMod, {HT::Of<double>({2}, {-7, 7}), HT::Of<double>({}, {3})}, {},
              Variant::kOptimized);
  EXPECT_EQ(out[0].values<double>(), (std::vector<double>{-1, 1}));
}

TEST(RefBinary, LogicalXor) {
  HT t = HT::Of<bool>({2, 1}, {true, false});
  HT u = HT::Of<bool>({2}, {true, false});
  EXPECT_EQ(RunOp(OpId::kLogicalXor, {t, u}, {})[0].values<bool>(),
            (std::vector<bool>{false, true, true, false}));
  EXPECT_EQ(RunOp(OpId::kLogicalXor, {t, u}, {}, Variant::kOptimized)[0].values<bool>(),
            (std::vector<bool>{false, true, true, false}));
}

TEST(RefBinary, Comparisons) {
  HT a = HT::Of<float>({4}, {1, 2, 3, kNaN});
  HT b = HT::Of<float>({}, {2});
  auto cmp = [&](OpId op) { return RunOp(op, {a, b}, {})[0].values<bool>(); };
  EXPECT_EQ(cmp(OpId::kEqual), (std::vector<bool>{false, true, false, false}));
  EXPECT_EQ(cmp(OpId::kNotEqual), (std::vector<bool>{true, false, true, true}));
  EXPECT_EQ(cmp(OpId::kLess), (std::vector<bool>{true, false, false, false}));
  EXPECT_EQ(cmp(OpId::kLessEqual), (std::vector<bool>{true, true, false, false}));
  EXPECT_EQ(cmp(OpId::kGreater), (std::vector<bool>{false, false, true, false}));
  EXPECT_EQ(cmp(OpId::kGreaterEqual), (std::vector<bool>{false, true, true, false}));
  HT t = HT::Of<bool>({2, 1}, {true, false});
  HT u = HT::Of<bool>({2}, {true, false});
  EXPECT_EQ(RunOp(OpId::kLogicalAnd, {t, u}, {})[0].values<bool>(),
            (std::vector<bool>{true, false, false, false}));
  EXPECT_EQ(RunOp(OpId::kLogicalOr, {t, u}, {})[0].values<bool>(),
            (std::vector<bool>{true, true, true, false}));
  EXPECT_EQ(RunOp(OpId::kEqual, {t, u}, {})[0].values<bool>(),
            (std::vector<bool>{true, false, false, true}));
}

TEST(RefBinary, Errors) {
  std::string error;
  RunOp(OpId::kAdd, {HT::Of<float>({2}, {1, 2}), HT::Of<int32_t>({2}, {1, 2})}, {},
        Variant::kReference, &error);
  EXPECT_NE(error.find("must have the same dtype"), std::string::npos) << error;
  RunOp(OpId::kAdd, {HT::Of<float>({2}, {1, 2}), HT::Of<float>({3}, {1, 2, 3})}, {},
        Variant::kReference, &error);
  EXPECT_NE(error.find("cannot be broadcast"), std::string::npos) << error;
}

TEST(RefWhere, BroadcastsAllThree) {
  auto out = RunOp(OpId::kWhere,
                   {HT::Of<bool>({2, 1}, {true, false}), HT::Of<int64_t>({3}, {1, 2, 3}),
                    HT::Of<int64_t>({}, {-1})},
                   {});
  EXPECT_EQ(out[0].shape, (Shape{2, 3}));
  EXPECT_EQ(out[0].values<int64_t>(), (std::vector<int64_t>{1, 2, 3, -1, -1, -1}));
}

TEST(RefCast, Semantics) {
  auto to = [](DType t) { return Attrs{{"dtype", AttrValue::Type(t)}}; };
  auto out = RunOp(OpId::kCast, {HT::Of<float>({5}, {1.9f, -1.9f, kNaN, 1e20f, -1e20f})},
                   to(DType::kInt32));
  EXPECT_EQ(out[0].values<int32_t>(),
            (std::vector<int32_t>{1, -1, 0, std::numeric_limits<int32_t>::max(),
                                  std::numeric_limits<int32_t>::min()}));
  out = RunOp(OpId::kCast, {HT::Of<float>({3}, {0, -0.5f, kNaN})}, to(DType::kBool));
  EXPECT_EQ(out[0].values<bool>(), (std::vector<bool>{false, true, true}));
  out = RunOp(OpId::kCast, {HT::Of<bool>({2}, {true, false})}, to(DType::kFloat64));
  EXPECT_EQ(out[0].values<double>(), (std::vector<double>{1, 0}));
  out = RunOp(OpId::kCast, {HT::Of<int64_t>({1}, {int64_t{1} << 40})}, to(DType::kInt32));
  EXPECT_EQ(out[0].values<int32_t>(), (std::vector<int32_t>{0}));  // wraps modulo 2^32
}

}  // namespace
}  // namespace tfn::kernels::testing
