// Implementation of the quantized lowering of QDQ islands.
#include "ir/passes/fuse_qdq.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "ir/passes/activation_patterns.h"
#include "ir/rewriter.h"

namespace tfn::ir {
namespace {

bool Is8Bit(DType t) { return t == DType::kInt8 || t == DType::kUInt8; }

// dequantize_linear(value, scale, zero_point?) or quantize_linear(...) with
// constant float32 scale and zero point: per tensor (axis -1) or per axis.
struct QParams {
  ValueRef value;        // the quantized input (dequantize) or the float input (quantize)
  ValueRef scale, zero;  // zero: invalid when absent (0 of the quantized dtype)
  const ConstTensor* scale_c = nullptr;
  const ConstTensor* zero_c = nullptr;
  DType qtype = DType::kInvalid;
  int axis = -1;
};

bool MatchQdq(const Graph& g, ValueRef v, OpId op, QParams* p) {
  const Node& n = g.node(v.node);
  if (n.op != op || n.inputs.size() < 2) return false;
  p->value = n.inputs[0];
  p->scale = n.inputs[1];
  p->scale_c = g.ConstantValue(p->scale);
  if (!p->scale_c || p->scale_c->dtype != DType::kFloat32) return false;
  p->zero = n.inputs.size() > 2 ? n.inputs[2] : ValueRef();
  p->zero_c = p->zero.valid() ? g.ConstantValue(p->zero) : nullptr;
  if (p->zero.valid() && !p->zero_c) return false;
  p->qtype = op == OpId::kDequantizeLinear ? g.type(p->value).dtype : n.outputs[0].dtype;
  if (p->scale_c->num_elements() == 1) {
    p->axis = -1;
    return true;
  }
  const int rank = g.type(op == OpId::kDequantizeLinear ? p->value : n.inputs[0]).shape.rank();
  return NormalizeAxis(n.attrs.GetInt("axis", 1), rank, &p->axis);
}

float ScaleAt(const QParams& p, int64_t c) {
  return p.scale_c->as<float>()[p.scale_c->num_elements() == 1 ? 0 : c];
}
int64_t ZeroAt(const QParams& p, int64_t c) {
  if (!p.zero_c) return 0;
  return p.zero_c->ElementAsInt(p.zero_c->num_elements() == 1 ? 0 : c);
}

bool SingleUse(const UserLists& users, ValueRef v) {
  return users[v.node].size() == 1 && users[v.node][0] >= 0;
}

// The island ending at one quantize_linear.
struct Island {
  int root = -1;  // conv2d or matmul
  QParams x, w, y;
  ValueRef bias;  // float bias (constant or dequantized int32), or invalid
  bool act_relu = false;
  bool act_clip = false;  // clip_lo <= value <= clip_hi (real units)
  double clip_lo = 0, clip_hi = 0;
  bool transpose_b = false;
  std::vector<int64_t> x_perm;  // conv2d's input is transpose(dequantize(x)): moved onto x
  ConstTensor bias_q;           // the int32 bias, one per output channel
};

// The float bias's value per channel as int32 at x_scale * w_scale(c).
std::optional<ConstTensor> QuantizedBias(const Graph& g, const Island& s, int64_t channels) {
  std::vector<int32_t> out(static_cast<size_t>(channels), 0);
  if (s.bias.valid()) {
    QParams b;
    const bool dequantized = MatchQdq(g, s.bias, OpId::kDequantizeLinear, &b) &&
                             g.ConstantValue(b.value) && g.type(b.value).dtype == DType::kInt32;
    const ConstTensor* f = dequantized ? g.ConstantValue(b.value) : g.ConstantValue(s.bias);
    if (!f || f->num_elements() != channels) return std::nullopt;
    if (!dequantized && f->dtype != DType::kFloat32) return std::nullopt;
    for (int64_t c = 0; c < channels; ++c) {
      const double unit = static_cast<double>(ScaleAt(s.x, 0)) * ScaleAt(s.w, c);
      double q;
      if (dequantized) {
        const double bs = ScaleAt(b, c);
        const int64_t raw = f->ElementAsInt(c) - ZeroAt(b, c);
        // Exporters give the bias the scale x_scale * w_scale: keep its integers.
        q = std::fabs(bs / unit - 1) < 1e-5 ? static_cast<double>(raw)
                                            : std::nearbyint(static_cast<double>(raw) * bs / unit);
      } else {
        q = std::nearbyint(f->ElementAsDouble(c) / unit);
      }
      if (!(q == q)) return std::nullopt;
      q = std::fmin(std::fmax(q, -2147483648.0), 2147483647.0);
      out[static_cast<size_t>(c)] = static_cast<int32_t>(q);
    }
  }
  return ConstTensor::Copy(DType::kInt32, Shape{channels}, out.data());
}

// A clip before the quantize of a conv2d / matmul island (relu6 and the
// like): minimum(maximum(x, lo), hi) or maximum(minimum(x, hi), lo) with
// scalar constants, each op x's single use. The int8 kernels clamp to the
// bounds quantized, which equals quantizing the clipped value (quantizing
// is monotonic). On a match *v becomes x.
bool MatchClip(const Graph& g, const UserLists& users, ValueRef* v, double* lo, double* hi) {
  const Node& outer = g.node(v->node);
  if ((outer.op != OpId::kMinimum && outer.op != OpId::kMaximum) || !SingleUse(users, *v)) {
    return false;
  }
  double k_outer = 0, k_inner = 0;
  const ValueRef inner_v = outer.inputs[0];
  const Node& inner = g.node(inner_v.node);
  const OpId opposite = outer.op == OpId::kMinimum ? OpId::kMaximum : OpId::kMinimum;
  if (!ScalarConstant(g, outer.inputs[1], &k_outer) || inner.op != opposite ||
      !SingleUse(users, inner_v) || !ScalarConstant(g, inner.inputs[1], &k_inner) ||
      inner.outputs[0] != outer.outputs[0]) {
    return false;
  }
  *lo = outer.op == OpId::kMinimum ? k_inner : k_outer;
  *hi = outer.op == OpId::kMinimum ? k_outer : k_inner;
  if (!(*lo <= *hi)) return false;
  *v = inner.inputs[0];
  return true;
}

// The end every island shares: node i a quantize_linear to 8 bits per
// tensor (*y), of a relu that is its single use (*relu) or, when `clip` is
// given, of a clip (*clip set, its bounds in *lo and *hi), or of neither;
// *v the value the activation reads, or the quantized one.
bool MatchIslandEnd(const Graph& g, int i, const UserLists& users, QParams* y, bool* relu,
                    ValueRef* v, bool* clip = nullptr, double* lo = nullptr, double* hi = nullptr) {
  if (!MatchQdq(g, ValueRef{i, 0}, OpId::kQuantizeLinear, y) || y->axis != -1 ||
      !Is8Bit(y->qtype)) {
    return false;
  }
  *v = y->value;
  if (clip && MatchClip(g, users, v, lo, hi)) {  // before relu: a clip at 0 starts like one
    *clip = true;
    return true;
  }
  const Node& n = g.node(v->node);
  double zero = 1;
  if (n.outputs.size() == 1 && SingleUse(users, *v) &&
      (n.op == OpId::kRelu ||
       (n.op == OpId::kMaximum && ScalarConstant(g, n.inputs[1], &zero) && zero == 0))) {
    *relu = true;
    *v = n.inputs[0];
  }
  return true;
}

// Matches the island whose quantize_linear is node i.
bool Match(const Graph& g, int i, const UserLists& users, Island* s) {
  ValueRef v;
  if (!MatchIslandEnd(g, i, users, &s->y, &s->act_relu, &v, &s->act_clip, &s->clip_lo,
                      &s->clip_hi)) {
    return false;
  }
  const Node* n = &g.node(v.node);
  if (n->op == OpId::kAdd && SingleUse(users, v) && n->inputs[0] != n->inputs[1]) {
    const Node& a = g.node(n->inputs[0].node);
    const int mm = a.op == OpId::kMatMul ? 0 : 1;
    if (g.node(n->inputs[mm].node).op != OpId::kMatMul) return false;
    s->bias = n->inputs[1 - mm];
    v = n->inputs[mm];
    n = &g.node(v.node);
  }
  if ((n->op != OpId::kConv2D && n->op != OpId::kMatMul) || !SingleUse(users, v) ||
      n->outputs[0].dtype != DType::kFloat32) {
    return false;
  }
  s->root = v.node;
  ValueRef x = n->inputs[0];
  const Node& xt = g.node(x.node);
  if (n->op == OpId::kConv2D && xt.op == OpId::kTranspose && !xt.attrs.GetInts("perm").empty()) {
    // The layout transpose in front of a graph's first conv (its float input
    // is quantized in NCHW): transposing the 8-bit tensor moves 4x less.
    s->x_perm = xt.attrs.GetInts("perm");
    x = xt.inputs[0];
  }
  if (!MatchQdq(g, x, OpId::kDequantizeLinear, &s->x) || s->x.axis != -1 || !Is8Bit(s->x.qtype) ||
      !MatchQdq(g, n->inputs[1], OpId::kDequantizeLinear, &s->w) || !Is8Bit(s->w.qtype) ||
      !g.ConstantValue(s->w.value)) {
    return false;
  }
  const SymShape& ws = g.type(s->w.value).shape;
  if (n->op == OpId::kConv2D) {
    if (n->inputs.size() > 2) {
      if (s->bias.valid()) return false;
      s->bias = n->inputs[2];
    }
    return ws.rank() == 4 && (s->w.axis == -1 || s->w.axis == 3);
  }
  if (n->attrs.GetInt("transpose_a") != 0 || ws.rank() != 2 ||
      g.type(n->inputs[0]).shape.rank() < 2) {
    return false;
  }
  s->transpose_b = n->attrs.GetInt("transpose_b") != 0;
  return s->w.axis == -1 || s->w.axis == (s->transpose_b ? 0 : 1);
}

// A [N, K] constant as [K, N].
ConstTensor Transposed(const ConstTensor& c) {
  const int64_t rows = c.shape[0], cols = c.shape[1], size = DTypeSize(c.dtype);
  void* data = nullptr;
  ConstTensor t = ConstTensor::Allocate(c.dtype, Shape{cols, rows}, &data);
  const auto* src = static_cast<const unsigned char*>(c.data);
  auto* dst = static_cast<unsigned char*>(data);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t k = 0; k < cols; ++k) {
      std::memcpy(dst + (k * rows + r) * size, src + (r * cols + k) * size, size);
    }
  }
  return t;
}

