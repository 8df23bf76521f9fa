// Converters of ONNX's elementwise math and logic, MatMul, Gemm and the
// softmax family. Arithmetic on known shape values stays symbolic.
#include "importers/onnx/context.h"

namespace tfn::onnx_import {
namespace {

absl::Status Unary(Context& ctx, OpId op, Attrs attrs = {}) {
  absl::StatusOr<ir::ValueRef> x = ctx.Input(0);
  if (!x.ok()) return x.status();
  absl::StatusOr<ir::ValueRef> y = ctx.Add(op, {*x}, std::move(attrs));
  if (!y.ok()) return y.status();
  return ctx.Output(0, *y);
}

// Symbolic results of arithmetic on two known shape vectors (or scalars).
void PropagateKnown(Context& ctx, OpId op, ir::ValueRef a, ir::ValueRef b, ir::ValueRef y) {
  auto ka = ctx.KnownValues(a), kb = ctx.KnownValues(b);
  if (!ka || !kb || ctx.Type(y).shape.rank() > 1) return;
  size_t n = std::max(ka->size(), kb->size());
  if ((ka->size() != n && ka->size() != 1) || (kb->size() != n && kb->size() != 1)) return;
  std::vector<SymDim> out;
  for (size_t i = 0; i < n; ++i) {
    SymDim x = (*ka)[ka->size() == 1 ? 0 : i], z = (*kb)[kb->size() == 1 ? 0 : i];
    switch (op) {
      case OpId::kAdd: out.push_back(x + z); break;
      case OpId::kSub: out.push_back(x - z); break;
      case OpId::kMul: out.push_back(x * z); break;
      case OpId::kDiv: out.push_back(FloorDiv(x, z)); break;  // shapes are >= 0: truncation == floor
      default: return;
    }
  }
  ctx.SetKnownValues(y, out);
}

absl::Status Binary(Context& ctx, OpId op) {
  absl::StatusOr<ir::ValueRef> a = ctx.Input(0);
  absl::StatusOr<ir::ValueRef> b = ctx.Input(1);
  if (!a.ok() || !b.ok()) return !a.ok() ? a.status() : b.status();
  absl::StatusOr<ir::ValueRef> y = ctx.Add(op, {*a, *b});
  if (!y.ok()) return y.status();
  PropagateKnown(ctx, op, *a, *b, *y);
  return ctx.Output(0, *y);
}

// Max, Min, Sum, Mean: variadic with broadcasting.
absl::Status Variadic(Context& ctx, OpId op, bool mean) {
  absl::StatusOr<ir::ValueRef> acc = ctx.Input(0);
  if (!acc.ok()) return acc.status();
  int n = 1;
  for (int i = 1; i < ctx.num_inputs(); ++i) {
    absl::StatusOr<ir::ValueRef> v = ctx.Input(i);
    if (!v.ok()) return v.status();
    acc = ctx.Add(op, {*acc, *v});
    if (!acc.ok()) return acc.status();
    ++n;
  }
  if (mean) {
    acc = ctx.Add(OpId::kDiv, {*acc, ctx.Scalar(ctx.Type(*acc).dtype, n)});
    if (!acc.ok()) return acc.status();
  }
  return ctx.Output(0, *acc);
}

#define TFN_ONNX_UNARY(name, op) \
  TFN_ONNX_CONVERTER(name, 1, [](Context& ctx) { return Unary(ctx, OpId::op); })
TFN_ONNX_UNARY("Neg", kNeg);
TFN_ONNX_UNARY("Abs", kAbs);
TFN_ONNX_UNARY("Sign", kSign);
TFN_ONNX_UNARY("Relu", kRelu);
TFN_ONNX_UNARY("Exp", kExp);
TFN_ONNX_UNARY("Log", kLog);
TFN_ONNX_UNARY("Sqrt", kSqrt);
TFN_ONNX_UNARY("Tanh", kTanh);
TFN_ONNX_UNARY("Sigmoid", kSigmoid);
TFN_ONNX_UNARY("Erf", kErf);
TFN_ONNX_UNARY("Sin", kSin);
TFN_ONNX_UNARY("Cos", kCos);
TFN_ONNX_UNARY("Floor", kFloor);
TFN_ONNX_UNARY("Ceil", kCeil);
TFN_ONNX_UNARY("Round", kRound);
TFN_ONNX_UNARY("Not", kLogicalNot);

#define TFN_ONNX_BINARY(name, op) \
  TFN_ONNX_CONVERTER(name, 1, [](Context& ctx) { return Binary(ctx, OpId::op); })
TFN_ONNX_BINARY("Add", kAdd);
TFN_ONNX_BINARY("Sub", kSub);
TFN_ONNX_BINARY("Mul", kMul);
TFN_ONNX_BINARY("Div", kDiv);
TFN_ONNX_BINARY("Equal", kEqual);
TFN_ONNX_BINARY("Less", kLess);
TFN_ONNX_BINARY("LessOrEqual", kLessEqual);
TFN_ONNX_BINARY("Greater", kGreater);
TFN_ONNX_BINARY("GreaterOrEqual", kGreaterEqual);
TFN_ONNX_BINARY("And", kLogicalAnd);
TFN_ONNX_BINARY("Or", kLogicalOr);

TFN_ONNX_CONVERTER("Max", 1, [](Context& ctx) { return Variadic(ctx, OpId::kMaximum, false); });
TFN_ONNX_CONVERTER("Min", 1, [](Context& ctx) { return Variadic(ctx, OpId::kMinimum, false); });
TFN_ONNX_CONVERTER("Sum", 1, [](Context& ctx) { return Variadic(ctx, OpId::kAdd, false); });
TFN_ONNX_CONVERTER("Mean", 1, [](Context& ctx) { return Variadic(ctx, OpId::kAdd, true); });

absl::Status ConvertWhere(Context& ctx) {
  absl::StatusOr<ir::ValueRef> c = ctx.Input(0), x = ctx.Input(1), y = ctx.Input(2);
  if (!c.ok() || !x.ok() || !y.ok()) return !c.ok() ? c.status() : !x.ok() ? x.status() : y.status();
  absl::StatusOr<ir::ValueRef> r = ctx.Add(OpId::kWhere, {*c, *x, *y});
  if (!r.ok()) return r.status();
  return ctx.Output(0, *r);
}
TFN_ONNX_CONVERTER("Where", 9, ConvertWhere);

// MatMul with NumPy's rules for 1-D operands.
absl::Status ConvertMatMul(Context& ctx) {
  absl::StatusOr<ir::ValueRef> a = ctx.Input(0), b = ctx.Input(1);
  if (!a.ok() || !b.ok()) return !a.ok() ? a.status() : b.status();
  bool a_vec = ctx.Type(*a).shape.rank() == 1, b_vec = ctx.Type(*b).shape.rank() == 1;
  if (a_vec) a = ctx.Add(OpId::kExpandDims, {*a}, {{"axis", AttrValue::Int(0)}});
  if (b_vec) b = ctx.Add(OpId::kExpandDims, {*b}, {{"axis", AttrValue::Int(-1)}});
  if (!a.ok() || !b.ok()) return !a.ok() ? a.status() : b.status();
  absl::StatusOr<ir::ValueRef> y = ctx.Add(OpId::kMatMul, {*a, *b});
  if (!y.ok()) return y.status();
  if (b_vec) y = ctx.Add(OpId::kSqueeze, {*y}, {{"axes", AttrValue::Ints({-1})}});
  if (y.ok() && a_vec) y = ctx.Add(OpId::kSqueeze, {*y}, {{"axes", AttrValue::Ints({-2})}});
  if (!y.ok()) return y.status();
  return ctx.Output(0, *y);
}
TFN_ONNX_CONVERTER("MatMul", 1, ConvertMatMul);

// Y = alpha * A' B' + beta * C.
absl::Status ConvertGemm(Context& ctx) {
  absl::StatusOr<ir::ValueRef> a = ctx.Input(0), b = ctx.Input(1);
  if (!a.ok() || !b.ok()) return !a.ok() ? a.status() : b.status();
  absl::StatusOr<ir::ValueRef> y =
      ctx.Add(OpId::kMatMul, {*a, *b},
              {{"transpose_a", AttrValue::Int(ctx.AttrInt("transA", 0))},
               {"transpose_b", AttrValue::Int(ctx.AttrInt("transB", 0))}});
  if (!y.ok()) return y.status();
  DType t = ctx.Type(*y).dtype;
  float alpha = ctx.AttrFloat("alpha", 1), beta = ctx.AttrFloat("beta", 1);
  if (alpha != 1) y = ctx.Add(OpId::kMul, {*y, ctx.Scalar(t, alpha)});
  if (y.ok() && ctx.HasInput(2) && beta != 0) {
    absl::StatusOr<ir::ValueRef> c = ctx.Input(2);
    if (!c.ok()) return c.status();
    if (beta != 1) c = ctx.Add(OpId::kMul, {*c, ctx.Scalar(t, beta)});
    if (!c.ok()) return c.status();
    y = ctx.Add(OpId::kAdd, {*y, *c});
  }
  if (!y.ok()) return y.status();
  return ctx.Output(0, *y);
}
TFN_ONNX_CONVERTER("Gemm", 7, ConvertGemm);

// Softmax/LogSoftmax: before opset 13 the input is viewed as 2-D
// [prod(dims < axis), prod(dims >= axis)] and normalized along its rows.
absl::Status Softmax(Context& ctx, OpId op) {
  absl::StatusOr<ir::ValueRef> x = ctx.Input(0);
  if (!x.ok()) return x.status();
  const SymShape shape = ctx.Type(*x).shape;
  int64_t axis = ctx.AttrInt("axis", ctx.opset() >= 13 ? -1 : 1);
  if (ctx.opset() >= 13) {
    absl::StatusOr<ir::ValueRef> y = ctx.Add(op, {*x}, {{"axis", AttrValue::Int(axis)}});
    if (!y.ok()) return y.status();
    return ctx.Output(0, *y);
  }
  int rank = shape.rank();
  if (axis < 0) axis += rank;
  if (axis < 0 || axis > rank) return ctx.Error("axis is out of range");
  if (axis == rank - 1) {
    absl::StatusOr<ir::ValueRef> y = ctx.Add(op, {*x}, {{"axis", AttrValue::Int(-1)}});
    if (!y.ok()) return y.status();
    return ctx.Output(0, *y);
  }
  std::vector<int64_t> flat = {-1};
  SymDim inner(1);
  for (int i = static_cast<int>(axis); i < rank; ++i) inner = inner * shape[i];
  if (!inner.is_static()) return ctx.Unsupported("a coerced softmax over dynamic trailing dims");
  flat.push_back(inner.value());
  absl::StatusOr<ir::ValueRef> y = ctx.Add(OpId::kReshape, {*x}, {{"shape", AttrValue::Ints(flat)}});
  if (y.ok()) y = ctx.Add(op, {*y}, {{"axis", AttrValue::Int(-1)}});
  if (!y.ok()) return y.status();
  std::vector<int64_t> back;
  for (const SymDim& d : shape) back.push_back(d.is_static() ? d.value() : 0);
  Attrs attrs{{"shape", AttrValue::Ints(back)}};
  for (const SymDim& d : shape) {
    if (!d.is_static()) attrs.Set("copy_zero", AttrValue::Int(1));
  }
  y = ctx.Add(OpId::kReshape, {*y}, attrs);
  if (!y.ok()) return y.status();
  return ctx.Output(0, *y);
}
TFN_ONNX_CONVERTER("Softmax", 1, [](Context& ctx) { return Softmax(ctx, OpId::kSoftmax); });
TFN_ONNX_CONVERTER("LogSoftmax", 1, [](Context& ctx) { return Softmax(ctx, OpId::kLogSoftmax); });

}  // namespace
}  // namespace tfn::onnx_import
