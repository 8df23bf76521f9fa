// Converters of ONNX's ops that generate tensors from shapes and positions:
// ConstantOfShape (broadcast_to of the value to the shape, which may be run-
// time data), Range (tfn's range, its bounds run-time scalars when not
// constant), and EyeLike and Trilu, which compare column minus row against
// the diagonal offset: a constant grid for static shapes, cumsums of ones for
// dynamic ones.
#include <algorithm>

#include "importers/onnx/context.h"
#include "importers/onnx/shape_runtime.h"
#include "importers/onnx/tensor_proto.h"

namespace tfn::onnx_import {
namespace {

using Ref = ir::ValueRef;

AttrValue Int(int64_t v) { return AttrValue::Int(v); }
AttrValue Ints(std::vector<int64_t> v) { return AttrValue::Ints(std::move(v)); }

// ConstantOfShape: the value attribute (one element; default float 0)
// broadcast to the shape in input 0.
absl::Status ConvertConstantOfShape(Context& ctx) {
  TFN_ASSIGN_OR_RETURN(Ref shape, ctx.Input(0));
  ConstTensor value = ConstTensor::Scalar<float>(0);
  if (ctx.HasAttr("value")) {
    absl::StatusOr<ConstTensor> t = ctx.AttrTensor("value");
    if (!t.ok()) return ctx.Error(std::string(t.status().message()));
    if (t->num_elements() != 1) return ctx.Error("value must hold one element");
    value = ConstTensor::Copy(t->dtype, Shape{}, t->data);
  }
  const SymShape& s = ctx.Type(shape).shape;
  if (s.rank() != 1) return ctx.Error("the shape must be 1-D, got " + ctx.Type(shape).ToString());
  Ref v = ctx.Constant(value);
  absl::StatusOr<std::vector<int64_t>> dims = ctx.ConstInts(0);
  std::optional<std::vector<SymDim>> known = ctx.KnownValues(shape);
  absl::StatusOr<Ref> y =
      dims.ok() ? ctx.Add(OpId::kBroadcastTo, {v}, {{"shape", Ints(*dims)}})
                : ctx.Add(OpId::kBroadcastTo, {v, shape},
                          {{"dims", AttrValue::String(known ? DimsAttribute(*known) : "")}});
  if (!y.ok()) return y.status();
  return ctx.Output(0, *y);
}
TFN_ONNX_CONVERTER("ConstantOfShape", 9, ConvertConstantOfShape);

// The length of an integer Range whose bounds the importer knows as dim
// expressions (arange over a run-time sequence length, from Shape(x)) with a
// constant delta, as range's "dims" attribute; "" otherwise.
std::string KnownRangeLength(Context& ctx, const std::vector<Ref>& in) {
  std::vector<SymDim> v;
  for (Ref r : in) {
    std::optional<std::vector<SymDim>> known = ctx.KnownValues(r);
    if (!known || known->size() != 1) return "";
    v.push_back((*known)[0]);
  }
  if (!v[2].is_static() || v[2].value() == 0) return "";
  const int64_t delta = v[2].value();
  const SymDim span = delta > 0 ? v[1] - v[0] : v[0] - v[1];
  return DimsAttribute({Max(CeilDiv(span, SymDim(delta > 0 ? delta : -delta)), SymDim(0))});
}

// Range(start, limit, delta): scalars of the output's dtype; constant ones
// fold at once, others make the length data-dependent (said as an
// expression when the bounds are known ones).
absl::Status ConvertRange(Context& ctx) {
  std::vector<Ref> in;
  for (int i = 0; i < 3; ++i) {
    TFN_ASSIGN_OR_RETURN(Ref v, ctx.Input(i));
    in.push_back(v);
  }
  const DType t = ctx.Type(in[0]).dtype;
  Attrs attrs{{"dtype", AttrValue::Type(t)}};
  if (IsInteger(t)) attrs.Set("dims", AttrValue::String(KnownRangeLength(ctx, in)));
  TFN_ASSIGN_OR_RETURN(Ref y, ctx.Add(OpId::kRange, in, attrs));
  return ctx.Output(0, y);
}
TFN_ONNX_CONVERTER("Range", 11, ConvertRange);

// column - row over the last two dims of x, broadcastable against x: a
// constant [n, m] when both dims are static and small, else computed from x.
absl::StatusOr<Ref> Diagonals(Context& ctx, Ref x) {
  const SymShape& s = ctx.Type(x).shape;
  const int r = s.rank();
  if (r < 2) return ctx.Error("input must have rank >= 2, got " + ctx.Type(x).ToString());
  // Small static matrices get a constant grid; large ones (and dynamic ones)
  // are computed at run time rather than stored in the bundle.
  constexpr int64_t kMaxGrid = int64_t{1} << 16;
  const bool small = s[r - 2].is_static() && s[r - 1].is_static() &&
                     s[r - 2].value() <= kMaxGrid / std::max<int64_t>(s[r - 1].value(), 1);
  if (small) {
    const int64_t n = s[r - 2].value(), m = s[r - 1].value();
    std::vector<int64_t> grid(static_cast<size_t>(n * m));
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < m; ++j) grid[static_cast<size_t>(i * m + j)] = j - i;
    }
    return ctx.Constant(ConstTensor::Copy(DType::kInt64, Shape{n, m}, grid.data()));
  }
  // Positions as exclusive cumsums of ones, one per element of x.
  TFN_ASSIGN_OR_RETURN(Ref ones,
                       ctx.Add(OpId::kCast, {x}, {{"dtype", AttrValue::Type(DType::kInt64)}}));
  TFN_ASSIGN_OR_RETURN(ones, ctx.Add(OpId::kFillLike, {ones}, {{"value", AttrValue::Float(1)}}));
  Attrs exclusive{{"exclusive", Int(1)}};
  TFN_ASSIGN_OR_RETURN(Ref rows,
                       ctx.Add(OpId::kCumSum, {ones, ctx.Scalar(DType::kInt64, -2)}, exclusive));
  TFN_ASSIGN_OR_RETURN(Ref cols,
                       ctx.Add(OpId::kCumSum, {ones, ctx.Scalar(DType::kInt64, -1)}, exclusive));
  return ctx.Add(OpId::kSub, {cols, rows});
}

