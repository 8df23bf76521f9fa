// ONNX's Reshape, Slice, Squeeze and Unsqueeze when their shape, bounds or
// axes are computed at run time (graph inputs, data): the converters in
// ops_shape.cc handle constant and symbolic values and fall back to these,
// which feed tfn's data-dependent reshape and slice inputs. Each reads the
// current node's inputs from `ctx` and binds its output.
#pragma once

#include <string>
#include <vector>

#include "importers/onnx/context.h"
#include "ir/fresh_dim.h"

namespace tfn::onnx_import {

// The "dims" attribute for a shape input whose values are known (ir/fresh_dim.h).
using ir::DimsAttribute;

// Reshape(x, shape) with `shape` a run-time int64 vector (0 copies the input's
// dim unless allow_zero; one -1 is inferred).
absl::Status ReshapeAtRunTime(Context& ctx, ir::ValueRef x, ir::ValueRef shape, bool allow_zero);
// The same for a `shape` whose values the importer knows as dim expressions
// (`known`, from Shape/Gather/Concat chains) but that no reshape attribute
// can say: several entries are dims of other tensors, as in [b, 12, s, 64]
// from [b*12, s, 64] (attention exported with dynamic batch and sequence).
// The output's type keeps the known dims, so compiled code computes its
// sizes from the input dims and the runtime checks the static ones.
absl::Status ReshapeToKnownAtRunTime(Context& ctx, ir::ValueRef x, ir::ValueRef shape,
                                     const std::vector<SymDim>& known, bool allow_zero);
// Slice (opset >= 10) with starts/ends/axes/steps of which some are run-time values.
absl::Status SliceAtRunTime(Context& ctx, ir::ValueRef x);
// Squeeze/Unsqueeze (opset >= 13) with run-time axes of a static length.
absl::Status SqueezeAtRunTime(Context& ctx, ir::ValueRef x);
absl::Status UnsqueezeAtRunTime(Context& ctx, ir::ValueRef x);

}  // namespace tfn::onnx_import
