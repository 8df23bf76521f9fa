// Converters of ONNX's indexing ops: GatherElements, ScatterElements (and the
// older Scatter), GatherND, ScatterND, TopK and NonZero map onto tfn ops of
// the same semantics; Unique onto tfn's unique; Compress (non_zero + gather),
// OneHot (an equality against a range) and ReverseSequence (gather_elements
// with computed indices) are compositions. Index values stay run-time data
// everywhere: bad ones fail when the model runs, with the kernel's message.
#include "importers/onnx/context.h"

namespace tfn::onnx_import {
namespace {

using Ref = ir::ValueRef;

AttrValue Int(int64_t v) { return AttrValue::Int(v); }
AttrValue Ints(std::vector<int64_t> v) { return AttrValue::Ints(std::move(v)); }
AttrValue Str(std::string s) { return AttrValue::String(std::move(s)); }

absl::StatusOr<Ref> CastTo(Context& ctx, Ref x, DType dtype) {
  if (ctx.Type(x).dtype == dtype) return x;
  return ctx.Add(OpId::kCast, {x}, {{"dtype", AttrValue::Type(dtype)}});
}

// A one-element tensor (ONNX allows [] or [1]) as a scalar.
absl::StatusOr<Ref> AsScalar(Context& ctx, Ref x) {
  if (ctx.Type(x).shape.rank() == 0) return x;
  return ctx.Add(OpId::kReshape, {x}, {{"shape", Ints({})}});
}

// Dim `axis` of x as an int64 scalar: a constant when static, else read at run time.
absl::StatusOr<Ref> DimOf(Context& ctx, Ref x, int axis) {
  const SymDim& d = ctx.Type(x).shape[axis];
  if (d.is_static()) return ctx.Int64Scalar(d.value());
  TFN_ASSIGN_OR_RETURN(Ref shape, ctx.Add(OpId::kShape, {x}));
  return ctx.Add(OpId::kGather, {shape, ctx.Scalar(DType::kInt64, axis)}, {{"axis", Int(0)}});
}

// Normalizes an ONNX axis attribute against `rank`.
absl::StatusOr<int> AxisAttr(Context& ctx, const char* name, int64_t fallback, int rank) {
  int64_t a = ctx.AttrInt(name, fallback);
  int out;
  if (!NormalizeAxis(a, rank, &out)) {
    return ctx.Error(std::string(name) + " " + std::to_string(a) + " is out of range for rank " +
                     std::to_string(rank));
  }
  return out;
}

absl::Status ConvertGatherElements(Context& ctx) {
  TFN_ASSIGN_OR_RETURN(Ref data, ctx.Input(0));
  TFN_ASSIGN_OR_RETURN(Ref idx, ctx.Input(1));
  TFN_ASSIGN_OR_RETURN(
      Ref y, ctx.Add(OpId::kGatherElements, {data, idx}, {{"axis", Int(ctx.AttrInt("axis", 0))}}));
  return ctx.Output(0, y);
}
TFN_ONNX_CONVERTER("GatherElements", 11, ConvertGatherElements);

// ScatterElements (reduction from opset 16; max/min from 18) and Scatter
// (opset 9-10, ScatterElements without reduction under its old name).
absl::Status ConvertScatterElements(Context& ctx) {
  TFN_ASSIGN_OR_RETURN(Ref data, ctx.Input(0));
  TFN_ASSIGN_OR_RETURN(Ref idx, ctx.Input(1));
  TFN_ASSIGN_OR_RETURN(Ref upd, ctx.Input(2));
  TFN_ASSIGN_OR_RETURN(Ref y, ctx.Add(OpId::kScatterElements, {data, idx, upd},
                                      {{"axis", Int(ctx.AttrInt("axis", 0))},
                                       {"reduction", Str(ctx.AttrString("reduction", "none"))}}));
  return ctx.Output(0, y);
}
TFN_ONNX_CONVERTER("ScatterElements", 11, ConvertScatterElements);
TFN_ONNX_CONVERTER("Scatter", 9, ConvertScatterElements);

absl::Status ConvertGatherND(Context& ctx) {
  TFN_ASSIGN_OR_RETURN(Ref data, ctx.Input(0));
  TFN_ASSIGN_OR_RETURN(Ref idx, ctx.Input(1));
  TFN_ASSIGN_OR_RETURN(Ref y, ctx.Add(OpId::kGatherND, {data, idx},
                                      {{"batch_dims", Int(ctx.AttrInt("batch_dims", 0))}}));
  return ctx.Output(0, y);
}
TFN_ONNX_CONVERTER("GatherND", 11, ConvertGatherND);

absl::Status ConvertScatterND(Context& ctx) {
  TFN_ASSIGN_OR_RETURN(Ref data, ctx.Input(0));
  TFN_ASSIGN_OR_RETURN(Ref idx, ctx.Input(1));
  TFN_ASSIGN_OR_RETURN(Ref upd, ctx.Input(2));
  TFN_ASSIGN_OR_RETURN(Ref y, ctx.Add(OpId::kScatterND, {data, idx, upd},
                                      {{"reduction", Str(ctx.AttrString("reduction", "none"))}}));
  return ctx.Output(0, y);
}
TFN_ONNX_CONVERTER("ScatterND", 11, ConvertScatterND);

// TopK: k is an attribute before opset 10, then input 1 (also at run time);
// largest and sorted from opset 11 (tfn always sorts, which sorted=0 allows).
absl::Status ConvertTopK(Context& ctx) {
  TFN_ASSIGN_OR_RETURN(Ref x, ctx.Input(0));
  Ref k;
  if (ctx.opset() < 10) {
    k = ctx.Ints({ctx.AttrInt("k", -1)});
  } else {
    TFN_ASSIGN_OR_RETURN(k, ctx.Input(1));
  }
  TFN_ASSIGN_OR_RETURN(std::vector<Ref> out,
                       ctx.AddMulti(OpId::kTopK, {x, k},
                                    {{"axis", Int(ctx.AttrInt("axis", -1))},
                                     {"largest", Int(ctx.AttrInt("largest", 1))},
                                     {"sorted", Int(ctx.AttrInt("sorted", 1))}}));
  absl::Status s = ctx.Output(0, out[0]);
  return s.ok() ? ctx.Output(1, out[1]) : s;
}
TFN_ONNX_CONVERTER("TopK", 1, ConvertTopK);

absl::Status ConvertNonZero(Context& ctx) {
  TFN_ASSIGN_OR_RETURN(Ref x, ctx.Input(0));
  TFN_ASSIGN_OR_RETURN(Ref y, ctx.Add(OpId::kNonZero, {x}));
  return ctx.Output(0, y);
}
TFN_ONNX_CONVERTER("NonZero", 9, ConvertNonZero);

// Unique: no axis flattens the input; the four outputs are optional.
absl::Status ConvertUnique(Context& ctx) {
  TFN_ASSIGN_OR_RETURN(Ref x, ctx.Input(0));
  std::vector<int64_t> axis;
  if (ctx.HasAttr("axis")) axis.push_back(ctx.AttrInt("axis", 0));
  TFN_ASSIGN_OR_RETURN(
      std::vector<Ref> out,
      ctx.AddMulti(OpId::kUnique, {x},
                   {{"axis", Ints(axis)}, {"sorted", Int(ctx.AttrInt("sorted", 1))}}));
  for (int i = 0; i < 4; ++i) {
    absl::Status s = ctx.Output(i, out[static_cast<size_t>(i)]);
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}
TFN_ONNX_CONVERTER("Unique", 11, ConvertUnique);

// Compress: the slices along axis (of the flattened input without one) whose
// condition is true, as gather(x, non_zero(condition)). A condition shorter
// than the axis leaves the rest out; a true beyond the axis fails at run time.
absl::Status ConvertCompress(Context& ctx) {
  TFN_ASSIGN_OR_RETURN(Ref x, ctx.Input(0));
  TFN_ASSIGN_OR_RETURN(Ref cond, ctx.Input(1));
  if (ctx.Type(cond).shape.rank() != 1) {
    return ctx.Error("condition must be 1-D, got " + ctx.Type(cond).ToString());
  }
  int axis = 0;
  if (ctx.HasAttr("axis")) {
    TFN_ASSIGN_OR_RETURN(axis, AxisAttr(ctx, "axis", 0, ctx.Type(x).shape.rank()));
  } else {
    TFN_ASSIGN_OR_RETURN(x, ctx.Add(OpId::kReshape, {x}, {{"shape", Ints({-1})}}));
  }
  TFN_ASSIGN_OR_RETURN(Ref nz, ctx.Add(OpId::kNonZero, {cond}));
  TFN_ASSIGN_OR_RETURN(Ref idx, ctx.Add(OpId::kReshape, {nz}, {{"shape", Ints({-1})}}));
  TFN_ASSIGN_OR_RETURN(Ref y, ctx.Add(OpId::kGather, {x, idx}, {{"axis", Int(axis)}}));
  return ctx.Output(0, y);
}
TFN_ONNX_CONVERTER("Compress", 9, ConvertCompress);

// OneHot: y = where(expand_dims(i, axis) == range(depth) placed at axis, on,
// off), with i the indices as int64 and negative ones counted from depth.
// Indices outside [-depth, depth) match nothing: all off, as ONNX says.
absl::Status ConvertOneHot(Context& ctx) {
  TFN_ASSIGN_OR_RETURN(Ref indices, ctx.Input(0));
  TFN_ASSIGN_OR_RETURN(Ref depth, ctx.Input(1));
  TFN_ASSIGN_OR_RETURN(Ref values, ctx.Input(2));
  const int out_rank = ctx.Type(indices).shape.rank() + 1;
  if (out_rank > kMaxRank) return ctx.Error("the result rank is above the maximum");
  TFN_ASSIGN_OR_RETURN(int axis, AxisAttr(ctx, "axis", -1, out_rank));
  const SymShape& vs = ctx.Type(values).shape;
  if (vs.rank() != 1 || !vs[0].is_static() || vs[0].value() != 2) {
    return ctx.Error("values must be [off_value, on_value], got " + ctx.Type(values).ToString());
  }
  TFN_ASSIGN_OR_RETURN(Ref i, CastTo(ctx, indices, DType::kInt64));
  TFN_ASSIGN_OR_RETURN(Ref d, CastTo(ctx, depth, DType::kInt64));
  TFN_ASSIGN_OR_RETURN(d, AsScalar(ctx, d));
  Ref zero = ctx.Scalar(DType::kInt64, 0), one = ctx.Scalar(DType::kInt64, 1);
  TFN_ASSIGN_OR_RETURN(Ref negative, ctx.Add(OpId::kLess, {i, zero}));
  TFN_ASSIGN_OR_RETURN(Ref wrapped, ctx.Add(OpId::kAdd, {i, d}));
  TFN_ASSIGN_OR_RETURN(i, ctx.Add(OpId::kWhere, {negative, wrapped, i}));
  TFN_ASSIGN_OR_RETURN(i, ctx.Add(OpId::kExpandDims, {i}, {{"axis", Int(axis)}}));
  // range(depth) as [depth, 1, ..., 1] so that it runs along the axis.
  TFN_ASSIGN_OR_RETURN(Ref classes, ctx.Add(OpId::kRange, {zero, d, one},
                                            {{"dtype", AttrValue::Type(DType::kInt64)}}));
  std::vector<int64_t> placed(static_cast<size_t>(out_rank - axis), 1);
  placed[0] = -1;
  TFN_ASSIGN_OR_RETURN(classes, ctx.Add(OpId::kReshape, {classes}, {{"shape", Ints(placed)}}));
  TFN_ASSIGN_OR_RETURN(Ref hot, ctx.Add(OpId::kEqual, {i, classes}));
  TFN_ASSIGN_OR_RETURN(Ref off,
                       ctx.Add(OpId::kSlice, {values}, {{"begin", Ints({0})}, {"end", Ints({1})}}));
  TFN_ASSIGN_OR_RETURN(Ref on,
                       ctx.Add(OpId::kSlice, {values}, {{"begin", Ints({1})}, {"end", Ints({2})}}));
  TFN_ASSIGN_OR_RETURN(off, AsScalar(ctx, off));
  TFN_ASSIGN_OR_RETURN(on, AsScalar(ctx, on));
  TFN_ASSIGN_OR_RETURN(Ref y, ctx.Add(OpId::kWhere, {hot, on, off}));
  return ctx.Output(0, y);
}
TFN_ONNX_CONVERTER("OneHot", 9, ConvertOneHot);

// ReverseSequence: reverses the first sequence_lens[b] steps along the time
// axis of each batch entry b, as gather_elements along the time axis with
// index t' = len - 1 - t for t < len and t otherwise.
absl::Status ConvertReverseSequence(Context& ctx) {
  TFN_ASSIGN_OR_RETURN(Ref x, ctx.Input(0));
  TFN_ASSIGN_OR_RETURN(Ref lens, ctx.Input(1));
  const SymShape shape = ctx.Type(x).shape;
  const int rank = shape.rank();
  if (rank < 2) return ctx.Error("input must have rank >= 2, got " + ctx.Type(x).ToString());
  TFN_ASSIGN_OR_RETURN(int time, AxisAttr(ctx, "time_axis", 0, rank));
  TFN_ASSIGN_OR_RETURN(int batch, AxisAttr(ctx, "batch_axis", 1, rank));
  if (time > 1 || batch > 1 || time == batch) {
    return ctx.Error("time_axis and batch_axis must be 0 and 1 in either order");
  }
  if (ctx.Type(lens).shape.rank() != 1) {
    return ctx.Error("sequence_lens must be 1-D, got " + ctx.Type(lens).ToString());
  }
  Ref zero = ctx.Scalar(DType::kInt64, 0), one = ctx.Scalar(DType::kInt64, 1);
  TFN_ASSIGN_OR_RETURN(Ref steps, DimOf(ctx, x, time));
  TFN_ASSIGN_OR_RETURN(Ref t, ctx.Add(OpId::kRange, {zero, steps, one},
                                      {{"dtype", AttrValue::Type(DType::kInt64)}}));
  // t runs along the time axis and lens along the batch axis of a 2-D grid.
  TFN_ASSIGN_OR_RETURN(t, ctx.Add(OpId::kExpandDims, {t}, {{"axis", Int(time == 0 ? 1 : 0)}}));
  TFN_ASSIGN_OR_RETURN(Ref len, CastTo(ctx, lens, DType::kInt64));
  TFN_ASSIGN_OR_RETURN(len, ctx.Add(OpId::kExpandDims, {len}, {{"axis", Int(batch == 0 ? 1 : 0)}}));
  TFN_ASSIGN_OR_RETURN(Ref inside, ctx.Add(OpId::kLess, {t, len}));
  TFN_ASSIGN_OR_RETURN(Ref last, ctx.Add(OpId::kSub, {len, one}));
  TFN_ASSIGN_OR_RETURN(Ref mirrored, ctx.Add(OpId::kSub, {last, t}));
  TFN_ASSIGN_OR_RETURN(Ref idx, ctx.Add(OpId::kWhere, {inside, mirrored, t}));
  // The grid broadcast over the remaining dims of x.
  for (int d = 2; d < rank; ++d) {
    TFN_ASSIGN_OR_RETURN(idx, ctx.Add(OpId::kExpandDims, {idx}, {{"axis", Int(d)}}));
  }
  bool all_static = true;
  std::vector<int64_t> dims;
  for (const SymDim& d : shape) {
    all_static &= d.is_static();
    dims.push_back(d.is_static() ? d.value() : 0);
  }
  if (all_static) {
    TFN_ASSIGN_OR_RETURN(idx, ctx.Add(OpId::kBroadcastTo, {idx}, {{"shape", Ints(dims)}}));
  } else {
    TFN_ASSIGN_OR_RETURN(Ref s, ctx.Add(OpId::kShape, {x}));
    TFN_ASSIGN_OR_RETURN(idx, ctx.Add(OpId::kBroadcastTo, {idx, s}));
  }
  TFN_ASSIGN_OR_RETURN(Ref y, ctx.Add(OpId::kGatherElements, {x, idx}, {{"axis", Int(time)}}));
  return ctx.Output(0, y);
}
TFN_ONNX_CONVERTER("ReverseSequence", 10, ConvertReverseSequence);

}  // namespace
}  // namespace tfn::onnx_import
