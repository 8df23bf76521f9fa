// Converters of ONNX's elementwise logic and math beyond ops_math.cc: the
// trigonometric and hyperbolic functions, Pow (mixed dtypes), Mod (floor or
// truncated), Xor, IsNaN, IsInf (narrowed by detect_positive/negative) and
// Expand (bidirectional broadcasting) and BitShift. Not, And, Or and the
// comparisons are in ops_math.cc.
#include "importers/onnx/context.h"
#include "importers/onnx/shape_runtime.h"

namespace tfn::onnx_import {
namespace {

using Ref = ir::ValueRef;

absl::Status ConvertUnary(Context& ctx, OpId op) {
  TFN_ASSIGN_OR_RETURN(Ref x, ctx.Input(0));
  TFN_ASSIGN_OR_RETURN(Ref y, ctx.Add(op, {x}));
  return ctx.Output(0, y);
}
#define TFN_ONNX_UNARY_OP(name, since, op) \
  TFN_ONNX_CONVERTER(name, since, [](Context& ctx) { return ConvertUnary(ctx, OpId::op); })
TFN_ONNX_UNARY_OP("Tan", 7, kTan);
TFN_ONNX_UNARY_OP("Asin", 7, kAsin);
TFN_ONNX_UNARY_OP("Acos", 7, kAcos);
TFN_ONNX_UNARY_OP("Atan", 7, kAtan);
TFN_ONNX_UNARY_OP("Sinh", 9, kSinh);
TFN_ONNX_UNARY_OP("Cosh", 9, kCosh);
TFN_ONNX_UNARY_OP("Asinh", 9, kAsinh);
TFN_ONNX_UNARY_OP("Acosh", 9, kAcosh);
TFN_ONNX_UNARY_OP("Atanh", 9, kAtanh);
TFN_ONNX_UNARY_OP("IsNaN", 9, kIsNan);

// Pow: the result has the base's dtype. A float exponent of an integer base
// is applied in float64 and truncated back (NumPy's pow, then astype); other
// exponents are cast to the base's dtype.
absl::Status ConvertPow(Context& ctx) {
  TFN_ASSIGN_OR_RETURN(Ref x, ctx.Input(0));
  TFN_ASSIGN_OR_RETURN(Ref e, ctx.Input(1));
  DType base = ctx.Type(x).dtype, exp = ctx.Type(e).dtype;
  auto cast = [&](Ref v, DType t) { return ctx.Add(OpId::kCast, {v}, {{"dtype", AttrValue::Type(t)}}); };
  bool via_float = IsInteger(base) && IsFloating(exp);
  if (via_float) {
    TFN_ASSIGN_OR_RETURN(x, cast(x, DType::kFloat64));
    TFN_ASSIGN_OR_RETURN(e, cast(e, DType::kFloat64));
  } else if (exp != base) {
    TFN_ASSIGN_OR_RETURN(e, cast(e, base));
  }
  TFN_ASSIGN_OR_RETURN(Ref y, ctx.Add(OpId::kPow, {x, e}));
  if (via_float) {
    TFN_ASSIGN_OR_RETURN(y, cast(y, base));
  }
  return ctx.Output(0, y);
}
TFN_ONNX_CONVERTER("Pow", 7, ConvertPow);

// Mod: fmod=0 is the floor remainder (the divisor's sign, tfn's mod), fmod=1
// the truncated one (the dividend's sign, tfn's fmod).
absl::Status ConvertMod(Context& ctx) {
  TFN_ASSIGN_OR_RETURN(Ref a, ctx.Input(0));
  TFN_ASSIGN_OR_RETURN(Ref b, ctx.Input(1));
  OpId op = ctx.AttrInt("fmod", 0) != 0 ? OpId::kFMod : OpId::kMod;
  TFN_ASSIGN_OR_RETURN(Ref y, ctx.Add(op, {a, b}));
  return ctx.Output(0, y);
}
TFN_ONNX_CONVERTER("Mod", 10, ConvertMod);

// BitShift (unsigned dtypes): x << s is x * 2^s, x >> s is x / 2^s. The
// context computes each in a wider dtype and casts back modulo 2^bits, which
// keeps exactly the bits a shift of the narrow dtype keeps; a shift by the
// width or more gives 0 (2^s wraps to 0, and tfn's integer division by 0
// gives 0). uint64 has no wider dtype and is refused by the context.
absl::Status ConvertBitShift(Context& ctx) {
  TFN_ASSIGN_OR_RETURN(Ref x, ctx.Input(0));
  TFN_ASSIGN_OR_RETURN(Ref s, ctx.Input(1));
  const DType t = ctx.Type(x).dtype;
  if (t != DType::kUInt8 && t != DType::kUInt16 && t != DType::kUInt32 && t != DType::kUInt64) {
    return ctx.Error("BitShift takes unsigned integers (uint8 ... uint64), got " +
                     ctx.Type(x).ToString());
  }
  const std::string direction = ctx.AttrString("direction", "");
  if (direction != "LEFT" && direction != "RIGHT") {
    return ctx.Error("direction must be LEFT or RIGHT, got '" + direction + "'");
  }
  TFN_ASSIGN_OR_RETURN(Ref power, ctx.Add(OpId::kPow, {ctx.Scalar(ctx.Type(s).dtype, 2), s}));
  TFN_ASSIGN_OR_RETURN(Ref y, ctx.Add(direction == "LEFT" ? OpId::kMul : OpId::kDiv, {x, power}));
  return ctx.Output(0, y);
}
TFN_ONNX_CONVERTER("BitShift", 11, ConvertBitShift);

absl::Status ConvertXor(Context& ctx) {
  TFN_ASSIGN_OR_RETURN(Ref a, ctx.Input(0));
  TFN_ASSIGN_OR_RETURN(Ref b, ctx.Input(1));
  TFN_ASSIGN_OR_RETURN(Ref y, ctx.Add(OpId::kLogicalXor, {a, b}));
  return ctx.Output(0, y);
}
TFN_ONNX_CONVERTER("Xor", 1, ConvertXor);

// IsInf: +inf counts when detect_positive (default 1), -inf when
// detect_negative (default 1).
absl::Status ConvertIsInf(Context& ctx) {
  TFN_ASSIGN_OR_RETURN(Ref x, ctx.Input(0));
  bool positive = ctx.AttrInt("detect_positive", 1) != 0;
  bool negative = ctx.AttrInt("detect_negative", 1) != 0;
  TFN_ASSIGN_OR_RETURN(Ref y, ctx.Add(OpId::kIsInf, {x}));
  if (!positive || !negative) {
    Ref zero = ctx.Scalar(ctx.Type(x).dtype, 0);
    absl::StatusOr<Ref> sign = positive ? ctx.Add(OpId::kGreater, {x, zero})
                               : negative ? ctx.Add(OpId::kLess, {x, zero})
                                          : absl::StatusOr<Ref>(ctx.Scalar(DType::kBool, 0));
    if (!sign.ok()) return sign.status();
    TFN_ASSIGN_OR_RETURN(y, ctx.Add(OpId::kLogicalAnd, {y, *sign}));
  }
  return ctx.Output(0, y);
}
TFN_ONNX_CONVERTER("IsInf", 10, ConvertIsInf);

// Expand: x and the shape broadcast together (either may have the larger
// dims). A shape computed at run time is tfn's shape input (data-dependent).
absl::Status ConvertExpand(Context& ctx) {
  TFN_ASSIGN_OR_RETURN(Ref x, ctx.Input(0));
  TFN_ASSIGN_OR_RETURN(Ref shape, ctx.Input(1));
  absl::StatusOr<std::vector<int64_t>> dims = ctx.ConstInts(1);
  std::optional<std::vector<SymDim>> known = ctx.KnownValues(shape);
  absl::StatusOr<Ref> y =
      dims.ok() ? ctx.Add(OpId::kBroadcastTo, {x}, {{"shape", AttrValue::Ints(*dims)}})
                : ctx.Add(OpId::kBroadcastTo, {x, shape},
                          {{"dims", AttrValue::String(known ? DimsAttribute(*known) : "")}});
  if (!y.ok()) return y.status();
  return ctx.Output(0, *y);
}
TFN_ONNX_CONVERTER("Expand", 8, ConvertExpand);

}  // namespace
}  // namespace tfn::onnx_import
