// Converters of ONNX's normalizations: LayerNormalization (its optional Mean
// and InvStdDev outputs included).
#include "importers/onnx/context.h"

namespace tfn::onnx_import {
namespace {

absl::Status ConvertLayerNorm(Context& ctx) {
  absl::StatusOr<ir::ValueRef> x = ctx.Input(0), scale = ctx.Input(1);
  if (!x.ok() || !scale.ok()) return !x.ok() ? x.status() : scale.status();
  const SymShape shape = ctx.Type(*x).shape;
  int rank = shape.rank();
  int64_t axis = ctx.AttrInt("axis", -1);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) return ctx.Error("axis is out of range");
  float epsilon = ctx.AttrFloat("epsilon", 1e-5f);
  DType t = ctx.Type(*x).dtype;
  std::vector<int64_t> norm_dims;
  for (int i = static_cast<int>(axis); i < rank; ++i) {
    if (!shape[i].is_static()) return ctx.Unsupported("normalizing over dynamic dims");
    norm_dims.push_back(shape[i].value());
  }
  // Scale and bias broadcast to the normalized shape (ONNX allows that).
  auto fit = [&](ir::ValueRef v) -> absl::StatusOr<ir::ValueRef> {
    if (ctx.Type(v).shape == SymShape(norm_dims.begin(), norm_dims.end())) return v;
    return ctx.Add(OpId::kBroadcastTo, {v}, {{"shape", AttrValue::Ints(norm_dims)}});
  };
  absl::StatusOr<ir::ValueRef> g = fit(*scale);
  if (!g.ok()) return g.status();
  absl::StatusOr<ir::ValueRef> b;
  if (ctx.HasInput(2)) {
    b = ctx.Input(2);
    if (b.ok()) b = fit(*b);
  } else {
    b = ctx.Add(OpId::kFill, {}, {{"shape", AttrValue::Ints(norm_dims)}, {"dtype", AttrValue::Type(t)}});
  }
  if (!b.ok()) return b.status();
  absl::StatusOr<ir::ValueRef> y = ctx.Add(OpId::kLayerNorm, {*x, *g, *b},
                                           {{"axis", AttrValue::Int(axis)}, {"epsilon", AttrValue::Float(epsilon)}});
  if (!y.ok()) return y.status();
  absl::Status s = ctx.Output(0, *y);
  bool want_stats = (ctx.node().output_size() > 1 && !ctx.node().output(1).empty()) ||
                    (ctx.node().output_size() > 2 && !ctx.node().output(2).empty());
  if (!s.ok() || !want_stats) return s;
  std::vector<int64_t> axes;
  for (int i = static_cast<int>(axis); i < rank; ++i) axes.push_back(i);
  Attrs keep{{"axes", AttrValue::Ints(axes)}, {"keepdims", AttrValue::Int(1)}};
  absl::StatusOr<ir::ValueRef> mean = ctx.Add(OpId::kReduceMean, {*x}, keep);
  if (!mean.ok()) return mean.status();
  absl::StatusOr<ir::ValueRef> centered = ctx.Add(OpId::kSub, {*x, *mean});
  if (centered.ok()) centered = ctx.Add(OpId::kMul, {*centered, *centered});
  if (centered.ok()) centered = ctx.Add(OpId::kReduceMean, {*centered}, keep);
  if (centered.ok()) centered = ctx.Add(OpId::kAdd, {*centered, ctx.Scalar(t, epsilon)});
  if (centered.ok()) centered = ctx.Add(OpId::kRsqrt, {*centered});
  if (!centered.ok()) return centered.status();
  s = ctx.Output(1, *mean);
  if (s.ok()) s = ctx.Output(2, *centered);
  return s;
}
TFN_ONNX_CONVERTER("LayerNormalization", 17, ConvertLayerNorm);

}  // namespace
}  // namespace tfn::onnx_import
