// Converters of ONNX's structural and shape ops: Constant, Identity, Shape,
// Size, Reshape, Flatten, Squeeze, Unsqueeze, Concat, Gather, Transpose,
// Cast, CastLike, Slice. Shape arithmetic keeps symbolic values (Context::KnownValues), so
// Reshape to a shape computed from Shape(x) works with dynamic dims; shapes,
// bounds and axes that are data go to shape_runtime.cc.
#include <algorithm>

#include "importers/onnx/context.h"
#include "importers/onnx/shape_runtime.h"
#include "importers/onnx/tensor_proto.h"

namespace tfn::onnx_import {
namespace {

AttrValue Ints(std::vector<int64_t> v) { return AttrValue::Ints(std::move(v)); }

absl::Status ConvertConstant(Context& ctx) {
  for (const char* name : {"value", "value_float", "value_floats", "value_int", "value_ints"}) {
    const onnx::AttributeProto* a = ctx.Attr(name);
    if (!a) continue;
    ConstTensor t;
    std::string n = name;
    if (n == "value") {
      absl::StatusOr<ConstTensor> c = TensorFromProto(a->t(), ctx.base_dir());
      if (!c.ok()) return ctx.Error(std::string(c.status().message()));
      t = *c;
    } else if (n == "value_float") {
      t = ConstTensor::Scalar<float>(a->f());
    } else if (n == "value_int") {
      t = ConstTensor::Scalar<int64_t>(a->i());
    } else if (n == "value_floats") {
      std::vector<float> v(a->floats().begin(), a->floats().end());
      t = ConstTensor::Copy(DType::kFloat32, Shape{static_cast<int64_t>(v.size())}, v.data());
    } else {
      std::vector<int64_t> v(a->ints().begin(), a->ints().end());
      t = ConstTensor::Copy(DType::kInt64, Shape{static_cast<int64_t>(v.size())}, v.data());
    }
    return ctx.Output(0, ctx.Constant(t));
  }
  return ctx.Unsupported("a Constant without value, value_float(s) or value_int(s)");
}
TFN_ONNX_CONVERTER("Constant", 1, ConvertConstant);

absl::Status ConvertIdentity(Context& ctx) {
  absl::StatusOr<ir::ValueRef> x = ctx.Input(0);
  if (!x.ok()) return x.status();
  return ctx.Output(0, *x);
}
TFN_ONNX_CONVERTER("Identity", 1, ConvertIdentity);

absl::Status ConvertShape(Context& ctx) {
  absl::StatusOr<ir::ValueRef> x = ctx.Input(0);
  if (!x.ok()) return x.status();
  SymShape dims = ctx.Type(*x).shape;
  int64_t rank = dims.rank();
  int64_t start = ctx.AttrInt("start", 0), end = ctx.AttrInt("end", rank);  // opset 15
  start = std::clamp<int64_t>(start < 0 ? start + rank : start, 0, rank);
  end = std::clamp<int64_t>(end < 0 ? end + rank : end, 0, rank);
  std::vector<SymDim> known;
  bool all_static = true;
  for (int64_t i = start; i < end; ++i) {
    known.push_back(dims[static_cast<int>(i)]);
    all_static &= dims[static_cast<int>(i)].is_static();
  }
  ir::ValueRef out;
  if (all_static) {
    std::vector<int64_t> v;
    for (const SymDim& d : known) v.push_back(d.value());
    out = ctx.Ints(v);
  } else {
    absl::StatusOr<ir::ValueRef> s = ctx.Add(OpId::kShape, {*x});
    if (!s.ok()) return s.status();
    out = *s;
    if (start != 0 || end != rank) {
      s = ctx.Add(OpId::kSlice, {out}, {{"begin", Ints({start})}, {"end", Ints({end})}});
      if (!s.ok()) return s.status();
      out = *s;
    }
  }
  ctx.SetKnownValues(out, known);
  return ctx.Output(0, out);
}
TFN_ONNX_CONVERTER("Shape", 1, ConvertShape);

absl::Status ConvertSize(Context& ctx) {
  absl::StatusOr<ir::ValueRef> x = ctx.Input(0);
  if (!x.ok()) return x.status();
  absl::StatusOr<ir::ValueRef> s = ctx.Add(OpId::kSize, {*x});
  if (!s.ok()) return s.status();
  SymDim n(1);
  for (const SymDim& d : ctx.Type(*x).shape) n = n * d;
  ctx.SetKnownValues(*s, {n});
  return ctx.Output(0, *s);
}
TFN_ONNX_CONVERTER("Size", 1, ConvertSize);

// Reshape to a target given as symbolic dims: static dims stay, a dim equal
// to the input's dim at the same index is copied (0), one other unknown dim
// is inferred (-1).
absl::StatusOr<ir::ValueRef> ReshapeTo(Context& ctx, ir::ValueRef x, const std::vector<SymDim>& target,
                                       bool allow_zero) {
  const SymShape& in = ctx.Type(x).shape;
  std::vector<int64_t> attr;
  bool copy_zero = false;
  int unknown = 0;
  for (size_t i = 0; i < target.size(); ++i) {
    const SymDim& d = target[i];
    if (d.is_static()) {
      int64_t v = d.value();
      if (v == 0 && !allow_zero) {  // ONNX: 0 copies the input's dim
        if (static_cast<int>(i) >= in.rank()) return ctx.Error("shape copies a dim the input does not have");
        if (in[static_cast<int>(i)].is_static()) {
          v = in[static_cast<int>(i)].value();
        } else {
          copy_zero = true;
        }
      }
      if (v == -1) ++unknown;
      attr.push_back(v);
    } else if (static_cast<int>(i) < in.rank() && in[static_cast<int>(i)] == d) {
      attr.push_back(0);
      copy_zero = true;
    } else {
      attr.push_back(-1);
      ++unknown;
    }
  }
  if (unknown > 1) {
    return ctx.Unsupported("a reshape to a shape with several dims computed at run time");
  }
  if (copy_zero) {
    // 0 means "copy" only where we put it; real zero dims are static elsewhere.
    for (size_t i = 0; i < attr.size(); ++i) {
      if (attr[i] == 0 && target[i].is_static() && target[i].value() == 0 && allow_zero) {
        return ctx.Unsupported("a reshape mixing copied dims and dims of size 0");
      }
    }
  }
  Attrs attrs{{"shape", Ints(attr)}};
  if (copy_zero) attrs.Set("copy_zero", AttrValue::Int(1));
  return ctx.Add(OpId::kReshape, {x}, attrs);
}

absl::Status ConvertReshape(Context& ctx) {
  absl::StatusOr<ir::ValueRef> x = ctx.Input(0);
  absl::StatusOr<ir::ValueRef> shape = ctx.Input(1);
  if (!x.ok() || !shape.ok()) return !x.ok() ? x.status() : shape.status();
  std::optional<std::vector<SymDim>> target = ctx.KnownValues(*shape);
  if (!target) return ReshapeAtRunTime(ctx, *x, *shape, ctx.AttrInt("allowzero", 0) != 0);
  const bool allow_zero = ctx.AttrInt("allowzero", 0) != 0;
  absl::StatusOr<ir::ValueRef> y = ReshapeTo(ctx, *x, *target, allow_zero);
  if (absl::IsUnimplemented(y.status())) {  // several dims only the shape tensor holds
    return ReshapeToKnownAtRunTime(ctx, *x, *shape, *target, allow_zero);
  }
  if (!y.ok()) return y.status();
  return ctx.Output(0, *y);
}
TFN_ONNX_CONVERTER("Reshape", 5, ConvertReshape);

absl::Status ConvertFlatten(Context& ctx) {
  absl::StatusOr<ir::ValueRef> x = ctx.Input(0);
  if (!x.ok()) return x.status();
  const SymShape& s = ctx.Type(*x).shape;
  int64_t axis = ctx.AttrInt("axis", 1);
  if (axis < 0) axis += s.rank();
  if (axis < 0 || axis > s.rank()) return ctx.Error("axis is out of range");
  SymDim outer(1), inner(1);
  for (int i = 0; i < s.rank(); ++i) {
    if (i < axis) {
      outer = outer * s[i];
    } else {
      inner = inner * s[i];
    }
  }
  absl::StatusOr<ir::ValueRef> y = ReshapeTo(ctx, *x, {outer, inner}, true);
  if (!y.ok()) return y.status();
  return ctx.Output(0, *y);
}
TFN_ONNX_CONVERTER("Flatten", 1, ConvertFlatten);

// Squeeze/Unsqueeze: axes from the attribute (opset < 13) or input 1.
absl::StatusOr<std::vector<int64_t>> Axes(Context& ctx, bool required) {
  if (ctx.opset() >= 13) {
    if (!ctx.HasInput(1)) {
      if (required) return ctx.Error("axes are required");
      return std::vector<int64_t>{};
    }
    return ctx.ConstInts(1);
  }
  return ctx.AttrInts("axes");
}

absl::Status ConvertSqueeze(Context& ctx) {
  absl::StatusOr<ir::ValueRef> x = ctx.Input(0);
  if (!x.ok()) return x.status();
  absl::StatusOr<std::vector<int64_t>> axes = Axes(ctx, false);
  if (absl::IsUnimplemented(axes.status())) return SqueezeAtRunTime(ctx, *x);  // run-time axes
  if (!axes.ok()) return axes.status();
  absl::StatusOr<ir::ValueRef> y = ctx.Add(OpId::kSqueeze, {*x}, {{"axes", Ints(*axes)}});
  if (!y.ok()) return y.status();
  if (auto known = ctx.KnownValues(*x); known && known->size() == 1) ctx.SetKnownValues(*y, *known);
  return ctx.Output(0, *y);
}
TFN_ONNX_CONVERTER("Squeeze", 1, ConvertSqueeze);

absl::Status ConvertUnsqueeze(Context& ctx) {
  absl::StatusOr<ir::ValueRef> x = ctx.Input(0);
  if (!x.ok()) return x.status();
  absl::StatusOr<std::vector<int64_t>> axes = Axes(ctx, true);
  if (absl::IsUnimplemented(axes.status())) return UnsqueezeAtRunTime(ctx, *x);  // run-time axes
  if (!axes.ok()) return axes.status();
  int out_rank = ctx.Type(*x).shape.rank() + static_cast<int>(axes->size());
  std::vector<int64_t> sorted;
  for (int64_t a : *axes) sorted.push_back(a < 0 ? a + out_rank : a);
  std::sort(sorted.begin(), sorted.end());
  ir::ValueRef y = *x;
  for (int64_t a : sorted) {
    absl::StatusOr<ir::ValueRef> e = ctx.Add(OpId::kExpandDims, {y}, {{"axis", AttrValue::Int(a)}});
    if (!e.ok()) return e.status();
    y = *e;
  }
  if (auto known = ctx.KnownValues(*x); known && ctx.Type(*x).shape.rank() <= 1 && out_rank == 1) {
    ctx.SetKnownValues(y, *known);
  }
  return ctx.Output(0, y);
}
TFN_ONNX_CONVERTER("Unsqueeze", 1, ConvertUnsqueeze);

absl::Status ConvertConcat(Context& ctx) {
  std::vector<ir::ValueRef> in;
  std::vector<SymDim> known;
  bool all_known = true;
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    if (!ctx.HasInput(i)) continue;
    absl::StatusOr<ir::ValueRef> v = ctx.Input(i);
    if (!v.ok()) return v.status();
    // ONNX allows empty inputs in Concat; tfn skips them (they add nothing).
    bool empty = false;
    for (const SymDim& d : ctx.Type(*v).shape) empty |= d.is_static() && d.value() == 0;
    if (auto k = ctx.KnownValues(*v)) {
      known.insert(known.end(), k->begin(), k->end());
    } else {
      all_known = false;
    }
    if (!empty || in.empty()) in.push_back(*v);
  }
  absl::StatusOr<ir::ValueRef> y = ctx.Add(OpId::kConcat, in, {{"axis", AttrValue::Int(ctx.AttrInt("axis", 0))}});
  if (!y.ok()) return y.status();
  if (all_known && ctx.Type(*y).shape.rank() == 1) ctx.SetKnownValues(*y, known);
  return ctx.Output(0, *y);
}
TFN_ONNX_CONVERTER("Concat", 4, ConvertConcat);

absl::Status ConvertGather(Context& ctx) {
  absl::StatusOr<ir::ValueRef> data = ctx.Input(0);
  absl::StatusOr<ir::ValueRef> idx = ctx.Input(1);
  if (!data.ok() || !idx.ok()) return !data.ok() ? data.status() : idx.status();
  int64_t axis = ctx.AttrInt("axis", 0);
  absl::StatusOr<ir::ValueRef> y = ctx.Add(OpId::kGather, {*data, *idx}, {{"axis", AttrValue::Int(axis)}});
  if (!y.ok()) return y.status();
  // Gathering from a known shape vector keeps the symbolic values.
  auto known = ctx.KnownValues(*data);
  const ConstTensor* ci = ctx.ConstantOf(*idx);
  if (known && ci && ctx.Type(*data).shape.rank() == 1) {
    std::vector<SymDim> picked;
    for (int64_t k = 0; k < ci->num_elements(); ++k) {
      int64_t i = ci->ElementAsInt(k);
      if (i < 0) i += static_cast<int64_t>(known->size());
      if (i < 0 || i >= static_cast<int64_t>(known->size())) return ctx.Error("index out of range");
      picked.push_back((*known)[static_cast<size_t>(i)]);
    }
    ctx.SetKnownValues(*y, picked);
  }
  return ctx.Output(0, *y);
}
TFN_ONNX_CONVERTER("Gather", 1, ConvertGather);

absl::Status ConvertTranspose(Context& ctx) {
  absl::StatusOr<ir::ValueRef> x = ctx.Input(0);
  if (!x.ok()) return x.status();
  absl::StatusOr<ir::ValueRef> y = ctx.Add(OpId::kTranspose, {*x}, {{"perm", Ints(ctx.AttrInts("perm"))}});
  if (!y.ok()) return y.status();
  return ctx.Output(0, *y);
}
TFN_ONNX_CONVERTER("Transpose", 1, ConvertTranspose);

// Cast and CastLike: to any dtype tfn has (STRING is refused). ONNX's Cast
// specifies that a float becomes BFLOAT16 by dropping its low 16 bits, and
// its test_cast_FLOAT_to_BFLOAT16 expects truncation, so such casts set
// cast's "truncate"; every other cast rounds to nearest even (FLOAT16 too,
// as NumPy, which computes ONNX's expected outputs, does).
absl::Status CastTo(Context& ctx, ir::ValueRef x, int32_t onnx_type) {
  absl::StatusOr<DType> to = DTypeFromOnnx(onnx_type);
  if (!to.ok()) return ctx.Unsupported("Cast to " + std::string(OnnxTypeName(onnx_type)));
  Attrs attrs{{"dtype", AttrValue::Type(*to)}};
  if (*to == DType::kBFloat16) attrs.Set("truncate", AttrValue::Int(1));
  absl::StatusOr<ir::ValueRef> y = ctx.Add(OpId::kCast, {x}, attrs);
  if (!y.ok()) return y.status();
  // Shape values stay known through casts that keep them (not a narrowing
  // to int8 ... uint32, which could wrap them).
  if (auto known = ctx.KnownValues(x); known && (*to == DType::kInt64 || *to == DType::kInt32)) {
    ctx.SetKnownValues(*y, *known);
  }
  return ctx.Output(0, *y);
}

absl::Status ConvertCast(Context& ctx) {
  absl::StatusOr<ir::ValueRef> x = ctx.Input(0);
  if (!x.ok()) return x.status();
  return CastTo(ctx, *x, static_cast<int32_t>(ctx.AttrInt("to", 0)));
}
TFN_ONNX_CONVERTER("Cast", 6, ConvertCast);

// CastLike: to the dtype of input 1 (ONNX defines it as a function of Cast;
// converting it directly keeps Cast's BFLOAT16 truncation without building
// ONNX's function body).
absl::Status ConvertCastLike(Context& ctx) {
  absl::StatusOr<ir::ValueRef> x = ctx.Input(0), like = ctx.Input(1);
  if (!x.ok() || !like.ok()) return !x.ok() ? x.status() : like.status();
  return CastTo(ctx, *x, OnnxFromDType(ctx.Type(*like).dtype));
}
TFN_ONNX_CONVERTER("CastLike", 15, ConvertCastLike);

// Slice: starts/ends/axes/steps (attributes before opset 10, inputs after)
// onto tfn's per-dim Python slicing; |v| >= 2^62 (INT64_MAX/MIN) is "open".
absl::Status ConvertSlice(Context& ctx) {
  absl::StatusOr<ir::ValueRef> x = ctx.Input(0);
  if (!x.ok()) return x.status();
  int rank = ctx.Type(*x).shape.rank();
  std::vector<int64_t> starts, ends, axes, steps;
  if (ctx.opset() < 10) {
    starts = ctx.AttrInts("starts");
    ends = ctx.AttrInts("ends");
    axes = ctx.AttrInts("axes");
  } else {
    // Any of them computed at run time: tfn's slice with inputs.
    auto runtime = [](const absl::StatusOr<std::vector<int64_t>>& v) {
      return absl::IsUnimplemented(v.status());
    };
    absl::StatusOr<std::vector<int64_t>> v = ctx.ConstInts(1);
    if (runtime(v)) return SliceAtRunTime(ctx, *x);
    if (!v.ok()) return v.status();
    starts = *v;
    v = ctx.ConstInts(2);
    if (runtime(v)) return SliceAtRunTime(ctx, *x);
    if (!v.ok()) return v.status();
    ends = *v;
    if (ctx.HasInput(3)) {
      v = ctx.ConstInts(3);
      if (runtime(v)) return SliceAtRunTime(ctx, *x);
      if (!v.ok()) return v.status();
      axes = *v;
    }
    if (ctx.HasInput(4)) {
      v = ctx.ConstInts(4);
      if (runtime(v)) return SliceAtRunTime(ctx, *x);
      if (!v.ok()) return v.status();
      steps = *v;
    }
  }
  if (axes.empty()) {
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  }
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (starts.size() != ends.size() || axes.size() != starts.size() || steps.size() != starts.size()) {
    return ctx.Error("starts, ends, axes and steps differ in length");
  }
  constexpr int64_t kOpen = int64_t{1} << 62;
  std::vector<int64_t> begin(rank, 0), end(rank, kOpen), stride(rank, 1);
  for (size_t k = 0; k < axes.size(); ++k) {
    int64_t a = axes[k] < 0 ? axes[k] + rank : axes[k];
    if (a < 0 || a >= rank) return ctx.Error("axis " + std::to_string(axes[k]) + " is out of range");
    if (steps[k] == 0) return ctx.Error("a step is 0");
    begin[a] = std::clamp(starts[k], -kOpen, kOpen);
    end[a] = std::clamp(ends[k], -kOpen, kOpen);
    stride[a] = steps[k];
  }
  absl::StatusOr<ir::ValueRef> y = ctx.Add(OpId::kSlice, {*x},
                                           {{"begin", Ints(begin)}, {"end", Ints(end)}, {"strides", Ints(stride)}});
  if (!y.ok()) return y.status();
  // Slicing a known shape vector keeps its symbolic values.
  if (auto known = ctx.KnownValues(*x); known && rank == 1) {
    int64_t n = static_cast<int64_t>(known->size());
    std::vector<SymDim> picked;
    int64_t b = begin[0], e = end[0], st = stride[0];
    auto clamp = [&](int64_t v, int64_t lo, int64_t hi) { return std::max(lo, std::min(v, hi)); };
    if (st > 0) {
      b = clamp(b < 0 ? b + n : b, 0, n);
      e = clamp(e < 0 ? e + n : e, 0, n);
      for (int64_t i = b; i < e; i += st) picked.push_back((*known)[static_cast<size_t>(i)]);
    } else {
      b = clamp(b < 0 ? b + n : b, -1, n - 1);
      e = clamp(e < 0 ? e + n : e, -1, n - 1);
      for (int64_t i = b; i > e; i += st) picked.push_back((*known)[static_cast<size_t>(i)]);
    }
    ctx.SetKnownValues(*y, picked);
  }
  return ctx.Output(0, *y);
}
TFN_ONNX_CONVERTER("Slice", 1, ConvertSlice);

}  // namespace
}  // namespace tfn::onnx_import
