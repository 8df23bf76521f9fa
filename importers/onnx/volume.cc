// Implementation of the depth-tap lowering of 3-D convolution and pooling.
#include "importers/onnx/volume.h"

#include <algorithm>
#include <limits>

#include "importers/onnx/layout.h"

namespace tfn::onnx_import {
namespace {

AttrValue Ints(std::vector<int64_t> v) { return AttrValue::Ints(std::move(v)); }
constexpr int64_t kOpen = int64_t{1} << 62;

struct Volume {
  SpatialWindow w;
  int64_t c = 0, d = 0, h = 0, wd = 0;  // static input dims
  int64_t out_d = 0;                    // output depth
  ir::ValueRef padded;                  // [N, D + pads, H, W, C]
};

// Reads the window, transposes x to NDHWC and pads its depth with `fill`
// (including cells an overhanging ceil_mode window reads).
absl::StatusOr<Volume> Prepare(Context& ctx, ir::ValueRef x, std::vector<int64_t> kernel,
                               bool ceil_mode, double fill) {
  const SymShape xs = ctx.Type(x).shape;
  if (xs.rank() != 5) return ctx.Error("input must be [N, C, D, H, W]");
  for (int i = 1; i < 5; ++i) {
    if (!xs[i].is_static()) return ctx.Unsupported("a 3-D op with dynamic channel or spatial dims");
  }
  Volume v;
  absl::StatusOr<SpatialWindow> w = ReadSpatialWindow(ctx, xs, std::move(kernel));
  if (!w.ok()) return w.status();
  v.w = *w;
  v.c = xs[1].value();
  v.d = xs[2].value();
  v.h = xs[3].value();
  v.wd = xs[4].value();
  const int64_t s = v.w.strides[0], lo = v.w.begin[0], hi = v.w.end[0];
  const int64_t eff = (v.w.kernel[0] - 1) * v.w.dilations[0] + 1, padded = v.d + lo + hi;
  if (padded < eff) return ctx.Error("the depth window is larger than the padded input");
  v.out_d = ceil_mode ? (padded - eff + s - 1) / s + 1 : (padded - eff) / s + 1;
  if (ceil_mode && (v.out_d - 1) * s >= v.d + lo) --v.out_d;  // as the 2-D pools do
  const int64_t extra = std::max<int64_t>((v.out_d - 1) * s + eff - padded, 0);
  absl::StatusOr<ir::ValueRef> t =
      ctx.Add(OpId::kTranspose, {x}, {{"perm", Ints({0, 2, 3, 4, 1})}});
  if (t.ok() && (lo > 0 || hi + extra > 0)) {
    t = ctx.Add(OpId::kPad, {*t},
                {{"paddings", Ints({0, 0, lo, hi + extra, 0, 0, 0, 0, 0, 0})},
                 {"constant_value", AttrValue::Float(fill)}});
  }
  if (!t.ok()) return t.status();
  v.padded = *t;
  return v;
}

// The depths depth tap kd reads, folded into the batch: [N * D', H, W, C].
absl::StatusOr<ir::ValueRef> DepthTap(Context& ctx, const Volume& v, int64_t kd) {
  const int64_t start = kd * v.w.dilations[0], s = v.w.strides[0];
  absl::StatusOr<ir::ValueRef> t =
      ctx.Add(OpId::kSlice, {v.padded},
              {{"begin", Ints({0, start, 0, 0, 0})},
               {"end", Ints({kOpen, start + (v.out_d - 1) * s + 1, kOpen, kOpen, kOpen})},
               {"strides", Ints({1, s, 1, 1, 1})}});
  if (!t.ok()) return t;
  return ctx.Add(OpId::kReshape, {*t}, {{"shape", Ints({-1, v.h, v.wd, v.c})}});
}

// The height/width part of the window as 2-D op attributes.
Attrs PlaneAttrs(const Volume& v, bool dilations) {
  Attrs a{{"strides", Ints({v.w.strides[1], v.w.strides[2]})},
          {"padding", AttrValue::String("EXPLICIT")},
          {"pads", Ints({v.w.begin[1], v.w.end[1], v.w.begin[2], v.w.end[2]})}};
  if (dilations) a.Set("dilations", Ints({v.w.dilations[1], v.w.dilations[2]}));
  return a;
}

// [N * D', H', W', C'] back to [N, C', D', H', W'].
absl::StatusOr<ir::ValueRef> Unfold(Context& ctx, const Volume& v, ir::ValueRef y) {
  const SymShape ys = ctx.Type(y).shape;
  absl::StatusOr<ir::ValueRef> r =
      ctx.Add(OpId::kReshape, {y},
              {{"shape", Ints({-1, v.out_d, ys[1].value(), ys[2].value(), ys[3].value()})}});
  if (!r.ok()) return r;
  return ctx.Add(OpId::kTranspose, {*r}, {{"perm", Ints({0, 4, 1, 2, 3})}});
}

}  // namespace

absl::StatusOr<ir::ValueRef> Conv3D(Context& ctx, ir::ValueRef x, ir::ValueRef w,
                                    std::optional<ir::ValueRef> bias, int64_t groups) {
  const SymShape ws = ctx.Type(w).shape;
  if (ws.rank() != 5) return ctx.Error("weights must be [O, I, KD, KH, KW]");
  std::vector<int64_t> kernel;
  for (int i = 2; i < 5; ++i) kernel.push_back(ws[i].is_static() ? ws[i].value() : 0);
  absl::StatusOr<Volume> v = Prepare(ctx, x, kernel, false, 0);
  if (!v.ok()) return v.status();
  Attrs attrs = PlaneAttrs(*v, true);
  attrs.Set("groups", AttrValue::Int(groups));
  std::optional<ir::ValueRef> acc;
  for (int64_t kd = 0; kd < v->w.kernel[0]; ++kd) {
    absl::StatusOr<ir::ValueRef> xs = DepthTap(ctx, *v, kd);
    absl::StatusOr<ir::ValueRef> wk = ctx.Add(
        OpId::kSlice, {w},
        {{"begin", Ints({0, 0, kd, 0, 0})}, {"end", Ints({kOpen, kOpen, kd + 1, kOpen, kOpen})}});
    if (wk.ok()) wk = ctx.Add(OpId::kSqueeze, {*wk}, {{"axes", Ints({2})}});
    if (wk.ok()) wk = WeightsToHWIO(ctx, *wk);
    if (!xs.ok() || !wk.ok()) return !xs.ok() ? xs.status() : wk.status();
    absl::StatusOr<ir::ValueRef> y = ctx.Add(OpId::kConv2D, {*xs, *wk}, attrs);
    if (y.ok() && acc) y = ctx.Add(OpId::kAdd, {*acc, *y});
    if (!y.ok()) return y.status();
    acc = *y;
  }
  if (bias) {
    absl::StatusOr<ir::ValueRef> b = ctx.Add(OpId::kAdd, {*acc, *bias});
    if (!b.ok()) return b.status();
    acc = *b;
  }
  return Unfold(ctx, *v, *acc);
}

absl::StatusOr<ir::ValueRef> Pool3D(Context& ctx, ir::ValueRef x, OpId op) {
  const bool is_max = op == OpId::kMaxPool2D;
  const bool same = ctx.AttrString("auto_pad", "NOTSET").rfind("SAME", 0) == 0;
  const bool ceil_mode = !same && ctx.AttrInt("ceil_mode", 0) != 0;
  const bool include_pad = ctx.AttrInt("count_include_pad", 0) != 0;
  absl::StatusOr<Volume> v =
      Prepare(ctx, x, {}, ceil_mode, is_max ? -std::numeric_limits<double>::infinity() : 0.0);
  if (!v.ok()) return v.status();
  Attrs attrs = PlaneAttrs(*v, is_max);
  attrs.Set("ksize", Ints({v->w.kernel[1], v->w.kernel[2]}));
  attrs.Set("ceil_mode", AttrValue::Int(ceil_mode));
  if (!is_max) attrs.Set("count_include_pad", AttrValue::Int(include_pad));
  std::optional<ir::ValueRef> acc;
  for (int64_t kd = 0; kd < v->w.kernel[0]; ++kd) {
    absl::StatusOr<ir::ValueRef> y = DepthTap(ctx, *v, kd);
    if (y.ok()) y = ctx.Add(op, {*y}, attrs);
    if (y.ok() && acc) y = ctx.Add(is_max ? OpId::kMaximum : OpId::kAdd, {*acc, *y});
    if (!y.ok()) return y.status();
    acc = *y;
  }
  absl::StatusOr<ir::ValueRef> y = Unfold(ctx, *v, *acc);
  if (!y.ok() || is_max) return y;
  // Divide each output depth's sum by the depth taps it counts.
  const int64_t lo = v->w.begin[0], s = v->w.strides[0], dil = v->w.dilations[0];
  const int64_t padded = v->d + lo + v->w.end[0];
  std::vector<double> inv(static_cast<size_t>(v->out_d));
  for (int64_t od = 0; od < v->out_d; ++od) {
    int64_t count = 0;
    for (int64_t kd = 0; kd < v->w.kernel[0]; ++kd) {
      const int64_t p = od * s + kd * dil;
      count += include_pad ? p < padded : (p >= lo && p < lo + v->d);
    }
    inv[static_cast<size_t>(od)] = 1.0 / static_cast<double>(std::max<int64_t>(count, 1));
  }
  ConstTensor scale = ConstTensor::Copy(DType::kFloat64, Shape{v->out_d, 1, 1}, inv.data());
  absl::StatusOr<ir::ValueRef> k =
      ctx.Add(OpId::kCast, {ctx.Constant(scale)}, {{"dtype", AttrValue::Type(ctx.Type(x).dtype)}});
  if (!k.ok()) return k.status();
  return ctx.Add(OpId::kMul, {*y, *k});
}

}  // namespace tfn::onnx_import
