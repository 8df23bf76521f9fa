// Implementation of algebraic simplification.
#include "ir/passes/algebraic_simplify.h"

#include <vector>

#include "ir/rewriter.h"

namespace tfn::ir {
namespace {

// True when v is a constant whose every element equals `x`.
bool IsConstantOf(const Graph& g, ValueRef v, double x) {
  const ConstTensor* c = g.ConstantValue(v);
  if (!c) return false;
  for (int64_t i = 0; i < c->num_elements(); ++i) {
    if (c->ElementAsDouble(i) != x) return false;
  }
  return true;
}

bool AllEqual(const std::vector<int64_t>& v, int64_t x) {
  for (int64_t e : v) {
    if (e != x) return false;
  }
  return true;
}

// The value the node reduces to (in the new graph), or an invalid ref.
// `in` are the node's inputs already mapped into `g` (the new graph).
ValueRef Simplified(Graph& g, const Node& n, const std::vector<ValueRef>& in) {
  const TensorType& out = n.outputs[0];
  auto same_type = [&](ValueRef v) { return g.type(v) == out; };
  switch (n.op) {
    case OpId::kIdentity:
      return in[0];
    case OpId::kCast:
      return g.type(in[0]).dtype == out.dtype ? in[0] : ValueRef{};
    case OpId::kAdd:
      if (IsConstantOf(g, in[1], 0) && same_type(in[0])) return in[0];
      if (IsConstantOf(g, in[0], 0) && same_type(in[1])) return in[1];
      return {};
    case OpId::kSub:
      return IsConstantOf(g, in[1], 0) && same_type(in[0]) ? in[0] : ValueRef{};
    case OpId::kMul:
      if (IsConstantOf(g, in[1], 1) && same_type(in[0])) return in[0];
      if (IsConstantOf(g, in[0], 1) && same_type(in[1])) return in[1];
      return {};
    case OpId::kDiv:
    case OpId::kPow:
      return IsConstantOf(g, in[1], 1) && same_type(in[0]) ? in[0] : ValueRef{};
    case OpId::kNeg:
    case OpId::kLogicalNot: {
      const Node& p = g.node(in[0].node);
      return p.op == n.op ? p.inputs[0] : ValueRef{};
    }
    case OpId::kReshape:
    case OpId::kExpandDims:
    case OpId::kSqueeze:
    case OpId::kBroadcastTo:
    case OpId::kConcat:
      return in.size() == 1 && same_type(in[0]) ? in[0] : ValueRef{};
    case OpId::kTile:
      return AllEqual(n.attrs.GetInts("multiples"), 1) && same_type(in[0]) ? in[0] : ValueRef{};
    case OpId::kPad:
      // Only the attribute form: paddings given as input 1 are unknown here.
      return in.size() == 1 && AllEqual(n.attrs.GetInts("paddings"), 0) ? in[0] : ValueRef{};
    case OpId::kSlice:  // (bounds given as inputs are unknown here)
      return in.size() == 1 && AllEqual(n.attrs.GetInts("begin"), 0) &&
                     AllEqual(n.attrs.GetInts("strides"), 1) && same_type(in[0])
                 ? in[0]
                 : ValueRef{};
    case OpId::kTranspose: {
      std::vector<int64_t> perm = n.attrs.GetInts("perm");
      bool identity = true;
      for (size_t i = 0; i < perm.size(); ++i) identity &= perm[i] == static_cast<int64_t>(i);
      return identity && !perm.empty() ? in[0] : ValueRef{};
    }
    default:
      return {};
  }
}

// A cheaper replacement node for chains: transpose(transpose) and reshape(reshape).
absl::StatusOr<ValueRef> Fused(Graph& g, const Node& n, const std::vector<ValueRef>& in) {
  if (in.empty()) return ValueRef{};
  const Node& p = g.node(in[0].node);
  if (n.op == OpId::kTranspose && p.op == OpId::kTranspose) {
    int rank = g.type(in[0]).shape.rank();
    std::vector<int64_t> p1 = p.attrs.GetInts("perm"), p2 = n.attrs.GetInts("perm");
    auto full = [rank](std::vector<int64_t> v) {
      if (v.empty()) {
        for (int i = rank - 1; i >= 0; --i) v.push_back(i);
      }
      for (int64_t& e : v) e = e < 0 ? e + rank : e;
      return v;
    };
    p1 = full(p1);
    p2 = full(p2);
    std::vector<int64_t> composed(rank);
    bool identity = true;
    for (int i = 0; i < rank; ++i) {
      composed[i] = p1[p2[i]];
      identity &= composed[i] == i;
    }
    if (identity) return p.inputs[0];
    return g.Add(OpId::kTranspose, {p.inputs[0]}, {{"perm", AttrValue::Ints(composed)}});
  }
  // (Only the attribute form: a shape given as input 1 is unknown here.)
  bool reshape_like = n.op == OpId::kReshape && in.size() == 1 && n.attrs.GetInt("copy_zero") == 0;
  bool producer_reshape =
      p.op == OpId::kReshape || p.op == OpId::kExpandDims || p.op == OpId::kSqueeze;
  if (reshape_like && producer_reshape) {
    if (g.type(p.inputs[0]) == n.outputs[0]) return p.inputs[0];
    return g.Add(OpId::kReshape, {p.inputs[0]}, n.attrs);
  }
  return ValueRef{};
}

}  // namespace

absl::StatusOr<bool> SimplifyAlgebra(Graph& graph) {
  return RewriteNodes(graph, SimplifyAlgebra,
                      [](Rewriter& rw, const Node& n) -> absl::StatusOr<ValueRef> {
                        if (n.op == OpId::kParameter || n.op == OpId::kConstant ||
                            n.outputs.size() != 1 || n.def().has(kStateful)) {
                          return ValueRef{};
                        }
                        std::vector<ValueRef> in = rw.MapAll(n.inputs);
                        ValueRef r = Simplified(rw.dst(), n, in);
                        if (r.valid()) return r;
                        return Fused(rw.dst(), n, in);
                      });
}

}  // namespace tfn::ir
