// Implementation of finding int8 layers and inserting their QDQ pairs.
#include "quantizer/quantize_graph.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "ir/passes/activation_patterns.h"
#include "ir/rewriter.h"
#include "quantizer/int8_layers.h"

namespace tfn::quantizer {
namespace {

using ir::Graph;
using ir::Node;
using ir::ValueRef;

// The one node reading v, when v has exactly one use and is not a result.
const Node* SingleUser(const Graph& g, const ir::UserLists& users, ValueRef v, int* user) {
  if (users[v.node].size() != 1 || users[v.node][0] < 0) return nullptr;
  *user = users[v.node][0];
  return &g.node(*user);
}

bool IsFloatConstant(const Graph& g, ValueRef v, int rank) {
  const ConstTensor* c = g.ConstantValue(v);
  return c && c->dtype == DType::kFloat32 && c->shape.rank() == rank;
}

// Whether node n is a layer root; its weight's output-channel axis in *axis.
bool IsRoot(const Graph& g, const Node& n, int* axis) {
  if (n.outputs.size() != 1 || n.outputs[0].dtype != DType::kFloat32 || n.inputs.size() < 2 ||
      g.type(n.inputs[0]).dtype != DType::kFloat32) {
    return false;
  }
  if (n.op == OpId::kConv2D) {
    *axis = 3;  // HWIO
    return IsFloatConstant(g, n.inputs[1], 4) &&
           (n.inputs.size() < 3 || IsFloatConstant(g, n.inputs[2], 1));
  }
  if (n.op == OpId::kMatMul) {
    *axis = n.attrs.GetInt("transpose_b") != 0 ? 0 : 1;
    return n.attrs.GetInt("transpose_a") == 0 && g.type(n.inputs[0]).shape.rank() >= 2 &&
           IsFloatConstant(g, n.inputs[1], 2);
  }
  return false;
}

// An add of two computed float32 tensors of its own shape (no constant, no
// broadcast): a residual add, which qlinear_add computes.
bool IsResidualAdd(const Graph& g, const Node& n) {
  if (n.op != OpId::kAdd || n.outputs[0].dtype != DType::kFloat32 || n.inputs[0] == n.inputs[1]) {
    return false;
  }
  for (ValueRef in : n.inputs) {
    if (g.ConstantValue(in) || g.type(in) != n.outputs[0]) return false;
  }
  return true;
}

// The activation after v that the layer's int8 kernel computes too (it
// joins the layer's tail): a relu, or with `clip` a clip (minimum and
// maximum with scalar constants: relu6), each op the single use of what it
// reads. Returns the layer's output: the activation's, or v.
ValueRef ActivationTail(const Graph& g, const ir::UserLists& users, ValueRef v, bool clip,
                        std::vector<int>* tail) {
  int user = -1;
  const Node* u = SingleUser(g, users, v, &user);
  double k = 1;
  if (!u || u->inputs[0] != v) return v;
  // A clip first: its maximum(x, 0) would pass for a relu.
  if (clip && (u->op == OpId::kMinimum || u->op == OpId::kMaximum) &&
      ir::ScalarConstant(g, u->inputs[1], &k)) {
    const ValueRef first{user, 0};
    int second = -1;
    const Node* w = SingleUser(g, users, first, &second);
    const OpId opposite = u->op == OpId::kMinimum ? OpId::kMaximum : OpId::kMinimum;
    double k2 = 0;
    if (w && w->op == opposite && w->inputs[0] == first &&
        ir::ScalarConstant(g, w->inputs[1], &k2)) {
      tail->push_back(user);
      tail->push_back(second);
      return ValueRef{second, 0};
    }
  }
  if (u->op == OpId::kRelu ||
      (u->op == OpId::kMaximum && ir::ScalarConstant(g, u->inputs[1], &k) && k == 0)) {
    tail->push_back(user);
    return ValueRef{user, 0};
  }
  return v;
}

// Scale and zero point of uint8 over r (which holds 0).
void ActivationParams(FloatRange r, float* scale, uint8_t* zero) {
  const double s = (static_cast<double>(r.hi) - r.lo) / 255.0;
  *scale = s > 0 && std::isfinite(s) ? static_cast<float>(s) : 1.0f;
  const double z = std::nearbyint(-r.lo / static_cast<double>(*scale));
  *zero = static_cast<uint8_t>(std::min(255.0, std::max(0.0, z)));
}

class QdqInserter {
 public:
  QdqInserter(const Graph& g, const std::map<ValueRef, FloatRange>& ranges)
      : rw_(g), ranges_(ranges) {}