// The zero point operand of p in the new graph (a zero of its dtype when absent).
ValueRef ZeroOperand(Rewriter& rw, const QParams& p) {
  if (p.zero.valid()) return rw.Map(p.zero);
  const ConstTensor z =
      p.qtype == DType::kInt8 ? ConstTensor::Scalar<int8_t>(0) : ConstTensor::Scalar<uint8_t>(0);
  return rw.dst().AddConstant(z);
}

absl::StatusOr<ValueRef> Emit(Rewriter& rw, const Island& s) {
  const Graph& g = rw.src();
  Graph& dst = rw.dst();
  const Node& root = g.node(s.root);
  const bool conv = root.op == OpId::kConv2D;
  const ConstTensor& w = *g.ConstantValue(s.w.value);
  const ValueRef w_value = s.transpose_b ? dst.AddConstant(Transposed(w)) : rw.Map(s.w.value);
  ValueRef x = rw.Map(s.x.value);
  if (!s.x_perm.empty()) {
    absl::StatusOr<ValueRef> t =
        dst.Add(OpId::kTranspose, {x}, {{"perm", AttrValue::Ints(s.x_perm)}});
    if (!t.ok()) return t.status();
    x = *t;
  }
  std::vector<ValueRef> inputs = {x,
                                  rw.Map(s.x.scale),
                                  ZeroOperand(rw, s.x),
                                  w_value,
                                  rw.Map(s.w.scale),
                                  ZeroOperand(rw, s.w),
                                  rw.Map(s.y.scale),
                                  ZeroOperand(rw, s.y),
                                  dst.AddConstant(s.bias_q)};
  Attrs attrs;
  if (conv) {
    for (const auto& [name, value] : root.attrs) attrs.Set(name, value);
  }
  attrs.Set("activation", AttrValue::String(s.act_relu ? "relu" : s.act_clip ? "clip" : "none"));
  if (s.act_clip) {
    attrs.Set("clip_min", AttrValue::Float(s.clip_lo));
    attrs.Set("clip_max", AttrValue::Float(s.clip_hi));
  }
  return dst.Add(conv ? OpId::kQLinearConv2D : OpId::kQLinearMatMul, inputs, attrs);
}

