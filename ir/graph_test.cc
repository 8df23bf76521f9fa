// Tests of graph construction: checked nodes, inference, control flow, inlining.
#include "ir/graph.h"

#include <gtest/gtest.h>

#include "ir/inline.h"
#include "ir/verify.h"

namespace tfn::ir {
namespace {

TensorType T(DType d, SymShape s) { return TensorType{d, s}; }
constexpr DType F = DType::kFloat32;

TEST(Graph, BuildsAndInfersSymbolically) {
  Graph g;
  SymDim b = SymDim::Symbol("b");
  ValueRef x = g.AddParameter(T(F, {b, 784}), "x");
  ValueRef w = g.AddConstant(ConstTensor::Copy(F, Shape{784, 10}, std::vector<float>(7840).data()));
  absl::StatusOr<ValueRef> y = g.Add(OpId::kMatMul, {x, w});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ(g.type(*y).ToString(), "f32[?b,10]");
  absl::StatusOr<ValueRef> r = g.Add(OpId::kReshape, {*y}, {{"shape", AttrValue::Ints({-1})}});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(g.type(*r).ToString(), "f32[10*?b]");
  g.SetResults({*r}, {"y"});
  EXPECT_TRUE(Verify(g).ok()) << Verify(g);
  // Attributes were normalized on the way in.
  EXPECT_TRUE(g.node(y->node).attrs.Has("transpose_a"));
}

TEST(Graph, RejectsBadNodes) {
  Graph g;
  ValueRef x = g.AddParameter(T(F, {2, 3}));
  ValueRef y = g.AddParameter(T(F, {4, 5}));
  absl::StatusOr<ValueRef> m = g.Add(OpId::kMatMul, {x, y});
  EXPECT_EQ(m.status().message(), "matmul: inner dimensions differ: a is f32[2,3], b is f32[4,5]");
  EXPECT_FALSE(g.Add(OpId::kAdd, {x, ValueRef{17, 0}}).ok());
  EXPECT_FALSE(g.Add(OpId::kRelu, {x}, {{"axis", AttrValue::Int(0)}}).ok());
  EXPECT_EQ(g.num_nodes(), 2);  // nothing was added by the failures
}

Graph Branch(const Graph& parent, SymShape shape, OpId op) {
  Graph sub = parent.NewSubgraph();
  ValueRef p = sub.AddParameter(T(F, shape));
  sub.SetResults({*sub.Add(op, {p})});
  return sub;
}

TEST(Graph, CondTypesComeFromBranches) {
  Graph g;
  SymDim n = SymDim::Symbol("n");
  ValueRef pred = g.AddParameter(T(DType::kBool, {}));
  ValueRef x = g.AddParameter(T(F, {n}));
  auto out = g.AddNode(OpId::kCond, {pred, x}, {},
                       {Branch(g, {n}, OpId::kExp), Branch(g, {n}, OpId::kNeg)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(g.type((*out)[0]).ToString(), "f32[?n]");
  g.SetResults(*out);
  EXPECT_TRUE(Verify(g).ok()) << Verify(g);
  // A non-scalar predicate is refused.
  auto bad = g.AddNode(OpId::kCond, {x, x}, {}, {Branch(g, {n}, OpId::kExp), Branch(g, {n}, OpId::kExp)});
  EXPECT_NE(bad.status().message().find("predicate must be a bool scalar"), std::string::npos);
}

TEST(Graph, WhileLoopBodyMustKeepTypes) {
  Graph g;
  ValueRef i = g.AddParameter(T(DType::kInt32, {}));
  Graph cond = g.NewSubgraph();
  ValueRef ci = cond.AddParameter(T(DType::kInt32, {}));
  ValueRef ten = cond.AddConstant(ConstTensor::Scalar<int32_t>(10));
  cond.SetResults({*cond.Add(OpId::kLess, {ci, ten})});
  Graph body = g.NewSubgraph();
  ValueRef bi = body.AddParameter(T(DType::kInt32, {}));
  ValueRef one = body.AddConstant(ConstTensor::Scalar<int32_t>(1));
  body.SetResults({*body.Add(OpId::kAdd, {bi, one})});
  auto out = g.AddNode(OpId::kWhileLoop, {i}, {}, {cond, body});
  ASSERT_TRUE(out.ok()) << out.status();
  // A body that changes the shape is refused with advice.
  Graph grow = g.NewSubgraph();
  ValueRef gi = grow.AddParameter(T(DType::kInt32, {}));
  grow.SetResults({*grow.Add(OpId::kExpandDims, {gi}, {{"axis", AttrValue::Int(0)}})});
  auto bad = g.AddNode(OpId::kWhileLoop, {i}, {}, {cond, grow});
  EXPECT_NE(bad.status().message().find("enters as int32[] but the body returns int32[1]"),
            std::string::npos)
      << bad.status();
}

TEST(Graph, InlineSubstitutesAndRetypesSubgraphs) {
  Graph callee;
  SymDim n = SymDim::Symbol("n");
  ValueRef pred = callee.AddParameter(T(DType::kBool, {}));
  ValueRef x = callee.AddParameter(T(F, {n}));
  auto c = callee.AddNode(OpId::kCond, {pred, x}, {},
                          {Branch(callee, {n}, OpId::kExp), Branch(callee, {n}, OpId::kNeg)});
  ASSERT_TRUE(c.ok());
  callee.SetResults(*c);
  Graph caller;
  ValueRef p = caller.AddParameter(T(DType::kBool, {}));
  ValueRef v = caller.AddParameter(T(F, {5}));
  auto r = InlineGraph(caller, callee, {p, v});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(caller.type((*r)[0]).ToString(), "f32[5]");
  caller.SetResults(*r);
  EXPECT_TRUE(Verify(caller).ok()) << Verify(caller);
}

}  // namespace
}  // namespace tfn::ir
