// OptimizeGraph binds tfn's kernels: constants fold, and kernel lowering
// follows the option (ir/passes/passes_test.cc tests the passes themselves).
#include <gtest/gtest.h>

#include "ir/text.h"
#include "optimizer/optimize.h"

namespace tfn::optimizer {
namespace {

constexpr char kMlp[] = R"(graph {
  %x = parameter {index=0} : f32[?b,4] @x
  %w = constant {value=f32[4,2] [1,2,3,4,5,6,7,8]} : f32[4,2]
  %h = matmul %x, %w : f32[?b,2]
  %bias = constant {value=f32[2] [0.5,-0.5]} : f32[2]
  %two = constant {value=f32[] [2]} : f32[]
  %bias2 = mul %bias, %two : f32[2]
  %y = add %h, %bias2 : f32[?b,2]
  %r = relu %y : f32[?b,2]
  return %r @y
})";

int Count(const ir::Graph& g, OpId op) {
  int n = 0;
  for (const ir::Node& node : g.nodes()) n += node.op == op;
  return n;
}

TEST(OptimizeGraph, FoldsConstantsAndLowersForTfnKernels) {
  absl::StatusOr<ir::Graph> g = ir::ParseGraph(kMlp);
  ASSERT_TRUE(g.ok()) << g.status();
  ASSERT_TRUE(OptimizeGraph(*g).ok());
  EXPECT_EQ(Count(*g, OpId::kMul), 0) << ir::PrintGraph(*g);
  EXPECT_EQ(Count(*g, OpId::kFusedMatMul), 1) << ir::PrintGraph(*g);
}

TEST(OptimizeGraph, WithoutKernelLoweringKeepsPortableOps) {
  absl::StatusOr<ir::Graph> g = ir::ParseGraph(kMlp);
  ASSERT_TRUE(g.ok()) << g.status();
  OptimizeOptions options;
  options.kernel_lowering = false;
  ASSERT_TRUE(OptimizeGraph(*g, options).ok());
  EXPECT_EQ(Count(*g, OpId::kMul), 0) << ir::PrintGraph(*g);
  EXPECT_EQ(Count(*g, OpId::kFusedMatMul), 0) << ir::PrintGraph(*g);
  EXPECT_EQ(Count(*g, OpId::kMatMul), 1) << ir::PrintGraph(*g);
}

}  // namespace
}  // namespace tfn::optimizer
