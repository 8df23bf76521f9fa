// Tracing cond and while_loop into subgraphs with captures, and print.
#include "tracer/control_flow.h"

#include <algorithm>

#include "core/format.h"
#include "ir/inline.h"
#include "tracer/logging.h"
#include "tracer/tape_hooks.h"
#include "tracer/trace_context.h"

namespace tfn::detail {

bool IsTracing() { return TraceContext::Current() != nullptr; }

bool EagerPredicate(const Tensor& pred, const char* op) {
  if (!pred.defined() || pred.dtype() != DType::kBool || pred.num_elements() != 1) {
    throw Error(
        StatusCode::kInvalidArgument,
        std::string(op) + ": the predicate must be a bool scalar, got " +
            (pred.defined() ? std::string(DTypeName(pred.dtype())) + ShapeToString(pred.shape())
                            : std::string("an undefined tensor")));
  }
  return static_cast<const bool*>(pred.data())[0];
}

namespace {

[[noreturn]] void Throw(const absl::Status& s, const char* op) {
  throw Error(StatusCode::kInvalidArgument, std::string(op) + ": " + std::string(s.message()));
}

struct TracedBody {
  ir::Graph graph;
  std::vector<Tensor> captures;  // outer tensors behind the parameters after the first n
};

// Traces `fn` into a subgraph of the current trace whose first parameters
// have `param_types`; captured outer tensors become further parameters.
template <class Fn>
TracedBody TraceBody(const std::vector<ir::TensorType>& param_types, Fn fn) {
  TraceContext* outer = TraceContext::Current();
  TracedBody body{outer->graph().NewSubgraph(), {}};
  TraceContext ctx(&body.graph);
  std::vector<Tensor> params;
  for (const ir::TensorType& t : param_types)
    params.push_back(ctx.Wrap(body.graph.AddParameter(t)));
  std::vector<Tensor> outs = fn(params);
  std::vector<ir::ValueRef> results;
  for (const Tensor& t : outs) results.push_back(ctx.Capture(t));
  body.graph.SetResults(results);
  body.captures = ctx.captures();
  return body;
}

int IndexOf(const std::vector<Tensor>& list, const Tensor& t) {
  for (size_t i = 0; i < list.size(); ++i) {
    if (list[i].impl() == t.impl()) return static_cast<int>(i);
  }
  return -1;
}

// Rebuilds a traced body so that its parameters are `n` own parameters
// followed by one per tensor of `all_captures`; with `pass_captures`, the
// capture parameters are also appended to its results (loop invariants).
ir::Graph Reparameterize(const TracedBody& body, size_t n, const std::vector<Tensor>& all_captures,
                         const ir::Graph& counter_source, bool pass_captures, const char* op) {
  ir::Graph g = counter_source.NewSubgraph();
  std::vector<ir::ValueRef> own, caps;
  for (size_t i = 0; i < n; ++i)
    own.push_back(g.AddParameter(body.graph.type(body.graph.param(static_cast<int>(i)))));
  for (const Tensor& t : all_captures) {
    caps.push_back(g.AddParameter(ir::TensorType{t.impl()->dtype, t.impl()->sym_shape}));
  }
  std::vector<ir::ValueRef> args = own;
  for (const Tensor& t : body.captures) args.push_back(caps[IndexOf(all_captures, t)]);
  absl::StatusOr<std::vector<ir::ValueRef>> results = ir::InlineGraph(g, body.graph, args);
  if (!results.ok()) Throw(results.status(), op);
  std::vector<ir::ValueRef> out = *results;
  if (pass_captures) out.insert(out.end(), caps.begin(), caps.end());
  g.SetResults(out);
  return g;
}

std::vector<Tensor> Union(const std::vector<Tensor>& a, const std::vector<Tensor>& b) {
  std::vector<Tensor> u = a;
  for (const Tensor& t : b) {
    if (IndexOf(u, t) < 0) u.push_back(t);
  }
  return u;
}

}  // namespace

std::vector<Tensor> CondImpl(const Tensor& pred, const BranchFn& true_fn, const BranchFn& false_fn,
                             OutputStructure* structure) {
  TraceContext* outer = TraceContext::Current();
  if (!pred.defined() || pred.dtype() != DType::kBool || pred.shape().rank() != 0) {
    throw Error(
        StatusCode::kInvalidArgument,
        "cond: the predicate must be a bool scalar, got " +
            (pred.defined() ? std::string(DTypeName(pred.dtype())) + ShapeToString(pred.shape())
                            : std::string("an undefined tensor")));
  }
  OutputStructure then_structure, else_structure;
  TracedBody then_body =
      TraceBody({}, [&](const std::vector<Tensor>&) { return true_fn(&then_structure); });
  TracedBody else_body =
      TraceBody({}, [&](const std::vector<Tensor>&) { return false_fn(&else_structure); });
  if (then_body.graph.results().size() != else_body.graph.results().size() ||
      then_structure.keys != else_structure.keys) {
    throw Error(StatusCode::kInvalidArgument,
                "cond: the branches return different structures: the true branch returns " +
                    std::to_string(then_body.graph.results().size()) +
                    " tensors, the false branch " +
                    std::to_string(else_body.graph.results().size()));
  }
  std::vector<Tensor> operands = Union(then_body.captures, else_body.captures);
  ir::Graph then_g = Reparameterize(then_body, 0, operands, outer->graph(), false, "cond");
  ir::Graph else_g = Reparameterize(else_body, 0, operands, outer->graph(), false, "cond");
  std::vector<ir::ValueRef> inputs{outer->Capture(pred)};
  for (const Tensor& t : operands) inputs.push_back(outer->Capture(t));
  // Gradient tapes differentiate the cond through its branches
  // (gradients/grad_control_flow.cc): they keep a copy of them.
  std::shared_ptr<const std::vector<ir::Graph>> branches;
  if (TapesRecording()) {
    branches =
        std::make_shared<const std::vector<ir::Graph>>(std::vector<ir::Graph>{then_g, else_g});
  }
  absl::StatusOr<std::vector<ir::ValueRef>> outs =
      outer->graph().AddNode(OpId::kCond, inputs, {}, {std::move(then_g), std::move(else_g)});
  if (!outs.ok()) Throw(outs.status(), "cond");
  *structure = then_structure;
  std::vector<Tensor> result;
  for (ir::ValueRef v : *outs) result.push_back(outer->Wrap(v));
  if (branches) {
    std::vector<Tensor> taped{pred};
    taped.insert(taped.end(), operands.begin(), operands.end());
    RecordOnTapes(OpId::kCond, {}, taped, result, branches);
  }
  return result;
}

}  // namespace tfn::detail

