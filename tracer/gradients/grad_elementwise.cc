// Gradient rules of the elementwise ops: unary math, binary arithmetic with
// NumPy broadcasting (each gradient is summed back to its input's shape),
// where and cast. The derivatives are the textbook ones; where an op is not
// differentiable at a point, the rule takes TensorFlow's one-sided choice
// (relu: 0 at 0; maximum: the first argument on ties).
#include <cmath>

#include "tracer/gradients/registry.h"
#include "tracer/ops.h"

namespace tfn::detail {
namespace {

using Grads = std::vector<Tensor>;

Tensor C(const Tensor& like, double v) { return ScalarLikeOf(like, v); }
// A scalar zero of like's dtype: where() broadcasts it, so no zeros of the
// full shape are made (and it fuses with its neighbours).
Tensor Zero(const Tensor& like) { return ScalarLikeOf(like, 0); }

// ---- unary: x = inputs[0], y = outputs[0] ----
#define TFN_UNARY_GRAD(name, expr)                     \
  Grads name(const RecordedOp& op, const Grads& dys) { \
    const Tensor& x = op.inputs[0];                    \
    const Tensor& y = op.outputs[0];                   \
    const Tensor& dy = dys[0];                         \
    (void)x;                                           \
    (void)y;                                           \
    return {expr};                                     \
  }
TFN_UNARY_GRAD(IdentityGrad, dy)
TFN_UNARY_GRAD(NegGrad, -dy)
TFN_UNARY_GRAD(AbsGrad, dy* sign(x))
// From the output, as PyTorch's threshold_backward: the pre-activation is
// then not needed by the backward pass, and the forward's relu can stay a
// matmul's or conv's epilogue.
TFN_UNARY_GRAD(ReluGrad, where(y > C(y, 0), dy, Zero(dy)))
TFN_UNARY_GRAD(ExpGrad, dy* y)
TFN_UNARY_GRAD(LogGrad, dy / x)
TFN_UNARY_GRAD(SqrtGrad, dy* C(y, 0.5) / y)
TFN_UNARY_GRAD(RsqrtGrad, dy* C(y, -0.5) * y * y * y)
TFN_UNARY_GRAD(TanhGrad, dy*(C(y, 1) - y * y))
TFN_UNARY_GRAD(SigmoidGrad, dy* y*(C(y, 1) - y))
TFN_UNARY_GRAD(ErfGrad, dy* C(x, 2 / std::sqrt(M_PI)) * exp(-(x * x)))
TFN_UNARY_GRAD(SinGrad, dy* cos(x))
TFN_UNARY_GRAD(CosGrad, -(dy* sin(x)))
TFN_UNARY_GRAD(TanGrad, dy*(C(y, 1) + y * y))
TFN_UNARY_GRAD(AsinGrad, dy* rsqrt(C(x, 1) - x * x))
TFN_UNARY_GRAD(AcosGrad, -(dy* rsqrt(C(x, 1) - x * x)))
TFN_UNARY_GRAD(AtanGrad, dy / (C(x, 1) + x * x))
TFN_UNARY_GRAD(SinhGrad, dy* cosh(x))
TFN_UNARY_GRAD(CoshGrad, dy* sinh(x))
TFN_UNARY_GRAD(AsinhGrad, dy* rsqrt(x* x + C(x, 1)))
TFN_UNARY_GRAD(AcoshGrad, dy* rsqrt(x* x - C(x, 1)))
TFN_UNARY_GRAD(AtanhGrad, dy / (C(x, 1) - x * x))
#undef TFN_UNARY_GRAD

Grads GeluGrad(const RecordedOp& op, const Grads& dys) {
  const Tensor& x = op.inputs[0];
  if (op.attrs.GetString("approximate", "none") == "tanh") {
    const double k = std::sqrt(2 / M_PI);
    const Tensor t = tanh(C(x, k) * (x + C(x, 0.044715) * x * x * x));
    const Tensor du = C(x, k) * (C(x, 1) + C(x, 3 * 0.044715) * x * x);
    return {dys[0] * (C(x, 0.5) * (C(x, 1) + t) + C(x, 0.5) * x * (C(x, 1) - t * t) * du)};
  }
  const Tensor cdf = C(x, 0.5) * (C(x, 1) + erf(x * C(x, M_SQRT1_2)));
  const Tensor pdf = exp(C(x, -0.5) * x * x) * C(x, 1 / std::sqrt(2 * M_PI));
  return {dys[0] * (cdf + x * pdf)};
}

Grads CastGrad(const RecordedOp& op, const Grads& dys) {
  if (!IsFloating(op.inputs[0].dtype())) return {Tensor()};
  return {cast(dys[0], op.inputs[0].dtype())};
}

// ---- binary: a = inputs[0], b = inputs[1] ----
Grads AddGrad(const RecordedOp& op, const Grads& dys) {
  return {SumToShapeOf(dys[0], op.inputs[0]), SumToShapeOf(dys[0], op.inputs[1])};
}
Grads SubGrad(const RecordedOp& op, const Grads& dys) {
  return {SumToShapeOf(dys[0], op.inputs[0]), SumToShapeOf(-dys[0], op.inputs[1])};
}
Grads MulGrad(const RecordedOp& op, const Grads& dys) {
  const Tensor &a = op.inputs[0], &b = op.inputs[1];
  return {SumToShapeOf(dys[0] * b, a), SumToShapeOf(dys[0] * a, b)};
}
Grads DivGrad(const RecordedOp& op, const Grads& dys) {
  const Tensor &a = op.inputs[0], &b = op.inputs[1], &y = op.outputs[0];
  return {SumToShapeOf(dys[0] / b, a), SumToShapeOf(-(dys[0] * y / b), b)};
}
Grads PowGrad(const RecordedOp& op, const Grads& dys) {
  const Tensor &a = op.inputs[0], &b = op.inputs[1], &y = op.outputs[0];
  const Tensor da = dys[0] * b * pow(a, b - C(b, 1));
  // d/db a^b = a^b log a, taken as 0 where a <= 0 (as TensorFlow does).
  const Tensor positive = a > C(a, 0);
  const Tensor log_a = log(where(positive, a, ones_like(a)));
  const Tensor db = where(positive, dys[0] * y * log_a, Zero(dys[0]));
  return {SumToShapeOf(da, a), SumToShapeOf(db, b)};
}
Grads SelectGrad(const Tensor& take_a, const RecordedOp& op, const Grads& dys) {
  const Tensor zero = Zero(dys[0]);
  return {SumToShapeOf(where(take_a, dys[0], zero), op.inputs[0]),
          SumToShapeOf(where(take_a, zero, dys[0]), op.inputs[1])};
}
Grads MaximumGrad(const RecordedOp& op, const Grads& dys) {
  return SelectGrad(op.inputs[0] >= op.inputs[1], op, dys);
}
Grads MinimumGrad(const RecordedOp& op, const Grads& dys) {
  return SelectGrad(op.inputs[0] <= op.inputs[1], op, dys);
}
// a mod b = a - floor(a / b) * b; fmod: the quotient truncated instead.
Grads ModGrad(const RecordedOp& op, const Grads& dys) {
  const Tensor &a = op.inputs[0], &b = op.inputs[1];
  return {SumToShapeOf(dys[0], a), SumToShapeOf(-(dys[0] * floor(a / b)), b)};
}
Grads FModGrad(const RecordedOp& op, const Grads& dys) {
  const Tensor &a = op.inputs[0], &b = op.inputs[1];
  const Tensor q = a / b;
  const Tensor truncated = where(q < C(q, 0), ceil(q), floor(q));
  return {SumToShapeOf(dys[0], a), SumToShapeOf(-(dys[0] * truncated), b)};
}
Grads WhereGrad(const RecordedOp& op, const Grads& dys) {
  const Tensor& c = op.inputs[0];
  const Tensor zero = Zero(dys[0]);
  return {Tensor(), SumToShapeOf(where(c, dys[0], zero), op.inputs[1]),
          SumToShapeOf(where(c, zero, dys[0]), op.inputs[2])};
}

}  // namespace

void RegisterElementwiseGrads(GradTable& table) {
  SetRule(table, OpId::kIdentity, IdentityGrad);
  SetRule(table, OpId::kNeg, NegGrad);
  SetRule(table, OpId::kAbs, AbsGrad);
  SetRule(table, OpId::kRelu, ReluGrad);
  SetRule(table, OpId::kExp, ExpGrad);
  SetRule(table, OpId::kLog, LogGrad);
  SetRule(table, OpId::kSqrt, SqrtGrad);
  SetRule(table, OpId::kRsqrt, RsqrtGrad);
  SetRule(table, OpId::kTanh, TanhGrad);
  SetRule(table, OpId::kSigmoid, SigmoidGrad);
  SetRule(table, OpId::kGelu, GeluGrad);
  SetRule(table, OpId::kErf, ErfGrad);
  SetRule(table, OpId::kSin, SinGrad);
  SetRule(table, OpId::kCos, CosGrad);
  SetRule(table, OpId::kTan, TanGrad);
  SetRule(table, OpId::kAsin, AsinGrad);
  SetRule(table, OpId::kAcos, AcosGrad);
  SetRule(table, OpId::kAtan, AtanGrad);
  SetRule(table, OpId::kSinh, SinhGrad);
  SetRule(table, OpId::kCosh, CoshGrad);
  SetRule(table, OpId::kAsinh, AsinhGrad);
  SetRule(table, OpId::kAcosh, AcoshGrad);
  SetRule(table, OpId::kAtanh, AtanhGrad);
  SetRule(table, OpId::kCast, CastGrad);
  SetRule(table, OpId::kAdd, AddGrad);
  SetRule(table, OpId::kSub, SubGrad);
  SetRule(table, OpId::kMul, MulGrad);
  SetRule(table, OpId::kDiv, DivGrad);
  SetRule(table, OpId::kPow, PowGrad);
  SetRule(table, OpId::kMaximum, MaximumGrad);
  SetRule(table, OpId::kMinimum, MinimumGrad);
  SetRule(table, OpId::kMod, ModGrad);
  SetRule(table, OpId::kFMod, FModGrad);
  SetRule(table, OpId::kWhere, WhereGrad);
}

}  // namespace tfn::detail
