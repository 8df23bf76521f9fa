// Converters of ONNX's QOperator ops (opset 10) onto tfn's quantized linear
// ops (core/rules/rules_quant.h):
//   QLinearConv   -> qlinear_conv2d   (requantized int8/uint8 output)
//   QLinearMatMul -> qlinear_matmul
//   ConvInteger   -> conv2d_integer   (int32 output)
//   MatMulInteger -> matmul_integer
// The convolutions lower like Conv (ops_conv.cc): NCHW (or 1-D NCL) x to
// NHWC, OIHW weights to HWIO, back to NCHW after; the matmuls take NumPy's
// MatMul semantics as ConvertMatMul does (a 1-D operand gets a unit dim that
// is squeezed away after).
//
// ONNX's parameters map one to one: scales float32, zero points of their
// tensor's dtype, x/a and y per tensor, w per tensor or per output channel
// ([O]), b per tensor or per column ([N]), the bias int32 [O]. A scalar may
// be a 1-element 1-D tensor. The importer checks them here so that an error
// names ONNX's input; tfn's shape rule checks them again.
// DynamicQuantizeLinear needs no converter (see ops_quantize.cc).
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "importers/onnx/layout.h"

namespace tfn::onnx_import {
namespace {

using Ref = ir::ValueRef;

// "x_zero_point ('xzp', u8[])": ONNX's name of input i and the model's value.
std::string Describe(Context& ctx, int i, const std::string& role, Ref v) {
  return role + " ('" + ctx.node().input(i) + "', " + ctx.Type(v).ToString() + ")";
}

bool Is8Bit(DType t) { return t == DType::kInt8 || t == DType::kUInt8; }

// One value for the whole tensor: a scalar or a 1-D tensor of one element.
bool PerTensor(const SymShape& s) { return s.rank() == 0 || (s.rank() == 1 && s[0] == SymDim(1)); }

// Input i, a quantized tensor (int8 or uint8).
absl::StatusOr<Ref> QuantizedInput(Context& ctx, int i, const std::string& role) {
  TFN_ASSIGN_OR_RETURN(Ref v, ctx.Input(i));
  if (!Is8Bit(ctx.Type(v).dtype)) {
    return ctx.Error("expected " + role + " of int8 or uint8, got " + Describe(ctx, i, role, v));
  }
  return v;
}

// v (input i) holds one value, or (channels given) one per channel.
absl::Status CheckCount(Context& ctx, int i, const std::string& role, Ref v,
                        const std::optional<SymDim>& channels, const std::string& per) {
  const SymShape& s = ctx.Type(v).shape;
  if (PerTensor(s)) return absl::OkStatus();
  if (channels && s.rank() == 1 &&
      !(s[0].is_static() && channels->is_static() && s[0].value() != channels->value())) {
    return absl::OkStatus();
  }
  if (channels) {
    return ctx.Error("expected " + role + " to hold one value or one per " + per + " (" +
                     channels->ToString() + "), got " + Describe(ctx, i, role, v));
  }
  return ctx.Error("expected " + role + " to hold one value (per-tensor quantization), got " +
                   Describe(ctx, i, role, v));
}

// Input i, a float32 scale: one value, or (channels given) one per `per`.
absl::StatusOr<Ref> ScaleInput(Context& ctx, int i, const std::string& role,
                               const std::optional<SymDim>& channels = std::nullopt,
                               const std::string& per = "") {
  TFN_ASSIGN_OR_RETURN(Ref v, ctx.Input(i));
  if (ctx.Type(v).dtype != DType::kFloat32) {
    return ctx.Error("expected " + role + " of float32, got " + Describe(ctx, i, role, v));
  }
  TFN_ONNX_RETURN_IF_ERROR(CheckCount(ctx, i, role, v, channels, per));
  TFN_ONNX_RETURN_IF_ERROR(ctx.CheckScaleValues(i, role));
  return v;
}

// Input i, the zero point of `tensor` (input t, ONNX's `tensor_role`): of
// the tensor's dtype, and counted as its scale.
absl::StatusOr<Ref> ZeroPointInput(Context& ctx, int i, const std::string& role, Ref tensor, int t,
                                   const std::string& tensor_role,
                                   const std::optional<SymDim>& channels = std::nullopt,
                                   const std::string& per = "") {
  TFN_ASSIGN_OR_RETURN(Ref v, ctx.Input(i));
  if (ctx.Type(v).dtype != ctx.Type(tensor).dtype) {
    return ctx.Error("expected " + role + " of " + tensor_role + "'s dtype " +
                     DTypeName(ctx.Type(tensor).dtype) + " (" + tensor_role + " is '" +
                     ctx.node().input(t) + "'), got " + Describe(ctx, i, role, v));
  }
  TFN_ONNX_RETURN_IF_ERROR(CheckCount(ctx, i, role, v, channels, per));
  return v;
}

// Input i, y_zero_point: int8 or uint8 (it gives y's dtype), one value.
absl::StatusOr<Ref> OutputZeroPointInput(Context& ctx, int i) {
  TFN_ASSIGN_OR_RETURN(Ref v, ctx.Input(i));
  if (!Is8Bit(ctx.Type(v).dtype)) {
    return ctx.Error("expected y_zero_point of int8 or uint8 (it gives y's dtype), got " +
                     Describe(ctx, i, "y_zero_point", v));
  }
  TFN_ONNX_RETURN_IF_ERROR(CheckCount(ctx, i, "y_zero_point", v, std::nullopt, ""));
  return v;
}

// ---- convolutions ----

// x (NCL or NCHW) and w ([O, C/group, K...] of x's rank), with the window
// attributes read for them.
struct ConvOperands {
  Ref x, w;
  SymShape xs;
  SymDim out_channels;
  Window window;
};

absl::StatusOr<ConvOperands> ReadConv(Context& ctx, int x_i, int w_i) {
  ConvOperands c;
  TFN_ASSIGN_OR_RETURN(c.x, QuantizedInput(ctx, x_i, "x"));
  TFN_ASSIGN_OR_RETURN(c.w, QuantizedInput(ctx, w_i, "w"));
  c.xs = ctx.Type(c.x).shape;
  const SymShape& ws = ctx.Type(c.w).shape;
  if (c.xs.rank() != 3 && c.xs.rank() != 4) {
    if (c.xs.rank() > 4) {
      return ctx.Unsupported("a " + std::to_string(c.xs.rank() - 2) + "-D " + ctx.node().op_type() +
                             " (1-D and 2-D are)");
    }
    return ctx.Error("expected x of [N, C, H, W] or [N, C, L], got " +
                     Describe(ctx, x_i, "x", c.x));
  }
  if (ws.rank() != c.xs.rank()) {
    return ctx.Error("expected w of rank " + std::to_string(c.xs.rank()) +
                     " ([O, C/group, kernel...]) for x " + ctx.Type(c.x).ToString() + ", got " +
                     Describe(ctx, w_i, "w", c.w));
  }
  std::vector<int64_t> kernel;
  for (int i = 2; i < ws.rank(); ++i) kernel.push_back(ws[i].is_static() ? ws[i].value() : 0);
  TFN_ASSIGN_OR_RETURN(c.window, ReadWindow(ctx, c.xs, kernel));
  c.out_channels = ws[0];
  return c;
}

Attrs ConvAttrs(Context& ctx, const Window& window) {
  Attrs attrs = WindowAttrs(window);
  attrs.Set("groups", AttrValue::Int(ctx.AttrInt("group", 1)));
  return attrs;
}

// x, x_scale, x_zero_point, w, w_scale, w_zero_point, y_scale, y_zero_point, B?
absl::Status ConvertQLinearConv(Context& ctx) {
  TFN_ASSIGN_OR_RETURN(ConvOperands c, ReadConv(ctx, 0, 3));
  const SymDim o = c.out_channels;
  TFN_ASSIGN_OR_RETURN(Ref x_scale, ScaleInput(ctx, 1, "x_scale"));
  TFN_ASSIGN_OR_RETURN(Ref x_zp, ZeroPointInput(ctx, 2, "x_zero_point", c.x, 0, "x"));
  TFN_ASSIGN_OR_RETURN(Ref w_scale, ScaleInput(ctx, 4, "w_scale", o, "output channel"));
  TFN_ASSIGN_OR_RETURN(Ref w_zp,
                       ZeroPointInput(ctx, 5, "w_zero_point", c.w, 3, "w", o, "output channel"));
  TFN_ASSIGN_OR_RETURN(Ref y_scale, ScaleInput(ctx, 6, "y_scale"));
  TFN_ASSIGN_OR_RETURN(Ref y_zp, OutputZeroPointInput(ctx, 7));
  TFN_ASSIGN_OR_RETURN(Ref xt, ToNHWC(ctx, c.x));
  TFN_ASSIGN_OR_RETURN(Ref f, WeightsToHWIO(ctx, c.w));
  std::vector<Ref> inputs = {xt, x_scale, x_zp, f, w_scale, w_zp, y_scale, y_zp};
  if (ctx.HasInput(8)) {
    TFN_ASSIGN_OR_RETURN(Ref b, ctx.Input(8));
    const ir::TensorType& bt = ctx.Type(b);
    if (bt.dtype != DType::kInt32 || bt.shape.rank() != 1 ||
        (bt.shape[0].is_static() && o.is_static() && bt.shape[0].value() != o.value())) {
      return ctx.Error("expected B of int32 [" + o.ToString() + "] (one per output channel), got " +
                       Describe(ctx, 8, "B", b));
    }
    inputs.push_back(b);
  }
  TFN_ASSIGN_OR_RETURN(Ref y, ctx.Add(OpId::kQLinearConv2D, inputs, ConvAttrs(ctx, c.window)));
  TFN_ASSIGN_OR_RETURN(y, FromNHWC(ctx, y, c.xs.rank()));
  return ctx.Output(0, y);
}
TFN_ONNX_CONVERTER("QLinearConv", 10, ConvertQLinearConv);

// x, w, x_zero_point?, w_zero_point? -> int32.
absl::Status ConvertConvInteger(Context& ctx) {
  TFN_ASSIGN_OR_RETURN(ConvOperands c, ReadConv(ctx, 0, 1));
  TFN_ASSIGN_OR_RETURN(Ref xt, ToNHWC(ctx, c.x));
  TFN_ASSIGN_OR_RETURN(Ref f, WeightsToHWIO(ctx, c.w));
  std::vector<Ref> inputs = {xt, f};
  if (ctx.HasInput(2) || ctx.HasInput(3)) {
    Ref x_zp = ctx.Scalar(ctx.Type(c.x).dtype, 0);
    if (ctx.HasInput(2)) {
      TFN_ASSIGN_OR_RETURN(x_zp, ZeroPointInput(ctx, 2, "x_zero_point", c.x, 0, "x"));
    }
    inputs.push_back(x_zp);
  }
  if (ctx.HasInput(3)) {
    TFN_ASSIGN_OR_RETURN(Ref w_zp, ZeroPointInput(ctx, 3, "w_zero_point", c.w, 1, "w",
                                                  c.out_channels, "output channel"));
    inputs.push_back(w_zp);
  }
  TFN_ASSIGN_OR_RETURN(Ref y, ctx.Add(OpId::kConv2DInteger, inputs, ConvAttrs(ctx, c.window)));
  TFN_ASSIGN_OR_RETURN(y, FromNHWC(ctx, y, c.xs.rank()));
  return ctx.Output(0, y);
}
TFN_ONNX_CONVERTER("ConvInteger", 10, ConvertConvInteger);

// ---- matmuls ----

// a and b with NumPy's MatMul semantics: a 1-D a becomes [1, K], a 1-D b
// [K, 1]; Finish squeezes the unit dims away from the result.
struct MatMulOperands {
  Ref a, b;
  bool a_vec = false, b_vec = false;
  SymDim rows, cols;  // M of a 2-D a (a 1-D a: 1); N

