// The gradient rule of a traced cond: a cond on the same predicate whose
// branches are the vector-Jacobian products of the original ones. Each
// gradient branch replays its branch's graph with the front end's ops under
// a tape of its own and differentiates sum(outputs * dys) with respect to
// the operands, so the backward pass is graph control flow too: only the
// taken branch's gradient runs. (Eagerly, cond runs its branch directly and
// the tape sees its ops.) Nested cond and while_loop inside a branch have
// no rule yet.
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
    if (!node.subgraphs.empty()) NoRuleFor(OpId::kCond, "a cond or while_loop inside a branch");
    std::vector<Tensor> inputs;
    for (ir::ValueRef v : node.inputs)
      inputs.push_back(values[static_cast<size_t>(v.node)][static_cast<size_t>(v.port)]);
    values[static_cast<size_t>(n)] = ApplyOp(node.op, inputs, node.attrs);
  }
  std::vector<Tensor> results;
  for (ir::ValueRef v : g.results())
    results.push_back(values[static_cast<size_t>(v.node)][static_cast<size_t>(v.port)]);
  return results;
}

Grads CondGrad(const RecordedOp& op, const Grads& dys) {
  const std::vector<Tensor> operands(op.inputs.begin() + 1, op.inputs.end());
  std::vector<size_t> floats;  // the operands that get gradients
  for (size_t i = 0; i < operands.size(); ++i) {
    if (IsFloating(operands[i].dtype())) floats.push_back(i);
  }
  auto vjp = [&](const ir::Graph& branch) {
    GradientTape tape;
    std::vector<Tensor> sources;
    for (size_t i : floats) sources.push_back(operands[i]);
    tape.watch(sources);
    const std::vector<Tensor> outs = Replay(branch, operands);
    Tensor target;
    for (size_t k = 0; k < outs.size(); ++k) {
      if (!IsFloating(outs[k].dtype())) continue;
      const Tensor term = reduce_sum(outs[k] * dys[k]);
      target = target.defined() ? target + term : term;
    }
    if (!target.defined()) return std::vector<Tensor>();
    return tape.gradient(target, sources, Tensor(), UnconnectedGradients::kZero);
  };
  const std::vector<Tensor> grads = cond(
      op.inputs[0], [&] { return vjp((*op.subgraphs)[0]); },
      [&] { return vjp((*op.subgraphs)[1]); });
  Grads out(op.inputs.size());
  for (size_t j = 0; j < floats.size() && j < grads.size(); ++j) out[1 + floats[j]] = grads[j];
  return out;
}

}  // namespace

void RegisterControlFlowGrads(GradTable& table) { SetRule(table, OpId::kCond, CondGrad); }

}  // namespace tfn::detail
