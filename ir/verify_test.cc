// Tests that Verify catches each kind of broken invariant.
#include "ir/verify.h"

#include <gtest/gtest.h>

#include "ir/text.h"

namespace tfn::ir {
namespace {

Graph Sample() {
  absl::StatusOr<Graph> g = ParseGraph(R"(graph {
  %0 = parameter {index=0} : f32[4]
  %1 = exp %0 : f32[4]
  %2 = add %1, %0 : f32[4]
  return %2
})");
  EXPECT_TRUE(g.ok()) << g.status();
  return *g;
}

TEST(Verify, AcceptsAValidGraph) { EXPECT_TRUE(Verify(Sample()).ok()); }

TEST(Verify, ForwardReference) {
  Graph g = Sample();
  g.mutable_nodes()[1].inputs[0] = ValueRef{2, 0};
  EXPECT_NE(Verify(g).message().find("does not refer to an earlier value"), std::string::npos);
}

TEST(Verify, WrongType) {
  Graph g = Sample();
  g.mutable_nodes()[1].outputs[0].shape = SymShape{5};
  EXPECT_NE(Verify(g).message().find("typed f32[5] but infers as f32[4]"), std::string::npos)
      << Verify(g);
}

TEST(Verify, UnnormalizedAttributes) {
  Graph g = Sample();
  g.mutable_nodes()[1].attrs.Set("bogus", AttrValue::Int(1));
  EXPECT_NE(Verify(g).message().find("unknown attribute 'bogus'"), std::string::npos);
}

TEST(Verify, FusionGroups) {
  Graph g = Sample();
  g.mutable_nodes()[1].fusion_group = 0;
  g.mutable_nodes()[2].fusion_group = 0;
  EXPECT_TRUE(Verify(g).ok()) << Verify(g);
  g.mutable_nodes()[1].fusion_group = g.mutable_nodes()[2].fusion_group = 2000000000;
  EXPECT_TRUE(Verify(g).ok()) << "any id, without a table as large as it";
  g.mutable_nodes()[0].fusion_group = 1;  // a parameter
  EXPECT_NE(Verify(g).message().find("is in a fusion group but is not fusible"), std::string::npos)
      << Verify(g);
  absl::StatusOr<Graph> mixed = ParseGraph(R"(graph {
  %0 = parameter {index=0} : f32[4]
  %1 = parameter {index=1} : f32[2,4]
  %2 = exp %0 : f32[4] fusion 0
  %3 = add %1, %2 : f32[2,4] fusion 0
  return %3
})");
  ASSERT_TRUE(mixed.ok()) << mixed.status();
  EXPECT_NE(Verify(*mixed).message().find("fusion group 0 holds shapes f32[4] and f32[2,4]"),
            std::string::npos)
      << Verify(*mixed);
}

TEST(Verify, BadResult) {
  Graph g = Sample();
  g.SetResults({ValueRef{9, 0}});
  EXPECT_NE(Verify(g).message().find("result 0 is not a value"), std::string::npos);
}

}  // namespace
}  // namespace tfn::ir
