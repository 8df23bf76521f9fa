// Converters of ONNX's Conv (1-D, 2-D, and 3-D through volume.h) and
// ConvTranspose (1-D and 2-D; 3-D is refused).
//
// Both lower NCHW to tfn's NHWC ops: transpose(x, [0,2,3,1]) -> conv2d or
// conv2d_transpose -> transpose back, with the weights transposed to the
// filter layout by Context::Add (folded at import when they are constants).
// The transpose pairs between consecutive convolutions are cancelled by the
// transpose_sinking pass and algebraic simplification.
#include "importers/onnx/layout.h"
#include "importers/onnx/volume.h"

namespace tfn::onnx_import {
namespace {

AttrValue Ints(std::vector<int64_t> v) { return AttrValue::Ints(std::move(v)); }

std::vector<int64_t> KernelOf(const SymShape& w) {
  std::vector<int64_t> k;
  for (int i = 2; i < w.rank(); ++i) k.push_back(w[i].is_static() ? w[i].value() : 0);
  return k;
}

absl::Status ConvertConv(Context& ctx) {
  absl::StatusOr<ir::ValueRef> x = ctx.Input(0), w = ctx.Input(1);
  if (!x.ok() || !w.ok()) return !x.ok() ? x.status() : w.status();
  const SymShape xs = ctx.Type(*x).shape;
  if (xs.rank() == 5) {
    std::optional<ir::ValueRef> bias;
    if (ctx.HasInput(2)) {
      absl::StatusOr<ir::ValueRef> b = ctx.Input(2);
      if (!b.ok()) return b.status();
      bias = *b;
    }
    absl::StatusOr<ir::ValueRef> y = Conv3D(ctx, *x, *w, bias, ctx.AttrInt("group", 1));
    if (!y.ok()) return y.status();
    return ctx.Output(0, *y);
  }
  absl::StatusOr<Window> win = ReadWindow(ctx, xs, KernelOf(ctx.Type(*w).shape));
  if (!win.ok()) return win.status();
  absl::StatusOr<ir::ValueRef> xt = ToNHWC(ctx, *x);
  absl::StatusOr<ir::ValueRef> f = WeightsToHWIO(ctx, *w);
  if (!xt.ok() || !f.ok()) return !xt.ok() ? xt.status() : f.status();
  std::vector<ir::ValueRef> inputs = {*xt, *f};
  if (ctx.HasInput(2)) {
    absl::StatusOr<ir::ValueRef> b = ctx.Input(2);
    if (!b.ok()) return b.status();
    inputs.push_back(*b);
  }
  Attrs attrs = WindowAttrs(*win);
  attrs.Set("groups", AttrValue::Int(ctx.AttrInt("group", 1)));
  absl::StatusOr<ir::ValueRef> y = ctx.Add(OpId::kConv2D, inputs, attrs);
  if (y.ok()) y = FromNHWC(ctx, *y, xs.rank());
  if (!y.ok()) return y.status();
  return ctx.Output(0, *y);
}
TFN_ONNX_CONVERTER("Conv", 1, ConvertConv);

// ConvTranspose's padding: explicit pads, or a total padding derived from
// output_shape or auto_pad SAME_* (output = input * stride) and split with
// the odd cell at the end for SAME_UPPER and at the start otherwise (ONNX's
// rule). A negative total (output_shape beyond the full output) becomes
// output padding.
absl::Status ConvertConvTranspose(Context& ctx) {
  absl::StatusOr<ir::ValueRef> x = ctx.Input(0), w = ctx.Input(1);
  if (!x.ok() || !w.ok()) return !x.ok() ? x.status() : w.status();
  const SymShape xs = ctx.Type(*x).shape;
  const int rank = xs.rank();
  if (rank > 4) return ctx.Unsupported("a " + std::to_string(rank - 2) + "-D ConvTranspose");
  if (rank < 3) return ctx.Error("input must be [N, C, spatial...]");
  const size_t sp = static_cast<size_t>(rank - 2);
  std::vector<int64_t> k = ctx.AttrInts("kernel_shape", KernelOf(ctx.Type(*w).shape));
  std::vector<int64_t> s = ctx.AttrInts("strides", std::vector<int64_t>(sp, 1));
  std::vector<int64_t> d = ctx.AttrInts("dilations", std::vector<int64_t>(sp, 1));
  std::vector<int64_t> p = ctx.AttrInts("pads", std::vector<int64_t>(2 * sp, 0));
  std::vector<int64_t> op = ctx.AttrInts("output_padding", std::vector<int64_t>(sp, 0));
  std::vector<int64_t> out_shape = ctx.AttrInts("output_shape");
  if (out_shape.size() == sp + 2) out_shape.erase(out_shape.begin(), out_shape.begin() + 2);
  const std::string auto_pad = ctx.AttrString("auto_pad", "NOTSET");
  if (k.size() != sp || s.size() != sp || d.size() != sp || p.size() != 2 * sp || op.size() != sp ||
      (!out_shape.empty() && out_shape.size() != sp)) {
    return ctx.Error(
        "kernel_shape, strides, dilations, pads, output_padding and output_shape must "
        "match the spatial dims");
  }
  std::vector<int64_t> begin(sp, 0), end(sp, 0);
  for (size_t i = 0; i < sp; ++i) {
    const int64_t eff = (k[i] - 1) * d[i] + 1;
    bool derived = true;
    int64_t total = 0;
    if (!out_shape.empty()) {
      const SymDim& in = xs[static_cast<int>(i) + 2];
      if (!in.is_static()) return ctx.Unsupported("output_shape with dynamic spatial dims");
      total = s[i] * (in.value() - 1) + op[i] + eff - out_shape[i];
    } else if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      total = op[i] + eff - s[i];
    } else {
      derived = false;
      if (auto_pad != "VALID") {
        begin[i] = p[i];
        end[i] = p[sp + i];
      }
    }
    if (derived && total < 0) {
      op[i] -= total;
    } else if (derived) {
      begin[i] = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
      end[i] = total - begin[i];
    }
    if (begin[i] < 0 || end[i] < 0) return ctx.Unsupported("negative pads");
  }
  Attrs attrs{{"groups", AttrValue::Int(ctx.AttrInt("group", 1))}};
  if (sp == 1) {
    attrs.Set("strides", Ints({1, s[0]}));
    attrs.Set("dilations", Ints({1, d[0]}));
    attrs.Set("pads", Ints({0, 0, begin[0], end[0]}));
    attrs.Set("output_padding", Ints({0, op[0]}));
  } else {
    attrs.Set("strides", Ints(s));
    attrs.Set("dilations", Ints(d));
    attrs.Set("pads", Ints({begin[0], end[0], begin[1], end[1]}));
    attrs.Set("output_padding", Ints(op));
  }
  // ONNX weights [C_in, C_out/groups, KH, KW] -> tfn's [KH, KW, C_out/groups, C_in]:
  // the same permutation as Conv's OIHW -> HWIO.
  absl::StatusOr<ir::ValueRef> xt = ToNHWC(ctx, *x);
  absl::StatusOr<ir::ValueRef> f = WeightsToHWIO(ctx, *w);
  if (!xt.ok() || !f.ok()) return !xt.ok() ? xt.status() : f.status();
  std::vector<ir::ValueRef> inputs = {*xt, *f};
  if (ctx.HasInput(2)) {
    absl::StatusOr<ir::ValueRef> b = ctx.Input(2);
    if (!b.ok()) return b.status();
    inputs.push_back(*b);
  }
  absl::StatusOr<ir::ValueRef> y = ctx.Add(OpId::kConv2DTranspose, inputs, attrs);
  if (y.ok()) y = FromNHWC(ctx, *y, rank);
  if (!y.ok()) return y.status();
  return ctx.Output(0, *y);
}
TFN_ONNX_CONVERTER("ConvTranspose", 1, ConvertConvTranspose);

}  // namespace
}  // namespace tfn::onnx_import
