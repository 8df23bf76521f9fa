// Tests of the optimized reductions (opt/reduce.cc, opt/argreduce.cc) against
// the reference kernels under every instruction set the CPU has and 1 and 2
// threads: every op and dtype, row / column / middle / all-axes reductions,
// odd sizes, empty reductions, keepdims, NaN and Inf, argmax/argmin ties.
//
// Tolerances: integers, max, min, argmax and argmin are exact. Float sums,
// means and products accumulate in double in both kernels, in a different
// order: results are within 1 ulp of the reference (float32; the rounding of
// two nearly equal doubles) or within 2 n 2^-53 sum|x| (2 n 2^-53 |result|
// for products), the worst-case bound for any summation order.
#include <cmath>

#include "kernels/opt/opt_test_util.h"

namespace tfn::kernels::testing {
namespace {

using HT = HostTensor;

int Threads(const std::string& config) { return config.find("2 threads") != std::string::npos ? 2 : 1; }

Attrs ReduceAttrs(std::vector<int64_t> axes, bool keepdims = false) {
  return {{"axes", AttrValue::Ints(std::move(axes))}, {"keepdims", AttrValue::Int(keepdims)}};
}

struct Case {
  Shape shape;
  std::vector<int64_t> axes;  // empty: all
};

std::vector<Case> Cases() {
  std::vector<Case> cases;
  for (const Shape& s : OddShapes()) {
    if (s.rank() == 1) {
      cases.push_back({s, {}});
      cases.push_back({s, {0}});
    }
  }
  for (const Case& c : std::vector<Case>{
           {{200003}, {}},       {{3, 5}, {1}},         {{3, 5}, {0}},         {{3, 5}, {0, 1}},
           {{3, 5}, {-1}},       {{7001, 3}, {1}},      {{3, 70001}, {1}},     {{1000, 65}, {0}},
           {{4, 300, 513}, {1}}, {{2, 3, 4, 5}, {1, 2}}, {{2, 3, 4, 5}, {0, 1}}, {{2, 3, 4, 5}, {2, 3}},
           {{2, 3, 4, 5}, {0, 2}}, {{2, 3, 4, 5}, {}},   {{0, 3}, {0}},         {{3, 0}, {0}},
           {{2, 0, 4}, {1}},     {{}, {}},              {{1, 1, 9}, {0, 1}}}) {
    cases.push_back(c);
  }
  return cases;
}

void CheckReduce(OpId op, DType dtype, double lo, double hi, double special) {
  uint32_t seed = 100;
  for (const Case& c : Cases()) {
    for (bool keepdims : {false, true}) {
      const Attrs attrs = ReduceAttrs(c.axes, keepdims);
      const HT x = Mixed(dtype, c.shape, seed++, lo, hi, special);
      const HT want = RunRef(op, {x}, attrs);
      const bool fl = dtype == DType::kFloat32 || dtype == DType::kFloat64;
      // sum|x| per output (the scale of the rounding error) and the reduced count.
      HT abs_sum;
      double n = 1;
      if (fl) {
        abs_sum = RunRef(OpId::kReduceSum, {RunRef(OpId::kAbs, {x})}, attrs);
        n = want.size() > 0 ? static_cast<double>(x.size()) / want.size() : 0;
      }
      ForEachConfig([&](const std::string& config) {
        SCOPED_TRACE(::testing::Message() << OpName(op) << " " << DTypeName(dtype) << " "
                                        << ShapeToString(c.shape) << " axes " << c.axes.size()
                                        << (keepdims ? " keepdims " : " ") << config);
        const HT got = RunOpt(op, {x}, attrs, Threads(config));
        if (!fl) {
          EXPECT_TRUE(BitEqual(got, want));
          return;
        }
        const double u = 2 * n * std::ldexp(1.0, -53);
        switch (op) {
          case OpId::kReduceMax:
          case OpId::kReduceMin: EXPECT_TRUE(Near(got, want, 0)); break;
          case OpId::kReduceProd:
            EXPECT_TRUE(Near(got, want, 1, [&](int64_t, double e) { return u * std::fabs(e); }));
            break;
          default: {
            const double scale = op == OpId::kReduceMean && n > 0 ? 1 / n : 1;
            EXPECT_TRUE(Near(got, want, 1, [&](int64_t i, double) {
              return u * abs_sum.at(i) * scale;
            }));
          }
        }
      });
    }
  }
}

TEST(OptReduce, FloatOps) {
  for (DType dtype : {DType::kFloat32, DType::kFloat64}) {
    CheckReduce(OpId::kReduceSum, dtype, -1, 1, 0);
    CheckReduce(OpId::kReduceMean, dtype, -1, 1, 0);
    CheckReduce(OpId::kReduceProd, dtype, 0.9, 1.1, 0);
    CheckReduce(OpId::kReduceMax, dtype, -1, 1, 0.01);
    CheckReduce(OpId::kReduceMin, dtype, -1, 1, 0.01);
  }
}

TEST(OptReduce, NaNAndInf) {
  for (DType dtype : {DType::kFloat32, DType::kFloat64}) {
    for (OpId op : {OpId::kReduceSum, OpId::kReduceMean, OpId::kReduceProd}) {
      CheckReduce(op, dtype, -1, 1, 0.001);
    }
  }
}

TEST(OptReduce, IntegerOps) {
  for (DType dtype : {DType::kInt32, DType::kInt64}) {
    for (OpId op : {OpId::kReduceSum, OpId::kReduceMean, OpId::kReduceProd, OpId::kReduceMax,
                    OpId::kReduceMin}) {
      CheckReduce(op, dtype, -1000, 1000, 0);  // sums and products wrap
    }
  }
}

TEST(OptReduce, ResultsDoNotDependOnThreadsOrIsa) {
  for (DType dtype : {DType::kFloat32, DType::kFloat64}) {
    const HT x = Mixed(dtype, {200003}, 9, -1, 1, 0);
    for (OpId op : {OpId::kReduceSum, OpId::kReduceMean, OpId::kReduceProd}) {
      const HT first = RunOpt(op, {x}, ReduceAttrs({}), 1);
      ForEachConfig([&](const std::string& config) {
        SCOPED_TRACE(config);
        EXPECT_TRUE(BitEqual(RunOpt(op, {x}, ReduceAttrs({}), Threads(config)), first));
      });
    }
  }
}

TEST(OptArgReduce, FirstExtremeIndex) {
  struct ArgCase {
    Shape shape;
    int64_t axis;
  };
  std::vector<ArgCase> cases = {{{3, 5}, 0},    {{3, 5}, 1},        {{3, 5}, -1},
                                {{1000, 65}, 0}, {{4, 300, 513}, 1}, {{2, 70001}, 1},
                                {{70001, 2}, 0}, {{0, 4}, 1},        {{4, 0}, 0}};
  for (const Shape& s : OddShapes()) {
    if (s.rank() == 1 && s[0] > 0) cases.push_back({s, 0});
  }
  uint32_t seed = 5;
  for (DType dtype : {DType::kFloat32, DType::kFloat64, DType::kInt32, DType::kInt64}) {
    for (OpId op : {OpId::kArgMax, OpId::kArgMin}) {
      for (const ArgCase& c : cases) {
        // Small integer ranges give many ties; floats get NaN/Inf/signed zeros.
        const HT x = Mixed(dtype, c.shape, seed++, -3, 3, 0.01);
        const Attrs attrs = {{"axis", AttrValue::Int(c.axis)}};
        const HT want = RunRef(op, {x}, attrs);
        ForEachConfig([&](const std::string& config) {
          SCOPED_TRACE(::testing::Message() << OpName(op) << " " << DTypeName(dtype) << " "
                                          << ShapeToString(c.shape) << " axis " << c.axis << " "
                                          << config);
          EXPECT_TRUE(BitEqual(RunOpt(op, {x}, attrs, Threads(config)), want));
        });
      }
    }
  }
  // select_last_index: the last index of the extreme (the last NaN).
  for (DType dtype : {DType::kFloat32, DType::kFloat64, DType::kInt32, DType::kInt64}) {
    for (OpId op : {OpId::kArgMax, OpId::kArgMin}) {
      for (const ArgCase& c : cases) {
        const HT x = Mixed(dtype, c.shape, seed++, -3, 3, 0.01);
        const Attrs attrs = {{"axis", AttrValue::Int(c.axis)},
                             {"select_last_index", AttrValue::Int(1)}};
        const HT want = RunRef(op, {x}, attrs);
        ForEachConfig([&](const std::string& config) {
          SCOPED_TRACE(::testing::Message() << OpName(op) << " last " << DTypeName(dtype) << " "
                                            << ShapeToString(c.shape) << " axis " << c.axis
                                            << " " << config);
          EXPECT_TRUE(BitEqual(RunOpt(op, {x}, attrs, Threads(config)), want));
        });
      }
    }
  }
  // Ties between -0 and +0, and all-equal rows: the first index wins.
  const HT z = HT::Of<float>({2, 4}, {-0.0f, 0.0f, -0.0f, 0.0f, 1, 1, 1, 1});
  for (OpId op : {OpId::kArgMax, OpId::kArgMin}) {
    EXPECT_EQ(RunOpt(op, {z}, {{"axis", AttrValue::Int(1)}}, 1).values<int64_t>(),
              (std::vector<int64_t>{0, 0}));
  }
}

// Axes given as an int tensor at run time: contiguous runs take the fast
// paths, other sets go to the reference kernel, bad axes are an error.
TEST(OptReduce, AxesAsInput) {
  const HT x = Mixed(DType::kFloat32, {4, 5, 6}, 3, -1, 1, 0);
  const std::vector<std::vector<int64_t>> axis_sets = {{1}, {-1}, {0, 1}, {0, 2}, {}, {2, 0, 1}};
  for (const auto& axes : axis_sets) {
    for (bool i32 : {false, true}) {
      const HT a = i32 ? HT::Of<int32_t>({static_cast<int64_t>(axes.size())},
                                         std::vector<int32_t>(axes.begin(), axes.end()))
                       : HT::Of<int64_t>({static_cast<int64_t>(axes.size())}, axes);
      for (OpId op : {OpId::kReduceSum, OpId::kReduceMax}) {
        const HT want = RunRef(op, {x, a});
        ForEachConfig([&](const std::string& config) {
          SCOPED_TRACE(::testing::Message() << OpName(op) << " axes " << ::testing::PrintToString(axes));
          EXPECT_TRUE(Near(RunOpt(op, {x, a}, {}, Threads(config)), want, 1));
        });
      }
    }
  }
  std::string error;
  RunOp(OpId::kReduceSum, {x, HT::Of<int64_t>({1}, {3})}, {}, Variant::kOptimized, &error);
  EXPECT_FALSE(error.empty());  // axis 3 of a rank-3 input
}

TEST(OptSelect, ReduceKernelsAreChosen) {
  auto symbol = [](OpId op, int rank, Attrs attrs) {
    std::vector<DType> in = {DType::kFloat32};
    std::vector<int> ranks = {rank};
    DType out = op == OpId::kArgMax ? DType::kInt64 : DType::kFloat32;
    int out_rank = rank;
    NodeSignature node{op, &attrs, 1, in.data(), ranks.data(), 1, &out, &out_rank};
    KernelPlan plan;
    EXPECT_TRUE(PrepareKernel(node, Variant::kOptimized, &plan).ok());
    return std::string(plan.symbol);
  };
  EXPECT_EQ(symbol(OpId::kReduceSum, 3, ReduceAttrs({1, 2})), "tfn_opt_reduce");
  EXPECT_EQ(symbol(OpId::kReduceSum, 3, ReduceAttrs({})), "tfn_opt_reduce");
  EXPECT_EQ(symbol(OpId::kReduceSum, 3, ReduceAttrs({0, 2})), "tfn_ref_reduce");
  EXPECT_EQ(symbol(OpId::kArgMax, 2, {{"axis", AttrValue::Int(0)}}), "tfn_opt_argreduce");
}

}  // namespace
}  // namespace tfn::kernels::testing