// A residual add island: quantize(relu?(add(dequantize(a), dequantize(b)))),
// each of the three quantized per tensor with constant parameters, and a, b
// and the sum of one shape (no broadcast).
struct AddIsland {
  QParams a, b, y;
  bool act_relu = false;
};

bool MatchAdd(const Graph& g, int i, const UserLists& users, AddIsland* s) {
  ValueRef v;
  if (!MatchIslandEnd(g, i, users, &s->y, &s->act_relu, &v)) return false;
  const Node* n = &g.node(v.node);
  if (n->op != OpId::kAdd || !SingleUse(users, v) || n->outputs[0].dtype != DType::kFloat32) {
    return false;
  }
  const SymShape& shape = n->outputs[0].shape;
  QParams* in[2] = {&s->a, &s->b};
  for (int k = 0; k < 2; ++k) {
    if (!MatchQdq(g, n->inputs[k], OpId::kDequantizeLinear, in[k]) || in[k]->axis != -1 ||
        !Is8Bit(in[k]->qtype) || g.type(in[k]->value).shape != shape) {
      return false;
    }
  }
  return true;
}

absl::StatusOr<ValueRef> EmitAdd(Rewriter& rw, const AddIsland& s) {
  return rw.dst().Add(
      OpId::kQLinearAdd,
      {rw.Map(s.a.value), rw.Map(s.a.scale), ZeroOperand(rw, s.a), rw.Map(s.b.value),
       rw.Map(s.b.scale), ZeroOperand(rw, s.b), rw.Map(s.y.scale), ZeroOperand(rw, s.y)},
      {{"relu", AttrValue::Int(s.act_relu ? 1 : 0)}});
}

}  // namespace