  absl::StatusOr<Graph> Run(const std::vector<Layer>& layers, const QdqOptions& options);

 private:
  // dequantize(quantize(v)) in the new graph for old value v, made once.
  absl::StatusOr<ValueRef> FakeQuant(ValueRef old);
  // The new graph's int8 weight of layer l, dequantized per channel.
  absl::StatusOr<ValueRef> QuantizedWeight(const Layer& l);
  // Dynamic quantization: the layer's matmul with its input quantized at run time.
  absl::StatusOr<ValueRef> DynamicRoot(const Layer& l);
  absl::StatusOr<ValueRef> ReducedFloatRoot(const Layer& l, ReducedFloat mode);
  // Copies old node i with input `port` replaced by `value` (and input 1 by
  // `value1` when valid).
  absl::StatusOr<ValueRef> CopyWithInput(int i, int port, ValueRef value,
                                         ValueRef value1 = ValueRef{});
  // The layer's ops again, in float, from its fake-quantized input.
  absl::StatusOr<ValueRef> FloatTwin(const Layer& l, bool dynamic);

  ir::Rewriter rw_;
  const std::map<ValueRef, FloatRange>& ranges_;
  std::map<ValueRef, ValueRef> fake_quant_;
};

absl::StatusOr<ValueRef> QdqInserter::FakeQuant(ValueRef old) {
  auto done = fake_quant_.find(old);
  if (done != fake_quant_.end()) return done->second;
  auto range = ranges_.find(old);
  if (range == ranges_.end()) {
    return absl::InternalError("no calibrated range for %" + std::to_string(old.node));
  }
  float scale;
  uint8_t zero;
  ActivationParams(range->second, &scale, &zero);
  Graph& dst = rw_.dst();
  const ValueRef s = dst.AddConstant(ConstTensor::Scalar<float>(scale));
  const ValueRef z = dst.AddConstant(ConstTensor::Scalar<uint8_t>(zero));
  absl::StatusOr<ValueRef> q = dst.Add(OpId::kQuantizeLinear, {rw_.Map(old), s, z},
                                       {{"dtype", AttrValue::Type(DType::kUInt8)}});
  if (q.ok()) q = dst.Add(OpId::kDequantizeLinear, {*q, s, z});
  if (q.ok()) fake_quant_[old] = *q;
  return q;
}

absl::StatusOr<ValueRef> QdqInserter::QuantizedWeight(const Layer& l) {
  const Node& root = rw_.src().node(l.root);
  absl::StatusOr<Int8Weight> w =
      QuantizeWeight(*rw_.src().ConstantValue(root.inputs[1]), l.weight_axis, l.id);
  if (!w.ok()) return w.status();
  const int64_t channels = static_cast<int64_t>(w->scales.size());
  const std::vector<int8_t> zeros(channels, 0);
  Graph& dst = rw_.dst();
  return dst.Add(
      OpId::kDequantizeLinear,
      {dst.AddConstant(w->q),
       dst.AddConstant(ConstTensor::Copy(DType::kFloat32, Shape{channels}, w->scales.data())),
       dst.AddConstant(ConstTensor::Copy(DType::kInt8, Shape{channels}, zeros.data()))},
      {{"axis", AttrValue::Int(l.weight_axis)}});
}

absl::StatusOr<ValueRef> QdqInserter::DynamicRoot(const Layer& l) {
  const Node& root = rw_.src().node(l.root);
  absl::StatusOr<Int8Weight> w =
      QuantizeWeight(*rw_.src().ConstantValue(root.inputs[1]), l.weight_axis, l.id);
  if (!w.ok()) return w.status();
  return EmitDynamicMatMul(rw_.dst(), rw_.Map(root.inputs[0]), *w);
}

absl::StatusOr<ValueRef> QdqInserter::ReducedFloatRoot(const Layer& l, ReducedFloat mode) {
  const Node& root = rw_.src().node(l.root);
  return EmitReducedFloatRoot(rw_.dst(), root, rw_.MapAll(root.inputs),
                              *rw_.src().ConstantValue(root.inputs[1]), mode, l.id);
}

absl::StatusOr<ValueRef> QdqInserter::CopyWithInput(int i, int port, ValueRef value,
                                                    ValueRef value1) {
  const Node& n = rw_.src().node(i);
  std::vector<ValueRef> inputs = rw_.MapAll(n.inputs);
  inputs[port] = value;
  if (value1.valid()) inputs[1] = value1;
  return rw_.dst().Add(n.op, inputs, n.attrs);
}

absl::StatusOr<ValueRef> QdqInserter::FloatTwin(const Layer& l, bool dynamic) {
  const Node& root = rw_.src().node(l.root);
  // The same (dequantized) input as the int8 layer (through the moved transpose, if any).
  absl::StatusOr<ValueRef> x =
      root.inputs[0] == l.input && !dynamic ? FakeQuant(l.input) : rw_.Map(root.inputs[0]);
  if (!x.ok()) return x;
  absl::StatusOr<ValueRef> x1 = l.input2.valid() ? FakeQuant(l.input2) : ValueRef{};
  if (!x1.ok()) return x1;
  absl::StatusOr<ValueRef> v = CopyWithInput(l.root, 0, *x, *x1);
  ValueRef prev{l.root, 0};
  for (int i : l.tail) {
    if (!v.ok()) return v;
    const Node& n = rw_.src().node(i);
    const int port = n.inputs[0] == prev ? 0 : 1;
    v = CopyWithInput(i, port, *v);
    prev = ValueRef{i, 0};
  }
  return v;
}

absl::StatusOr<Graph> QdqInserter::Run(const std::vector<Layer>& layers,
                                       const QdqOptions& options) {
  const Graph& g = rw_.src();
  std::map<int, const Layer*> roots, input_nodes;  // input_nodes: where each layer's input is read
  std::map<ValueRef, const Layer*> outputs;
  // Dynamic and reduced-float layers quantize nothing around themselves.
  const bool root_only = options.dynamic || options.reduced_float != ReducedFloat::kNone;
  for (const Layer& l : layers) {
    roots[l.root] = &l;
    if (root_only) continue;
    const ValueRef x = g.node(l.root).inputs[0];
    input_nodes[x == l.input ? l.root : x.node] = &l;
    outputs[l.output] = &l;
  }
  for (int i = 0; i < g.num_nodes(); ++i) {
    const Node& n = g.node(i);
    if (root_only && roots.count(i)) {
      absl::StatusOr<ValueRef> v = options.dynamic
                                       ? DynamicRoot(*roots[i])
                                       : ReducedFloatRoot(*roots[i], options.reduced_float);
      if (!v.ok()) return v.status();
      rw_.Replace(ValueRef{i, 0}, *v);
      continue;
    }
    auto in = input_nodes.find(i);
    if (in != input_nodes.end() || roots.count(i)) {
      std::vector<ValueRef> inputs = rw_.MapAll(n.inputs);
      if (in != input_nodes.end()) {
        absl::StatusOr<ValueRef> x = FakeQuant(in->second->input);
        if (!x.ok()) return x.status();
        inputs[0] = *x;
      }
      if (auto r = roots.find(i); r != roots.end()) {
        // An add's second input, or a conv2d's / matmul's weight.
        absl::StatusOr<ValueRef> w =
            r->second->input2.valid() ? FakeQuant(r->second->input2) : QuantizedWeight(*r->second);
        if (!w.ok()) return w.status();
        inputs[1] = *w;
      }
      absl::StatusOr<ValueRef> v = rw_.dst().Add(n.op, inputs, n.attrs);
      if (!v.ok()) return v.status();
      rw_.Replace(ValueRef{i, 0}, *v);
    } else {
      absl::Status st = rw_.Copy(i);
      if (!st.ok()) return st;
    }
    if (outputs.count(ValueRef{i, 0})) {
      absl::StatusOr<ValueRef> y = FakeQuant(ValueRef{i, 0});
      if (!y.ok()) return y.status();
      rw_.Replace(ValueRef{i, 0}, *y);
    }
  }
  std::vector<ValueRef> twins;  // per layer: its dequantized int8 output, its float twin
  for (const Layer& l : options.float_twins ? layers : std::vector<Layer>{}) {
    absl::StatusOr<ValueRef> twin = FloatTwin(l, root_only);
    if (!twin.ok()) return twin.status();
    twins.push_back(root_only ? rw_.Map(l.output) : fake_quant_.at(l.output));
    twins.push_back(*twin);
  }
  absl::StatusOr<Graph> out = rw_.Finish();
  if (!out.ok() || twins.empty()) return out;
  std::vector<ValueRef> results = out->results();
  std::vector<std::string> names = out->result_names();
  names.resize(results.size());
  for (size_t i = 0; i < twins.size(); ++i) {
    results.push_back(twins[i]);
    names.push_back("twin_" + std::to_string(i));
  }
  out->SetResults(results, names);
  return out;
}

}  // namespace

std::vector<Layer> FindLayers(const Graph& g) {
  const ir::UserLists users = ir::Users(g);
  std::vector<Layer> layers;
  for (int i = 0; i < g.num_nodes(); ++i) {
    const Node& n = g.node(i);
    Layer l;
    if (IsResidualAdd(g, n)) {
      l.root = i;
      l.id = "%" + std::to_string(i);
      l.input = n.inputs[0];
      l.input2 = n.inputs[1];
      l.output = ActivationTail(g, users, ValueRef{i, 0}, /*clip=*/false,
                                &l.tail);  // qlinear_add: relu only
      layers.push_back(l);
      continue;
    }
    if (!IsRoot(g, n, &l.weight_axis)) continue;
    l.root = i;
    l.id = "%" + std::to_string(i);
    l.input = n.inputs[0];
    const Node& x = g.node(l.input.node);
    if (n.op == OpId::kConv2D && x.op == OpId::kTranspose && !x.attrs.GetInts("perm").empty() &&
        g.type(x.inputs[0]).dtype == DType::kFloat32) {
      l.input = x.inputs[0];  // the layout transpose moves onto the 8-bit tensor (fuse_qdq.h)
    }
    const int64_t channels = g.ConstantValue(n.inputs[1])->shape[l.weight_axis];
    ValueRef out{i, 0};
    int user = -1;
    const Node* u = SingleUser(g, users, out, &user);
    if (n.op == OpId::kMatMul && u && u->op == OpId::kAdd) {
      const ValueRef b = u->inputs[0] == out ? u->inputs[1] : u->inputs[0];
      const ConstTensor* bias = g.ConstantValue(b);
      if (u->inputs[0] != u->inputs[1] && bias && bias->dtype == DType::kFloat32 &&
          bias->num_elements() == channels) {
        l.tail.push_back(user);
        out = ValueRef{user, 0};
      }
    }
    l.output = ActivationTail(g, users, out, /*clip=*/true, &l.tail);
    layers.push_back(l);
  }
  return layers;
}

std::vector<ValueRef> QuantizedValues(const std::vector<Layer>& layers) {
  std::set<ValueRef> seen;
  std::vector<ValueRef> out;
  for (const Layer& l : layers) {
    for (ValueRef v : {l.input, l.input2, l.output}) {
      if (v.valid() && seen.insert(v).second) out.push_back(v);
    }
  }
  return out;
}

absl::StatusOr<Graph> InsertQdq(const Graph& graph, const std::vector<Layer>& layers,
                                const std::map<ValueRef, FloatRange>& ranges,
                                const QdqOptions& options) {
  return QdqInserter(graph, ranges).Run(layers, options);
}

}  // namespace tfn::quantizer