namespace tfn::detail {
namespace {

// The body's results, when there is one per loop variable.
std::vector<Tensor> CheckedBodyResults(std::vector<Tensor> next, size_t n) {
  if (next.size() != n) {
    throw Error(StatusCode::kInvalidArgument, "while_loop: the body returned " +
                                                  std::to_string(next.size()) + " tensors for " +
                                                  std::to_string(n) + " loop variables");
  }
  return next;
}

using LoopCond = std::function<Tensor(const std::vector<Tensor>&)>;
using LoopBody = std::function<std::vector<Tensor>(const std::vector<Tensor>&)>;

// A traced loop before it becomes a node: its condition and body as closed
// graphs of (loop variables, captures) and the captures.
struct TracedLoop {
  ir::Graph cond, body;
  std::vector<Tensor> captures;
  std::vector<bool> reshaped;  // per loop variable: its shape changes between iterations
};

TracedLoop TraceLoop(const LoopCond& cond_fn, const LoopBody& body_fn,
                     const std::vector<Tensor>& loop_vars) {
  TraceContext* outer = TraceContext::Current();
  size_t n = loop_vars.size();
  std::vector<ir::TensorType> types;
  for (const Tensor& t : loop_vars) {
    if (!t.defined())
      throw Error(StatusCode::kInvalidArgument, "while_loop: a loop variable is undefined");
    Shape static_shape = t.shape();
    types.push_back(ir::TensorType{
        t.dtype(), t.is_symbolic() ? t.impl()->sym_shape
                                   : SymShape(static_shape.begin(), static_shape.end())});
  }
  std::vector<std::vector<bool>> relaxed(n, std::vector<bool>(kMaxRank, false));
  TracedBody cond_body, body;
  // Trace until the body keeps every loop variable's type; dims that change
  // between iterations are relaxed to new unknown dims (like TensorFlow's
  // shape invariants, inferred).
  for (int attempt = 0;; ++attempt) {
    cond_body = TraceBody(types, [&](const std::vector<Tensor>& v) {
      Tensor c = cond_fn(v);
      if (!c.defined() || c.dtype() != DType::kBool || c.shape().rank() != 0) {
        throw Error(StatusCode::kInvalidArgument,
                    "while_loop: the condition must return a bool scalar, got " +
                        (c.defined() ? std::string(DTypeName(c.dtype())) + ShapeToString(c.shape())
                                     : std::string("an undefined tensor")));
      }
      return std::vector<Tensor>{c};
    });
    body = TraceBody(
        types, [&](const std::vector<Tensor>& v) { return CheckedBodyResults(body_fn(v), n); });
    bool changed = false;
    for (size_t i = 0; i < n; ++i) {
      const ir::TensorType& got = body.graph.type(body.graph.results()[i]);
      if (got.dtype != types[i].dtype || got.shape.rank() != types[i].shape.rank()) {
        throw Error(StatusCode::kInvalidArgument,
                    "while_loop: loop variable " + std::to_string(i) + " enters as " +
                        types[i].ToString() + " but the body returns " + got.ToString() +
                        "; a loop variable must keep its dtype and rank");
      }
      for (int d = 0; d < got.shape.rank(); ++d) {
        if (got.shape[d] != types[i].shape[d] && !relaxed[i][d]) {
          types[i].shape[d] = outer->graph().FreshDim();
          relaxed[i][d] = true;
          changed = true;
        }
      }
    }
    if (!changed) break;
    if (attempt > kMaxRank * 2) {
      throw Error(StatusCode::kInternal, "while_loop: loop variable shapes do not settle");
    }
  }
  TracedLoop loop;
  loop.captures = Union(cond_body.captures, body.captures);
  loop.cond = Reparameterize(cond_body, n, loop.captures, outer->graph(), false, "while_loop");
  loop.body = Reparameterize(body, n, loop.captures, outer->graph(), true, "while_loop");
  for (size_t i = 0; i < n; ++i)
    loop.reshaped.push_back(std::find(relaxed[i].begin(), relaxed[i].end(), true) !=
                            relaxed[i].end());
  return loop;
}

std::vector<Tensor> Operands(const std::vector<Tensor>& loop_vars, const TracedLoop& loop) {
  std::vector<Tensor> operands = loop_vars;
  operands.insert(operands.end(), loop.captures.begin(), loop.captures.end());
  return operands;
}

std::vector<Tensor> AddLoopNode(TracedLoop loop, const std::vector<Tensor>& loop_vars) {
  TraceContext* outer = TraceContext::Current();
  std::vector<ir::ValueRef> inputs;
  for (const Tensor& t : Operands(loop_vars, loop)) inputs.push_back(outer->Capture(t));
  absl::StatusOr<std::vector<ir::ValueRef>> outs = outer->graph().AddNode(
      OpId::kWhileLoop, inputs, {}, {std::move(loop.cond), std::move(loop.body)});
  if (!outs.ok()) Throw(outs.status(), "while_loop");
  std::vector<Tensor> result;
  for (size_t i = 0; i < loop_vars.size(); ++i) result.push_back(outer->Wrap((*outs)[i]));
  return result;
}

std::vector<Tensor> Head(const std::vector<Tensor>& v, size_t n) {
  return std::vector<Tensor>(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(n));
}

// A bounded loop: the iteration count is one more loop variable, and the
// condition also asks for count < maximum_iterations. With `saving`, the
// loop also writes each iteration's entering loop variables into row
// `count` of a [maximum_iterations, ...] buffer per variable; it returns
// the loop variables, then the count and those buffers.
std::vector<Tensor> CountedLoop(const LoopCond& cond_fn, const LoopBody& body_fn,
                                const std::vector<Tensor>& loop_vars, int64_t maximum_iterations,
                                bool saving) {
  const size_t n = loop_vars.size();
  const Tensor bound = constant<int64_t>(maximum_iterations);
  std::vector<Tensor> vars = loop_vars;
  vars.push_back(constant<int64_t>(0));
  if (saving) {
    for (const Tensor& v : loop_vars) {
      // Zeros of [maximum_iterations, v's shape] (pad: a memset-speed kernel).
      std::vector<std::pair<int64_t, int64_t>> rows(static_cast<size_t>(v.rank()) + 1, {0, 0});
      rows[0].second = maximum_iterations - 1;
      vars.push_back(maximum_iterations > 0 ? pad(expand_dims(zeros_like(v), 0), rows)
                                            : expand_dims(zeros_like(v), 0));
    }
  }
  TracedLoop loop = TraceLoop(
      [&](const std::vector<Tensor>& v) {
        return logical_and(less(v[n], bound), cond_fn(Head(v, n)));
      },
      [&](const std::vector<Tensor>& v) {
        std::vector<Tensor> next = CheckedBodyResults(body_fn(Head(v, n)), n);
        next.push_back(v[n] + constant<int64_t>(1));
        if (saving) {
          const Tensor row = reshape(v[n], {1, 1});
          for (size_t j = 0; j < n; ++j)
            next.push_back(scatter_nd(v[n + 1 + j], row, expand_dims(v[j], 0)));
        }
        return next;
      },
      vars);
  std::vector<Tensor> out = AddLoopNode(std::move(loop), vars);
  if (!saving) out.resize(n);
  return out;
}

}  // namespace
}  // namespace tfn::detail

