// Tests of the text form: printing, parsing, round trips and parse errors.
#include <gtest/gtest.h>

#include "ir/text.h"
#include "ir/verify.h"

namespace tfn::ir {
namespace {

constexpr const char* kGraph = R"(graph {
  %0 = parameter {index=0} : f32[?s0,3] @x
  %1 = constant {value=f32[] [2.5]} : f32[]
  %2 = mul %0, %1 : f32[?s0,3]
  %3 = split %2 {axis=1, num_splits=3} : f32[?s0,1], f32[?s0,1], f32[?s0,1]
  %4 = reduce_sum %3#2 {axes=[0], keepdims=1} : f32[1,1]
  %5 = print %4 {message="value \"x\""} :
  %6 = parameter {index=1} : bool[] @flag
  %7 = cond %6, %4 : f32[1,1] {
    graph {
      %0 = parameter {index=0} : f32[1,1]
      %1 = exp %0 : f32[1,1]
      return %1
    }
    graph {
      %0 = parameter {index=0} : f32[1,1]
      return %0
    }
  }
  return %3#1 @y, %7
}
)";

TEST(Text, RoundTrip) {
  absl::StatusOr<Graph> g = ParseGraph(kGraph);
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_TRUE(Verify(*g).ok()) << Verify(*g);
  EXPECT_EQ(PrintGraph(*g), kGraph);
  EXPECT_EQ(g->param_names()[0], "x");
  EXPECT_EQ(g->result_names()[0], "y");
}

TEST(Text, AcceptsNamedValuesAndComments) {
  absl::StatusOr<Graph> g = ParseGraph(R"(
    graph {
      // a comment
      %x = parameter {index=0} : int32[4]
      %y = neg %x : int32[4]
      return %y
    })");
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->num_nodes(), 2);
}

TEST(Text, FloatsAndTensorsRoundTripExactly) {
  EXPECT_EQ(FormatDouble(0.1), "0.1");
  EXPECT_EQ(FormatDouble(1e-5), "1e-05");
  EXPECT_EQ(FormatDouble(1.0 / 3.0), "0.3333333333333333");
  absl::StatusOr<Graph> g = ParseGraph(R"(graph {
  %0 = constant {value=f64[2,2] [0.1,-2,inf,nan]} : f64[2,2]
  return %0
}
)");
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_NE(PrintGraph(*g).find("[0.1,-2,inf,nan]"), std::string::npos);
}

TEST(Text, ErrorsNameTheLine) {
  auto expect_error = [](const char* text, const char* fragment) {
    absl::StatusOr<Graph> g = ParseGraph(text);
    ASSERT_FALSE(g.ok()) << text;
    EXPECT_NE(g.status().message().find(fragment), std::string::npos) << g.status();
  };
  expect_error("graph {\n  %0 = frobnicate : f32[]\n  return %0\n}", "line 2: unknown op 'frobnicate'");
  expect_error("graph {\n  %0 = parameter {index=0} : f32[2]\n  %1 = exp %9 : f32[2]\n}",
               "unknown value %9");
  expect_error("graph {\n  %0 = parameter {index=0} : f32[2]\n  %1 = exp %0 : f32[3]\n  return %1\n}",
               "written type f32[3] differs from the inferred f32[2]");
  expect_error("graph {\n  %0 = parameter {index=0} : int32[2]\n  %1 = exp %0 : int32[2]\n}",
               "exp: argument 'x' must be f32 or f64, got int32");
  expect_error("graph { %0 = parameter {index=0} : q7[2] }", "unknown dtype 'q7'");
}

}  // namespace
}  // namespace tfn::ir