// The diagonal offset k: input 1 (Trilu, a scalar, maybe run-time) or the attribute (EyeLike).
absl::StatusOr<Ref> Offset(Context& ctx) {
  if (ctx.node().op_type() == "EyeLike")
    return ctx.Int64Scalar(ctx.AttrInt("k", 0));
  if (!ctx.HasInput(1)) return ctx.Scalar(DType::kInt64, 0);
  TFN_ASSIGN_OR_RETURN(Ref k, ctx.Input(1));
  if (ctx.Type(k).shape.rank() != 0) {
    TFN_ASSIGN_OR_RETURN(k, ctx.Add(OpId::kReshape, {k}, {{"shape", Ints({})}}));
  }
  if (ctx.Type(k).dtype != DType::kInt64) {
    TFN_ASSIGN_OR_RETURN(k, ctx.Add(OpId::kCast, {k}, {{"dtype", AttrValue::Type(DType::kInt64)}}));
  }
  return k;
}

// EyeLike: ones where column - row == k, in the dtype attribute (default x's).
absl::Status ConvertEyeLike(Context& ctx) {
  TFN_ASSIGN_OR_RETURN(Ref x, ctx.Input(0));
  if (ctx.Type(x).shape.rank() != 2)
    return ctx.Error("input must be 2-D, got " + ctx.Type(x).ToString());
  DType dtype = ctx.Type(x).dtype;
  if (ctx.HasAttr("dtype")) {
    absl::StatusOr<DType> t = DTypeFromOnnx(static_cast<int32_t>(ctx.AttrInt("dtype", 0)));
    if (!t.ok())
      return ctx.Unsupported(
          "EyeLike to " + std::string(OnnxTypeName(static_cast<int32_t>(ctx.AttrInt("dtype", 0)))));
    dtype = *t;
  }
  TFN_ASSIGN_OR_RETURN(Ref diff, Diagonals(ctx, x));
  TFN_ASSIGN_OR_RETURN(Ref k, Offset(ctx));
  TFN_ASSIGN_OR_RETURN(Ref on, ctx.Add(OpId::kEqual, {diff, k}));
  TFN_ASSIGN_OR_RETURN(Ref y, ctx.Add(OpId::kCast, {on}, {{"dtype", AttrValue::Type(dtype)}}));
  return ctx.Output(0, y);
}
TFN_ONNX_CONVERTER("EyeLike", 9, ConvertEyeLike);

// Trilu: keeps column - row >= k (upper=1) or <= k (lower), zeros elsewhere.
absl::Status ConvertTrilu(Context& ctx) {
  TFN_ASSIGN_OR_RETURN(Ref x, ctx.Input(0));
  TFN_ASSIGN_OR_RETURN(Ref diff, Diagonals(ctx, x));
  TFN_ASSIGN_OR_RETURN(Ref k, Offset(ctx));
  const bool upper = ctx.AttrInt("upper", 1) != 0;
  TFN_ASSIGN_OR_RETURN(Ref keep,
                       ctx.Add(upper ? OpId::kGreaterEqual : OpId::kLessEqual, {diff, k}));
  TFN_ASSIGN_OR_RETURN(Ref y, ctx.Add(OpId::kWhere, {keep, x, ctx.Scalar(ctx.Type(x).dtype, 0)}));
  return ctx.Output(0, y);
}
TFN_ONNX_CONVERTER("Trilu", 14, ConvertTrilu);

}  // namespace
}  // namespace tfn::onnx_import
