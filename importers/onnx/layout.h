// Lowering helpers shared by the converters of ONNX's convolutions and
// pooling: ONNX is channels-first (NCL, NCHW) with OIHW weights, tfn's
// conv2d/conv2d_transpose/pool ops are NHWC with HWIO-style filters.
//
// A 1-D op runs as a 2-D op of height 1. Activations move between layouts
// with one transpose on the way in and one on the way out (the passes cancel
// the pairs between consecutive ops); weights are transposed with
// Context::Add, which folds the transpose of a constant at import time.
#pragma once

#include <string>
#include <vector>

#include "importers/onnx/context.h"

namespace tfn::onnx_import {

// [N,C,H,W] -> [N,H,W,C]; a 1-D [N,C,L] becomes [N,1,L,C].
absl::StatusOr<ir::ValueRef> ToNHWC(Context& ctx, ir::ValueRef x);
// The inverse of ToNHWC for an output of the given original rank (3 or 4).
absl::StatusOr<ir::ValueRef> FromNHWC(Context& ctx, ir::ValueRef y, int rank);
// ONNX weights [O, I, KH, KW] (or [O, I, K]) -> [KH, KW, I, O] (1-D: [1, K, I, O]).
absl::StatusOr<ir::ValueRef> WeightsToHWIO(Context& ctx, ir::ValueRef w);

// The spatial window attributes of a Conv/ConvTranspose/pool node, as the
// 2-D lists tfn's ops take (a 1-D node gets height 1 everywhere).
struct Window {
  int spatial = 0;                 // 1 or 2
  std::vector<int64_t> kernel;     // {kh, kw}
  std::vector<int64_t> strides;    // {sh, sw}
  std::vector<int64_t> dilations;  // {dh, dw}
  std::string padding;             // "VALID", "SAME" or "EXPLICIT"
  std::vector<int64_t> pads;       // {top, bottom, left, right} for EXPLICIT
};

// The same per ONNX spatial dim, any number of them, padding resolved to
// explicit {begin, end} (SAME_* needs static dims, except SAME_UPPER, which
// sets `same` and leaves begin/end 0).
struct SpatialWindow {
  std::vector<int64_t> kernel, strides, dilations, begin, end;
  bool valid = false;  // auto_pad VALID
  bool same = false;   // SAME_UPPER on dynamic dims: tfn's "SAME"
};
absl::StatusOr<SpatialWindow> ReadSpatialWindow(Context& ctx, const SymShape& x,
                                                std::vector<int64_t> kernel);

// Reads kernel_shape (or `kernel` when the node has none), strides,
// dilations, pads and auto_pad for input `x` (rank 3 or 4; rank 5 and up is
// refused as unsupported, naming the op's dimensionality). SAME_UPPER with
// static spatial dims and SAME_LOWER become explicit pads; SAME_UPPER on
// dynamic dims stays "SAME" (tfn's SAME is ONNX's SAME_UPPER).
absl::StatusOr<Window> ReadWindow(Context& ctx, const SymShape& x, std::vector<int64_t> kernel);

// Attrs {strides, dilations, padding, pads} of a Window for conv2d/pool ops.
Attrs WindowAttrs(const Window& w, bool with_dilations = true);

// The spatial dims of an NC... shape (for messages and static checks).
std::vector<SymDim> SpatialDims(const SymShape& x);

}  // namespace tfn::onnx_import
