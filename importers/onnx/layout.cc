// Implementation of the NCHW -> NHWC lowering helpers.
#include "importers/onnx/layout.h"

#include <algorithm>

namespace tfn::onnx_import {
namespace {

AttrValue Ints(std::vector<int64_t> v) { return AttrValue::Ints(std::move(v)); }

absl::StatusOr<ir::ValueRef> Transpose(Context& ctx, ir::ValueRef x, std::vector<int64_t> perm) {
  return ctx.Add(OpId::kTranspose, {x}, {{"perm", Ints(std::move(perm))}});
}

}  // namespace

absl::StatusOr<ir::ValueRef> ToNHWC(Context& ctx, ir::ValueRef x) {
  if (ctx.Type(x).shape.rank() == 4) return Transpose(ctx, x, {0, 2, 3, 1});
  // 1-D: transpose first, then add the unit height, so that between two 1-D
  // ops the transposes meet (and cancel) with only free reshapes around.
  absl::StatusOr<ir::ValueRef> t = Transpose(ctx, x, {0, 2, 1});
  if (!t.ok()) return t;
  return ctx.Add(OpId::kExpandDims, {*t}, {{"axis", AttrValue::Int(1)}});
}

absl::StatusOr<ir::ValueRef> FromNHWC(Context& ctx, ir::ValueRef y, int rank) {
  if (rank == 4) return Transpose(ctx, y, {0, 3, 1, 2});
  absl::StatusOr<ir::ValueRef> s = ctx.Add(OpId::kSqueeze, {y}, {{"axes", Ints({1})}});
  if (!s.ok()) return s;
  return Transpose(ctx, *s, {0, 2, 1});
}

absl::StatusOr<ir::ValueRef> WeightsToHWIO(Context& ctx, ir::ValueRef w) {
  int rank = ctx.Type(w).shape.rank();
  if (rank != 3 && rank != 4) {
    return ctx.Error("weights must be [O, I, K] or [O, I, KH, KW], got " + ctx.Type(w).ToString());
  }
  if (rank == 3) {
    absl::StatusOr<ir::ValueRef> e = ctx.Add(OpId::kExpandDims, {w}, {{"axis", AttrValue::Int(2)}});
    if (!e.ok()) return e;
    w = *e;
  }
  return Transpose(ctx, w, {2, 3, 1, 0});
}

std::vector<SymDim> SpatialDims(const SymShape& x) {
  std::vector<SymDim> out;
  for (int i = 2; i < x.rank(); ++i) out.push_back(x[i]);
  return out;
}

absl::StatusOr<SpatialWindow> ReadSpatialWindow(Context& ctx, const SymShape& x,
                                                std::vector<int64_t> kernel) {
  const int rank = x.rank();
  if (rank < 3)
    return ctx.Error("input must be [N, C, spatial...], got rank " + std::to_string(rank));
  const size_t sp = static_cast<size_t>(rank - 2);
  SpatialWindow w;
  w.kernel = ctx.AttrInts("kernel_shape", std::move(kernel));
  w.strides = ctx.AttrInts("strides", std::vector<int64_t>(sp, 1));
  w.dilations = ctx.AttrInts("dilations", std::vector<int64_t>(sp, 1));
  std::vector<int64_t> p = ctx.AttrInts("pads", std::vector<int64_t>(2 * sp, 0));
  if (w.kernel.size() != sp || w.strides.size() != sp || w.dilations.size() != sp ||
      p.size() != 2 * sp) {
    return ctx.Error("kernel_shape, strides, dilations and pads must match the " +
                     std::to_string(sp) + " spatial dims");
  }
  for (size_t i = 0; i < sp; ++i) {
    if (w.kernel[i] <= 0 || w.strides[i] <= 0 || w.dilations[i] <= 0) {
      return ctx.Error("kernel_shape, strides and dilations must be positive");
    }
  }
  w.begin.assign(sp, 0);
  w.end.assign(sp, 0);
  const std::string auto_pad = ctx.AttrString("auto_pad", "NOTSET");
  if (auto_pad == "VALID") {
    w.valid = true;
  } else if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    bool all_static = true;
    for (size_t i = 0; i < sp; ++i) all_static &= x[static_cast<int>(i) + 2].is_static();
    if (!all_static) {
      if (auto_pad == "SAME_LOWER")
        return ctx.Unsupported("SAME_LOWER padding of dynamic spatial dims");
      w.same = true;
    }
    for (size_t i = 0; i < sp && all_static; ++i) {
      const int64_t in = x[static_cast<int>(i) + 2].value(), s = w.strides[i];
      const int64_t out = (in + s - 1) / s;
      const int64_t total =
          std::max<int64_t>((out - 1) * s + (w.kernel[i] - 1) * w.dilations[i] + 1 - in, 0);
      // The odd cell goes after the input for SAME_UPPER, before it for SAME_LOWER.
      w.begin[i] = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
      w.end[i] = total - w.begin[i];
    }
  } else if (auto_pad == "NOTSET" || auto_pad.empty()) {
    for (size_t i = 0; i < sp; ++i) {
      w.begin[i] = p[i];
      w.end[i] = p[sp + i];
      if (w.begin[i] < 0 || w.end[i] < 0) return ctx.Unsupported("negative pads");
    }
  } else {
    return ctx.Error("auto_pad '" + auto_pad + "' is not NOTSET, SAME_UPPER, SAME_LOWER or VALID");
  }
  return w;
}

absl::StatusOr<Window> ReadWindow(Context& ctx, const SymShape& x, std::vector<int64_t> kernel) {
  const int rank = x.rank();
  if (rank > 4) {
    return ctx.Unsupported("a " + std::to_string(rank - 2) + "-D " + ctx.node().op_type() +
                           " (tfn lowers 1-D, 2-D and some 3-D ones)");
  }
  absl::StatusOr<SpatialWindow> sw = ReadSpatialWindow(ctx, x, std::move(kernel));
  if (!sw.ok()) return sw.status();
  Window w;
  w.spatial = rank - 2;
  w.padding = sw->valid ? "VALID" : sw->same ? "SAME" : "EXPLICIT";
  if (w.spatial == 1) {
    w.kernel = {1, sw->kernel[0]};
    w.strides = {1, sw->strides[0]};
    w.dilations = {1, sw->dilations[0]};
    w.pads = {0, 0, sw->begin[0], sw->end[0]};
  } else {
    w.kernel = sw->kernel;
    w.strides = sw->strides;
    w.dilations = sw->dilations;
    w.pads = {sw->begin[0], sw->end[0], sw->begin[1], sw->end[1]};
  }
  return w;
}

Attrs WindowAttrs(const Window& w, bool with_dilations) {
  Attrs a{{"strides", Ints(w.strides)}, {"padding", AttrValue::String(w.padding)}};
  if (w.padding == "EXPLICIT") a.Set("pads", Ints(w.pads));
  if (with_dilations) a.Set("dilations", Ints(w.dilations));
  return a;
}

}  // namespace tfn::onnx_import
