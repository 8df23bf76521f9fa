// The gradient rules of traced control flow, written with the front end's
// control flow so the backward pass is graph control flow too.
//
// cond: a cond on the same predicate whose branches are the
// vector-Jacobian products of the original ones: each replays its branch's
// graph under a tape of its own and differentiates sum(outputs * dys) with
// respect to the operands. Only the taken branch's gradient runs.
//
// while_loop (bounded): the forward loop saved each iteration's entering
// loop variables (tfn::while_loop, control_flow.cc); the backward loop runs
// from the last iteration to the first, replays that iteration's body on
// its saved variables under a tape, and carries the gradients of the loop
// variables backwards while it sums those of the captured values. The
// body's intermediates are recomputed, never kept: memory is the saved
// loop variables, maximum_iterations times their size.
//
// (Eagerly, cond and while_loop run their ops directly and the tape sees
// them.) A cond or while_loop nested in a loop body or a cond branch has a
// gradient when it is a cond; nested loops have none yet.
#include <string>

#include "tracer/control_flow.h"
#include "tracer/gradient_tape.h"
#include "tracer/gradients/registry.h"
#include "tracer/ops.h"
#include "tracer/trace_context.h"

namespace tfn::detail {
namespace {

using Grads = std::vector<Tensor>;

// Runs a closed graph's nodes, in order, as ops on `params`: they compute
// eagerly or record into the current trace like any front-end call.
std::vector<Tensor> Replay(const ir::Graph& g, const std::vector<Tensor>& params) {
  std::vector<std::vector<Tensor>> values(static_cast<size_t>(g.num_nodes()));
  for (size_t i = 0; i < g.params().size(); ++i)
    values[static_cast<size_t>(g.params()[i])] = {params[i]};
  for (int n = 0; n < g.num_nodes(); ++n) {
    const ir::Node& node = g.node(n);
    if (node.op == OpId::kParameter) continue;
    if (node.op == OpId::kConstant) {
      values[static_cast<size_t>(n)] = {Tensor::FromConst(*g.ConstantValue(ir::ValueRef{n, 0}))};
      continue;
    }
    std::vector<Tensor> inputs;
    for (ir::ValueRef v : node.inputs)
      inputs.push_back(values[static_cast<size_t>(v.node)][static_cast<size_t>(v.port)]);
    if (node.op == OpId::kCond) {
      const std::vector<Tensor> operands(inputs.begin() + 1, inputs.end());
      values[static_cast<size_t>(n)] = cond(
          inputs[0], [&] { return Replay(node.subgraphs[0], operands); },
          [&] { return Replay(node.subgraphs[1], operands); });
      continue;
    }
    if (!node.subgraphs.empty())
      NoRuleFor(node.op, "a while_loop inside a while_loop body or a cond branch");
    values[static_cast<size_t>(n)] = ApplyOp(node.op, inputs, node.attrs);
  }
  std::vector<Tensor> results;
  for (ir::ValueRef v : g.results())
    results.push_back(values[static_cast<size_t>(v.node)][static_cast<size_t>(v.port)]);
  return results;
}

bool NeedsGrad(const RecordedOp& op, size_t input) {
  return IsFloating(op.inputs[input].dtype()) && (op.needs_grad.empty() || op.needs_grad[input]);
}

// The vector-Jacobian product of a closed graph at `params`: the gradients
// of sum over k of outs[k] * dys[k] (the float outputs) with respect to
// params[i] for each i of `wrt`, zeros where none flows. The graph is
// replayed under a tape of its own: its ops and their rules' ops record
// into the current trace.
std::vector<Tensor> GraphVjp(const ir::Graph& g, const std::vector<Tensor>& params,
                             const std::vector<size_t>& wrt, const std::vector<Tensor>& dys) {
  GradientTape tape;
  std::vector<Tensor> sources;
  for (size_t i : wrt) sources.push_back(params[i]);
  tape.watch(sources);
  const std::vector<Tensor> outs = Replay(g, params);
  std::vector<Tensor> targets, seeds;
  for (size_t k = 0; k < outs.size() && k < dys.size(); ++k) {
    if (!IsFloating(outs[k].dtype()) || !dys[k].defined()) continue;
    targets.push_back(outs[k]);
    seeds.push_back(dys[k]);
  }
  if (targets.empty()) {
    std::vector<Tensor> zeros;
    for (const Tensor& s : sources) zeros.push_back(zeros_like(s));
    return zeros;
  }
  return tape.gradient(targets, sources, seeds, UnconnectedGradients::kZero);
}

Grads CondGrad(const RecordedOp& op, const Grads& dys) {
  const std::vector<Tensor> operands(op.inputs.begin() + 1, op.inputs.end());
  std::vector<size_t> wrt;  // the operands whose gradients are needed
  for (size_t i = 0; i < operands.size(); ++i) {
    if (NeedsGrad(op, 1 + i)) wrt.push_back(i);
  }
  if (wrt.empty()) return Grads(op.inputs.size());
  const std::vector<Tensor> grads = cond(
      op.inputs[0], [&] { return GraphVjp((*op.subgraphs)[0], operands, wrt, dys); },
      [&] { return GraphVjp((*op.subgraphs)[1], operands, wrt, dys); });
  Grads out(op.inputs.size());
  for (size_t j = 0; j < wrt.size(); ++j) out[1 + wrt[j]] = grads[j];
  return out;
}

Grads WhileGrad(const RecordedOp& op, const Grads& dys) {
  const size_t n = op.outputs.size();
  const std::vector<Tensor> captures(op.inputs.begin() + static_cast<std::ptrdiff_t>(n),
                                     op.inputs.end());
  const Tensor& count = op.saved[0];
  const std::vector<Tensor> kept(op.saved.begin() + 1, op.saved.end());  // [iterations, ...]
  const ir::Graph& body = (*op.subgraphs)[1];
  // Gradients flow back through every float loop variable (a variable whose
  // start needs none may still carry them to the captures), and are summed
  // for the captures that need them.
  std::vector<size_t> wrt;  // parameters of the body: float loop variables, then captures
  for (size_t j = 0; j < n; ++j) {
    if (IsFloating(op.inputs[j].dtype())) wrt.push_back(j);
  }
  const size_t nv = wrt.size();
  for (size_t m = 0; m < captures.size(); ++m) {
    if (NeedsGrad(op, n + m)) wrt.push_back(n + m);
  }
  // Backward loop variables: the iteration, the gradients of the float loop
  // variables at that iteration's end, the captures' sums so far.
  std::vector<Tensor> start{count - constant<int64_t>(1)};
  for (size_t k = 0; k < nv; ++k) start.push_back(dys[wrt[k]]);
  for (size_t k = nv; k < wrt.size(); ++k) start.push_back(zeros_like(op.inputs[wrt[k]]));
  WhileOptions bounded;
  bounded.maximum_iterations = op.attrs.GetInt("maximum_iterations");
  const std::vector<Tensor> done = while_loop(
      [](const std::vector<Tensor>& v) { return greater_equal(v[0], constant<int64_t>(0)); },
      [&](const std::vector<Tensor>& v) {
        std::vector<Tensor> params;
        for (size_t j = 0; j < n; ++j) params.push_back(gather(kept[j], v[0], 0));
        params.insert(params.end(), captures.begin(), captures.end());
        std::vector<Tensor> out_grads(n);
        for (size_t k = 0; k < nv; ++k) out_grads[wrt[k]] = v[1 + k];
        const std::vector<Tensor> grads = GraphVjp(body, params, wrt, out_grads);
        std::vector<Tensor> next{v[0] - constant<int64_t>(1)};
        for (size_t k = 0; k < nv; ++k) next.push_back(grads[k]);
        for (size_t k = nv; k < wrt.size(); ++k) next.push_back(v[1 + k] + grads[k]);
        return next;
      },
      start, bounded);
  Grads out(op.inputs.size());
  for (size_t k = 0; k < wrt.size(); ++k) {
    if (k >= nv || NeedsGrad(op, wrt[k])) out[wrt[k]] = done[1 + k];
  }
  return out;
}

}  // namespace

void RegisterControlFlowGrads(GradTable& table) {
  SetRule(table, OpId::kCond, CondGrad);
  SetRule(table, OpId::kWhileLoop, WhileGrad);
}

}  // namespace tfn::detail
