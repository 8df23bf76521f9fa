// Unit tests of the tools' pieces that need no process: the argument parser,
// tfn-inspect's graph views (histogram and dot with control-flow subgraphs),
// and tfn-run's random inputs, file names and latency statistics.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tfn/tfn.h"
#include "tools/args.h"
#include "tools/inspect_graph.h"
#include "tools/run_io.h"

namespace tfn::tools {
namespace {

struct Argv {
  explicit Argv(std::vector<std::string> a) : args(std::move(a)) {
    for (std::string& s : args) ptrs.push_back(s.data());
  }
  int argc() { return static_cast<int>(ptrs.size()); }
  char** argv() { return ptrs.data(); }
  std::vector<std::string> args;
  std::vector<char*> ptrs;
};

TEST(Args, ParsesFlagsValuesListsAndPositionals) {
  ArgParser p("tool", "FILE", "does things");
  std::string file, out, opt;
  std::vector<std::string> list;
  bool flag = false, given = false;
  int64_t n = 0;
  p.Positional("FILE", "input", &file);
  p.Positional("OPT", "optional", &opt, /*required=*/false);
  p.String("--output|-o", "PATH", "output", &out);
  p.List("--item", "X", "items", &list);
  p.Flag("--verbose", "talk", &flag);
  p.Int("--count", "N", "how many", &n, &given);
  Argv a(
      {"tool", "in.txt", "-o", "o.txt", "--item=a[1,2]", "--item", "b", "--verbose", "--count=7"});
  ASSERT_TRUE(p.Parse(a.argc(), a.argv()).ok());
  EXPECT_EQ(file, "in.txt");
  EXPECT_EQ(out, "o.txt");
  EXPECT_EQ(list, (std::vector<std::string>{"a[1,2]", "b"}));
  EXPECT_TRUE(flag);
  EXPECT_TRUE(given);
  EXPECT_EQ(n, 7);
  EXPECT_TRUE(opt.empty());
  EXPECT_NE(p.Help().find("  -o, --output PATH"), std::string::npos) << p.Help();
}

TEST(Args, ErrorsNameTheArgument) {
  auto parse = [](std::vector<std::string> args) {
    ArgParser p("tool", "FILE", "");
    std::string file, out;
    int64_t n = 0;
    bool flag = false;
    p.Positional("FILE", "input", &file);
    p.String("--out", "PATH", "", &out);
    p.Int("--n", "N", "", &n);
    p.Flag("--flag", "", &flag);
    args.insert(args.begin(), "tool");
    Argv a(args);
    Status s = p.Parse(a.argc(), a.argv());
    return s.ok() ? std::string("ok") : s.message();
  };
  EXPECT_EQ(parse({"f", "--bogus"}), "unknown flag '--bogus'");
  EXPECT_EQ(parse({"f", "--bogus=3"}), "unknown flag '--bogus'");
  EXPECT_EQ(parse({"f", "--out"}), "--out needs a value (--out PATH)");
  EXPECT_EQ(parse({"f", "--n", "-3"}), "--n takes a non-negative integer, got '-3'");
  EXPECT_EQ(parse({"f", "--flag=1"}), "--flag takes no value");
  EXPECT_EQ(parse({}), "missing FILE");
  EXPECT_EQ(parse({"f", "g"}), "unexpected argument 'g'");
  EXPECT_EQ(parse({"--", "-f"}), "ok");  // "--" ends the flags
}

TEST(Args, SplitTopLevelKeepsBrackets) {
  EXPECT_EQ(SplitTopLevel("x=f32[?,784],y=i64[2,3]", ','),
            (std::vector<std::string>{"x=f32[?,784]", "y=i64[2,3]"}));
  EXPECT_EQ(SplitTopLevel("", ','), (std::vector<std::string>{""}));
}

TEST(InspectGraph, HistogramAndDotCoverSubgraphs) {
  FunctionOptions options;
  options.arg_names = {"x"};
  auto f = function(
      [](Tensor x) {
        return cond(
            reduce_sum(x) > 0.0, [&] { return relu(x); }, [&] { return x * 2.0; });
      },
      options);
  ConcreteFunction c = f.get_concrete_function(TensorSpec({kDynamic, 3}, DType::kFloat32));
  std::map<std::string, int64_t> ops;
  CountOps(c.graph(), &ops);
  EXPECT_EQ(ops["cond"], 1);
  EXPECT_EQ(ops["relu"], 1);  // inside the then-branch
  EXPECT_EQ(ops["mul"], 1);   // inside the else-branch
  std::string dot = GraphToDot(c.graph(), "f");
  EXPECT_NE(dot.find("subgraph cluster_"), std::string::npos) << dot;
  EXPECT_NE(dot.find(": then\""), std::string::npos) << dot;
  EXPECT_NE(dot.find(": else\""), std::string::npos) << dot;
  EXPECT_NE(dot.find("[style=dashed]"), std::string::npos) << dot;
  EXPECT_NE(dot.find("[label=\"x\\nf32[?s0,3]\", shape=ellipse]"), std::string::npos) << dot;
  EXPECT_EQ(StaticTypeString(c.graph().type(c.graph().param(0))), "f32[?,3]");
}

TEST(InspectGraph, JsonStringEscapes) {
  EXPECT_EQ(JsonString("a\"b\\c\n"), "\"a\\\"b\\\\c\\u000a\"");
}

TEST(RunIo, RandomInputsAreDeterministic) {
  ConstTensor a = RandomTensor(DType::kFloat32, {4, 5}, 1);
  ConstTensor b = RandomTensor(DType::kFloat32, {4, 5}, 1);
  ConstTensor c = RandomTensor(DType::kFloat32, {4, 5}, 2);
  EXPECT_TRUE(a.BytesEqual(b));
  EXPECT_FALSE(a.BytesEqual(c));
  for (int64_t i = 0; i < a.num_elements(); ++i) {
    EXPECT_GE(a.as<float>()[i], -1.0f);
    EXPECT_LT(a.as<float>()[i], 1.0f);
  }
  ConstTensor ints = RandomTensor(DType::kInt64, {100}, 3);
  for (int64_t i = 0; i < 100; ++i) EXPECT_LT(static_cast<uint64_t>(ints.as<int64_t>()[i]), 10u);
}

TEST(RunIo, FileNamesAndStatistics) {
  EXPECT_EQ(OutputFileName("probabilities"), "probabilities.npy");
  EXPECT_EQ(OutputFileName("a/b:c"), "a_b_c.npy");
  EXPECT_EQ(OutputFileName(".."), "_.npy");
  std::vector<runtime::TensorInfo> outs(3);
  outs[0].name = "a/b";
  outs[1].name = "a_b";
  outs[2].name = "c";
  EXPECT_EQ(OutputFileNames(outs), (std::vector<std::string>{"a_b.npy", "a_b_1.npy", "c.npy"}));
  LatencyStats s = ComputeStats({5, 1, 4, 2, 3, 6, 7, 8, 9, 10});
  EXPECT_EQ(s.min_us, 1);
  EXPECT_EQ(s.median_us, 5);
  EXPECT_EQ(s.p90_us, 9);
  EXPECT_EQ(s.max_us, 10);
  EXPECT_DOUBLE_EQ(s.mean_us, 5.5);
}

}  // namespace
}  // namespace tfn::tools
