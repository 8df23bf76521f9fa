// Converters of ONNX's QuantizeLinear and DequantizeLinear (opset 10; the
// axis attribute and per-axis scales from 13) onto tfn's quantize_linear and
// dequantize_linear (core/rules/rules_quant.h):
//   QuantizeLinear:   y = saturate(round_half_even(x / y_scale) + y_zero_point)
//   DequantizeLinear: y = (x - x_zero_point) * x_scale
// DynamicQuantizeLinear needs no converter: ONNX defines it as a function of
// ReduceMin/Max, Div, Clip, Round, Cast to UINT8 and QuantizeLinear, which
// the context expands.
#include "importers/onnx/context.h"

namespace tfn::onnx_import {
namespace {

using Ref = ir::ValueRef;

// The dtypes tfn's quantize_linear produces: those its zero point (y's
// dtype) may have.
bool IsQuantized(DType t) {
  return (GetOpDef(OpId::kQuantizeLinear).InputAt(2)->types & TypeBit(t)) != 0;
}

// One value for the whole tensor: a scalar or a 1-D tensor of one element.
bool PerTensor(const SymShape& s) { return s.rank() == 0 || (s.rank() == 1 && s[0] == SymDim(1)); }

// The zero point (when given) must have the scale's shape, as ONNX says,
// and before opset 13 (which has no axis) the scale must be one value for
// the whole tensor. tfn's shape rule checks them against x's axis.
absl::Status CheckParams(Context& ctx, Ref scale, std::optional<Ref> zero_point) {
  const SymShape& s = ctx.Type(scale).shape;
  if (zero_point) {
    const SymShape& z = ctx.Type(*zero_point).shape;
    if (z != s) {
      return ctx.Error("the scale " + ctx.Type(scale).ToString() + " and the zero point " +
                       ctx.Type(*zero_point).ToString() + " must have the same shape");
    }
  }
  if (ctx.opset() < 13 && !PerTensor(s)) {
    return ctx.Error(
        "the scale must be a scalar before opset 13 (per-axis scales need opset 13), got " +
        ctx.Type(scale).ToString());
  }
  return absl::OkStatus();
}

Attrs AxisAttrs(Context& ctx) {
  return Attrs{{"axis", AttrValue::Int(ctx.opset() >= 13 ? ctx.AttrInt("axis", 1) : 1)}};
}

absl::Status ConvertQuantizeLinear(Context& ctx) {
  TFN_ASSIGN_OR_RETURN(Ref x, ctx.Input(0));
  TFN_ASSIGN_OR_RETURN(Ref scale, ctx.Input(1));
  std::vector<Ref> inputs = {x, scale};
  std::optional<Ref> zero_point;
  DType to = DType::kUInt8;  // ONNX's y without a zero point
  if (ctx.HasInput(2)) {
    TFN_ASSIGN_OR_RETURN(zero_point, ctx.Input(2));
    to = ctx.Type(*zero_point).dtype;
    if (!IsQuantized(to)) {
      return ctx.Error(
          "the zero point gives y's dtype and must be int8, uint8, int16, uint16 or int32, got " +
          ctx.Type(*zero_point).ToString());
    }
    inputs.push_back(*zero_point);
  }
  TFN_ONNX_RETURN_IF_ERROR(CheckParams(ctx, scale, zero_point));
  TFN_ONNX_RETURN_IF_ERROR(ctx.CheckScaleValues(1, "y_scale"));
  // An int32 x (ONNX allows it) is divided by the scale in float32, as ONNX
  // Runtime does.
  if (IsInteger(ctx.Type(x).dtype)) {
    TFN_ASSIGN_OR_RETURN(inputs[0],
                         ctx.Add(OpId::kCast, {x}, {{"dtype", AttrValue::Type(DType::kFloat32)}}));
  }
  Attrs attrs = AxisAttrs(ctx);
  attrs.Set("dtype", AttrValue::Type(to));
  TFN_ASSIGN_OR_RETURN(Ref y, ctx.Add(OpId::kQuantizeLinear, inputs, attrs));
  return ctx.Output(0, y);
}
TFN_ONNX_CONVERTER("QuantizeLinear", 10, ConvertQuantizeLinear);

absl::Status ConvertDequantizeLinear(Context& ctx) {
  TFN_ASSIGN_OR_RETURN(Ref x, ctx.Input(0));
  TFN_ASSIGN_OR_RETURN(Ref scale, ctx.Input(1));
  std::vector<Ref> inputs = {x, scale};
  std::optional<Ref> zero_point;
  if (ctx.HasInput(2)) {
    TFN_ASSIGN_OR_RETURN(zero_point, ctx.Input(2));
    if (ctx.Type(*zero_point).dtype != ctx.Type(x).dtype) {
      return ctx.Error("the zero point " + ctx.Type(*zero_point).ToString() +
                       " must have x's dtype (x is " + ctx.Type(x).ToString() + ")");
    }
    inputs.push_back(*zero_point);
  }
  TFN_ONNX_RETURN_IF_ERROR(CheckParams(ctx, scale, zero_point));
  TFN_ONNX_RETURN_IF_ERROR(ctx.CheckScaleValues(1, "x_scale"));
  TFN_ASSIGN_OR_RETURN(Ref y, ctx.Add(OpId::kDequantizeLinear, inputs, AxisAttrs(ctx)));
  return ctx.Output(0, y);
}
TFN_ONNX_CONVERTER("DequantizeLinear", 10, ConvertDequantizeLinear);

}  // namespace
}  // namespace tfn::onnx_import
