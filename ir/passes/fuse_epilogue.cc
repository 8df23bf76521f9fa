// Implementation of epilogue fusion.
#include "ir/passes/fuse_epilogue.h"

#include <string>
#include <vector>

#include "ir/passes/activation_patterns.h"
#include "ir/rewriter.h"

namespace tfn::ir {
namespace {

struct Chain {
  int root = -1;
  int last = -1;           // the node whose output the fused op replaces
  ValueRef bias;           // a value of the source graph, or invalid
  ConstTensor bias_const;  // a constant bias reshaped to [N] (when bias_is_const)
  bool bias_is_const = false;
  ValueRef residual;
  std::string act = "none";
  double lo = 0, hi = 0;       // clip's bounds
  double alpha = 0, beta = 0;  // hard_sigmoid's and hard_swish's
  bool absorbed_any = false;
  std::vector<int> absorbed;  // nodes computed by the fused op, `last` excluded
};

bool IsF32(const TensorType& t) { return t.dtype == DType::kFloat32; }

// A constant weight, or one stored narrow and cast to float32 (what
// prepack_weights packs either way).
bool ConstantWeight(const Graph& g, ValueRef v) {
  if (g.ConstantValue(v)) return true;
  const Node& n = g.node(v.node);
  return n.op == OpId::kCast && g.ConstantValue(n.inputs[0]) != nullptr;
}

bool IsRoot(const Graph& g, const Node& n) {
  if (n.outputs.size() != 1 || !IsF32(n.outputs[0]) || n.inputs.size() < 2) return false;
  if (!IsF32(g.type(n.inputs[0])) || !IsF32(g.type(n.inputs[1]))) return false;
  if (n.op == OpId::kMatMul) {
    return g.type(n.inputs[0]).shape.rank() >= 2 && g.type(n.inputs[1]).shape.rank() == 2 &&
           n.attrs.GetInt("transpose_a") == 0;
  }
  return n.op == OpId::kConv2D;
}

// Whether `v` can be the bias of an output of type `out`: it varies at most
// along the last axis, which has the output's (static) channel count.
bool TakeBias(const Graph& g, ValueRef v, const TensorType& out, Chain* c) {
  const TensorType& t = g.type(v);
  const int r = out.shape.rank();
  if (!IsF32(t) || t.shape.rank() < 1 || t.shape.rank() > r || r < 1) return false;
  const SymDim& n = out.shape[r - 1];
  if (!n.is_static() || !t.shape[t.shape.rank() - 1].is_static() ||
      t.shape[t.shape.rank() - 1].value() != n.value()) {
    return false;
  }
  for (int i = 0; i + 1 < t.shape.rank(); ++i) {
    if (!t.shape[i].is_static() || t.shape[i].value() != 1) return false;
  }
  if (const ConstTensor* k = g.ConstantValue(v)) {
    c->bias_const = *k;
    c->bias_const.shape = Shape{n.value()};
    c->bias_is_const = true;
  } else if (t.shape.rank() != 1) {
    return false;
  }
  c->bias = v;
  return true;
}

// Follows the single-use chain from root i; claimed marks nodes already fused.
Chain Follow(const Graph& g, int i, const UserLists& users, const std::vector<bool>& claimed) {
  Chain c;
  c.root = c.last = i;
  const Node& root = g.node(i);
  const bool conv = root.op == OpId::kConv2D;
  if (conv && root.inputs.size() > 2) c.bias = root.inputs[2];
  const bool conv_has_bias = c.bias.valid();
  ValueRef cur{i, 0};
  auto single_user = [&](ValueRef v) {
    const std::vector<int>& u = users[v.node];
    return u.size() == 1 && u[0] >= 0 && !claimed[u[0]] && g.node(u[0]).subgraphs.empty() ? u[0]
                                                                                          : -1;
  };
  for (;;) {
    ActivationMatch m;
    if (MatchActivation(g, cur, users, claimed, &m)) {
      c.act = m.act;
      c.alpha = m.alpha;
      c.beta = m.beta;
      c.absorbed.push_back(c.last);
      c.absorbed.insert(c.absorbed.end(), m.inner.begin(), m.inner.end());
      c.last = m.result;
      c.absorbed_any = true;
      break;
    }
    const int u = single_user(cur);
    if (u < 0) break;
    const Node& n = g.node(u);
    if (n.outputs.size() != 1 || n.outputs[0] != g.type(cur)) break;
    if (n.op == OpId::kAdd) {
      if (n.inputs[0] == n.inputs[1]) break;
      const ValueRef other = n.inputs[0] == cur ? n.inputs[1] : n.inputs[0];
      if (!c.bias.valid() && !conv_has_bias && TakeBias(g, other, n.outputs[0], &c)) {
      } else if (!c.residual.valid() && g.type(other) == n.outputs[0]) {
        c.residual = other;
      } else {
        break;
      }
      c.absorbed.push_back(c.last);
      c.last = u;
      c.absorbed_any = true;
      cur = ValueRef{u, 0};
      continue;
    }
    if (n.op == OpId::kRelu || n.op == OpId::kSigmoid || n.op == OpId::kTanh ||
        n.op == OpId::kGelu) {
      c.act = n.op == OpId::kRelu                          ? "relu"
              : n.op == OpId::kSigmoid                     ? "sigmoid"
              : n.op == OpId::kTanh                        ? "tanh"
              : n.attrs.GetString("approximate") == "tanh" ? "gelu_tanh"
                                                           : "gelu";
      c.absorbed.push_back(c.last);
      c.last = u;
      c.absorbed_any = true;
      break;
    }
    if (n.op == OpId::kMaximum || n.op == OpId::kMinimum) {
      double k1 = 0, k2 = 0;
      const ValueRef other = n.inputs[0] == cur ? n.inputs[1] : n.inputs[0];
      if (n.inputs[0] == n.inputs[1] || !ScalarConstant(g, other, &k1)) break;
      const bool is_max = n.op == OpId::kMaximum;
      // The other bound, when the next op is the opposite one with a scalar.
      const int v = single_user(ValueRef{u, 0});
      if (v >= 0) {
        const Node& m = g.node(v);
        const OpId opposite = is_max ? OpId::kMinimum : OpId::kMaximum;
        const ValueRef mine{u, 0};
        if (m.op == opposite && m.outputs[0] == n.outputs[0] && m.inputs[0] != m.inputs[1] &&
            ScalarConstant(g, m.inputs[0] == mine ? m.inputs[1] : m.inputs[0], &k2)) {
          const double lo = is_max ? k1 : k2, hi = is_max ? k2 : k1;
          if (lo <= hi) {
            c.act = "clip";
            c.lo = lo;
            c.hi = hi;
            c.absorbed.push_back(c.last);
            c.absorbed.push_back(u);
            c.last = v;
            c.absorbed_any = true;
          }
          break;
        }
      }
      if (is_max && k1 == 0) {
        c.act = "relu";
        c.absorbed.push_back(c.last);
        c.last = u;
        c.absorbed_any = true;
      }
      break;
    }
    break;
  }
  return c;
}

absl::StatusOr<ValueRef> Emit(Rewriter& rw, const Chain& c) {
  const Graph& src = rw.src();
  Graph& dst = rw.dst();
  const Node& root = src.node(c.root);
  const bool conv = root.op == OpId::kConv2D;
  const TensorType& out = root.outputs[0];
  std::vector<ValueRef> inputs = {rw.Map(root.inputs[0]), rw.Map(root.inputs[1])};
  if (c.bias_is_const) {
    inputs.push_back(dst.AddConstant(c.bias_const));
  } else if (c.bias.valid()) {
    inputs.push_back(rw.Map(c.bias));
  } else if (c.residual.valid()) {  // a zero bias to reach the residual's slot
    void* zeros = nullptr;
    const int64_t n = out.shape[out.shape.rank() - 1].value();
    inputs.push_back(dst.AddConstant(ConstTensor::Allocate(DType::kFloat32, Shape{n}, &zeros)));
  }
  if (c.residual.valid()) inputs.push_back(rw.Map(c.residual));
  Attrs attrs;
  if (conv) {
    for (const auto& [name, value] : root.attrs) attrs.Set(name, value);
  } else {
    attrs.Set("transpose_b", AttrValue::Int(root.attrs.GetInt("transpose_b")));
  }
  attrs.Set("activation", AttrValue::String(c.act));
  if (c.act == "clip") {
    attrs.Set("clip_min", AttrValue::Float(c.lo));
    attrs.Set("clip_max", AttrValue::Float(c.hi));
  } else if (c.act == "hard_sigmoid" || c.act == "hard_swish") {
    attrs.Set("act_alpha", AttrValue::Float(c.alpha));
    attrs.Set("act_beta", AttrValue::Float(c.beta));
  }
  return dst.Add(conv ? OpId::kFusedConv2D : OpId::kFusedMatMul, inputs, attrs);
}

}  // namespace

absl::StatusOr<bool> FuseEpilogues(Graph& graph) {
  bool changed = false;
  const UserLists users = Users(graph);
  std::vector<bool> claimed(graph.num_nodes(), false);
  std::vector<int> emit_at(graph.num_nodes(), -1);  // chain index emitted at this node
  std::vector<Chain> chains;
  for (int i = 0; i < graph.num_nodes(); ++i) {
    const Node& n = graph.node(i);
    if (claimed[i] || !IsRoot(graph, n)) continue;
    Chain c = Follow(graph, i, users, claimed);
    if (!c.absorbed_any && !ConstantWeight(graph, n.inputs[1])) continue;
    claimed[i] = true;
    for (int k : c.absorbed) claimed[k] = true;
    claimed[c.last] = true;
    emit_at[c.last] = static_cast<int>(chains.size());
    chains.push_back(std::move(c));
  }
  Rewriter rw(graph);
  for (int i = 0; i < graph.num_nodes(); ++i) {
    const Node& n = graph.node(i);
    if (!n.subgraphs.empty()) {
      absl::Status st = rw.CopyWithSubgraphsRewritten(i, FuseEpilogues, &changed);
      if (!st.ok()) return st;
      continue;
    }
    if (emit_at[i] >= 0) {
      absl::StatusOr<ValueRef> fused = Emit(rw, chains[emit_at[i]]);
      if (!fused.ok()) return fused.status();
      rw.Replace(ValueRef{i, 0}, *fused);
      changed = true;
      continue;
    }
    if (claimed[i]) continue;  // a root or an absorbed op: computed by the fused node
    absl::Status st = rw.Copy(i);
    if (!st.ok()) return st;
  }
  return rw.FinishPass(graph, changed);
}

}  // namespace tfn::ir
