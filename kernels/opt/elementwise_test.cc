// Tests of the optimized elementwise kernels (opt/elementwise*.cc) against
// the reference kernels, run through PrepareKernel with Variant::kOptimized
// under every instruction set the CPU has and with 1 and 2 threads, over odd
// sizes (1, 3, 7, ..., 4097, 70001), empty tensors and inputs with NaN, Inf,
// signed zeros, denormals and huge values mixed in; every elementwise op of
// the op table; outputs written over an input.
//
// Tolerances against the reference: bit-identical for everything except the
// float transcendentals, which differ from libm (the reference) by at most
// vec_math's error plus libm's: exp, log 2 ulp; erf, sin, cos 3 ulp; tanh 4
// ulp; sigmoid 5 ulp (the reference's 1/(1+expf(-x)) rounds three times; it
// flushes to 0 below -87.3 where vec_math gives the denormal, so an absolute
// 1.2e-38 is allowed); gelu 4 ulp or 1.2e-7 |x| (2.5e-16 |x| for float64),
// the reference's own cancellation error in 0.5 x (1 + erf) for x < 0.
// float64 erf, sin, cos and gelu(erf) call libm and are bit-identical.
#include <cmath>
#include <limits>

#include "kernels/opt/opt_test_util.h"

namespace tfn::kernels::testing {
namespace {

using HT = HostTensor;

int Threads(const std::string& config) { return config.find("2 threads") != std::string::npos ? 2 : 1; }

struct UnaryCase {
  OpId op;
  double lo, hi;
  double ulps;  // < 0: bit-identical
  bool tanh_form = false;
};

std::vector<UnaryCase> FloatCases(bool f64) {
  return {{OpId::kNeg, -10, 10, -1},        {OpId::kAbs, -10, 10, -1},
          {OpId::kSign, -2, 2, -1},         {OpId::kRelu, -10, 10, -1},
          {OpId::kFloor, -1e3, 1e3, -1},    {OpId::kCeil, -1e3, 1e3, -1},
          {OpId::kRound, -10, 10, -1},      {OpId::kSqrt, -1, 100, -1},
          {OpId::kRsqrt, -1, 100, -1},      {OpId::kExp, -110, 90, 2},
          {OpId::kLog, -0.1, 10, 2},        {OpId::kTanh, -12, 12, 4},
          {OpId::kSigmoid, -110, 40, 5},    {OpId::kErf, -5, 5, f64 ? -1.0 : 3},
          {OpId::kSin, -50, 50, f64 ? -1.0 : 3}, {OpId::kCos, -50, 50, f64 ? -1.0 : 3},
          {OpId::kGelu, -8, 8, f64 ? -1.0 : 4}, {OpId::kGelu, -8, 8, 4, true}};
}

void CheckUnary(DType dtype, const UnaryCase& c, const Shape& shape, uint32_t seed) {
  Attrs attrs;
  if (c.op == OpId::kGelu) attrs = {{"approximate", AttrValue::String(c.tanh_form ? "tanh" : "none")}};
  HT x = Mixed(dtype, shape, seed, c.lo, c.hi);
  if (c.op == OpId::kSin || c.op == OpId::kCos) {  // a few arguments beyond kTrigMaxArg
    for (int64_t i = 5; i < x.size(); i += 97) {
      const double v = (i % 2 ? 1 : -1) * (2e6 + 3e5 * i);
      if (dtype == DType::kFloat32) {
        const float f = static_cast<float>(v);
        std::memcpy(x.bytes.data() + i * 4, &f, 4);
      }
    }
  }
  const HT want = RunRef(c.op, {x}, attrs);
  const double rel = dtype == DType::kFloat32 ? 1.2e-7 : 2.5e-16;
  ForEachConfig([&](const std::string& config) {
    SCOPED_TRACE(::testing::Message() << OpName(c.op) << (c.tanh_form ? "(tanh)" : "") << " "
                                    << DTypeName(dtype) << " " << ShapeToString(shape) << " "
                                    << config);
    const HT got = RunOpt(c.op, {x}, attrs, Threads(config));
    if (c.ulps < 0) {
      EXPECT_TRUE(BitEqual(got, want));
    } else if (c.op == OpId::kGelu) {
      EXPECT_TRUE(Near(got, want, c.ulps, [&](int64_t i, double) { return rel * std::fabs(x.at(i)); }));
    } else if (c.op == OpId::kSigmoid) {
      EXPECT_TRUE(Near(got, want, c.ulps, [](int64_t, double) { return 1.2e-38; }));
    } else {
      EXPECT_TRUE(Near(got, want, c.ulps));
    }
  });
}

TEST(OptUnary, FloatOpsMatchReference) {
  uint32_t seed = 1;
  for (DType dtype : {DType::kFloat32, DType::kFloat64}) {
    for (const UnaryCase& c : FloatCases(dtype == DType::kFloat64)) {
      for (const Shape& shape : OddShapes()) CheckUnary(dtype, c, shape, seed++);
    }
  }
}

TEST(OptUnary, IntegerBoolAndIdentity) {
  for (DType dtype : {DType::kInt32, DType::kInt64}) {
    for (OpId op : {OpId::kNeg, OpId::kAbs, OpId::kSign, OpId::kRelu, OpId::kIdentity}) {
      for (const Shape& shape : OddShapes()) {
        HT x = HT::Random(dtype, shape, 7, -1000, 1000);
        const HT want = RunRef(op, {x});
        ForEachConfig([&](const std::string& config) {
          SCOPED_TRACE(::testing::Message() << OpName(op) << " " << DTypeName(dtype) << " " << config);
          EXPECT_TRUE(BitEqual(RunOpt(op, {x}, {}, Threads(config)), want));
        });
      }
    }
  }
  for (OpId op : {OpId::kLogicalNot, OpId::kIdentity}) {
    HT x = HT::Random(DType::kBool, {4097}, 3);
    EXPECT_TRUE(BitEqual(RunOpt(op, {x}, {}, 2), RunRef(op, {x})));
  }
  HT f = Mixed(DType::kFloat32, {33}, 5);
  EXPECT_TRUE(BitEqual(RunOpt(OpId::kIdentity, {f}, {}, 1), f));
}

// Shapes of (a, b): every broadcast pattern the kernels fast-path and some they do not.
const std::vector<std::pair<Shape, Shape>>& BroadcastPairs() {
  static const std::vector<std::pair<Shape, Shape>> pairs = {
      {{3, 5}, {3, 5}},      {{4097}, {4097}},        {{70001}, {70001}},   {{}, {3, 5}},
      {{3, 5}, {}},          {{1}, {70001}},          {{1, 1}, {2, 3}},     {{4, 7}, {7}},
      {{7}, {4, 7}},         {{2, 3, 33}, {33}},      {{1100, 65}, {65}},   {{5, 1}, {5, 17}},
      {{5, 17}, {5, 1}},     {{17, 1}, {1, 31}},      {{3, 1, 5}, {3, 4, 5}}, {{3, 4, 5}, {4, 1}},
      {{2, 1, 3, 1}, {1, 4, 1, 5}}, {{0, 3}, {3}},     {{2, 0}, {1}},        {{}, {}},
      {{300, 1, 129}, {1, 2, 129}}};
  return pairs;
}

void CheckBinary(OpId op, DType dtype, double lo, double hi) {
  uint32_t seed = 11;
  for (const auto& pair : BroadcastPairs()) {
    const Shape& sa = pair.first;
    const Shape& sb = pair.second;
    const HT a = Mixed(dtype, sa, seed++, lo, hi), b = Mixed(dtype, sb, seed++, lo, hi);
    const HT want = RunRef(op, {a, b});
    ForEachConfig([&](const std::string& config) {
      SCOPED_TRACE(::testing::Message() << OpName(op) << " " << DTypeName(dtype) << " "
                                      << ShapeToString(sa) << " x " << ShapeToString(sb) << " "
                                      << config);
      EXPECT_TRUE(BitEqual(RunOpt(op, {a, b}, {}, Threads(config)), want));
    });
  }
}

TEST(OptBinary, FloatArithmeticBitExact) {
  for (DType dtype : {DType::kFloat32, DType::kFloat64}) {
    for (OpId op : {OpId::kAdd, OpId::kSub, OpId::kMul, OpId::kDiv, OpId::kMaximum,
                    OpId::kMinimum, OpId::kPow, OpId::kMod}) {
      CheckBinary(op, dtype, -3, 3);
    }
  }
}

TEST(OptBinary, IntegerArithmeticBitExact) {
  for (DType dtype : {DType::kInt32, DType::kInt64}) {
    for (OpId op : {OpId::kAdd, OpId::kSub, OpId::kMul, OpId::kDiv, OpId::kMaximum,
                    OpId::kMinimum, OpId::kPow, OpId::kMod}) {
      CheckBinary(op, dtype, -20, 20);  // includes 0 divisors
    }
  }
}

TEST(OptBinary, ComparisonsEveryDtype) {
  for (DType dtype : {DType::kFloat32, DType::kFloat64, DType::kInt32, DType::kInt64}) {
    for (OpId op : {OpId::kEqual, OpId::kNotEqual, OpId::kLess, OpId::kLessEqual,
                    OpId::kGreater, OpId::kGreaterEqual}) {
      CheckBinary(op, dtype, -2, 2);  // ints in [-2, 2): many ties
    }
  }
  for (OpId op : {OpId::kEqual, OpId::kNotEqual, OpId::kLogicalAnd, OpId::kLogicalOr}) {
    CheckBinary(op, DType::kBool, 0, 1);
  }
}

TEST(OptWhere, BroadcastPatternsEveryDtype) {
  const std::vector<std::vector<Shape>> shapes = {
      {{4097}, {4097}, {4097}},   {{70001}, {70001}, {70001}}, {{}, {3, 5}, {3, 5}},
      {{3, 5}, {}, {3, 5}},       {{3, 5}, {3, 5}, {}},        {{3, 5}, {}, {}},
      {{4, 33}, {33}, {4, 33}},   {{4, 1}, {4, 33}, {33}},     {{2, 1, 3}, {1, 4, 1}, {4, 3}},
      {{0, 3}, {3}, {1}},         {{}, {}, {}}};
  uint32_t seed = 3;
  for (DType dtype : {DType::kFloat32, DType::kFloat64, DType::kInt32, DType::kInt64, DType::kBool}) {
    for (const auto& s : shapes) {
      const HT c = HT::Random(DType::kBool, s[0], seed++);
      const HT x = Mixed(dtype, s[1], seed++, -5, 5), y = Mixed(dtype, s[2], seed++, -5, 5);
      const HT want = RunRef(OpId::kWhere, {c, x, y});
      ForEachConfig([&](const std::string& config) {
        SCOPED_TRACE(::testing::Message() << DTypeName(dtype) << " " << ShapeToString(s[0]) << " "
                                        << ShapeToString(s[1]) << " " << ShapeToString(s[2])
                                        << " " << config);
        EXPECT_TRUE(BitEqual(RunOpt(OpId::kWhere, {c, x, y}, {}, Threads(config)), want));
      });
    }
  }
}

TEST(OptCast, EveryPairBitExact) {
  const std::vector<DType> types = {DType::kBool, DType::kInt32, DType::kInt64, DType::kFloat32,
                                    DType::kFloat64};
  const std::vector<double> edges = {
      NAN, INFINITY, -INFINITY, 0.0, -0.0, 0.5, -0.5, -1.5, 1e-40, 2147483520.0, 2147483647.0,
      2147483647.5, 2147483648.0, -2147483648.0, -2147483649.0, -2147483904.0, 9.2233715e18,
      9223372036854774784.0, 9.2233720368547758e18, -9.2233720368547758e18, -9.3e18, 1e30, -1e30};
  for (DType from : types) {
    std::vector<HT> inputs = {HT::Random(from, {0}, 1)};
    for (const Shape& shape : {Shape{33}, Shape{70001}}) {
      const double lim = from == DType::kInt32 ? 2e9 : 5e18;
      inputs.push_back(from == DType::kBool ? HT::Random(from, shape, 2)
                                            : Mixed(from, shape, 4, -lim, lim, 0.05));
    }
    if (from == DType::kFloat32) {
      std::vector<float> v(edges.begin(), edges.end());
      inputs.push_back(HT::Of<float>({static_cast<int64_t>(v.size())}, v));
    } else if (from == DType::kFloat64) {
      inputs.push_back(HT::Of<double>({static_cast<int64_t>(edges.size())}, edges));
    }
    for (DType to : types) {
      for (const HT& x : inputs) {
        Attrs attrs = {{"dtype", AttrValue::Type(to)}};
        const HT want = RunRef(OpId::kCast, {x}, attrs);
        ForEachConfig([&](const std::string& config) {
          SCOPED_TRACE(::testing::Message() << DTypeName(from) << " -> " << DTypeName(to) << " "
                                          << ShapeToString(x.shape) << " " << config);
          EXPECT_TRUE(BitEqual(RunOpt(OpId::kCast, {x}, attrs, Threads(config)), want));
        });
      }
    }
  }
}

// float32 <-> float16 / bfloat16 (AVX-512 in opt/cast_half.cc, the
// reference conversion elsewhere), rounding and truncating, with ties, NaN,
// infinities, subnormals and overflow mixed in, tails included: bit-identical.
TEST(OptCast, HalfFloatsBitExactOnEveryIsa) {
  std::vector<float> edges = {NAN, -NAN, INFINITY, -INFINITY, 0.0f, -0.0f, 65504.0f, 65520.0f,
                              65519.99f, 1e-8f, 6e-8f, 3e-8f, 1.00048828125f, 1.00146484375f,
                              3.4e38f, -3.4e38f, 1e-40f, 0.1f};
  uint32_t ties[] = {0x3F808000u, 0x3F818000u, 0x3F81FFFFu, 0x7F7FFFFFu, 0x7F800001u, 0xFFC00001u};
  for (uint32_t t : ties) {
    float f;
    std::memcpy(&f, &t, 4);
    edges.push_back(f);
  }
  std::vector<HT> inputs = {HT::Of<float>({static_cast<int64_t>(edges.size())}, edges)};
  for (const Shape& shape : {Shape{17}, Shape{3, 70001}}) {
    inputs.push_back(Mixed(DType::kFloat32, shape, 5, -70000, 70000, 0.05));
  }
  for (const HT& x : inputs) {
    for (DType half : {DType::kFloat16, DType::kBFloat16}) {
      for (int truncate : {0, 1}) {
        if (truncate && half == DType::kFloat16) continue;
        Attrs to_half = {{"dtype", AttrValue::Type(half)}, {"truncate", AttrValue::Int(truncate)}};
        const HT want = RunRef(OpId::kCast, {x}, to_half);
        Attrs back = {{"dtype", AttrValue::Type(DType::kFloat32)}};
        const HT want_back = RunRef(OpId::kCast, {want}, back);
        ForEachConfig([&](const std::string& config) {
          SCOPED_TRACE(::testing::Message() << DTypeName(half) << " truncate " << truncate << " "
                                            << ShapeToString(x.shape) << " " << config);
          EXPECT_TRUE(BitEqual(RunOpt(OpId::kCast, {x}, to_half, Threads(config)), want));
          EXPECT_TRUE(BitEqual(RunOpt(OpId::kCast, {want}, back, Threads(config)), want_back));
        });
      }
    }
  }
}

// Every elementwise op of the op table (so ops added later are covered too)
// and every dtype its signature allows, through whatever kernel
// SelectOptimized picks: bit-identical, except the ops vec_math approximates.
TEST(OptElementwise, EveryOpInTheTable) {
  uint32_t seed = 900;
  int checked = 0;
  for (int i = 0; i < static_cast<int>(OpId::kNumOps); ++i) {
    const OpId op = static_cast<OpId>(i);
    const OpDef& def = GetOpDef(op);
    if (!def.has(kElementwise) || def.has(kNoKernel) || op == OpId::kCast) continue;
    const int n_in = def.min_inputs();
    for (DType dtype : {DType::kBool, DType::kInt32, DType::kInt64, DType::kFloat32, DType::kFloat64}) {
      if (!(def.InputAt(n_in - 1)->types & TypeBit(dtype))) continue;
      const bool fl = dtype == DType::kFloat32 || dtype == DType::kFloat64;
      std::vector<HT> in;
      if (op == OpId::kWhere) in.push_back(HT::Random(DType::kBool, {3, 1000}, seed++));
      for (int k = in.size(); k < n_in; ++k) {
        in.push_back(Mixed(dtype, k == n_in - 1 && n_in > 1 ? Shape{1000} : Shape{3, 1000}, seed++,
                           fl ? -3 : -20, fl ? 3 : 20, 0.01));
      }
      const HT want = RunRef(op, in);
      ++checked;
      bool approximated = false;
      for (OpId a : {OpId::kExp, OpId::kLog, OpId::kTanh, OpId::kSigmoid, OpId::kGelu}) approximated |= op == a;
      for (OpId a : {OpId::kErf, OpId::kSin, OpId::kCos}) approximated |= op == a && dtype == DType::kFloat32;
      const double rel = dtype == DType::kFloat32 ? 2.5e-7 : 5e-16;
      ForEachConfig([&](const std::string& config) {
        SCOPED_TRACE(::testing::Message() << OpName(op) << " " << DTypeName(dtype) << " " << config);
        const HT got = RunOpt(op, in, {}, Threads(config));
        if (approximated && fl) {
          EXPECT_TRUE(Near(got, want, 5, [&](int64_t j, double) {
            return rel * (1 + std::fabs(in[0].at(j))) + 1.2e-38;
          }));
        } else {
          EXPECT_TRUE(BitEqual(got, want));
        }
      });
    }
  }
  EXPECT_GE(checked, 80);  // (op, dtype) pairs: 39 ops in the first op table
}

// The output may be the input's own buffer (an executor reusing memory).
TEST(OptUnary, InPlace) {
  for (OpId op : {OpId::kExp, OpId::kTanh, OpId::kRelu, OpId::kAdd}) {
    const bool binary = op == OpId::kAdd;
    HT x = Mixed(DType::kFloat32, {4097}, 8, -5, 5);
    HT y = Mixed(DType::kFloat32, {4097}, 9, -5, 5);
    const HT want = binary ? RunRef(op, {x, y}) : RunRef(op, {x});
    Attrs attrs;
    const DType types[2] = {DType::kFloat32, DType::kFloat32};
    const int ranks[2] = {1, 1};
    const DType out_type = DType::kFloat32;
    const int out_rank = 1;
    NodeSignature node{op, &attrs, binary ? 2 : 1, types, ranks, 1, &out_type, &out_rank};
    KernelPlan plan;
    ASSERT_TRUE(PrepareKernel(node, Variant::kOptimized, &plan).ok());
    TfnTensor in[2] = {x.View(), y.View()};
    TfnTensor out = x.View();  // writes over x
    TfnKernelContext ctx{};
    ASSERT_EQ(plan.fn(plan.params, in, binary ? 2 : 1, &out, 1, &ctx), TFN_KERNEL_OK);
    EXPECT_TRUE(Near(x, want, binary || op == OpId::kRelu ? 0 : 4)) << OpName(op);
  }
}

// The row forms (kernels.h ElementwiseRowFn) against their kernel, bit for
// bit, under every instruction set: whole operands and a scalar on either
// side, sizes below, at and above a vector; and which nodes get one.
TEST(OptRows, RowFormsEqualTheirKernel) {
  auto prepare = [](OpId op, std::vector<DType> in, DType out, Attrs attrs) {
    EXPECT_TRUE(NormalizeAttrs(GetOpDef(op), &attrs).ok());
    std::vector<int> ranks(in.size(), 1);
    int out_rank = 1;
    NodeSignature node{op,   &attrs,   static_cast<int>(in.size()), in.data(), ranks.data(), 1,
                       &out, &out_rank};
    KernelPlan plan;
    EXPECT_TRUE(PrepareKernel(node, Variant::kOptimized, &plan).ok()) << OpName(op);
    return plan;
  };
  const DType f = DType::kFloat32;
  uint32_t seed = 40;
  for (const UnaryCase& c : FloatCases(false)) {
    Attrs attrs;
    if (c.op == OpId::kGelu)
      attrs = {{"approximate", AttrValue::String(c.tanh_form ? "tanh" : "none")}};
    const KernelPlan plan = prepare(c.op, {f}, f, attrs);
    ASSERT_NE(plan.row, nullptr) << OpName(c.op);
    for (int64_t n : {1, 15, 64, 4097}) {
      const HT x = Mixed(f, {n}, seed++, c.lo, c.hi);
      ForEachConfig([&](const std::string& config) {
        SCOPED_TRACE(::testing::Message() << OpName(c.op) << " n=" << n << " " << config);
        HT got = HT::Random(f, {n}, 1);
        const void* in[1] = {x.bytes.data()};
        const int8_t strides[1] = {1};
        plan.row(plan.params, in, strides, got.bytes.data(), n);
        EXPECT_TRUE(BitEqual(got, RunOpt(c.op, {x}, attrs, 1)));
      });
    }
  }
  for (OpId op : {OpId::kAdd, OpId::kSub, OpId::kMul, OpId::kDiv, OpId::kMaximum, OpId::kMinimum}) {
    const KernelPlan plan = prepare(op, {f, f}, f, {});
    ASSERT_NE(plan.row, nullptr) << OpName(op);
    for (int64_t n : {1, 15, 64, 4097}) {
      const HT a = Mixed(f, {n}, seed++, -3, 3), b = Mixed(f, {n}, seed++, -3, 3);
      const HT sa = Mixed(f, {}, seed++, -3, 3), sb = Mixed(f, {}, seed++, -3, 3);
      // (a, b), (a, scalar), (scalar, b)
      const HT* pairs[3][2] = {{&a, &b}, {&a, &sb}, {&sa, &b}};
      for (const auto& pair : pairs) {
        ForEachConfig([&](const std::string& config) {
          SCOPED_TRACE(::testing::Message()
                       << OpName(op) << " n=" << n << " " << ShapeToString(pair[0]->shape) << " x "
                       << ShapeToString(pair[1]->shape) << " " << config);
          HT got = HT::Random(f, {n}, 1);
          const void* in[2] = {pair[0]->bytes.data(), pair[1]->bytes.data()};
          const int8_t strides[2] = {static_cast<int8_t>(pair[0]->shape.rank()),
                                     static_cast<int8_t>(pair[1]->shape.rank())};
          plan.row(plan.params, in, strides, got.bytes.data(), n);
          EXPECT_TRUE(BitEqual(got, RunOpt(op, {*pair[0], *pair[1]}, {}, 1)));
        });
      }
    }
  }
  // None where the kernel does more than a float32 loop.
  EXPECT_EQ(prepare(OpId::kPow, {f, f}, f, {}).row, nullptr);
  EXPECT_EQ(prepare(OpId::kAdd, {DType::kInt32, DType::kInt32}, DType::kInt32, {}).row, nullptr);
  EXPECT_EQ(prepare(OpId::kAdd, {DType::kFloat64, DType::kFloat64}, DType::kFloat64, {}).row,
            nullptr);
  EXPECT_EQ(prepare(OpId::kIdentity, {f}, f, {}).row, nullptr);
  EXPECT_EQ(prepare(OpId::kLess, {f, f}, DType::kBool, {}).row, nullptr);
}

TEST(OptSelect, ElementwiseKernelsAreChosen) {
  auto symbol = [](OpId op, std::vector<DType> in, DType out, Attrs attrs = {}) {
    std::vector<int> ranks(in.size(), 2);
    int out_rank = 2;
    NodeSignature node{op, &attrs, static_cast<int>(in.size()), in.data(), ranks.data(),
                       1,  &out,   &out_rank};
    KernelPlan plan;
    EXPECT_TRUE(PrepareKernel(node, Variant::kOptimized, &plan).ok());
    return std::string(plan.symbol);
  };
  const DType f = DType::kFloat32, b = DType::kBool;
  EXPECT_EQ(symbol(OpId::kExp, {f}, f), "tfn_opt_unary");
  EXPECT_EQ(symbol(OpId::kAdd, {f, f}, f), "tfn_opt_binary");
  EXPECT_EQ(symbol(OpId::kLess, {DType::kInt32, DType::kInt32}, b), "tfn_opt_binary");
  EXPECT_EQ(symbol(OpId::kWhere, {b, f, f}, f), "tfn_opt_where");
  EXPECT_EQ(symbol(OpId::kCast, {f}, DType::kInt64, {{"dtype", AttrValue::Type(DType::kInt64)}}),
            "tfn_opt_cast");
}

}  // namespace
}  // namespace tfn::kernels::testing