absl::StatusOr<bool> FuseQdq(Graph& graph) {
  bool changed = false;
  const UserLists users = Users(graph);
  std::vector<Island> islands(graph.num_nodes());
  std::vector<std::optional<AddIsland>> adds(graph.num_nodes());
  for (int i = 0; i < graph.num_nodes(); ++i) {
    Island s;
    AddIsland add;
    if (graph.node(i).op == OpId::kQuantizeLinear && MatchAdd(graph, i, users, &add)) {
      adds[i] = add;
    } else if (graph.node(i).op == OpId::kQuantizeLinear && Match(graph, i, users, &s)) {
      const ConstTensor& w = *graph.ConstantValue(s.w.value);
      const int64_t channels = s.transpose_b ? w.shape[0] : w.shape[w.shape.rank() - 1];
      if (std::optional<ConstTensor> bias = QuantizedBias(graph, s, channels)) {
        s.bias_q = *bias;
        islands[i] = s;
      }
    }
  }
  Rewriter rw(graph);
  for (int i = 0; i < graph.num_nodes(); ++i) {
    const Node& n = graph.node(i);
    if (!n.subgraphs.empty()) {
      absl::Status st = rw.CopyWithSubgraphsRewritten(i, FuseQdq, &changed);
      if (!st.ok()) return st;
      continue;
    }
    if (islands[i].root >= 0 || adds[i]) {
      absl::StatusOr<ValueRef> q = adds[i] ? EmitAdd(rw, *adds[i]) : Emit(rw, islands[i]);
      if (!q.ok()) return q.status();
      rw.Replace(ValueRef{i, 0}, *q);
      changed = true;
      continue;
    }
    // The island's float ops are copied too: dead_node_elimination drops
    // them (a dequantized value used outside the island stays).
    absl::Status st = rw.Copy(i);
    if (!st.ok()) return st;
  }
  return rw.FinishPass(graph, changed);
}

std::vector<std::string> UnfusedQdqOps(const Graph& graph) {
  const UserLists users = Users(graph);
  std::vector<std::string> out;
  for (int i = 0; i < graph.num_nodes(); ++i) {
    const Node& n = graph.node(i);
    if (n.op == OpId::kQuantizeLinear || n.op == OpId::kDequantizeLinear ||
        n.op == OpId::kConstant || n.op == OpId::kParameter) {
      continue;
    }
    bool reads = false, feeds = false;
    for (ValueRef v : n.inputs) reads |= graph.node(v.node).op == OpId::kDequantizeLinear;
    for (int u : users[i]) feeds |= u >= 0 && graph.node(u).op == OpId::kQuantizeLinear;
    if (reads || feeds) out.emplace_back(OpName(n.op));
  }
  return out;
}

}  // namespace tfn::ir
