// Graph construction: checked node creation and type inference.
#include "ir/graph.h"
#include "ir/fresh_dim.h"

#include <utility>

#include "core/op_def_symbolic.h"

namespace tfn::ir {

std::string TensorType::ToString() const {
  return std::string(DTypeName(dtype)) + SymShapeToString(shape);
}

Graph::Graph() : symbol_counter_(std::make_shared<int>(0)) {}
Graph::Graph(const Graph&) = default;
Graph& Graph::operator=(const Graph&) = default;
Graph::Graph(Graph&&) noexcept = default;
Graph& Graph::operator=(Graph&&) noexcept = default;
Graph::~Graph() = default;

absl::Status ToAbsl(const Status& s) {
  switch (s.code()) {
    case StatusCode::kOk: return absl::OkStatus();
    case StatusCode::kInvalidArgument: return absl::InvalidArgumentError(s.message());
    case StatusCode::kOutOfRange: return absl::OutOfRangeError(s.message());
    case StatusCode::kNotFound: return absl::NotFoundError(s.message());
    case StatusCode::kFailedPrecondition: return absl::FailedPreconditionError(s.message());
    case StatusCode::kDataLoss: return absl::DataLossError(s.message());
    case StatusCode::kUnimplemented: return absl::UnimplementedError(s.message());
    case StatusCode::kIncompatibleVersion: return absl::FailedPreconditionError(s.message());
    case StatusCode::kResourceExhausted: return absl::ResourceExhaustedError(s.message());
    case StatusCode::kIoError: return absl::UnavailableError(s.message());
    case StatusCode::kInternal: return absl::InternalError(s.message());
  }
  return absl::UnknownError(s.message());
}

SymDim Graph::FreshDim() { return SymDim::Symbol(FreshDimName((*symbol_counter_)++)); }

Graph Graph::NewSubgraph() const {
  Graph g;
  g.symbol_counter_ = symbol_counter_;
  return g;
}

ValueRef Graph::AddParameter(const TensorType& type, std::string name) {
  Node n;
  n.op = OpId::kParameter;
  n.attrs.Set("index", AttrValue::Int(static_cast<int64_t>(params_.size())));
  n.outputs.push_back(type);
  nodes_.push_back(std::move(n));
  params_.push_back(num_nodes() - 1);
  param_names_.push_back(std::move(name));
  return ValueRef{num_nodes() - 1, 0};
}

ValueRef Graph::AddConstant(ConstTensor value) {
  Node n;
  n.op = OpId::kConstant;
  TensorType t{value.dtype, SymShape(value.shape.begin(), value.shape.end())};
  n.attrs.Set("value", AttrValue::Tensor(std::move(value)));
  n.outputs.push_back(t);
  nodes_.push_back(std::move(n));
  return ValueRef{num_nodes() - 1, 0};
}

const ConstTensor* Graph::ConstantValue(ValueRef v) const {
  if (!v.valid() || v.node >= num_nodes()) return nullptr;
  const Node& n = nodes_[v.node];
  return n.op == OpId::kConstant ? n.attrs.GetTensor("value") : nullptr;
}

absl::StatusOr<std::vector<TensorType>> InferNodeTypes(const Graph& graph, OpId op,
                                                       const std::vector<ValueRef>& inputs,
                                                       const Attrs& attrs) {
  const OpDef& def = GetOpDef(op);
  int n_in = static_cast<int>(inputs.size());
  std::vector<DType> in_types(n_in);
  std::vector<SymShape> in_shapes(n_in);
  std::vector<const ConstTensor*> in_values(n_in);
  for (int i = 0; i < n_in; ++i) {
    const TensorType& t = graph.type(inputs[i]);
    in_types[i] = t.dtype;
    in_shapes[i] = t.shape;
    in_values[i] = graph.ConstantValue(inputs[i]);
  }
  int n_out = def.NumOutputs(attrs, n_in);
  if (n_out < 0) return absl::InternalError(std::string(def.name) + ": unknown output count");
  std::vector<DType> out_types(n_out);
  std::vector<SymShape> out_shapes(n_out);
  Graph* counter_owner = const_cast<Graph*>(&graph);  // FreshDim only bumps the shared counter
  Status s = InferOpSymbolic(def, attrs, n_in, in_types.data(), in_shapes.data(), in_values.data(),
                             n_out, out_types.data(), out_shapes.data(),
                             [counter_owner] { return counter_owner->FreshDim(); });
  if (!s.ok()) return ToAbsl(s);
  std::vector<TensorType> out(n_out);
  for (int i = 0; i < n_out; ++i) out[i] = TensorType{out_types[i], out_shapes[i]};
  return out;
}

bool Fits(const TensorType& param, const TensorType& given, bool generalize) {
  if (param == given) return true;
  if (!generalize || param.dtype != given.dtype || param.shape.rank() != given.shape.rank()) return false;
  for (int d = 0; d < param.shape.rank(); ++d) {
    if (param.shape[d] != given.shape[d] && param.shape[d].is_static()) return false;
  }
  return true;
}

namespace {

absl::Status CheckParams(const char* op, const char* which, const Graph& sub,
                         const std::vector<TensorType>& expected, bool generalize = false) {
  if (sub.params().size() != expected.size()) {
    return absl::InvalidArgumentError(std::string(op) + ": the " + which + " subgraph takes " +
                                      std::to_string(sub.params().size()) + " parameters, expected " +
                                      std::to_string(expected.size()));
  }
  for (size_t i = 0; i < expected.size(); ++i) {
    const TensorType& t = sub.type(sub.param(static_cast<int>(i)));
    if (!Fits(t, expected[i], generalize)) {
      return absl::InvalidArgumentError(std::string(op) + ": parameter " + std::to_string(i) +
                                        " of the " + which + " subgraph is " + t.ToString() +
                                        ", expected " + expected[i].ToString());
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<TensorType>> InferControlFlowTypes(
    const Graph& graph, OpId op, const std::vector<ValueRef>& inputs,
    const std::vector<Graph>& subgraphs) {
  std::vector<TensorType> in_types;
  for (ValueRef v : inputs) in_types.push_back(graph.type(v));
  if (op == OpId::kCond) {
    if (subgraphs.size() != 2) return absl::InvalidArgumentError("cond: needs then and else subgraphs");
    if (in_types.empty() || in_types[0].dtype != DType::kBool || in_types[0].shape.rank() != 0) {
      return absl::InvalidArgumentError(
          "cond: the predicate must be a bool scalar, got " +
          (in_types.empty() ? std::string("nothing") : in_types[0].ToString()));
    }
    std::vector<TensorType> operands(in_types.begin() + 1, in_types.end());
    const Graph& then_g = subgraphs[0];
    const Graph& else_g = subgraphs[1];
    absl::Status s = CheckParams("cond", "then", then_g, operands);
    if (s.ok()) s = CheckParams("cond", "else", else_g, operands);
    if (!s.ok()) return s;
    if (then_g.results().size() != else_g.results().size()) {
      return absl::InvalidArgumentError(
          "cond: the branches return different numbers of values: then returns " +
          std::to_string(then_g.results().size()) + ", else returns " +
          std::to_string(else_g.results().size()));
    }
    std::vector<TensorType> out;
    for (size_t i = 0; i < then_g.results().size(); ++i) {
      const TensorType& a = then_g.type(then_g.results()[i]);
      const TensorType& b = else_g.type(else_g.results()[i]);
      if (a.dtype != b.dtype || a.shape.rank() != b.shape.rank()) {
        return absl::InvalidArgumentError("cond: result " + std::to_string(i) +
                                          " differs between branches: then returns " +
                                          a.ToString() + ", else returns " + b.ToString() +
                                          "; both branches must return the same dtype and rank");
      }
      TensorType t = a;
      for (int d = 0; d < t.shape.rank(); ++d) {
        if (a.shape[d] != b.shape[d]) t.shape[d] = const_cast<Graph&>(graph).FreshDim();
      }
      out.push_back(t);
    }
    return out;
  }
  if (op == OpId::kWhileLoop) {
    if (subgraphs.size() != 2) return absl::InvalidArgumentError("while_loop: needs cond and body subgraphs");
    const Graph& cond_g = subgraphs[0];
    const Graph& body_g = subgraphs[1];
    absl::Status s = CheckParams("while_loop", "cond", cond_g, in_types, true);
    if (s.ok()) s = CheckParams("while_loop", "body", body_g, in_types, true);
    if (!s.ok()) return s;
    // The loop variables have the body's (possibly more general) types.
    std::vector<TensorType> var_types;
    for (size_t i = 0; i < in_types.size(); ++i) var_types.push_back(body_g.type(body_g.param(static_cast<int>(i))));
    if (cond_g.params().size() == var_types.size()) {
      for (size_t i = 0; i < var_types.size(); ++i) {
        if (cond_g.type(cond_g.param(static_cast<int>(i))) != var_types[i]) {
          return absl::InvalidArgumentError("while_loop: the cond and body subgraphs take different types");
        }
      }
    }
    in_types = var_types;
    if (cond_g.results().size() != 1 || cond_g.type(cond_g.results()[0]).dtype != DType::kBool ||
        cond_g.type(cond_g.results()[0]).shape.rank() != 0) {
      return absl::InvalidArgumentError("while_loop: the condition must return one bool scalar");
    }
    if (body_g.results().size() != in_types.size()) {
      return absl::InvalidArgumentError("while_loop: the body returns " +
                                        std::to_string(body_g.results().size()) +
                                        " values for " + std::to_string(in_types.size()) +
                                        " loop variables");
    }
    for (size_t i = 0; i < in_types.size(); ++i) {
      const TensorType& t = body_g.type(body_g.results()[i]);
      if (!Fits(in_types[i], t, true)) {
        return absl::InvalidArgumentError(
            "while_loop: loop variable " + std::to_string(i) + " enters as " +
            in_types[i].ToString() + " but the body returns " + t.ToString() +
            "; a loop variable must keep its dtype and shape (mark changing dims as dynamic)");
      }
    }
    return in_types;
  }
  return absl::InternalError(std::string(OpName(op)) + " is not a control-flow op");
}

absl::StatusOr<std::vector<ValueRef>> Graph::AddNode(OpId op, std::vector<ValueRef> inputs,
                                                     Attrs attrs, std::vector<Graph> subgraphs) {
  const OpDef& def = GetOpDef(op);
  if (op == OpId::kParameter) return absl::InvalidArgumentError("use AddParameter for parameters");
  for (size_t i = 0; i < inputs.size(); ++i) {
    ValueRef v = inputs[i];
    if (v.node < 0 || v.node >= num_nodes() || v.port < 0 ||
        v.port >= static_cast<int>(nodes_[v.node].outputs.size())) {
      return absl::InvalidArgumentError(std::string(def.name) + ": input " + std::to_string(i) +
                                        " does not refer to a value of this graph");
    }
  }
  Status ns = NormalizeAttrs(def, &attrs);
  if (!ns.ok()) return ToAbsl(ns);
  if (!def.has(kControlFlow) && !subgraphs.empty()) {
    return absl::InvalidArgumentError(std::string(def.name) + " takes no subgraphs");
  }
  absl::StatusOr<std::vector<TensorType>> types =
      def.has(kControlFlow) ? InferControlFlowTypes(*this, op, inputs, subgraphs)
                            : InferNodeTypes(*this, op, inputs, attrs);
  if (!types.ok()) return types.status();
  Node n;
  n.op = op;
  n.inputs = std::move(inputs);
  n.attrs = std::move(attrs);
  n.outputs = std::move(types).value();
  n.subgraphs = std::move(subgraphs);
  nodes_.push_back(std::move(n));
  std::vector<ValueRef> out;
  for (int i = 0; i < static_cast<int>(nodes_.back().outputs.size()); ++i) {
    out.push_back(ValueRef{num_nodes() - 1, i});
  }
  return out;
}

absl::StatusOr<ValueRef> Graph::Add(OpId op, std::vector<ValueRef> inputs, Attrs attrs) {
  absl::StatusOr<std::vector<ValueRef>> r = AddNode(op, std::move(inputs), std::move(attrs));
  if (!r.ok()) return r.status();
  if (r->size() != 1) {
    return absl::InternalError(std::string(OpName(op)) + " does not have exactly one output");
  }
  return (*r)[0];
}

void Graph::SetResults(std::vector<ValueRef> results, std::vector<std::string> names) {
  names.resize(results.size());
  results_ = std::move(results);
  result_names_ = std::move(names);
}

}  // namespace tfn::ir
