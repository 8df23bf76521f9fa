// Converters of ONNX's Resize (opsets 10, 11, 13) and Upsample (7, 9) onto
// tfn's layout-free resize op, which takes ONNX's semantics directly: no
// transposes, NCHW stays NCHW.
//
// tfn's resize reads the output shape from its `sizes` input. When ONNX gives
// scales instead, sizes = trunc(x.shape * scales) (ONNX's reference): a
// constant when both are known at import; empty (the shape rule derives it)
// when the scales are constant and integral on x's dynamic dims; otherwise
// computed at run time (then the output shape is data-dependent and the
// runtime infers it per call). The scales still go to the op, since ONNX's
// coordinate transformations use the given scale, not out/in.
#include <cmath>

#include "importers/onnx/context.h"

namespace tfn::onnx_import {
namespace {

// Input i is present and not an empty tensor (ONNX's two ways of "absent").
bool Given(Context& ctx, int i) {
  if (!ctx.HasInput(i)) return false;
  absl::StatusOr<ir::ValueRef> v = ctx.Input(i);
  if (!v.ok()) return true;  // let Input report the error where it is used
  for (const SymDim& d : ctx.Type(*v).shape) {
    if (d.is_static() && d.value() == 0) return false;
  }
  return true;
}

absl::StatusOr<ir::ValueRef> SizesFromScales(Context& ctx, ir::ValueRef x, ir::ValueRef scales) {
  const SymShape& shape = ctx.Type(x).shape;
  const ConstTensor* s = ctx.ConstantOf(scales);
  if (s && s->num_elements() != shape.rank()) {
    return ctx.Error("scales must have one entry per axis of the input");
  }
  bool all_static = true, integral = s != nullptr;
  for (int i = 0; i < shape.rank(); ++i) {
    all_static &= shape[i].is_static();
    if (s && !shape[i].is_static()) integral &= s->ElementAsDouble(i) == std::floor(s->ElementAsDouble(i));
  }
  // Integer scales on the dynamic dims: empty sizes let the shape rule
  // derive the output shape, so it stays static (or symbolic) instead of
  // data-dependent.
  if (s && !all_static && integral) return ctx.Ints({});
  if (s && all_static) {
    std::vector<int64_t> sizes;
    for (int i = 0; i < shape.rank(); ++i) {
      sizes.push_back(
          static_cast<int64_t>(static_cast<double>(shape[i].value()) * s->ElementAsDouble(i)));
    }
    return ctx.Ints(sizes);
  }
  absl::StatusOr<ir::ValueRef> in = ctx.Add(OpId::kShape, {x});
  if (in.ok()) in = ctx.Add(OpId::kCast, {*in}, {{"dtype", AttrValue::Type(DType::kFloat64)}});
  absl::StatusOr<ir::ValueRef> sc =
      ctx.Add(OpId::kCast, {scales}, {{"dtype", AttrValue::Type(DType::kFloat64)}});
  if (!in.ok() || !sc.ok()) return !in.ok() ? in.status() : sc.status();
  absl::StatusOr<ir::ValueRef> out = ctx.Add(OpId::kMul, {*in, *sc});
  if (out.ok()) out = ctx.Add(OpId::kCast, {*out}, {{"dtype", AttrValue::Type(DType::kInt64)}});
  return out;
}

// `sizes_at`/`scales_at`/`roi_at`: the ONNX input index of each (-1: none).
absl::Status ConvertResizeLike(Context& ctx, int roi_at, int scales_at, int sizes_at, Attrs attrs) {
  absl::StatusOr<ir::ValueRef> x = ctx.Input(0);
  if (!x.ok()) return x.status();
  std::vector<ir::ValueRef> inputs = {*x};
  std::optional<ir::ValueRef> scales;
  if (scales_at >= 0 && Given(ctx, scales_at)) {
    absl::StatusOr<ir::ValueRef> s = ctx.Input(scales_at);
    if (!s.ok()) return s.status();
    scales = *s;
  }
  if (sizes_at >= 0 && Given(ctx, sizes_at)) {
    absl::StatusOr<ir::ValueRef> sizes = ctx.Input(sizes_at);
    if (!sizes.ok()) return sizes.status();
    inputs.push_back(*sizes);
    scales.reset();  // ONNX: one of the two; with sizes the scale is out/in
  } else if (scales) {
    absl::StatusOr<ir::ValueRef> sizes = SizesFromScales(ctx, *x, *scales);
    if (!sizes.ok()) return sizes.status();
    inputs.push_back(*sizes);
  } else {
    return ctx.Error("needs scales or sizes");
  }
  const bool crop = attrs.GetString("coordinate_transformation_mode") == "tf_crop_and_resize";
  if (scales || crop) {
    // Scales of 0 stand for out/in when only the roi is given.
    inputs.push_back(scales ? *scales
                            : ctx.Constant(ConstTensor::Copy(
                                  DType::kFloat32, Shape{ctx.Type(*x).shape.rank()},
                                  std::vector<float>(ctx.Type(*x).shape.rank(), 0.f).data())));
  }
  if (crop) {
    if (roi_at < 0 || !Given(ctx, roi_at)) return ctx.Error("tf_crop_and_resize needs roi");
    absl::StatusOr<ir::ValueRef> roi = ctx.Input(roi_at);
    if (!roi.ok()) return roi.status();
    inputs.push_back(*roi);
  }
  absl::StatusOr<ir::ValueRef> y = ctx.Add(OpId::kResize, inputs, attrs);
  if (!y.ok()) return y.status();
  return ctx.Output(0, *y);
}

std::string Mode(Context& ctx) {
  std::string mode = ctx.AttrString("mode", "nearest");
  return mode == "bilinear" ? "linear" : mode;  // Upsample's old spelling
}

// Resize-10 and Upsample map coordinates as x / scale and take the floor
// for nearest.
Attrs AsymmetricAttrs(Context& ctx) {
  return {{"mode", AttrValue::String(Mode(ctx))},
          {"coordinate_transformation_mode", AttrValue::String("asymmetric")},
          {"nearest_mode", AttrValue::String("floor")}};
}

absl::Status ConvertResize(Context& ctx) {
  if (ctx.opset() < 11) return ConvertResizeLike(ctx, -1, 1, -1, AsymmetricAttrs(ctx));
  Attrs attrs{
      {"mode", AttrValue::String(Mode(ctx))},
      {"coordinate_transformation_mode",
       AttrValue::String(ctx.AttrString("coordinate_transformation_mode", "half_pixel"))},
      {"nearest_mode", AttrValue::String(ctx.AttrString("nearest_mode", "round_prefer_floor"))},
      {"cubic_coeff_a", AttrValue::Float(ctx.AttrFloat("cubic_coeff_a", -0.75f))},
      {"exclude_outside", AttrValue::Int(ctx.AttrInt("exclude_outside", 0))},
      {"extrapolation_value", AttrValue::Float(ctx.AttrFloat("extrapolation_value", 0))}};
  return ConvertResizeLike(ctx, 1, 2, 3, attrs);
}
TFN_ONNX_CONVERTER("Resize", 10, ConvertResize);

absl::Status ConvertUpsample(Context& ctx) {
  if (ctx.opset() >= 9) return ConvertResizeLike(ctx, -1, 1, -1, AsymmetricAttrs(ctx));
  // Upsample-7: scales is an attribute.
  absl::StatusOr<ir::ValueRef> x = ctx.Input(0);
  if (!x.ok()) return x.status();
  std::vector<float> scales = ctx.AttrFloats("scales");
  if (static_cast<int>(scales.size()) != ctx.Type(*x).shape.rank()) {
    return ctx.Error("scales must have one entry per axis of the input");
  }
  ir::ValueRef s = ctx.Constant(ConstTensor::Copy(
      DType::kFloat32, Shape{static_cast<int64_t>(scales.size())}, scales.data()));
  absl::StatusOr<ir::ValueRef> sizes = SizesFromScales(ctx, *x, s);
  if (!sizes.ok()) return sizes.status();
  absl::StatusOr<ir::ValueRef> y = ctx.Add(OpId::kResize, {*x, *sizes, s}, AsymmetricAttrs(ctx));
  if (!y.ok()) return y.status();
  return ctx.Output(0, *y);
}
TFN_ONNX_CONVERTER("Upsample", 7, ConvertUpsample);

}  // namespace
}  // namespace tfn::onnx_import
