// Converters of ONNX's pooling: MaxPool and AveragePool (1-D and 2-D lowered
// to NHWC max_pool2d/avg_pool2d like Conv, 3-D through volume.h),
// GlobalAveragePool and GlobalMaxPool (reductions over the spatial axes, any
// rank) and LRN (a channel-window sum computed with avg_pool2d over the
// channel axis).
#include "importers/onnx/layout.h"
#include "importers/onnx/volume.h"

namespace tfn::onnx_import {
namespace {

AttrValue Ints(std::vector<int64_t> v) { return AttrValue::Ints(std::move(v)); }

absl::Status ConvertPool(Context& ctx, OpId op) {
  absl::StatusOr<ir::ValueRef> x = ctx.Input(0);
  if (!x.ok()) return x.status();
  if (op == OpId::kMaxPool2D && ctx.node().output_size() > 1 && !ctx.node().output(1).empty()) {
    return ctx.Unsupported("MaxPool's Indices output");
  }
  const SymShape xs = ctx.Type(*x).shape;
  if (!ctx.HasAttr("kernel_shape")) return ctx.Error("kernel_shape is required");
  if (xs.rank() == 5) {
    absl::StatusOr<ir::ValueRef> y = Pool3D(ctx, *x, op);
    if (!y.ok()) return y.status();
    return ctx.Output(0, *y);
  }
  absl::StatusOr<Window> win = ReadWindow(ctx, xs, {});
  if (!win.ok()) return win.status();
  Attrs attrs = WindowAttrs(*win, op == OpId::kMaxPool2D);
  attrs.Set("ksize", Ints(win->kernel));
  // With auto_pad SAME_* the output size is ceil(in / stride) whatever
  // ceil_mode says; the explicit pads computed for it already give that size.
  const bool same = ctx.AttrString("auto_pad", "NOTSET").rfind("SAME", 0) == 0;
  attrs.Set("ceil_mode", AttrValue::Int(same ? 0 : ctx.AttrInt("ceil_mode", 0)));
  if (op == OpId::kAvgPool2D) {
    attrs.Set("count_include_pad", AttrValue::Int(ctx.AttrInt("count_include_pad", 0)));
  }
  absl::StatusOr<ir::ValueRef> xt = ToNHWC(ctx, *x);
  if (!xt.ok()) return xt.status();
  absl::StatusOr<ir::ValueRef> y = ctx.Add(op, {*xt}, attrs);
  if (y.ok()) y = FromNHWC(ctx, *y, xs.rank());
  if (!y.ok()) return y.status();
  return ctx.Output(0, *y);
}
TFN_ONNX_CONVERTER("MaxPool", 1, [](Context& ctx) { return ConvertPool(ctx, OpId::kMaxPool2D); });
TFN_ONNX_CONVERTER("AveragePool", 1,
                   [](Context& ctx) { return ConvertPool(ctx, OpId::kAvgPool2D); });

absl::Status ConvertGlobalPool(Context& ctx, OpId reduce) {
  absl::StatusOr<ir::ValueRef> x = ctx.Input(0);
  if (!x.ok()) return x.status();
  const int rank = ctx.Type(*x).shape.rank();
  if (rank < 3) return ctx.Error("input must be [N, C, spatial...]");
  std::vector<int64_t> axes;
  for (int i = 2; i < rank; ++i) axes.push_back(i);
  absl::StatusOr<ir::ValueRef> y =
      ctx.Add(reduce, {*x}, {{"axes", Ints(axes)}, {"keepdims", AttrValue::Int(1)}});
  if (!y.ok()) return y.status();
  return ctx.Output(0, *y);
}
TFN_ONNX_CONVERTER("GlobalAveragePool", 1,
                   [](Context& ctx) { return ConvertGlobalPool(ctx, OpId::kReduceMean); });
TFN_ONNX_CONVERTER("GlobalMaxPool", 1,
                   [](Context& ctx) { return ConvertGlobalPool(ctx, OpId::kReduceMax); });

// LRN: y = x * (bias + alpha / size * sum_{window over channels} x^2)^-beta.
// An NCHW tensor read as NHWC has its channels where pooling expects rows, so
// avg_pool2d with a [size, 1] window and zero padding (counted) gives the
// window sum / size directly, with no transposes.
absl::Status ConvertLrn(Context& ctx) {
  absl::StatusOr<ir::ValueRef> x = ctx.Input(0);
  if (!x.ok()) return x.status();
  const SymShape xs = ctx.Type(*x).shape;
  const int rank = xs.rank();
  if (rank < 3) return ctx.Error("input must be [N, C, spatial...]");
  const int64_t size = ctx.AttrInt("size", 0);
  if (size <= 0) return ctx.Error("size must be positive");
  const DType t = ctx.Type(*x).dtype;
  absl::StatusOr<ir::ValueRef> sq = ctx.Add(OpId::kMul, {*x, *x});
  if (!sq.ok()) return sq.status();
  // To [N, C, S, 1] with S the spatial cells.
  if (rank == 3) {
    sq = ctx.Add(OpId::kExpandDims, {*sq}, {{"axis", AttrValue::Int(3)}});
  } else if (rank > 4) {
    sq = ctx.Add(OpId::kReshape, {*sq},
                 {{"shape", Ints({0, 0, -1, 1})}, {"copy_zero", AttrValue::Int(1)}});
  }
  if (!sq.ok()) return sq.status();
  const int64_t lo = (size - 1) / 2, hi = size - 1 - lo;
  absl::StatusOr<ir::ValueRef> avg = ctx.Add(OpId::kAvgPool2D, {*sq},
                                             {{"ksize", Ints({size, 1})},
                                              {"strides", Ints({1, 1})},
                                              {"padding", AttrValue::String("EXPLICIT")},
                                              {"pads", Ints({lo, hi, 0, 0})},
                                              {"count_include_pad", AttrValue::Int(1)}});
  if (!avg.ok()) return avg.status();
  if (rank == 3) {
    avg = ctx.Add(OpId::kSqueeze, {*avg}, {{"axes", Ints({3})}});
  } else if (rank > 4) {
    std::vector<int64_t> back = {0, 0};
    for (int i = 2; i < rank; ++i) {
      if (!xs[i].is_static()) return ctx.Unsupported("LRN over more than two dynamic spatial dims");
      back.push_back(xs[i].value());
    }
    avg =
        ctx.Add(OpId::kReshape, {*avg}, {{"shape", Ints(back)}, {"copy_zero", AttrValue::Int(1)}});
  }
  if (!avg.ok()) return avg.status();
  // alpha / size * sum == alpha * average.
  absl::StatusOr<ir::ValueRef> base =
      ctx.Add(OpId::kMul, {*avg, ctx.Scalar(t, ctx.AttrFloat("alpha", 1e-4f))});
  if (base.ok()) base = ctx.Add(OpId::kAdd, {*base, ctx.Scalar(t, ctx.AttrFloat("bias", 1.0f))});
  if (base.ok()) base = ctx.Add(OpId::kPow, {*base, ctx.Scalar(t, -ctx.AttrFloat("beta", 0.75f))});
  if (!base.ok()) return base.status();
  absl::StatusOr<ir::ValueRef> y = ctx.Add(OpId::kMul, {*x, *base});
  if (!y.ok()) return y.status();
  return ctx.Output(0, *y);
}
TFN_ONNX_CONVERTER("LRN", 1, ConvertLrn);

}  // namespace
}  // namespace tfn::onnx_import
