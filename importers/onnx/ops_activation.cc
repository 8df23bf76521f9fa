// Converters of ONNX's activations, each a composition of tfn ops that
// computes the ONNX definition: Clip, LeakyRelu, Elu, Selu, HardSigmoid,
// ThresholdedRelu, PRelu, Softplus, Softsign, Shrink, Reciprocal, Hardmax and
// Dropout (inference: the identity). Celu and HardSwish are ONNX functions of
// these and are expanded by the context.
#include <cfloat>

#include "importers/onnx/context.h"

namespace tfn::onnx_import {
namespace {

using Ref = ir::ValueRef;

// A scalar constant of v's dtype.
Ref Like(Context& ctx, Ref v, double value) { return ctx.Scalar(ctx.Type(v).dtype, value); }

// Clip: min/max attributes before opset 11 (defaults: the float range),
// optional scalar inputs from 11 on (absent: no bound).
absl::Status ConvertClip(Context& ctx) {
  TFN_ASSIGN_OR_RETURN(Ref y, ctx.Input(0));
  std::optional<Ref> lo, hi;
  if (ctx.opset() < 11) {
    lo = Like(ctx, y, ctx.AttrFloat("min", -FLT_MAX));
    hi = Like(ctx, y, ctx.AttrFloat("max", FLT_MAX));
  } else {
    if (ctx.HasInput(1)) {
      TFN_ASSIGN_OR_RETURN(lo, ctx.Input(1));
    }
    if (ctx.HasInput(2)) {
      TFN_ASSIGN_OR_RETURN(hi, ctx.Input(2));
    }
  }
  if (lo) {
    TFN_ASSIGN_OR_RETURN(y, ctx.Add(OpId::kMaximum, {y, *lo}));
  }
  if (hi) {
    TFN_ASSIGN_OR_RETURN(y, ctx.Add(OpId::kMinimum, {y, *hi}));
  }
  return ctx.Output(0, y);
}
TFN_ONNX_CONVERTER("Clip", 1, ConvertClip);

// where(x < 0, negative(x), x): LeakyRelu, PRelu, Elu.
absl::Status NegativePart(Context& ctx, Ref x, Ref negative) {
  TFN_ASSIGN_OR_RETURN(Ref is_neg, ctx.Add(OpId::kLess, {x, Like(ctx, x, 0)}));
  TFN_ASSIGN_OR_RETURN(Ref y, ctx.Add(OpId::kWhere, {is_neg, negative, x}));
  return ctx.Output(0, y);
}

absl::Status ConvertLeakyRelu(Context& ctx) {
  TFN_ASSIGN_OR_RETURN(Ref x, ctx.Input(0));
  TFN_ASSIGN_OR_RETURN(Ref neg, ctx.Add(OpId::kMul, {x, Like(ctx, x, ctx.AttrFloat("alpha", 0.01f))}));
  return NegativePart(ctx, x, neg);
}
TFN_ONNX_CONVERTER("LeakyRelu", 1, ConvertLeakyRelu);

// PRelu: the slope broadcasts to x (NumPy rules from opset 7 on). Models
// from before opset 7 (upgraded by ONNX's version converter, which keeps the
// slope) may have a per-channel slope [C] for x [N, C, ...]: it is reshaped
// to [C, 1, ..., 1] when NumPy broadcasting would not apply.
absl::Status ConvertPRelu(Context& ctx) {
  TFN_ASSIGN_OR_RETURN(Ref x, ctx.Input(0));
  TFN_ASSIGN_OR_RETURN(Ref slope, ctx.Input(1));
  const SymShape& xs = ctx.Type(x).shape;
  const SymShape& ss = ctx.Type(slope).shape;
  if (xs.rank() >= 3 && ss.rank() == 1 && ss[0].is_static() && ss[0].value() != 1 &&
      xs[1] == ss[0] && !(xs[xs.rank() - 1] == ss[0])) {
    std::vector<int64_t> per_channel(xs.rank() - 1, 1);
    per_channel[0] = ss[0].value();
    TFN_ASSIGN_OR_RETURN(slope, ctx.Add(OpId::kReshape, {slope}, {{"shape", AttrValue::Ints(per_channel)}}));
  }
  TFN_ASSIGN_OR_RETURN(Ref neg, ctx.Add(OpId::kMul, {x, slope}));
  return NegativePart(ctx, x, neg);
}
TFN_ONNX_CONVERTER("PRelu", 1, ConvertPRelu);

// alpha * (exp(x) - 1) for x < 0.
absl::Status ConvertElu(Context& ctx) {
  TFN_ASSIGN_OR_RETURN(Ref x, ctx.Input(0));
  TFN_ASSIGN_OR_RETURN(Ref e, ctx.Add(OpId::kExp, {x}));
  TFN_ASSIGN_OR_RETURN(e, ctx.Add(OpId::kSub, {e, Like(ctx, x, 1)}));
  TFN_ASSIGN_OR_RETURN(e, ctx.Add(OpId::kMul, {e, Like(ctx, x, ctx.AttrFloat("alpha", 1))}));
  return NegativePart(ctx, x, e);
}
TFN_ONNX_CONVERTER("Elu", 1, ConvertElu);

// gamma * (x > 0 ? x : alpha * exp(x) - alpha).
absl::Status ConvertSelu(Context& ctx) {
  TFN_ASSIGN_OR_RETURN(Ref x, ctx.Input(0));
  double alpha = ctx.AttrFloat("alpha", 1.67326319217681884765625f);
  double gamma = ctx.AttrFloat("gamma", 1.05070102214813232421875f);
  TFN_ASSIGN_OR_RETURN(Ref e, ctx.Add(OpId::kExp, {x}));
  TFN_ASSIGN_OR_RETURN(e, ctx.Add(OpId::kMul, {e, Like(ctx, x, alpha)}));
  TFN_ASSIGN_OR_RETURN(e, ctx.Add(OpId::kSub, {e, Like(ctx, x, alpha)}));
  TFN_ASSIGN_OR_RETURN(Ref pos, ctx.Add(OpId::kGreater, {x, Like(ctx, x, 0)}));
  TFN_ASSIGN_OR_RETURN(Ref y, ctx.Add(OpId::kWhere, {pos, x, e}));
  TFN_ASSIGN_OR_RETURN(y, ctx.Add(OpId::kMul, {y, Like(ctx, x, gamma)}));
  return ctx.Output(0, y);
}
TFN_ONNX_CONVERTER("Selu", 1, ConvertSelu);

// max(0, min(1, alpha * x + beta)).
absl::Status ConvertHardSigmoid(Context& ctx) {
  TFN_ASSIGN_OR_RETURN(Ref x, ctx.Input(0));
  TFN_ASSIGN_OR_RETURN(Ref y, ctx.Add(OpId::kMul, {x, Like(ctx, x, ctx.AttrFloat("alpha", 0.2f))}));
  TFN_ASSIGN_OR_RETURN(y, ctx.Add(OpId::kAdd, {y, Like(ctx, x, ctx.AttrFloat("beta", 0.5f))}));
  TFN_ASSIGN_OR_RETURN(y, ctx.Add(OpId::kMinimum, {y, Like(ctx, x, 1)}));
  TFN_ASSIGN_OR_RETURN(y, ctx.Add(OpId::kMaximum, {y, Like(ctx, x, 0)}));
  return ctx.Output(0, y);
}
TFN_ONNX_CONVERTER("HardSigmoid", 1, ConvertHardSigmoid);

// x > alpha ? x : 0.
absl::Status ConvertThresholdedRelu(Context& ctx) {
  TFN_ASSIGN_OR_RETURN(Ref x, ctx.Input(0));
  TFN_ASSIGN_OR_RETURN(Ref above, ctx.Add(OpId::kGreater, {x, Like(ctx, x, ctx.AttrFloat("alpha", 1))}));
  TFN_ASSIGN_OR_RETURN(Ref y, ctx.Add(OpId::kWhere, {above, x, Like(ctx, x, 0)}));
  return ctx.Output(0, y);
}
TFN_ONNX_CONVERTER("ThresholdedRelu", 10, ConvertThresholdedRelu);

// log(exp(x) + 1), computed as relu(x) + log(1 + exp(-|x|)) so large x do not overflow.
absl::Status ConvertSoftplus(Context& ctx) {
  TFN_ASSIGN_OR_RETURN(Ref x, ctx.Input(0));
  TFN_ASSIGN_OR_RETURN(Ref t, ctx.Add(OpId::kAbs, {x}));
  TFN_ASSIGN_OR_RETURN(t, ctx.Add(OpId::kNeg, {t}));
  TFN_ASSIGN_OR_RETURN(t, ctx.Add(OpId::kExp, {t}));
  TFN_ASSIGN_OR_RETURN(t, ctx.Add(OpId::kAdd, {t, Like(ctx, x, 1)}));
  TFN_ASSIGN_OR_RETURN(t, ctx.Add(OpId::kLog, {t}));
  TFN_ASSIGN_OR_RETURN(Ref r, ctx.Add(OpId::kRelu, {x}));
  TFN_ASSIGN_OR_RETURN(Ref y, ctx.Add(OpId::kAdd, {r, t}));
  return ctx.Output(0, y);
}
TFN_ONNX_CONVERTER("Softplus", 1, ConvertSoftplus);

// x / (1 + |x|).
absl::Status ConvertSoftsign(Context& ctx) {
  TFN_ASSIGN_OR_RETURN(Ref x, ctx.Input(0));
  TFN_ASSIGN_OR_RETURN(Ref d, ctx.Add(OpId::kAbs, {x}));
  TFN_ASSIGN_OR_RETURN(d, ctx.Add(OpId::kAdd, {d, Like(ctx, x, 1)}));
  TFN_ASSIGN_OR_RETURN(Ref y, ctx.Add(OpId::kDiv, {x, d}));
  return ctx.Output(0, y);
}
TFN_ONNX_CONVERTER("Softsign", 1, ConvertSoftsign);

// x < -lambd ? x + bias : x > lambd ? x - bias : 0.
absl::Status ConvertShrink(Context& ctx) {
  TFN_ASSIGN_OR_RETURN(Ref x, ctx.Input(0));
  double lambd = ctx.AttrFloat("lambd", 0.5f), bias = ctx.AttrFloat("bias", 0);
  TFN_ASSIGN_OR_RETURN(Ref below, ctx.Add(OpId::kLess, {x, Like(ctx, x, -lambd)}));
  TFN_ASSIGN_OR_RETURN(Ref above, ctx.Add(OpId::kGreater, {x, Like(ctx, x, lambd)}));
  TFN_ASSIGN_OR_RETURN(Ref plus, ctx.Add(OpId::kAdd, {x, Like(ctx, x, bias)}));
  TFN_ASSIGN_OR_RETURN(Ref minus, ctx.Add(OpId::kSub, {x, Like(ctx, x, bias)}));
  TFN_ASSIGN_OR_RETURN(Ref y, ctx.Add(OpId::kWhere, {above, minus, Like(ctx, x, 0)}));
  TFN_ASSIGN_OR_RETURN(y, ctx.Add(OpId::kWhere, {below, plus, y}));
  return ctx.Output(0, y);
}
TFN_ONNX_CONVERTER("Shrink", 9, ConvertShrink);

absl::Status ConvertReciprocal(Context& ctx) {
  TFN_ASSIGN_OR_RETURN(Ref x, ctx.Input(0));
  TFN_ASSIGN_OR_RETURN(Ref y, ctx.Add(OpId::kDiv, {Like(ctx, x, 1), x}));
  return ctx.Output(0, y);
}
TFN_ONNX_CONVERTER("Reciprocal", 1, ConvertReciprocal);

// One-hot of the first maximum along `axis` of x (static size along it).
absl::StatusOr<Ref> HardmaxAlong(Context& ctx, Ref x, int axis) {
  const SymShape& shape = ctx.Type(x).shape;
  if (!shape[axis].is_static()) return ctx.Unsupported("Hardmax along a dynamic dim");
  TFN_ASSIGN_OR_RETURN(Ref arg, ctx.Add(OpId::kArgMax, {x}, {{"axis", AttrValue::Int(axis)},
                                                               {"keepdims", AttrValue::Int(1)}}));
  // iota along `axis`: [n] reshaped to [n, 1, ..., 1] with rank - axis dims.
  std::vector<int64_t> iota_shape(shape.rank() - axis, 1);
  iota_shape[0] = shape[axis].value();
  TFN_ASSIGN_OR_RETURN(Ref iota, ctx.Add(OpId::kRange, {}, {{"limit", AttrValue::Float(static_cast<double>(iota_shape[0]))}}));
  TFN_ASSIGN_OR_RETURN(iota, ctx.Add(OpId::kReshape, {iota}, {{"shape", AttrValue::Ints(iota_shape)}}));
  TFN_ASSIGN_OR_RETURN(Ref hot, ctx.Add(OpId::kEqual, {arg, iota}));
  return ctx.Add(OpId::kCast, {hot}, {{"dtype", AttrValue::Type(ctx.Type(x).dtype)}});
}

// Hardmax: like Softmax, before opset 13 over x viewed as 2-D
// [prod(dims < axis), prod(dims >= axis)], from 13 on along one axis.
absl::Status ConvertHardmax(Context& ctx) {
  TFN_ASSIGN_OR_RETURN(Ref x, ctx.Input(0));
  const SymShape shape = ctx.Type(x).shape;
  int rank = shape.rank();
  int64_t axis = ctx.AttrInt("axis", ctx.opset() >= 13 ? -1 : 1);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis > rank || (ctx.opset() >= 13 && axis == rank)) {
    return ctx.Error("axis is out of range");
  }
  if (ctx.opset() >= 13 || axis == rank - 1) {
    TFN_ASSIGN_OR_RETURN(Ref y, HardmaxAlong(ctx, x, static_cast<int>(axis)));
    return ctx.Output(0, y);
  }
  SymDim inner(1);
  for (int i = static_cast<int>(axis); i < rank; ++i) inner = inner * shape[i];
  if (!inner.is_static()) return ctx.Unsupported("a coerced Hardmax over dynamic trailing dims");
  TFN_ASSIGN_OR_RETURN(Ref flat, ctx.Add(OpId::kReshape, {x}, {{"shape", AttrValue::Ints({-1, inner.value()})}}));
  TFN_ASSIGN_OR_RETURN(Ref y, HardmaxAlong(ctx, flat, 1));
  std::vector<int64_t> back;
  Attrs attrs;
  for (const SymDim& d : shape) {
    back.push_back(d.is_static() ? d.value() : 0);
    if (!d.is_static()) attrs.Set("copy_zero", AttrValue::Int(1));
  }
  attrs.Set("shape", AttrValue::Ints(back));
  TFN_ASSIGN_OR_RETURN(y, ctx.Add(OpId::kReshape, {y}, attrs));
  return ctx.Output(0, y);
}
TFN_ONNX_CONVERTER("Hardmax", 1, ConvertHardmax);

// Dropout in inference: the identity, and a mask of ones (bool from opset
// 10, x's dtype before). Training mode is supported only with ratio 0.
absl::Status ConvertDropout(Context& ctx) {
  TFN_ASSIGN_OR_RETURN(Ref x, ctx.Input(0));
  if (ctx.HasInput(2)) {
    TFN_ASSIGN_OR_RETURN(Ref mode, ctx.Input(2));
    const ConstTensor* training = ctx.ConstantOf(mode);
    if (!training) return ctx.Unsupported("a training_mode computed at run time");
    if (training->ElementAsInt(0) != 0) {
      const ConstTensor* ratio = nullptr;
      if (ctx.HasInput(1)) {
        TFN_ASSIGN_OR_RETURN(Ref r, ctx.Input(1));
        ratio = ctx.ConstantOf(r);
      }
      if (!ratio || ratio->ElementAsDouble(0) != 0) return ctx.Unsupported("training-mode Dropout");
    }
  }
  absl::Status s = ctx.Output(0, x);
  if (!s.ok() || ctx.node().output_size() < 2 || ctx.node().output(1).empty()) return s;
  TFN_ASSIGN_OR_RETURN(Ref mask, ctx.Add(OpId::kFillLike, {x}, {{"value", AttrValue::Float(1)}}));
  if (ctx.opset() >= 10) {
    TFN_ASSIGN_OR_RETURN(mask, ctx.Add(OpId::kCast, {mask}, {{"dtype", AttrValue::Type(DType::kBool)}}));
  }
  return ctx.Output(1, mask);
}
TFN_ONNX_CONVERTER("Dropout", 1, ConvertDropout);

}  // namespace
}  // namespace tfn::onnx_import