namespace tfn {

std::vector<Tensor> while_loop(
    const std::function<Tensor(const std::vector<Tensor>&)>& cond_fn,
    const std::function<std::vector<Tensor>(const std::vector<Tensor>&)>& body_fn,
    const std::vector<Tensor>& loop_vars, const WhileOptions& options) {
  const int64_t bound = options.maximum_iterations;
  if (!detail::IsTracing()) {
    std::vector<Tensor> vars = loop_vars;
    for (int64_t i = 0;
         (bound < 0 || i < bound) && detail::EagerPredicate(cond_fn(vars), "while_loop"); ++i) {
      vars = detail::CheckedBodyResults(body_fn(vars), vars.size());
    }
    return vars;
  }
  if (bound >= 0 && !detail::TapesRecording())
    return detail::CountedLoop(cond_fn, body_fn, loop_vars, bound, false);
  // A tape may record: trace the loop as written first, to know what it
  // captures and whether a tape watches any of it.
  detail::TracedLoop loop = detail::TraceLoop(cond_fn, body_fn, loop_vars);
  const std::vector<Tensor> operands = detail::Operands(loop_vars, loop);
  const bool taped = detail::TapesWatch(operands);
  if (!taped) {
    if (bound >= 0) return detail::CountedLoop(cond_fn, body_fn, loop_vars, bound, false);
    return detail::AddLoopNode(std::move(loop), loop_vars);
  }
  if (bound < 0) {
    throw Error(StatusCode::kUnimplemented,
                "while_loop: a GradientTape watches values this traced loop uses, and "
                "differentiating it needs a bound: pass WhileOptions{maximum_iterations} (the "
                "loop then keeps each iteration's loop variables, maximum_iterations times their "
                "size), or tfn::stop_gradient(x) on what enters the loop if no gradient needs to "
                "flow through it");
  }
  for (size_t i = 0; i < loop.reshaped.size(); ++i) {
    if (!loop.reshaped[i]) continue;
    throw Error(StatusCode::kUnimplemented,
                "while_loop: loop variable " + std::to_string(i) +
                    " changes shape between iterations, and a differentiated loop keeps each "
                    "iteration's loop variables in one [maximum_iterations, ...] buffer: keep "
                    "its shape fixed (pad it), or tfn::stop_gradient(x) on what enters the loop");
  }
  // The saving loop's bookkeeping is not recorded op by op: the tape
  // records the loop as one op whose rule (gradients/grad_control_flow.cc)
  // runs a backward loop over the saved iterations.
  std::vector<Tensor> all;
  {
    detail::TapesSuspended quiet;
    all = detail::CountedLoop(cond_fn, body_fn, loop_vars, bound, true);
  }
  const size_t n = loop_vars.size();
  std::vector<Tensor> outs = detail::Head(all, n);
  std::vector<Tensor> saved(all.begin() + static_cast<std::ptrdiff_t>(n), all.end());
  Attrs attrs;
  attrs.Set("maximum_iterations", AttrValue::Int(bound));
  detail::RecordOnTapes(OpId::kWhileLoop, attrs, operands, outs,
                        std::make_shared<const std::vector<ir::Graph>>(
                            std::vector<ir::Graph>{std::move(loop.cond), std::move(loop.body)}),
                        std::move(saved));
  return outs;
}

}  // namespace tfn

namespace tfn::detail {

void PrintImpl(const std::vector<PrintItem>& items) {
  // The message holds the text with "{}" where each tensor goes ("{{" and
  // "}}" stand for literal braces).
  std::string message;
  std::vector<Tensor> tensors;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) message += " ";
    if (items[i].is_tensor) {
      message += "{}";
      tensors.push_back(items[i].tensor);
      continue;
    }
    for (char c : items[i].text) {
      message += c;
      if (c == '{' || c == '}') message += c;
    }
  }
  if (IsTracing()) {
    ApplyOp(OpId::kPrint, tensors, {{"message", AttrValue::String(message)}});
    return;
  }
  std::vector<ConstTensor> values;
  for (const Tensor& t : tensors) values.push_back(t.value());
  PrintText(FormatPrintMessage(message, values, 3) + "\n");
}

}  // namespace tfn::detail
