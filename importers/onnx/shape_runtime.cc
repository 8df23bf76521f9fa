// Reshape, Slice, Squeeze and Unsqueeze with run-time parameters (see
// shape_runtime.h). Slice scatters the given starts/ends/steps into
// full-rank vectors for tfn's slice inputs; Squeeze and Unsqueeze compute the
// target shape from shape(x) and the axes and reshape to it. The output rank
// is static (the axes' length is), only the dims are data-dependent.
#include "importers/onnx/shape_runtime.h"
#include "ir/fresh_dim.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <string>
#include <vector>

namespace tfn::onnx_import {
namespace {

using Ref = ir::ValueRef;

constexpr int64_t kOpen = int64_t{1} << 62;  // tfn's "open" slice bound

AttrValue Int(int64_t v) { return AttrValue::Int(v); }
AttrValue Ints(std::vector<int64_t> v) { return AttrValue::Ints(std::move(v)); }

absl::StatusOr<Ref> Int64Input(Context& ctx, int i) {
  TFN_ASSIGN_OR_RETURN(Ref v, ctx.Input(i));
  if (ctx.Type(v).dtype == DType::kInt64) return v;
  return ctx.Add(OpId::kCast, {v}, {{"dtype", AttrValue::Type(DType::kInt64)}});
}

// The static length of a 1-D input (axes, starts): ranks are static in tfn,
// so a run-time length is not supported.
absl::StatusOr<int> StaticLength(Context& ctx, Ref v, const char* what) {
  const SymShape& s = ctx.Type(v).shape;
  if (s.rank() != 1)
    return ctx.Error(std::string(what) + " must be 1-D, got " + ctx.Type(v).ToString());
  if (!s[0].is_static()) return ctx.Unsupported(std::string(what) + " of a run-time length");
  if (s[0].value() > kMaxRank)
    return ctx.Error(std::string(what) + " has more entries than the maximum rank");
  return static_cast<int>(s[0].value());
}

std::vector<int64_t> Iota(int n) {
  std::vector<int64_t> v(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) v[static_cast<size_t>(i)] = i;
  return v;
}

// shape(x) as int64: a constant when every dim is static.
absl::StatusOr<Ref> ShapeOf(Context& ctx, Ref x) {
  std::vector<int64_t> dims;
  for (const SymDim& d : ctx.Type(x).shape) {
    if (!d.is_static()) return ctx.Add(OpId::kShape, {x});
    dims.push_back(d.value());
  }
  return ctx.Ints(dims);
}

// Axes counted from the end (a < 0) moved into [0, rank).
absl::StatusOr<Ref> NormalizedAxes(Context& ctx, Ref axes, int rank) {
  Ref zero = ctx.Scalar(DType::kInt64, 0);
  TFN_ASSIGN_OR_RETURN(Ref negative, ctx.Add(OpId::kLess, {axes, zero}));
  TFN_ASSIGN_OR_RETURN(Ref shifted, ctx.Add(OpId::kAdd, {axes, ctx.Scalar(DType::kInt64, rank)}));
  return ctx.Add(OpId::kWhere, {negative, shifted, axes});
}

// 1 at the positions [0, rank) that the axes name, else 0 (int64 [rank]).
absl::StatusOr<Ref> AxisMask(Context& ctx, Ref axes, int rank) {
  TFN_ASSIGN_OR_RETURN(Ref column, ctx.Add(OpId::kExpandDims, {axes}, {{"axis", Int(1)}}));
  TFN_ASSIGN_OR_RETURN(Ref hit, ctx.Add(OpId::kEqual, {column, ctx.Ints(Iota(rank))}));
  TFN_ASSIGN_OR_RETURN(hit,
                       ctx.Add(OpId::kCast, {hit}, {{"dtype", AttrValue::Type(DType::kInt64)}}));
  return ctx.Add(OpId::kReduceMax, {hit}, {{"axes", Ints({0})}, {"keepdims", Int(0)}});
}

absl::Status Bind(Context& ctx, absl::StatusOr<Ref> y) {
  if (!y.ok()) return y.status();
  return ctx.Output(0, *y);
}

// `dims`: reshape's attribute of that name (core/rules/rules_shape.h).
absl::StatusOr<Ref> RunTimeReshape(Context& ctx, Ref x, Ref shape, bool allow_zero,
                                   const std::string& dims = "") {
  if (ctx.Type(shape).dtype != DType::kInt64) {
    TFN_ASSIGN_OR_RETURN(
        shape, ctx.Add(OpId::kCast, {shape}, {{"dtype", AttrValue::Type(DType::kInt64)}}));
  }
  return ctx.Add(OpId::kReshape, {x, shape},
                 {{"shape", Ints({})},
                  {"copy_zero", Int(allow_zero ? 0 : 1)},
                  {"dims", AttrValue::String(dims)}});
}

// One end of a positive-stride slice of a dim of n, clamped as slice's rule
// clamps it (core/rules/rules_shape.h SliceLength). A symbolic bound must be
// known to be >= 0 (sums and products of dims, as Shape chains give); else
// nullopt: its sign would pick the rule.
std::optional<SymDim> ClampedBound(const SymDim& v, const SymDim& n) {
  if (!v.is_static()) return KnownNonNegative(v) ? std::optional<SymDim>(Min(v, n)) : std::nullopt;
  const int64_t b = std::clamp(v.value(), -kOpen, kOpen);
  return b >= kOpen    ? n
         : b <= -kOpen ? SymDim(0)
         : b < 0       ? Max(n + SymDim(b), SymDim(0))
                       : Min(SymDim(b), n);
}

// The output dims of a Slice whose starts and ends the importer knows as dim
// expressions (constants, or positions from Shape chains: a causal-mask
// buffer sliced to the sequence, mask[:, :, :s, :s]) with constant axes and
// positive constant steps, as slice's "dims" attribute; "" otherwise. (The
// slice kernel checks each length against the run-time values.)
std::string KnownSliceDims(Context& ctx, Ref x) {
  const SymShape& in = ctx.Type(x).shape;
  const int rank = in.rank();
  absl::StatusOr<Ref> starts_in = ctx.Input(1), ends_in = ctx.Input(2);
  if (!starts_in.ok() || !ends_in.ok()) return "";
  std::optional<std::vector<SymDim>> starts = ctx.KnownValues(*starts_in);
  std::optional<std::vector<SymDim>> ends = ctx.KnownValues(*ends_in);
  if (!starts || !ends || starts->size() != ends->size()) return "";
  std::vector<int64_t> axes = Iota(static_cast<int>(starts->size()));
  std::vector<int64_t> steps(starts->size(), 1);
  if (ctx.HasInput(3)) {
    absl::StatusOr<std::vector<int64_t>> a = ctx.ConstInts(3);
    if (!a.ok()) return "";
    axes = *a;
  }
  if (ctx.HasInput(4)) {
    absl::StatusOr<std::vector<int64_t>> st = ctx.ConstInts(4);
    if (!st.ok()) return "";
    steps = *st;
  }
  if (axes.size() != starts->size() || steps.size() != starts->size()) return "";
  std::vector<SymDim> out(in.begin(), in.end());
  for (size_t k = 0; k < axes.size(); ++k) {
    int a;
    if (!NormalizeAxis(axes[k], rank, &a) || steps[k] <= 0) return "";
    const SymDim& n = in[a];
    std::optional<SymDim> b = ClampedBound((*starts)[k], n), e = ClampedBound((*ends)[k], n);
    if (!b || !e) return "";
    out[static_cast<size_t>(a)] = Max(CeilDiv(*e - *b, SymDim(steps[k])), SymDim(0));
  }
  return DimsAttribute(out);
}

}  // namespace

absl::Status ReshapeAtRunTime(Context& ctx, Ref x, Ref shape, bool allow_zero) {
  return Bind(ctx, RunTimeReshape(ctx, x, shape, allow_zero));
}

absl::Status ReshapeToKnownAtRunTime(Context& ctx, Ref x, Ref shape,
                                     const std::vector<SymDim>& known, bool allow_zero) {
  const SymShape& in = ctx.Type(x).shape;
  // The known dims, ONNX's 0 (copy) resolved; one -1 is what the others
  // leave of the input's elements.
  SymShape out(known.begin(), known.end());
  SymDim elements(1), others(1);
  for (const SymDim& d : in) elements = elements * d;
  int inferred = -1;
  for (int i = 0; i < out.rank(); ++i) {
    if (out[i].is_static() && out[i].value() == 0 && !allow_zero) {
      if (i >= in.rank()) return ctx.Error("shape copies a dim the input does not have");
      out[i] = in[i];
    } else if (out[i].is_static() && out[i].value() == -1) {
      if (inferred >= 0) return ctx.Error("shape has more than one -1");
      inferred = i;
      continue;
    } else if (out[i].is_static() && out[i].value() < 0) {
      return ctx.Error("shape has the negative dim " + std::to_string(out[i].value()));
    }
    others = others * out[i];
  }
  if (inferred >= 0) out[inferred] = FloorDiv(elements, others);
  return Bind(ctx, RunTimeReshape(ctx, x, shape, allow_zero,
                                  DimsAttribute(std::vector<SymDim>(out.begin(), out.end()))));
}

absl::Status SliceAtRunTime(Context& ctx, Ref x) {
  const int rank = ctx.Type(x).shape.rank();
  TFN_ASSIGN_OR_RETURN(Ref starts, Int64Input(ctx, 1));
  TFN_ASSIGN_OR_RETURN(Ref ends, Int64Input(ctx, 2));
  TFN_ASSIGN_OR_RETURN(int count, StaticLength(ctx, starts, "starts"));
  if (count > rank) return ctx.Error("starts has more entries than the input has dims");
  Ref axes = ctx.Ints(Iota(count));
  if (ctx.HasInput(3)) {
    absl::StatusOr<std::vector<int64_t>> known = ctx.ConstInts(3);
    if (known.ok()) {
      std::vector<int64_t> norm;
      for (int64_t a : *known) {
        int n;
        if (!NormalizeAxis(a, rank, &n))
          return ctx.Error("axis " + std::to_string(a) + " is out of range");
        norm.push_back(n);
      }
      axes = ctx.Ints(norm);
    } else {
      TFN_ASSIGN_OR_RETURN(Ref a, Int64Input(ctx, 3));
      TFN_ASSIGN_OR_RETURN(axes, NormalizedAxes(ctx, a, rank));
    }
  }
  Ref steps = ctx.Ints(std::vector<int64_t>(static_cast<size_t>(count), 1));
  if (ctx.HasInput(4)) {
    TFN_ASSIGN_OR_RETURN(steps, Int64Input(ctx, 4));
  }
  // ONNX's INT64_MAX/MIN mean "to the end": tfn's |v| >= 2^62.
  auto clamp = [&](Ref v) -> absl::StatusOr<Ref> {
    TFN_ASSIGN_OR_RETURN(
        Ref lo,
        ctx.Add(OpId::kMinimum, {v, ctx.Int64Scalar(kOpen)}));
    return ctx.Add(OpId::kMaximum, {lo, ctx.Int64Scalar(-kOpen)});
  };
  TFN_ASSIGN_OR_RETURN(starts, clamp(starts));
  TFN_ASSIGN_OR_RETURN(ends, clamp(ends));
  // Full-rank vectors: the defaults, with the given axes' entries scattered in.
  auto full = [&](int64_t fill, Ref values) {
    return ctx.Add(OpId::kScatterElements,
                   {ctx.Ints(std::vector<int64_t>(static_cast<size_t>(rank), fill)), axes, values},
                   {{"axis", Int(0)}});
  };
  TFN_ASSIGN_OR_RETURN(Ref begin, full(0, starts));
  TFN_ASSIGN_OR_RETURN(Ref end, full(kOpen, ends));
  TFN_ASSIGN_OR_RETURN(Ref stride, full(1, steps));
  return Bind(ctx, ctx.Add(OpId::kSlice, {x, begin, end, stride},
                           {{"begin", Ints({})},
                            {"end", Ints({})},
                            {"dims", AttrValue::String(KnownSliceDims(ctx, x))}}));
}

// Squeeze: keeps the dims of shape(x) the axes do not name, then reshapes.
// Naming a dim that is not 1 makes the reshape fail at run time.
absl::Status SqueezeAtRunTime(Context& ctx, Ref x) {
  const int rank = ctx.Type(x).shape.rank();
  TFN_ASSIGN_OR_RETURN(Ref a, Int64Input(ctx, 1));
  TFN_ASSIGN_OR_RETURN(int count, StaticLength(ctx, a, "axes"));
  if (count == 0) return Bind(ctx, ctx.Add(OpId::kSqueeze, {x}, {{"axes", Ints({})}}));
  if (count > rank) return ctx.Error("more axes than the input has dims");
  TFN_ASSIGN_OR_RETURN(a, NormalizedAxes(ctx, a, rank));
  TFN_ASSIGN_OR_RETURN(Ref squeezed, AxisMask(ctx, a, rank));
  TFN_ASSIGN_OR_RETURN(Ref keep, ctx.Add(OpId::kEqual, {squeezed, ctx.Scalar(DType::kInt64, 0)}));
  TFN_ASSIGN_OR_RETURN(Ref kept, ctx.Add(OpId::kNonZero, {keep}));
  TFN_ASSIGN_OR_RETURN(kept, ctx.Add(OpId::kReshape, {kept}, {{"shape", Ints({-1})}}));
  TFN_ASSIGN_OR_RETURN(Ref shape, ShapeOf(ctx, x));
  TFN_ASSIGN_OR_RETURN(Ref dims, ctx.Add(OpId::kGather, {shape, kept}, {{"axis", Int(0)}}));
  // The result's rank is static: rank - count (repeated axes fail here).
  TFN_ASSIGN_OR_RETURN(dims, ctx.Add(OpId::kReshape, {dims}, {{"shape", Ints({rank - count})}}));
  return Bind(ctx, ctx.Add(OpId::kReshape, {x, dims}, {{"shape", Ints({})}}));
}

// Unsqueeze: output dim p is 1 where the axes name p, else the next dim of
// x (its index: how many earlier positions are not new).
absl::Status UnsqueezeAtRunTime(Context& ctx, Ref x) {
  const int rank = ctx.Type(x).shape.rank();
  TFN_ASSIGN_OR_RETURN(Ref a, Int64Input(ctx, 1));
  TFN_ASSIGN_OR_RETURN(int count, StaticLength(ctx, a, "axes"));
  const int out_rank = rank + count;
  if (out_rank > kMaxRank) return ctx.Error("the result rank is above the maximum");
  if (count == 0) return ctx.Output(0, x);
  if (rank == 0) {
    return Bind(ctx,
                ctx.Add(OpId::kReshape, {x},
                        {{"shape", Ints(std::vector<int64_t>(static_cast<size_t>(count), 1))}}));
  }
  TFN_ASSIGN_OR_RETURN(a, NormalizedAxes(ctx, a, out_rank));
  TFN_ASSIGN_OR_RETURN(Ref added, AxisMask(ctx, a, out_rank));
  Ref one = ctx.Scalar(DType::kInt64, 1);
  TFN_ASSIGN_OR_RETURN(Ref old, ctx.Add(OpId::kSub, {one, added}));
  TFN_ASSIGN_OR_RETURN(Ref source, ctx.Add(OpId::kCumSum, {old, ctx.Scalar(DType::kInt64, 0)},
                                           {{"exclusive", Int(1)}}));
  TFN_ASSIGN_OR_RETURN(source,
                       ctx.Add(OpId::kMinimum, {source, ctx.Scalar(DType::kInt64, rank - 1)}));
  TFN_ASSIGN_OR_RETURN(Ref shape, ShapeOf(ctx, x));
  TFN_ASSIGN_OR_RETURN(Ref dims, ctx.Add(OpId::kGather, {shape, source}, {{"axis", Int(0)}}));
  TFN_ASSIGN_OR_RETURN(Ref is_new, ctx.Add(OpId::kEqual, {added, one}));
  TFN_ASSIGN_OR_RETURN(dims, ctx.Add(OpId::kWhere, {is_new, one, dims}));
  return Bind(ctx, ctx.Add(OpId::kReshape, {x, dims}, {{"shape", Ints({})}}));
}

}  // namespace tfn::onnx_import