  absl::StatusOr<Ref> Finish(Context& ctx, Ref y) const {
    if (b_vec) {
      TFN_ASSIGN_OR_RETURN(y, ctx.Add(OpId::kSqueeze, {y}, {{"axes", AttrValue::Ints({-1})}}));
    }
    if (a_vec) {
      TFN_ASSIGN_OR_RETURN(y, ctx.Add(OpId::kSqueeze, {y}, {{"axes", AttrValue::Ints({-2})}}));
    }
    return y;
  }
};

absl::StatusOr<MatMulOperands> ReadMatMul(Context& ctx, int a_i, int b_i, const char* a_role,
                                          const char* b_role) {
  MatMulOperands m;
  TFN_ASSIGN_OR_RETURN(m.a, QuantizedInput(ctx, a_i, a_role));
  TFN_ASSIGN_OR_RETURN(m.b, QuantizedInput(ctx, b_i, b_role));
  for (auto [i, role, v] : {std::tuple(a_i, a_role, m.a), std::tuple(b_i, b_role, m.b)}) {
    if (ctx.Type(v).shape.rank() == 0) {
      return ctx.Error(std::string("expected ") + role +
                       " of rank 1 or more (MatMul takes no scalars), got " +
                       Describe(ctx, i, role, v));
    }
  }
  m.a_vec = ctx.Type(m.a).shape.rank() == 1;
  m.b_vec = ctx.Type(m.b).shape.rank() == 1;
  if (m.a_vec) {
    TFN_ASSIGN_OR_RETURN(m.a, ctx.Add(OpId::kExpandDims, {m.a}, {{"axis", AttrValue::Int(0)}}));
  }
  if (m.b_vec) {
    TFN_ASSIGN_OR_RETURN(m.b, ctx.Add(OpId::kExpandDims, {m.b}, {{"axis", AttrValue::Int(-1)}}));
  }
  const SymShape& as = ctx.Type(m.a).shape;
  const SymShape& bs = ctx.Type(m.b).shape;
  m.rows = as[as.rank() - 2];
  m.cols = bs[bs.rank() - 1];
  return m;
}

// a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point.
absl::Status ConvertQLinearMatMul(Context& ctx) {
  TFN_ASSIGN_OR_RETURN(MatMulOperands m, ReadMatMul(ctx, 0, 3, "a", "b"));
  // ONNX allows a per-row a_scale/a_zero_point; tfn's qlinear_matmul (as
  // ONNX Runtime) quantizes a per tensor, which a 1-row a is too.
  for (int i : {1, 2}) {
    TFN_ASSIGN_OR_RETURN(Ref p, ctx.Input(i));
    const SymShape& s = ctx.Type(p).shape;
    if (s.rank() == 1 && !PerTensor(s)) {
      return ctx.Unsupported("per-row quantization of a (" +
                             Describe(ctx, i, i == 1 ? "a_scale" : "a_zero_point", p) +
                             "; quantize a per tensor)");
    }
  }
  TFN_ASSIGN_OR_RETURN(Ref a_scale, ScaleInput(ctx, 1, "a_scale"));
  TFN_ASSIGN_OR_RETURN(Ref a_zp, ZeroPointInput(ctx, 2, "a_zero_point", m.a, 0, "a"));
  TFN_ASSIGN_OR_RETURN(Ref b_scale, ScaleInput(ctx, 4, "b_scale", m.cols, "column of b"));
  TFN_ASSIGN_OR_RETURN(Ref b_zp,
                       ZeroPointInput(ctx, 5, "b_zero_point", m.b, 3, "b", m.cols, "column of b"));
  TFN_ASSIGN_OR_RETURN(Ref y_scale, ScaleInput(ctx, 6, "y_scale"));
  TFN_ASSIGN_OR_RETURN(Ref y_zp, OutputZeroPointInput(ctx, 7));
  TFN_ASSIGN_OR_RETURN(Ref y, ctx.Add(OpId::kQLinearMatMul,
                                      {m.a, a_scale, a_zp, m.b, b_scale, b_zp, y_scale, y_zp}));
  TFN_ASSIGN_OR_RETURN(y, m.Finish(ctx, y));
  return ctx.Output(0, y);
}
TFN_ONNX_CONVERTER("QLinearMatMul", 10, ConvertQLinearMatMul);

// A, B, a_zero_point?, b_zero_point? -> int32. a_zero_point may be per row
// of a 2-D A ([M]), b_zero_point per column of B ([N]).
absl::Status ConvertMatMulInteger(Context& ctx) {
  TFN_ASSIGN_OR_RETURN(MatMulOperands m, ReadMatMul(ctx, 0, 1, "A", "B"));
  std::vector<Ref> inputs = {m.a, m.b};
  if (ctx.HasInput(2) || ctx.HasInput(3)) {
    Ref a_zp = ctx.Scalar(ctx.Type(m.a).dtype, 0);
    if (ctx.HasInput(2)) {
      const bool matrix = ctx.Type(m.a).shape.rank() == 2;
      TFN_ASSIGN_OR_RETURN(Ref p, ctx.Input(2));
      const SymShape& s = ctx.Type(p).shape;
      if (!matrix && s.rank() == 1 && !PerTensor(s)) {
        return ctx.Unsupported("a per-row " + Describe(ctx, 2, "a_zero_point", p) + " with A " +
                               ctx.Type(m.a).ToString() + " (only a 2-D A's)");
      }
      TFN_ASSIGN_OR_RETURN(
          a_zp, ZeroPointInput(ctx, 2, "a_zero_point", m.a, 0, "A",
                               matrix ? std::optional<SymDim>(m.rows) : std::nullopt, "row of A"));
    }
    inputs.push_back(a_zp);
  }
  if (ctx.HasInput(3)) {
    TFN_ASSIGN_OR_RETURN(
        Ref b_zp, ZeroPointInput(ctx, 3, "b_zero_point", m.b, 1, "B", m.cols, "column of B"));
    inputs.push_back(b_zp);
  }
  TFN_ASSIGN_OR_RETURN(Ref y, ctx.Add(OpId::kMatMulInteger, inputs));
  TFN_ASSIGN_OR_RETURN(y, m.Finish(ctx, y));
  return ctx.Output(0, y);
}
TFN_ONNX_CONVERTER("MatMulInteger", 10, ConvertMatMulInteger);

}  // namespace
}  // namespace tfn::onnx_import
