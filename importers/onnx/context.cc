// Implementation of the import context, the converter registry and the node
// loop (converters first, then ONNX function bodies for ops defined as
// functions of other ops).
#include "importers/onnx/context.h"

#include <cmath>
#include <limits>
#include <mutex>
#include <set>
#include <type_traits>

#include "importers/onnx/tensor_proto.h"
#include "ir/text.h"
#include "kernels/evaluate.h"
#include "onnx/defs/function.h"
#include "onnx/defs/schema.h"

namespace tfn::onnx_import {
namespace {

struct Registry {
  std::mutex mu;
  std::map<std::string, std::map<int, Converter>> converters;  // op -> since -> converter
};
Registry& GetRegistry() {
  static Registry* r = new Registry;
  return *r;
}

// Pure ops that Add evaluates at once when their inputs are constants. A
// dequantized constant stays an op: it marks 8-bit weights, which the
// quantized lowering (ir/passes/fuse_qdq.h) keeps 8-bit.
bool Foldable(OpId op) {
  const OpDef& d = GetOpDef(op);
  return !d.has(kStateful) && !d.has(kControlFlow) && !d.has(kNoKernel) &&
         op != OpId::kDequantizeLinear;
}

}  // namespace

void RegisterConverter(const std::string& op_type, int since_opset, Converter converter) {
  Registry& r = GetRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  r.converters[op_type][since_opset] = std::move(converter);
}

const Converter* FindConverter(const std::string& op_type, int opset) {
  Registry& r = GetRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.converters.find(op_type);
  if (it == r.converters.end()) return nullptr;
  const Converter* best = nullptr;
  for (const auto& [since, c] : it->second) {
    if (since <= opset) best = &c;
  }
  return best;
}

Context::Context(ir::Graph* graph, int opset, std::string base_dir)
    : graph_(graph), opset_(opset), base_dir_(std::move(base_dir)) {}

absl::Status Context::Error(const std::string& what) const {
  std::string name = node_ ? node_->name() : "";
  std::string type = node_ ? node_->op_type() : "";
  return absl::InvalidArgumentError("node '" + name + "' (" + type + "): " + what);
}

absl::Status Context::Unsupported(const std::string& what) const {
  std::string name = node_ ? node_->name() : "";
  std::string type = node_ ? node_->op_type() : "";
  return absl::UnimplementedError("node '" + name + "' (" + type + "): " + what + " is not supported");
}

absl::StatusOr<ir::ValueRef> Context::Lookup(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end()) return absl::InvalidArgumentError("the value '" + name + "' is used before it is defined");
  return it->second;
}

absl::StatusOr<ir::ValueRef> Context::Input(int i) {
  if (!HasInput(i)) return Error("input " + std::to_string(i) + " is required but missing");
  absl::StatusOr<ir::ValueRef> v = Lookup(node_->input(i));
  if (!v.ok()) return Error(std::string(v.status().message()));
  return v;
}

