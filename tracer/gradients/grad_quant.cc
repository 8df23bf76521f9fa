// Gradient rules of the quantization ops. quantize_linear's output is an
// integer (registry.cc: not differentiable), so only dequantize_linear has a
// rule: y = (x - zero_point) * scale with integer x and zero point, so the
// scale alone gets a gradient, as in quantization-aware training's learned
// scales: the sum of dy * (x - zero_point) over what each scale multiplies
// (all of y for one scale, all but `axis` for one per channel).
#include "tracer/gradients/registry.h"
#include "tracer/ops.h"

namespace tfn::detail {
namespace {

using Grads = std::vector<Tensor>;

Grads DequantizeLinearGrad(const RecordedOp& op, const Grads& dys) {
  const Tensor& x = op.inputs[0];
  const Tensor& scale = op.inputs[1];
  const DType dtype = dys[0].dtype();
  const int rank = x.rank();
  const bool per_axis = scale.rank() == 1 && scale.num_elements() != 1 && rank > 0;
  int axis = 0;
  if (per_axis) {
    axis = static_cast<int>(op.attrs.GetInt("axis", 1));
    if (axis < 0) axis += rank;
  }
  // A per-channel vector as [1, ..., C, ..., 1], to broadcast along `axis`.
  auto along = [&](const Tensor& v) {
    if (!per_axis) return v;
    std::vector<int64_t> dims(static_cast<size_t>(rank), 1);
    dims[static_cast<size_t>(axis)] = -1;
    return reshape(v, dims);
  };
  Tensor centered = cast(x, dtype);
  if (op.inputs.size() > 2 && op.inputs[2].defined())
    centered = centered - along(cast(op.inputs[2], dtype));
  const Tensor products = dys[0] * centered;
  Grads g(op.inputs.size());
  if (!per_axis) {
    g[1] = ReshapeLike(reduce_sum(products), scale);
    return g;
  }
  std::vector<int64_t> others;
  for (int d = 0; d < rank; ++d) {
    if (d != axis) others.push_back(d);
  }
  g[1] = reduce_sum(products, others);
  return g;
}

}  // namespace

void RegisterQuantGrads(GradTable& table) {
  SetRule(table, OpId::kDequantizeLinear, DequantizeLinearGrad);
}

}  // namespace tfn::detail
