// Converters of ONNX's data-movement ops in NCHW: DepthToSpace (DCR and CRD),
// SpaceToDepth (as reshape -> 6-D transpose -> reshape, which tfn folds or
// runs as one transpose kernel) and Pad (constant, reflect, edge; negative
// static pads crop with a slice; pads known only at run time feed pad's
// data-dependent paddings input).
#include <algorithm>

#include "importers/onnx/context.h"

namespace tfn::onnx_import {
namespace {

AttrValue Ints(std::vector<int64_t> v) { return AttrValue::Ints(std::move(v)); }

// Reshape whose dim 0 (the batch) may be dynamic: 0 copies it.
absl::StatusOr<ir::ValueRef> ReshapeKeepingBatch(Context& ctx, ir::ValueRef x,
                                                 std::vector<int64_t> shape) {
  const bool dynamic = !ctx.Type(x).shape[0].is_static();
  if (dynamic) shape[0] = 0;
  Attrs attrs{{"shape", Ints(shape)}, {"copy_zero", AttrValue::Int(dynamic ? 1 : 0)}};
  return ctx.Add(OpId::kReshape, {x}, attrs);
}

// Shared by DepthToSpace and SpaceToDepth: x is [N, C, H, W] with static C, H, W.
absl::Status Rearrange(Context& ctx, bool to_space) {
  absl::StatusOr<ir::ValueRef> x = ctx.Input(0);
  if (!x.ok()) return x.status();
  const SymShape s = ctx.Type(*x).shape;
  if (s.rank() != 4) return ctx.Error("input must be [N, C, H, W], got " + ctx.Type(*x).ToString());
  for (int i = 1; i < 4; ++i) {
    if (!s[i].is_static()) return ctx.Unsupported("dynamic channel or spatial dims");
  }
  const int64_t b = ctx.AttrInt("blocksize", 0);
  const int64_t n = s[0].is_static() ? s[0].value() : 0, c = s[1].value(), h = s[2].value(),
                w = s[3].value();
  if (b <= 0) return ctx.Error("blocksize must be positive");
  std::vector<int64_t> split, perm, merged;
  if (to_space) {
    if (c % (b * b) != 0) return ctx.Error("channels are not divisible by blocksize^2");
    const bool crd = ctx.AttrString("mode", "DCR") == "CRD";
    // DCR: channels are (block row, block column, depth); CRD: (depth, row, column).
    split = crd ? std::vector<int64_t>{n, c / (b * b), b, b, h, w}
                : std::vector<int64_t>{n, b, b, c / (b * b), h, w};
    perm = crd ? std::vector<int64_t>{0, 1, 4, 2, 5, 3} : std::vector<int64_t>{0, 3, 4, 1, 5, 2};
    merged = {n, c / (b * b), h * b, w * b};
  } else {
    if (h % b != 0 || w % b != 0) return ctx.Error("spatial dims are not divisible by blocksize");
    split = {n, c, h / b, b, w / b, b};
    perm = {0, 3, 5, 1, 2, 4};
    merged = {n, c * b * b, h / b, w / b};
  }
  absl::StatusOr<ir::ValueRef> y = ReshapeKeepingBatch(ctx, *x, split);
  if (y.ok()) y = ctx.Add(OpId::kTranspose, {*y}, {{"perm", Ints(perm)}});
  if (y.ok()) y = ReshapeKeepingBatch(ctx, *y, merged);
  if (!y.ok()) return y.status();
  return ctx.Output(0, *y);
}
TFN_ONNX_CONVERTER("DepthToSpace", 1, [](Context& ctx) { return Rearrange(ctx, true); });
TFN_ONNX_CONVERTER("SpaceToDepth", 1, [](Context& ctx) { return Rearrange(ctx, false); });

// Pad's paddings computed at run time (opset >= 11): ONNX's [begins..., ends...]
// becomes tfn's (before, after) pairs with reshape -> transpose -> reshape,
// fed to pad as its data-dependent input 1. Negative values fail at run time.
absl::Status PadAtRunTime(Context& ctx, ir::ValueRef x, const std::string& mode) {
  const int rank = ctx.Type(x).shape.rank();
  absl::StatusOr<ir::ValueRef> pads = ctx.Input(1);
  if (pads.ok()) pads = ctx.Add(OpId::kReshape, {*pads}, {{"shape", Ints({2, rank})}});
  if (pads.ok()) pads = ctx.Add(OpId::kTranspose, {*pads}, {{"perm", Ints({1, 0})}});
  if (pads.ok()) pads = ctx.Add(OpId::kReshape, {*pads}, {{"shape", Ints({2 * rank})}});
  if (!pads.ok()) return pads.status();
  std::vector<ir::ValueRef> inputs = {x, *pads};
  if (ctx.HasInput(2)) {
    absl::StatusOr<ir::ValueRef> v = ctx.Input(2);
    if (v.ok()) v = ctx.Add(OpId::kReshape, {*v}, {{"shape", Ints({})}});
    if (!v.ok()) return v.status();
    inputs.push_back(*v);
  }
  absl::StatusOr<ir::ValueRef> y = ctx.Add(OpId::kPad, inputs, {{"mode", AttrValue::String(mode)}});
  if (!y.ok()) return y.status();
  return ctx.Output(0, *y);
}

// Pad: pads [x1_begin, x2_begin, ..., x1_end, x2_end] from the attribute
// (opset < 11) or input 1, onto tfn's (before, after) pairs.
absl::Status ConvertPad(Context& ctx) {
  absl::StatusOr<ir::ValueRef> x = ctx.Input(0);
  if (!x.ok()) return x.status();
  const int rank = ctx.Type(*x).shape.rank();
  std::string mode = ctx.AttrString("mode", "constant");
  if (mode != "constant" && mode != "reflect" && mode != "edge") {
    return ctx.Unsupported("Pad mode '" + mode + "'");
  }
  std::vector<int64_t> pads;
  double value = 0;
  if (ctx.opset() < 11) {
    pads = ctx.AttrInts("pads");
    value = ctx.AttrFloat("value", 0);
  } else {
    absl::StatusOr<ir::ValueRef> p = ctx.Input(1);
    if (!p.ok()) return p.status();
    bool value_known = true;
    if (ctx.HasInput(2)) {
      absl::StatusOr<ir::ValueRef> v = ctx.Input(2);
      if (!v.ok()) return v.status();
      value_known = ctx.ConstantOf(*v) != nullptr;
    }
    if (!ctx.KnownValues(*p) || !value_known) return PadAtRunTime(ctx, *x, mode);
    absl::StatusOr<std::vector<int64_t>> known = ctx.ConstInts(1);
    if (!known.ok()) return PadAtRunTime(ctx, *x, mode);  // symbolic, not static
    pads = *known;
    if (ctx.HasInput(2)) {
      absl::StatusOr<std::vector<double>> v = ctx.ConstFloats(2);
      if (!v.ok()) return v.status();
      if (v->size() != 1) return ctx.Error("constant_value must be a scalar");
      value = (*v)[0];
    }
  }
  if (pads.size() != 2 * static_cast<size_t>(rank)) {
    return ctx.Error("pads must have 2 entries per dim of the input (" + std::to_string(2 * rank) +
                     ")");
  }
  // Positive parts pad; negative parts crop afterwards.
  constexpr int64_t kOpen = int64_t{1} << 62;
  std::vector<int64_t> paddings, begin(rank, 0), end(rank, kOpen);
  bool crop = false;
  for (int i = 0; i < rank; ++i) {
    const int64_t lo = pads[i], hi = pads[rank + i];
    paddings.push_back(std::max<int64_t>(lo, 0));
    paddings.push_back(std::max<int64_t>(hi, 0));
    if (lo < 0) begin[i] = -lo;
    if (hi < 0) end[i] = hi;
    crop |= lo < 0 || hi < 0;
  }
  absl::StatusOr<ir::ValueRef> y = ctx.Add(OpId::kPad, {*x},
                                           {{"paddings", Ints(paddings)},
                                            {"mode", AttrValue::String(mode)},
                                            {"constant_value", AttrValue::Float(value)}});
  if (y.ok() && crop) {
    y = ctx.Add(OpId::kSlice, {*y}, {{"begin", Ints(begin)}, {"end", Ints(end)}});
  }
  if (!y.ok()) return y.status();
  return ctx.Output(0, *y);
}
TFN_ONNX_CONVERTER("Pad", 1, ConvertPad);

}  // namespace
}  // namespace tfn::onnx_import
