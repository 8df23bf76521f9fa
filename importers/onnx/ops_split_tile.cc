// Converters of ONNX's Split and Tile onto tfn's split and tile. Their sizes
// and repeats (inputs from opset 13 and 6; Split's attribute before) become
// attributes when constant, else the ops' run-time inputs (data-dependent
// output shapes).
#include <algorithm>

#include "importers/onnx/context.h"

namespace tfn::onnx_import {
namespace {

using Ref = ir::ValueRef;

AttrValue Int(int64_t v) { return AttrValue::Int(v); }
AttrValue Ints(std::vector<int64_t> v) { return AttrValue::Ints(std::move(v)); }

// Split: sizes from input 1 (opset 13+, maybe run-time), the 'split'
// attribute (before 13), or equal parts, one per output (opset 18's
// num_outputs: the last part may be smaller).
absl::Status ConvertSplit(Context& ctx) {
  TFN_ASSIGN_OR_RETURN(Ref x, ctx.Input(0));
  const int outputs = ctx.node().output_size();
  if (outputs < 1) return ctx.Error("Split needs at least one output");
  const int64_t axis = ctx.AttrInt("axis", 0);
  Attrs attrs{{"axis", Int(axis)}, {"num_splits", Int(outputs)}};
  std::vector<Ref> in = {x};
  if (ctx.HasInput(1)) {
    TFN_ASSIGN_OR_RETURN(Ref sizes, ctx.Input(1));
    absl::StatusOr<std::vector<int64_t>> known = ctx.ConstInts(1);
    if (known.ok()) {
      attrs.Set("sizes", Ints(*known));
    } else {
      in.push_back(sizes);
    }
  } else if (ctx.HasAttr("split")) {
    attrs.Set("sizes", Ints(ctx.AttrInts("split")));
  } else if (ctx.HasAttr("num_outputs")) {
    // Parts of ceil(dim / n), the last one smaller (needs a static dim).
    const SymShape& s = ctx.Type(x).shape;
    int a;
    if (!NormalizeAxis(axis, s.rank(), &a)) return ctx.Error("axis is out of range");
    if (!s[a].is_static()) return ctx.Unsupported("num_outputs over a dynamic dim");
    const int64_t dim = s[a].value(), part = (dim + outputs - 1) / outputs;
    std::vector<int64_t> sizes;
    for (int i = 0; i < outputs; ++i)
      sizes.push_back(std::max<int64_t>(0, std::min(part, dim - i * part)));
    attrs.Set("sizes", Ints(sizes));
  }
  TFN_ASSIGN_OR_RETURN(std::vector<Ref> parts, ctx.AddMulti(OpId::kSplit, in, attrs));
  if (parts.size() != static_cast<size_t>(outputs)) {
    return ctx.Error("split has " + std::to_string(parts.size()) + " sizes for " +
                     std::to_string(outputs) + " outputs");
  }
  for (int i = 0; i < outputs; ++i) {
    absl::Status s = ctx.Output(i, parts[static_cast<size_t>(i)]);
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}
TFN_ONNX_CONVERTER("Split", 1, ConvertSplit);

absl::Status ConvertTile(Context& ctx) {
  TFN_ASSIGN_OR_RETURN(Ref x, ctx.Input(0));
  TFN_ASSIGN_OR_RETURN(Ref repeats, ctx.Input(1));
  absl::StatusOr<std::vector<int64_t>> known = ctx.ConstInts(1);
  absl::StatusOr<Ref> y = known.ok() ? ctx.Add(OpId::kTile, {x}, {{"multiples", Ints(*known)}})
                                     : ctx.Add(OpId::kTile, {x, repeats});
  if (!y.ok()) return y.status();
  return ctx.Output(0, *y);
}
TFN_ONNX_CONVERTER("Tile", 6, ConvertTile);

}  // namespace
}  // namespace tfn::onnx_import
