// Converters of ONNX's control flow onto tfn's: If becomes cond, Loop becomes
// while_loop. ONNX bodies may read any value of the enclosing scopes; tfn's
// subgraphs are closed, so every outer value a body reads is passed in as an
// operand (constants are copied into the body instead, so shape arithmetic
// on them still folds). Loop's scan outputs are accumulated in loop variables
// that grow by one row per iteration.
#include <cstdint>
#include <functional>
#include <limits>
#include <set>

#include "importers/onnx/context.h"
#include "importers/onnx/tensor_proto.h"

namespace tfn::onnx_import {
namespace {

using Ref = ir::ValueRef;

// Names a body (and the bodies nested in it) reads from outside itself.
void OuterNames(const onnx::GraphProto& body, std::set<std::string>* out) {
  std::set<std::string> defined;
  for (const auto& v : body.input()) defined.insert(v.name());
  for (const auto& t : body.initializer()) defined.insert(t.name());
  for (const auto& n : body.node()) {
    for (const std::string& o : n.output()) defined.insert(o);
  }
  std::set<std::string> used;
  for (const auto& n : body.node()) {
    for (const std::string& i : n.input()) used.insert(i);
    for (const auto& a : n.attribute()) {
      if (a.has_g()) OuterNames(a.g(), &used);
      for (const auto& g : a.graphs()) OuterNames(g, &used);
    }
  }
  for (const auto& o : body.output()) used.insert(o.name());
  for (const std::string& u : used) {
    if (!u.empty() && !defined.count(u)) out->insert(u);
  }
}

// The outer values a set of bodies reads that are not constants: they become
// operands of the control-flow node, in this order.
absl::StatusOr<std::vector<std::string>> Captures(Context& ctx, const std::vector<const onnx::GraphProto*>& bodies) {
  std::set<std::string> names;
  for (const onnx::GraphProto* b : bodies) OuterNames(*b, &names);
  std::vector<std::string> out;
  for (const std::string& n : names) {
    absl::StatusOr<Ref> v = ctx.Lookup(n);
    if (!v.ok()) return ctx.Error("a body reads '" + n + "', which is not defined before the node");
    if (!ctx.ConstantOf(*v)) out.push_back(n);
  }
  return out;
}

const onnx::GraphProto* GraphAttr(Context& ctx, const std::string& name) {
  const onnx::AttributeProto* a = ctx.Attr(name);
  return a && a->has_g() ? &a->g() : nullptr;
}

// An ONNX body to convert into a closed tfn subgraph whose parameters are
// `params` (the body's inputs are bound to params[bind[i]]) followed by one
// per capture. `finish` gets the body's context, its output values and all
// parameters, and returns the subgraph's results.
struct Body {
  const onnx::GraphProto* proto;
  std::vector<ir::TensorType> params;
  std::vector<int> bind;
};

using Finish = std::function<absl::StatusOr<std::vector<Ref>>(Context& body_ctx, std::vector<Ref> outputs,
                                                              const std::vector<Ref>& params)>;

absl::StatusOr<ir::Graph> Convert(Context& ctx, const Body& body, const std::vector<std::string>& captures,
                                  const Finish& finish) {
  ir::Graph g = ctx.graph().NewSubgraph();
  Context sub(&g, ctx.opset(), ctx.base_dir());
  std::vector<Ref> params;
  for (const ir::TensorType& t : body.params) params.push_back(g.AddParameter(t));
  for (size_t i = 0; i < body.bind.size() && static_cast<int>(i) < body.proto->input_size(); ++i) {
    sub.Bind(body.proto->input(static_cast<int>(i)).name(), params[body.bind[i]]);
  }
  for (const std::string& name : captures) {
    TFN_ASSIGN_OR_RETURN(Ref outer, ctx.Lookup(name));
    params.push_back(g.AddParameter(ctx.Type(outer)));
    if (!sub.IsBound(name)) sub.Bind(name, params.back());
  }
  // Outer constants the body reads are copied in (unless a body input shadows them).
  std::set<std::string> outer_names;
  OuterNames(*body.proto, &outer_names);
  for (const std::string& name : outer_names) {
    if (sub.IsBound(name)) continue;
    TFN_ASSIGN_OR_RETURN(Ref outer, ctx.Lookup(name));
    if (const ConstTensor* c = ctx.ConstantOf(outer)) sub.Bind(name, g.AddConstant(*c));
  }
  for (const onnx::TensorProto& t : body.proto->initializer()) {
    TFN_ASSIGN_OR_RETURN(ConstTensor c, TensorFromProto(t, ctx.base_dir()));
    sub.Bind(t.name(), g.AddConstant(c));
  }
  TFN_ONNX_RETURN_IF_ERROR(ConvertNodes(sub, body.proto->node()));
  std::vector<Ref> outputs;
  for (const auto& o : body.proto->output()) {
    TFN_ASSIGN_OR_RETURN(Ref v, sub.Lookup(o.name()));
    outputs.push_back(v);
  }
  TFN_ASSIGN_OR_RETURN(std::vector<Ref> results, finish(sub, std::move(outputs), params));
  g.SetResults(results);
  return g;
}

// A bool scalar from ONNX's cond (a bool tensor of one element).
absl::StatusOr<Ref> Predicate(Context& ctx, Ref v) {
  const ir::TensorType& t = ctx.Type(v);
  if (t.dtype != DType::kBool) return ctx.Error("the condition must be bool, got " + t.ToString());
  if (t.shape.rank() == 0) return v;
  return ctx.Add(OpId::kReshape, {v}, Attrs{{"shape", AttrValue::Ints({})}});
}

absl::Status ConvertIf(Context& ctx) {
  const onnx::GraphProto* then_proto = GraphAttr(ctx, "then_branch");
  const onnx::GraphProto* else_proto = GraphAttr(ctx, "else_branch");
  if (!then_proto || !else_proto) return ctx.Error("then_branch and else_branch are required");
  TFN_ASSIGN_OR_RETURN(Ref cond, ctx.Input(0));
  TFN_ASSIGN_OR_RETURN(Ref pred, Predicate(ctx, cond));
  TFN_ASSIGN_OR_RETURN(std::vector<std::string> captures, Captures(ctx, {then_proto, else_proto}));
  Finish plain = [](Context&, std::vector<Ref> outputs, const std::vector<Ref>&) -> absl::StatusOr<std::vector<Ref>> {
    return outputs;
  };
  TFN_ASSIGN_OR_RETURN(ir::Graph then_g, Convert(ctx, Body{then_proto, {}, {}}, captures, plain));
  TFN_ASSIGN_OR_RETURN(ir::Graph else_g, Convert(ctx, Body{else_proto, {}, {}}, captures, plain));
  std::vector<Ref> inputs{pred};
  for (const std::string& n : captures) inputs.push_back(*ctx.Lookup(n));
  absl::StatusOr<std::vector<Ref>> outs =
      ctx.graph().AddNode(OpId::kCond, inputs, {}, {std::move(then_g), std::move(else_g)});
  if (!outs.ok()) return ctx.Unsupported("the branches cannot become a tfn cond: " + std::string(outs.status().message()));
  for (size_t i = 0; i < outs->size(); ++i) TFN_ONNX_RETURN_IF_ERROR(ctx.Output(static_cast<int>(i), (*outs)[i]));
  return absl::OkStatus();
}
TFN_ONNX_CONVERTER("If", 1, ConvertIf);

// Loop(M, cond, v...) with body (iteration, cond, v...) -> (cond, v..., scans...).
// tfn loop variables: iteration, cond, M, v..., one accumulator per scan
// output ([iterations so far, scan dims...]), captures. The while condition
// is iteration < M && cond.
absl::Status ConvertLoop(Context& ctx) {
  const onnx::GraphProto* proto = GraphAttr(ctx, "body");
  if (!proto) return ctx.Error("the body attribute is required");
  int num_carried = ctx.num_inputs() - 2;
  int num_scans = proto->output_size() - 1 - num_carried;
  if (num_carried < 0 || num_scans < 0 || proto->input_size() != num_carried + 2) {
    return ctx.Error("the body's inputs and outputs do not match the loop's carried values");
  }
  Ref max_trips = ctx.Int64Scalar(std::numeric_limits<int64_t>::max());
  if (ctx.HasInput(0)) {
    TFN_ASSIGN_OR_RETURN(Ref m, ctx.Input(0));
    TFN_ASSIGN_OR_RETURN(max_trips, ctx.Add(OpId::kReshape, {m}, Attrs{{"shape", AttrValue::Ints({})}}));
  }
  Ref keep_going = ctx.Scalar(DType::kBool, 1);
  if (ctx.HasInput(1)) {
    TFN_ASSIGN_OR_RETURN(Ref c, ctx.Input(1));
    TFN_ASSIGN_OR_RETURN(keep_going, Predicate(ctx, c));
  }
  std::vector<Ref> vars{ctx.Scalar(DType::kInt64, 0), keep_going, max_trips};
  for (int i = 0; i < num_carried; ++i) {
    TFN_ASSIGN_OR_RETURN(Ref v, ctx.Input(2 + i));
    vars.push_back(v);
  }
  TFN_ASSIGN_OR_RETURN(std::vector<std::string> captures, Captures(ctx, {proto}));
  std::vector<ir::TensorType> types;
  for (Ref v : vars) types.push_back(ctx.Type(v));

  // ONNX's body inputs (iteration, cond, carried...) are loop variables 0, 1, 3...
  std::vector<int> bind{0, 1};
  for (int i = 0; i < num_carried; ++i) bind.push_back(3 + i);

  // A first conversion gives the scan outputs' types: their accumulators
  // start empty ([0, dims...]), so the dims must be static.
  std::vector<ir::TensorType> scan_types;
  Finish probe = [&](Context& sub, std::vector<Ref> outputs, const std::vector<Ref>&) -> absl::StatusOr<std::vector<Ref>> {
    for (int k = 0; k < num_scans; ++k) scan_types.push_back(sub.Type(outputs[1 + num_carried + k]));
    return std::vector<Ref>{outputs[0]};
  };
  TFN_ONNX_RETURN_IF_ERROR(Convert(ctx, Body{proto, types, bind}, captures, probe).status());
  // Each iteration's row is reshaped to the static dims (those inferred, or
  // else those the body declares for the output).
  std::vector<std::vector<int64_t>> row_dims;
  for (int k = 0; k < num_scans; ++k) {
    const ir::TensorType& t = scan_types[k];
    const onnx::TypeProto::Tensor& declared = proto->output(1 + num_carried + k).type().tensor_type();
    Shape dims{0};
    row_dims.push_back({1});
    for (int d = 0; d < t.shape.rank(); ++d) {
      int64_t size = t.shape[d].is_static() ? t.shape[d].value() : -1;
      if (size < 0 && declared.shape().dim_size() == t.shape.rank() && declared.shape().dim(d).has_dim_value()) {
        size = declared.shape().dim(d).dim_value();
      }
      if (size < 0) return ctx.Unsupported("a scan output of unknown shape " + t.ToString());
      dims.push_back(size);
      row_dims.back().push_back(size);
    }
    void* data = nullptr;
    vars.push_back(ctx.Constant(ConstTensor::Allocate(t.dtype, dims, &data)));
    types.push_back(ctx.Type(vars.back()));
    types.back().shape[0] = ctx.graph().FreshDim();  // grows by one row per iteration
  }

  // Results in loop-variable order: iteration + 1, cond, M, carried...,
  // accumulators with the new row, captures unchanged.
  Finish finish = [&](Context& sub, std::vector<Ref> outputs,
                      const std::vector<Ref>& params) -> absl::StatusOr<std::vector<Ref>> {
    TFN_ASSIGN_OR_RETURN(Ref next, sub.Add(OpId::kAdd, {params[0], sub.Scalar(DType::kInt64, 1)}));
    TFN_ASSIGN_OR_RETURN(Ref c, Predicate(sub, outputs[0]));
    std::vector<Ref> results{next, c, params[2]};
    for (int i = 0; i < num_carried; ++i) results.push_back(outputs[1 + i]);
    for (int k = 0; k < num_scans; ++k) {
      TFN_ASSIGN_OR_RETURN(Ref row, sub.Add(OpId::kReshape, {outputs[1 + num_carried + k]},
                                             Attrs{{"shape", AttrValue::Ints(row_dims[k])}}));
      TFN_ASSIGN_OR_RETURN(Ref grown, sub.Add(OpId::kConcat, {params[3 + num_carried + k], row},
                                               Attrs{{"axis", AttrValue::Int(0)}}));
      results.push_back(grown);
    }
    for (size_t i = types.size(); i < params.size(); ++i) results.push_back(params[i]);
    return results;
  };
  // Carried values whose dims change between iterations get fresh dims; the
  // body is converted again until the types settle (TensorFlow's shape
  // invariants, inferred).
  ir::Graph body_g;
  for (int attempt = 0;; ++attempt) {
    TFN_ASSIGN_OR_RETURN(body_g, Convert(ctx, Body{proto, types, bind}, captures, finish));
    bool changed = false;
    for (size_t i = 0; i < types.size(); ++i) {
      const ir::TensorType& got = body_g.type(body_g.results()[i]);
      if (got.dtype != types[i].dtype || got.shape.rank() != types[i].shape.rank()) {
        return ctx.Unsupported("loop value " + std::to_string(i) + " enters as " + types[i].ToString() +
                               " and leaves the body as " + got.ToString());
      }
      for (int d = 0; d < got.shape.rank(); ++d) {
        if (got.shape[d] != types[i].shape[d] && types[i].shape[d].is_static()) {
          types[i].shape[d] = ctx.graph().FreshDim();
          changed = true;
        }
      }
    }
    if (!changed) break;
    if (attempt > 2 * kMaxRank) return ctx.Unsupported("the loop's value shapes do not settle");
  }
  // The condition: iteration < M && cond.
  ir::Graph cond_g = ctx.graph().NewSubgraph();
  {
    std::vector<Ref> p;
    for (const ir::TensorType& t : types) p.push_back(cond_g.AddParameter(t));
    for (const std::string& name : captures) cond_g.AddParameter(ctx.Type(*ctx.Lookup(name)));
    absl::StatusOr<Ref> below = cond_g.Add(OpId::kLess, {p[0], p[2]});
    if (!below.ok()) return below.status();
    absl::StatusOr<Ref> both = cond_g.Add(OpId::kLogicalAnd, {*below, p[1]});
    if (!both.ok()) return both.status();
    cond_g.SetResults({*both});
  }
  std::vector<Ref> inputs = vars;
  for (const std::string& n : captures) inputs.push_back(*ctx.Lookup(n));
  absl::StatusOr<std::vector<Ref>> outs =
      ctx.graph().AddNode(OpId::kWhileLoop, inputs, {}, {std::move(cond_g), std::move(body_g)});
  if (!outs.ok()) return ctx.Unsupported("the loop cannot become a tfn while_loop: " + std::string(outs.status().message()));
  // ONNX's outputs: the final carried values, then the scan outputs.
  for (int i = 0; i < num_carried + num_scans; ++i) TFN_ONNX_RETURN_IF_ERROR(ctx.Output(i, (*outs)[3 + i]));
  return absl::OkStatus();
}
TFN_ONNX_CONVERTER("Loop", 1, ConvertLoop);

}  // namespace
}  // namespace tfn::onnx_import
