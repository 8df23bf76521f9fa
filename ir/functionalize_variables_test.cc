// FunctionalizeVariables: reads become parameters, assignments results, and a
// read after an assignment sees the assigned value.
#include "ir/functionalize_variables.h"

#include <gtest/gtest.h>

#include "ir/text.h"

namespace tfn::ir {
namespace {

TEST(FunctionalizeVariables, ReadsAssignsAndReadsAfterAssigns) {
  absl::StatusOr<Graph> g = ParseGraph(R"(graph {
  %x = parameter {index=0} : f32[2]
  %r1 = var_read {dtype=f32, name="v", shape=[2]} : f32[2]
  %as = var_assign_add %x {name="v"} :
  %r2 = var_read {dtype=f32, name="v", shape=[2]} : f32[2]
  %w = var_read {dtype=f32, name="model/w", shape=[2]} : f32[2]
  %set = var_assign %r1 {name="model/w"} :
  %a = add %r1, %r2 : f32[2]
  %b = mul %a, %w : f32[2]
  return %b
})");
  ASSERT_TRUE(g.ok()) << g.status();
  absl::StatusOr<FunctionalizedGraph> f = FunctionalizeVariables(*g);
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(f->variables, (std::vector<std::string>{"v", "model/w"}));
  EXPECT_EQ(f->assigned, (std::vector<int>{0, 1}));
  // v' = v + x; b = (v + v') * w; w' = v.
  EXPECT_EQ(f->graph.ToString(), R"(graph {
  %0 = parameter {index=0} : f32[2]
  %1 = parameter {index=1} : f32[2] @var_v
  %2 = add %1, %0 : f32[2]
  %3 = parameter {index=2} : f32[2] @var_model_w
  %4 = add %1, %2 : f32[2]
  %5 = mul %4, %3 : f32[2]
  return %5, %2 @var_v, %1 @var_model_w
}
)");
}

TEST(FunctionalizeVariables, VariablesInsideControlFlowAreRefused) {
  absl::StatusOr<Graph> g = ParseGraph(R"(graph {
  %p = parameter {index=0} : bool[]
  %x = parameter {index=1} : f32[2]
  %c = cond %p, %x : f32[2] {
    graph {
      %a = parameter {index=0} : f32[2]
      %r = var_read {dtype=f32, name="v", shape=[2]} : f32[2]
      %s = add %a, %r : f32[2]
      return %s
    }
    graph {
      %b = parameter {index=0} : f32[2]
      return %b
    }
  }
  return %c
})");
  ASSERT_TRUE(g.ok()) << g.status();
  absl::StatusOr<FunctionalizedGraph> f = FunctionalizeVariables(*g);
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.status().message().find("cond/while_loop bodies use Variables"), std::string::npos);
}

}  // namespace
}  // namespace tfn::ir
