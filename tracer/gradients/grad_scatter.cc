// Gradient rules of scatter_elements and scatter_nd ("none" and "add"): the
// updates get dy where they were written (a gather); the data gets dy,
// except, with "none", where an update replaced it. With duplicate indices
// under "none" every duplicate gets the gradient of the slot (as
// TensorFlow's tensor_scatter_update); "mul", "max" and "min" have no rule.
#include <string>

#include "tracer/gradients/registry.h"
#include "tracer/ops.h"

namespace tfn::detail {
namespace {

using Grads = std::vector<Tensor>;

void CheckReduction(const RecordedOp& op, std::string* reduction) {
  *reduction = op.attrs.GetString("reduction", "none");
  if (*reduction != "none" && *reduction != "add") {
    NoRuleFor(op.op, "reduction '" + *reduction + "' (only 'none' and 'add')");
  }
}

Grads ScatterElementsGrad(const RecordedOp& op, const Grads& dys) {
  std::string reduction;
  CheckReduction(op, &reduction);
  const Tensor &indices = op.inputs[1], &updates = op.inputs[2], &dy = dys[0];
  const int64_t axis = op.attrs.GetInt("axis");
  const Tensor d_data =
      reduction == "add" ? dy : scatter_elements(dy, indices, zeros_like(updates), axis, "none");
  return {d_data, Tensor(), gather_elements(dy, indices, axis)};
}

Grads ScatterNDGrad(const RecordedOp& op, const Grads& dys) {
  std::string reduction;
  CheckReduction(op, &reduction);
  const Tensor &indices = op.inputs[1], &updates = op.inputs[2], &dy = dys[0];
  const Tensor d_data =
      reduction == "add" ? dy : scatter_nd(dy, indices, zeros_like(updates), "none");
  return {d_data, Tensor(), gather_nd(dy, indices)};
}

}  // namespace

void RegisterScatterGrads(GradTable& table) {
  SetRule(table, OpId::kScatterElements, ScatterElementsGrad);
  SetRule(table, OpId::kScatterND, ScatterNDGrad);
}

}  // namespace tfn::detail