absl::Status Context::CheckScaleValues(int i, const std::string& role) {
  absl::StatusOr<ir::ValueRef> v = Input(i);
  if (!v.ok()) return v.status();
  const ConstTensor* c = ConstantOf(*v);
  if (!c || !IsFloating(c->dtype)) return absl::OkStatus();
  for (int64_t k = 0; k < c->num_elements(); ++k) {
    const double s = c->ElementAsDouble(k);
    if (s > 0 && std::isfinite(s)) continue;
    const std::string at = c->num_elements() == 1 ? "" : " at index " + std::to_string(k);
    return Error(role + " '" + node_->input(i) + "' holds " + ir::FormatDouble(s) + at +
                 ": a quantization scale must be a positive, finite number");
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<int64_t>> Context::ConstInts(int i) {
  absl::StatusOr<ir::ValueRef> v = Input(i);
  if (!v.ok()) return v.status();
  if (const ConstTensor* c = ConstantOf(*v); c && IsInteger(c->dtype)) {
    std::vector<int64_t> out;
    for (int64_t k = 0; k < c->num_elements(); ++k) out.push_back(c->ElementAsInt(k));
    return out;
  }
  if (auto known = KnownValues(*v)) {
    std::vector<int64_t> out;
    for (const SymDim& d : *known) {
      if (!d.is_static()) break;
      out.push_back(d.value());
    }
    if (out.size() == known->size()) return out;
  }
  return Unsupported("input " + std::to_string(i) + " ('" + node_->input(i) +
                     "') computed at run time (it must be a constant here)");
}

absl::StatusOr<std::vector<double>> Context::ConstFloats(int i) {
  absl::StatusOr<ir::ValueRef> v = Input(i);
  if (!v.ok()) return v.status();
  const ConstTensor* c = ConstantOf(*v);
  if (!c) return Unsupported("input " + std::to_string(i) + " computed at run time (it must be a constant here)");
  std::vector<double> out;
  for (int64_t k = 0; k < c->num_elements(); ++k) out.push_back(c->ElementAsDouble(k));
  return out;
}

std::optional<std::vector<SymDim>> Context::KnownValues(ir::ValueRef v) const {
  auto it = known_.find({v.node, v.port});
  if (it != known_.end()) return it->second;
  const ConstTensor* c = ConstantOf(v);
  if (c && IsInteger(c->dtype) && c->shape.rank() <= 1) {
    std::vector<SymDim> out;
    for (int64_t k = 0; k < c->num_elements(); ++k) out.push_back(SymDim(c->ElementAsInt(k)));
    return out;
  }
  return std::nullopt;
}

void Context::SetKnownValues(ir::ValueRef v, std::vector<SymDim> values) {
  known_[{v.node, v.port}] = std::move(values);
}

const onnx::AttributeProto* Context::Attr(const std::string& name) const {
  for (const onnx::AttributeProto& a : node_->attribute()) {
    if (a.name() == name) return &a;
  }
  return nullptr;
}

int64_t Context::AttrInt(const std::string& name, int64_t fallback) const {
  const onnx::AttributeProto* a = Attr(name);
  return a ? a->i() : fallback;
}

float Context::AttrFloat(const std::string& name, float fallback) const {
  const onnx::AttributeProto* a = Attr(name);
  return a ? a->f() : fallback;
}

std::string Context::AttrString(const std::string& name, const std::string& fallback) const {
  const onnx::AttributeProto* a = Attr(name);
  return a ? a->s() : fallback;
}

std::vector<int64_t> Context::AttrInts(const std::string& name, std::vector<int64_t> fallback) const {
  const onnx::AttributeProto* a = Attr(name);
  if (!a) return fallback;
  return std::vector<int64_t>(a->ints().begin(), a->ints().end());
}

std::vector<float> Context::AttrFloats(const std::string& name) const {
  const onnx::AttributeProto* a = Attr(name);
  if (!a) return {};
  return std::vector<float>(a->floats().begin(), a->floats().end());
}

absl::StatusOr<ConstTensor> Context::AttrTensor(const std::string& name) const {
  const onnx::AttributeProto* a = Attr(name);
  if (!a || !a->has_t()) return Error("attribute '" + name + "' is not a tensor");
  return TensorFromProto(a->t(), base_dir_);
}

absl::StatusOr<std::vector<ir::ValueRef>> Context::AddExact(OpId op,
                                                            std::vector<ir::ValueRef> inputs,
                                                            Attrs attrs) {
  // transpose(dequantize_linear(W)) of constant W is dequantize_linear(W^T)
  // with the axis moved: the layout change of weights (OIHW -> HWIO) then
  // folds into the 8-bit constant.
  if (op == OpId::kTranspose && inputs.size() == 1) {
    const ir::Node& dq = graph_->node(inputs[0].node);
    if (dq.op == OpId::kDequantizeLinear && ConstantOf(dq.inputs[0])) {
      const int rank = graph_->type(dq.inputs[0]).shape.rank();
      std::vector<int64_t> perm = attrs.GetInts("perm");
      if (perm.empty()) {
        for (int i = rank - 1; i >= 0; --i) perm.push_back(i);
      }
      int axis = 0;
      if (static_cast<int>(perm.size()) == rank &&
          NormalizeAxis(dq.attrs.GetInt("axis", 1), rank, &axis)) {
        int64_t moved = axis;
        for (int k = 0; k < rank; ++k) {
          if ((perm[k] < 0 ? perm[k] + rank : perm[k]) == axis) moved = k;
        }
        const std::vector<ir::ValueRef> dq_inputs = dq.inputs;
        absl::StatusOr<std::vector<ir::ValueRef>> w = AddExact(op, {dq_inputs[0]}, attrs);
        if (!w.ok()) return w.status();
        std::vector<ir::ValueRef> in = dq_inputs;
        in[0] = (*w)[0];
        return AddExact(OpId::kDequantizeLinear, in, {{"axis", AttrValue::Int(moved)}});
      }
    }
  }
  bool all_const = Foldable(op);
  std::vector<ConstTensor> values;
  for (ir::ValueRef v : inputs) {
    const ConstTensor* c = ConstantOf(v);
    if (!c) {
      all_const = false;
      break;
    }
    values.push_back(*c);
  }
  if (all_const) {
    Status s = NormalizeAttrs(GetOpDef(op), &attrs);
    if (!s.ok()) return Error(s.message());
    std::vector<ConstTensor> outs;
    s = kernels::EvaluateOp(op, attrs, values, &outs);
    if (!s.ok()) return Error(s.message());
    std::vector<ir::ValueRef> refs;
    for (const ConstTensor& t : outs) refs.push_back(graph_->AddConstant(t));
    return refs;
  }
  absl::StatusOr<std::vector<ir::ValueRef>> r = graph_->AddNode(op, std::move(inputs), std::move(attrs));
  if (!r.ok()) return Error(std::string(r.status().message()));
  return r;
}

namespace {

// The dtype a tfn op computes a storage dtype in when it does not take it:
// the first candidate in `accepted`. Each holds every value of the narrow
// dtype exactly: float16 and bfloat16 go to float32 (then float64), int8 ...
// uint16 to int32 (then int64), uint32 to int64. Casting a result back
// rounds floats to nearest even (what ONNX Runtime and NumPy do for float16
// arithmetic) and wraps integers modulo 2^bits, which is the narrow dtype's
// own wrap-around for add, sub, mul and neg (tfn's int32 arithmetic wraps
// too); div, mod, max, min and comparisons are exact in the wider dtype.
std::optional<DType> WideDType(DType t, TypeMask accepted) {
  std::vector<DType> candidates;
  switch (t) {
    case DType::kFloat16:
    case DType::kBFloat16:
      candidates = {DType::kFloat32, DType::kFloat64};
      break;
    case DType::kInt8:
    case DType::kUInt8:
    case DType::kInt16:
    case DType::kUInt16:
      candidates = {DType::kInt32, DType::kInt64};
      break;
    case DType::kUInt32:
      candidates = {DType::kInt64};
      break;
    default:
      return std::nullopt;  // uint64: nothing wider; the compute dtypes need nothing
  }
  for (DType c : candidates) {
    if (accepted & TypeBit(c)) return c;
  }
  return std::nullopt;
}

Attrs CastAttrs(DType to) { return Attrs{{"dtype", AttrValue::Type(to)}}; }

}  // namespace

absl::StatusOr<DType> Context::WidenInputs(OpId op, std::vector<ir::ValueRef>* inputs,
                                           Attrs* attrs) {
  const OpDef& def = GetOpDef(op);
  std::vector<DType> narrow(inputs->size(), DType::kInvalid);  // per input: its dtype when widened
  for (size_t i = 0; i < inputs->size(); ++i) {
    const InputDef* in = def.InputAt(static_cast<int>(i));
    const DType t = Type((*inputs)[i]).dtype;
    if (!in || (in->types & TypeBit(t)) || !(kStorageTypes & TypeBit(t))) continue;
    std::optional<DType> wide = WideDType(t, in->types);
    if (!wide) {
      // Another dtype, or an op that does not compute: the op's own error says it.
      if (t != DType::kUInt64 || !(in->types & kNumericTypes)) continue;
      return absl::UnimplementedError(
          std::string(Unsupported(std::string("tfn's ") + def.name + " on uint64").message()) +
          " (it computes on " + TypeMaskToString(in->types) +
          ", and no wider dtype holds every uint64 value)");
    }
    absl::StatusOr<std::vector<ir::ValueRef>> cast =
        AddExact(OpId::kCast, {(*inputs)[i]}, CastAttrs(*wide));
    if (!cast.ok()) return cast.status();
    narrow[i] = t;
    (*inputs)[i] = (*cast)[0];
  }
  auto widened = [&](size_t i) { return i < narrow.size() ? narrow[i] : DType::kInvalid; };
  switch (def.sig->type_rule) {
    case TypeRule::kSameAsInput0:
    case TypeRule::kByShapeRule:
      return widened(0);  // top_k, unique: output 0 is x's dtype
    case TypeRule::kSameAsInput1:
      return widened(1);
    case TypeRule::kFromAttr: {
      // range(start, limit, delta) of dtype int16: computed in int32.
      const DType out = attrs->GetType("dtype");
      for (size_t i = 0; i < narrow.size(); ++i) {
        if (out != DType::kInvalid && narrow[i] == out) {
          attrs->Set("dtype", AttrValue::Type(Type((*inputs)[i]).dtype));
          return out;
        }
      }
      return DType::kInvalid;
    }
    default:
      return DType::kInvalid;  // bool or int64 results
  }
}

absl::StatusOr<std::vector<ir::ValueRef>> Context::NarrowOutputs(OpId op, DType narrow,
                                                                 std::vector<ir::ValueRef> outs) {
  if (narrow == DType::kInvalid) return outs;
  // top_k and unique: output 0 has x's dtype, the others are int64 indices.
  const bool first_only = GetOpDef(op).sig->type_rule == TypeRule::kByShapeRule;
  for (size_t k = 0; k < outs.size() && (k == 0 || !first_only); ++k) {
    if (Type(outs[k]).dtype == narrow) continue;
    absl::StatusOr<std::vector<ir::ValueRef>> cast =
        AddExact(OpId::kCast, {outs[k]}, CastAttrs(narrow));
    if (!cast.ok()) return cast.status();
    outs[k] = (*cast)[0];
  }
  return outs;
}

absl::StatusOr<std::vector<ir::ValueRef>> Context::AddMulti(OpId op,
                                                            std::vector<ir::ValueRef> inputs,
                                                            Attrs attrs) {
  absl::StatusOr<DType> narrow = WidenInputs(op, &inputs, &attrs);
  if (!narrow.ok()) return narrow.status();
  absl::StatusOr<std::vector<ir::ValueRef>> outs =
      AddExact(op, std::move(inputs), std::move(attrs));
  if (!outs.ok()) return outs.status();
  return NarrowOutputs(op, *narrow, *std::move(outs));
}

absl::StatusOr<ir::ValueRef> Context::Add(OpId op, std::vector<ir::ValueRef> inputs, Attrs attrs) {
  absl::StatusOr<std::vector<ir::ValueRef>> r = AddMulti(op, std::move(inputs), std::move(attrs));
  if (!r.ok()) return r.status();
  if (r->size() != 1) return Error(std::string(OpName(op)) + " does not have exactly one output");
  return (*r)[0];
}

namespace {

// A static_cast of a double outside an integer type's range is undefined
// behavior (UBSan found Loop's "no trip count" limit, double(INT64_MAX),
// which is 2^63).
template <class T>
T FromDouble(double v) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    if (std::isnan(v)) return 0;
    if (v <= static_cast<double>(std::numeric_limits<T>::min())) return std::numeric_limits<T>::min();
    if (v >= static_cast<double>(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
  }
  return static_cast<T>(v);
}

}  // namespace

ir::ValueRef Context::Scalar(DType dtype, double value) {
  void* data = nullptr;
  ConstTensor t = ConstTensor::Allocate(dtype, Shape{}, &data);
  VisitDType(dtype, [&](auto tag) {
    *static_cast<decltype(tag)*>(data) = FromDouble<decltype(tag)>(value);
    return 0;
  });
  return graph_->AddConstant(t);
}

ir::ValueRef Context::Int64Scalar(int64_t value) {
  return graph_->AddConstant(ConstTensor::Scalar<int64_t>(value));
}

ir::ValueRef Context::Ints(const std::vector<int64_t>& values) {
  return graph_->AddConstant(
      ConstTensor::Copy(DType::kInt64, Shape{static_cast<int64_t>(values.size())}, values.data()));
}

absl::Status Context::Output(int i, ir::ValueRef v) {
  if (i >= node_->output_size()) {
    if (i == 0) return Error("the node has no outputs");
    return absl::OkStatus();  // optional outputs the model does not use
  }
  if (!node_->output(i).empty()) values_[node_->output(i)] = v;
  return absl::OkStatus();
}

namespace {

// The ONNX schema of an op, for ops that are defined as functions.
const onnx::OpSchema* Schema(const onnx::NodeProto& node, int opset) {
  return onnx::OpSchemaRegistry::Schema(node.op_type(), opset, node.domain());
}

bool Expandable(const onnx::NodeProto& node, int opset) {
  const onnx::OpSchema* s = Schema(node, opset);
  return s && (s->HasFunction() || s->HasContextDependentFunction());
}

// Expands a function op into its body's nodes (ONNX's own definition).
absl::Status ExpandFunction(Context& ctx, const onnx::NodeProto& node) {
  const onnx::OpSchema* schema = Schema(node, ctx.opset());
  onnx::FunctionProto func;
  if (schema->HasFunction()) {
    func = *schema->GetFunction();
  } else {
    std::vector<onnx::TypeProto> types;
    for (int i = 0; i < node.input_size(); ++i) {
      onnx::TypeProto t;
      if (!node.input(i).empty() && ctx.IsBound(node.input(i))) {
        absl::StatusOr<ir::ValueRef> v = ctx.Lookup(node.input(i));
        const ir::TensorType& type = ctx.Type(*v);
        t.mutable_tensor_type()->set_elem_type(OnnxFromDType(type.dtype));
        for (const SymDim& d : type.shape) {
          auto* dim = t.mutable_tensor_type()->mutable_shape()->add_dim();
          if (d.is_static()) dim->set_dim_value(d.value());
        }
      }
      types.push_back(t);
    }
    onnx::FunctionBodyBuildContextImpl build(node, types);
    if (!schema->BuildContextDependentFunction(build, func)) {
      return absl::UnimplementedError("node '" + node.name() + "' (" + node.op_type() +
                                      "): its ONNX function body cannot be built for these inputs");
    }
  }
  onnx::GraphProto body;
  onnx::FunctionExpandHelper(node, func, body, node.name() + "/" + node.op_type() + "/");
  // ONNX 1.12 leaves a reference to an attribute the node does not set as an
  // empty (UNDEFINED) attribute, e.g. SoftmaxCrossEntropyLoss's ignore_index on
  // its NegativeLogLikelihoodLoss: drop those so the attribute reads as absent.
  for (onnx::NodeProto& n : *body.mutable_node()) {
    auto* attrs = n.mutable_attribute();
    for (int i = attrs->size() - 1; i >= 0; --i) {
      const onnx::AttributeProto& a = attrs->Get(i);
      bool empty = a.type() == onnx::AttributeProto::UNDEFINED && !a.has_f() && !a.has_i() &&
                   !a.has_s() && !a.has_t() && !a.has_g() && a.floats_size() == 0 &&
                   a.ints_size() == 0 && a.strings_size() == 0 && a.tensors_size() == 0 &&
                   a.graphs_size() == 0;
      if (empty) attrs->DeleteSubrange(i, 1);
    }
  }
  return ConvertNodes(ctx, body.node());
}

void CollectUnsupported(const onnx::GraphProto& g, int opset, std::set<std::string>* out) {
  for (const onnx::NodeProto& n : g.node()) {
    bool known = (n.domain().empty() || n.domain() == "ai.onnx") &&
                 (FindConverter(n.op_type(), opset) || Expandable(n, opset));
    if (!known) {
      std::string domain = n.domain().empty() ? "" : n.domain() + ".";
      out->insert(domain + n.op_type() + " (node '" + n.name() + "')");
    }
    for (const onnx::AttributeProto& a : n.attribute()) {
      if (a.has_g()) CollectUnsupported(a.g(), opset, out);
      for (const onnx::GraphProto& sub : a.graphs()) CollectUnsupported(sub, opset, out);
    }
  }
}

}  // namespace

std::string UnsupportedOps(const onnx::GraphProto& graph, int opset) {
  std::set<std::string> ops;
  CollectUnsupported(graph, opset, &ops);
  std::string out;
  for (const std::string& o : ops) out += (out.empty() ? "" : ", ") + o;
  return out;
}

absl::Status ConvertNodes(Context& ctx, const google::protobuf::RepeatedPtrField<onnx::NodeProto>& nodes) {
  for (const onnx::NodeProto& node : nodes) {
    const onnx::NodeProto* saved = ctx.node_ptr();  // function bodies nest
    ctx.SetNode(&node);
    const Converter* c = FindConverter(node.op_type(), ctx.opset());
    absl::Status s;
    if (c) {
      s = (*c)(ctx);
    } else if (Expandable(node, ctx.opset())) {
      s = ExpandFunction(ctx, node);
    } else {
      s = ctx.Unsupported("the op");
    }
    if (!s.ok()) return s;
    ctx.SetNode(saved);
  }
  return absl::OkStatus();
}

}  // namespace tfn::onnx_import
