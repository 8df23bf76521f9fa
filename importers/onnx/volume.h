// 3-D Conv, MaxPool and AveragePool lowered onto tfn's 2-D ops, one 2-D op
// per depth tap of the window.
//
// The input goes to NDHWC and is padded along depth; for each depth tap kd
// the depths that tap reads (a strided slice) fold into the batch, a 2-D op
// handles height and width, and the taps combine: conv2d outputs add up (the
// filter's depth slice kd each), max pools take the maximum, average pools
// add up and divide by the depth taps each output counts (average pooling's
// divisor is a product over the axes, so it splits). Needs static channel
// and spatial dims; the batch may be dynamic.
#pragma once

#include <optional>

#include "importers/onnx/context.h"

namespace tfn::onnx_import {

// x [N, C, D, H, W], w [O, C/groups, KD, KH, KW], bias [O] -> [N, O, D', H', W'].
absl::StatusOr<ir::ValueRef> Conv3D(Context& ctx, ir::ValueRef x, ir::ValueRef w,
                                    std::optional<ir::ValueRef> bias, int64_t groups);

// `op` is kMaxPool2D or kAvgPool2D; the node's attributes give the window.
absl::StatusOr<ir::ValueRef> Pool3D(Context& ctx, ir::ValueRef x, OpId op);

}  // namespace tfn::onnx_import
