// Gradient rules of matmul, the reductions (reduce_prod's with zeros in the
// product handled exactly), cumsum, softmax, log_softmax and layer_norm. Reductions take their axes
// from the attribute (axes computed at run time have no rule yet); ties of reduce_max/min share the
// gradient equally, as in TensorFlow.
#include <algorithm>

#include "tracer/gradients/registry.h"
#include "tracer/ops.h"
#include "tracer/trace_context.h"

namespace tfn::detail {
namespace {

using Grads = std::vector<Tensor>;

Tensor C(const Tensor& like, double v) { return ScalarLikeOf(like, v); }

// ---- matmul: c = op(a) @ op(b), batch dims broadcast ----
Grads MatMulGrad(const RecordedOp& op, const Grads& dys) {
  const bool ta = op.attrs.GetInt("transpose_a") != 0;
  const bool tb = op.attrs.GetInt("transpose_b") != 0;
  const Tensor &a = op.inputs[0], &b = op.inputs[1], &dy = dys[0];
  Tensor da, db;
  if (!ta && !tb) {
    da = matmul(dy, b, false, true);
    db = matmul(a, dy, true, false);
  } else if (ta && !tb) {  // a is stored [K, M]
    da = matmul(b, dy, false, true);
    db = matmul(a, dy);
  } else if (!ta && tb) {  // b is stored [N, K]
    da = matmul(dy, b);
    db = matmul(dy, a, true, false);
  } else {
    da = matmul(b, dy, true, true);
    db = matmul(dy, a, true, true);
  }
  return {SumToShapeOf(da, a), SumToShapeOf(db, b)};
}

// ---- reductions ----
// The reduced axes, sorted and non-negative.
std::vector<int64_t> ReducedAxes(const RecordedOp& op) {
  if (op.inputs.size() > 1) NoRuleFor(op.op, "axes computed at run time; give the axes as a list");
  const int rank = op.inputs[0].rank();
  std::vector<int64_t> axes = op.attrs.GetInts("axes");
  if (axes.empty()) {
    for (int i = 0; i < rank; ++i) axes.push_back(i);
  }
  for (int64_t& a : axes) {
    int n = 0;
    if (!NormalizeAxis(a, rank, &n)) {
      throw Error(StatusCode::kInvalidArgument, std::string(OpName(op.op)) + ": bad axis");
    }
    a = n;
  }
  std::sort(axes.begin(), axes.end());
  return axes;
}

// dy with the reduced dims back (size 1), when the op dropped them.
Tensor KeepDims(const RecordedOp& op, const Tensor& dy, const std::vector<int64_t>& axes) {
  if (op.attrs.GetInt("keepdims") != 0) return dy;
  Tensor out = dy;
  for (int64_t a : axes) out = expand_dims(out, a);
  return out;
}

Grads ReduceSumGrad(const RecordedOp& op, const Grads& dys) {
  const std::vector<int64_t> axes = ReducedAxes(op);
  return {BroadcastLike(KeepDims(op, dys[0], axes), op.inputs[0])};
}

Grads ReduceMeanGrad(const RecordedOp& op, const Grads& dys) {
  const Tensor& x = op.inputs[0];
  const std::vector<int64_t> axes = ReducedAxes(op);
  const Shape s = x.shape();
  double count = 1;
  bool known = true;
  for (int64_t a : axes) {
    known &= s[static_cast<int>(a)] != kDynamic;
    count *= static_cast<double>(s[static_cast<int>(a)]);
  }
  Tensor scale = known ? C(x, count == 0 ? 0 : 1 / count)
                       : cast(size(op.outputs[0]), x.dtype()) / cast(size(x), x.dtype());
  return {BroadcastLike(KeepDims(op, dys[0], axes) * scale, x)};
}

Grads ReduceExtremeGrad(const RecordedOp& op, const Grads& dys) {
  const Tensor& x = op.inputs[0];
  const std::vector<int64_t> axes = ReducedAxes(op);
  const Tensor y = KeepDims(op, op.outputs[0], axes);
  const Tensor hit = cast(equal(x, y), x.dtype());
  const Tensor ties = reduce_sum(hit, axes, /*keepdims=*/true);
  return {hit * (KeepDims(op, dys[0], axes) / ties)};
}

// prod's derivative by x_i is the product of the others: y / x_i where x_i
// is not 0; where it is, the product of the nonzero others if it is the only
// zero of its reduction, else 0.
Grads ReduceProdGrad(const RecordedOp& op, const Grads& dys) {
  const Tensor& x = op.inputs[0];
  const std::vector<int64_t> axes = ReducedAxes(op);
  const Tensor zero = zeros_like(x), one = ones_like(x);
  const Tensor is_zero = equal(x, zero);
  const Tensor zeros = reduce_sum(cast(is_zero, x.dtype()), axes, true);
  const Tensor nonzero_prod = reduce_prod(where(is_zero, one, x), axes, true);
  const Tensor others =
      where(is_zero, where(equal(zeros, C(x, 1)), nonzero_prod + zero, zero),
            where(equal(zeros, C(x, 0)), nonzero_prod / where(is_zero, one, x), zero));
  return {others * KeepDims(op, dys[0], axes)};
}

Grads CumSumGrad(const RecordedOp& op, const Grads& dys) {
  return {Apply1(OpId::kCumSum, {dys[0], op.inputs[1]},
                 {{"exclusive", AttrValue::Int(op.attrs.GetInt("exclusive"))},
                  {"reverse", AttrValue::Int(op.attrs.GetInt("reverse") == 0)}}),
          Tensor()};
}

// ---- softmax family ----
Grads SoftmaxGrad(const RecordedOp& op, const Grads& dys) {
  const int64_t axis = op.attrs.GetInt("axis", -1);
  const Tensor& y = op.outputs[0];
  return {y * (dys[0] - reduce_sum(dys[0] * y, {axis}, true))};
}

Grads LogSoftmaxGrad(const RecordedOp& op, const Grads& dys) {
  const int64_t axis = op.attrs.GetInt("axis", -1);
  return {dys[0] - exp(op.outputs[0]) * reduce_sum(dys[0], {axis}, true)};
}

// layer_norm normalizes over dims [axis, rank): y = (x - mean) * rstd * scale + bias.
Grads LayerNormGrad(const RecordedOp& op, const Grads& dys) {
  const Tensor& x = op.inputs[0];
  const int rank = x.rank();
  int axis = 0;
  if (!NormalizeAxis(op.attrs.GetInt("axis", -1), rank, &axis)) {
    throw Error(StatusCode::kInvalidArgument, "layer_norm: bad axis");
  }
  std::vector<int64_t> axes;
  for (int i = axis; i < rank; ++i) axes.push_back(i);
  const Tensor& dy = dys[0];
  const Tensor mean = reduce_mean(x, axes, true);
  const Tensor centered = x - mean;
  const Tensor var = reduce_mean(centered * centered, axes, true);
  const Tensor rstd = rsqrt(var + C(x, op.attrs.GetFloat("epsilon", 1e-5)));
  const Tensor xhat = centered * rstd;
  Grads grads(op.inputs.size());
  Tensor g = dy;
  if (op.inputs.size() > 1 && op.inputs[1].defined()) {
    g = dy * op.inputs[1];
    grads[1] = SumToShapeOf(dy * xhat, op.inputs[1]);
  }
  if (op.inputs.size() > 2 && op.inputs[2].defined()) grads[2] = SumToShapeOf(dy, op.inputs[2]);
  grads[0] = rstd * (g - reduce_mean(g, axes, true) - xhat * reduce_mean(g * xhat, axes, true));
  return grads;
}

}  // namespace

void RegisterMathGrads(GradTable& table) {
  SetRule(table, OpId::kMatMul, MatMulGrad);
  SetRule(table, OpId::kReduceSum, ReduceSumGrad);
  SetRule(table, OpId::kReduceMean, ReduceMeanGrad);
  SetRule(table, OpId::kReduceMax, ReduceExtremeGrad);
  SetRule(table, OpId::kReduceMin, ReduceExtremeGrad);
  SetRule(table, OpId::kReduceProd, ReduceProdGrad);
  SetRule(table, OpId::kCumSum, CumSumGrad);
  SetRule(table, OpId::kSoftmax, SoftmaxGrad);
  SetRule(table, OpId::kLogSoftmax, LogSoftmaxGrad);
  SetRule(table, OpId::kLayerNorm, LayerNormGrad);
}

}  // namespace tfn::detail
