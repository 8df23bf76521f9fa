// Converters of ONNX's reductions: ReduceSum/Mean/Max/Min/Prod onto tfn's
// reduce_* ops, ReduceL1/L2/LogSum/LogSumExp/SumSquare as compositions of
// them, ArgMax/ArgMin (select_last_index included) and CumSum.
//
// Axes come from the "axes" attribute, or from input 1 (ReduceSum from opset
// 13 on): a constant becomes tfn's axes attribute, a value computed at run
// time tfn's axes input (a data-dependent shape). Empty axes reduce every
// dim, except with noop_with_empty_axes=1, where the reduction is the
// identity. keepdims defaults to 1, as in ONNX.
#include "importers/onnx/context.h"

namespace tfn::onnx_import {
namespace {

using Ref = ir::ValueRef;

enum class Kind { kSum, kMean, kMax, kMin, kProd, kL1, kL2, kLogSum, kLogSumExp, kSumSquare };

// The axes: a constant list, or a run-time value (tfn's axes input).
struct Axes {
  std::vector<int64_t> list;
  std::optional<Ref> input;
};

// The axes to reduce; nullopt when the node is the identity (noop_with_empty_axes).
absl::StatusOr<std::optional<Axes>> ReduceAxes(Context& ctx) {
  Axes axes{ctx.AttrInts("axes"), std::nullopt};
  bool noop = ctx.AttrInt("noop_with_empty_axes", 0) != 0;
  if (ctx.HasInput(1)) {
    TFN_ASSIGN_OR_RETURN(Ref v, ctx.Input(1));
    const SymShape& s = ctx.Type(v).shape;
    bool empty = s.rank() == 1 && s[0].is_static() && s[0].value() == 0;
    if (!empty) {
      absl::StatusOr<std::vector<int64_t>> list = ctx.ConstInts(1);
      if (list.ok()) {
        axes.list = *list;
      } else {
        if (noop && !(s.rank() == 0 || s[0].is_static())) {
          return ctx.Unsupported("noop_with_empty_axes with axes of a run-time length");
        }
        axes.input = v;
      }
    }
  }
  if (axes.list.empty() && !axes.input && noop) return std::nullopt;
  return axes;
}

absl::StatusOr<Ref> Reduce(Context& ctx, OpId op, Ref x, const Axes& axes, bool keepdims) {
  Attrs attrs{{"axes", AttrValue::Ints(axes.list)}, {"keepdims", AttrValue::Int(keepdims)}};
  if (axes.input) return ctx.Add(op, {x, *axes.input}, attrs);
  return ctx.Add(op, {x}, attrs);
}

// The max over the axes, 0 where it is infinite.
absl::StatusOr<Ref> FiniteMax(Context& ctx, Ref x, const Axes& axes, bool keepdims) {
  TFN_ASSIGN_OR_RETURN(Ref m, Reduce(ctx, OpId::kReduceMax, x, axes, keepdims));
  TFN_ASSIGN_OR_RETURN(Ref inf, ctx.Add(OpId::kIsInf, {m}));
  return ctx.Add(OpId::kWhere, {inf, ctx.Scalar(ctx.Type(x).dtype, 0), m});
}

// log(sum(exp(x))) = m + log(sum(exp(x - m))) with m the max over the axes
// (0 where the max is infinite, so that all -inf or +inf inputs stay exact).
absl::StatusOr<Ref> LogSumExp(Context& ctx, Ref x, const Axes& axes, bool keepdims) {
  TFN_ASSIGN_OR_RETURN(Ref m, FiniteMax(ctx, x, axes, true));
  TFN_ASSIGN_OR_RETURN(Ref y, ctx.Add(OpId::kSub, {x, m}));
  TFN_ASSIGN_OR_RETURN(y, ctx.Add(OpId::kExp, {y}));
  TFN_ASSIGN_OR_RETURN(y, Reduce(ctx, OpId::kReduceSum, y, axes, keepdims));
  TFN_ASSIGN_OR_RETURN(y, ctx.Add(OpId::kLog, {y}));
  if (!keepdims) {
    TFN_ASSIGN_OR_RETURN(m, FiniteMax(ctx, x, axes, false));
  }
  return ctx.Add(OpId::kAdd, {y, m});
}

absl::Status ConvertReduce(Context& ctx, Kind kind) {
  TFN_ASSIGN_OR_RETURN(Ref x, ctx.Input(0));
  TFN_ASSIGN_OR_RETURN(std::optional<Axes> axes, ReduceAxes(ctx));
  if (!axes) return ctx.Output(0, x);
  bool keep = ctx.AttrInt("keepdims", 1) != 0;
  DType dtype = ctx.Type(x).dtype;
  // The log and sqrt forms compute integers in float64, then truncate back.
  bool via_float = IsInteger(dtype) && (kind == Kind::kL2 || kind == Kind::kLogSum || kind == Kind::kLogSumExp);
  if (via_float) {
    TFN_ASSIGN_OR_RETURN(x, ctx.Add(OpId::kCast, {x}, {{"dtype", AttrValue::Type(DType::kFloat64)}}));
  }
  absl::StatusOr<Ref> y;
  switch (kind) {
    case Kind::kSum: y = Reduce(ctx, OpId::kReduceSum, x, *axes, keep); break;
    case Kind::kMean: y = Reduce(ctx, OpId::kReduceMean, x, *axes, keep); break;
    case Kind::kMax: y = Reduce(ctx, OpId::kReduceMax, x, *axes, keep); break;
    case Kind::kMin: y = Reduce(ctx, OpId::kReduceMin, x, *axes, keep); break;
    case Kind::kProd: y = Reduce(ctx, OpId::kReduceProd, x, *axes, keep); break;
    case Kind::kL1:
      y = ctx.Add(OpId::kAbs, {x});
      if (y.ok()) y = Reduce(ctx, OpId::kReduceSum, *y, *axes, keep);
      break;
    case Kind::kL2:
    case Kind::kSumSquare:
      y = ctx.Add(OpId::kMul, {x, x});
      if (y.ok()) y = Reduce(ctx, OpId::kReduceSum, *y, *axes, keep);
      if (y.ok() && kind == Kind::kL2) y = ctx.Add(OpId::kSqrt, {*y});
      break;
    case Kind::kLogSum:
      y = Reduce(ctx, OpId::kReduceSum, x, *axes, keep);
      if (y.ok()) y = ctx.Add(OpId::kLog, {*y});
      break;
    case Kind::kLogSumExp: y = LogSumExp(ctx, x, *axes, keep); break;
  }
  if (!y.ok()) return y.status();
  if (via_float) {
    y = ctx.Add(OpId::kCast, {*y}, {{"dtype", AttrValue::Type(dtype)}});
    if (!y.ok()) return y.status();
  }
  return ctx.Output(0, *y);
}

#define TFN_ONNX_REDUCE(name, kind) \
  TFN_ONNX_CONVERTER(name, 1, [](Context& ctx) { return ConvertReduce(ctx, Kind::kind); })
TFN_ONNX_REDUCE("ReduceSum", kSum);
TFN_ONNX_REDUCE("ReduceMean", kMean);
TFN_ONNX_REDUCE("ReduceMax", kMax);
TFN_ONNX_REDUCE("ReduceMin", kMin);
TFN_ONNX_REDUCE("ReduceProd", kProd);
TFN_ONNX_REDUCE("ReduceL1", kL1);
TFN_ONNX_REDUCE("ReduceL2", kL2);
TFN_ONNX_REDUCE("ReduceLogSum", kLogSum);
TFN_ONNX_REDUCE("ReduceLogSumExp", kLogSumExp);
TFN_ONNX_REDUCE("ReduceSumSquare", kSumSquare);

absl::Status ConvertArgReduce(Context& ctx, OpId op) {
  TFN_ASSIGN_OR_RETURN(Ref x, ctx.Input(0));
  TFN_ASSIGN_OR_RETURN(Ref y, ctx.Add(op, {x}, {{"axis", AttrValue::Int(ctx.AttrInt("axis", 0))},
                                               {"keepdims", AttrValue::Int(ctx.AttrInt("keepdims", 1))},
                                               {"select_last_index", AttrValue::Int(ctx.AttrInt("select_last_index", 0))}}));
  return ctx.Output(0, y);
}
TFN_ONNX_CONVERTER("ArgMax", 1, [](Context& ctx) { return ConvertArgReduce(ctx, OpId::kArgMax); });
TFN_ONNX_CONVERTER("ArgMin", 1, [](Context& ctx) { return ConvertArgReduce(ctx, OpId::kArgMin); });

// CumSum: the axis is an input (a scalar), also when computed at run time.
absl::Status ConvertCumSum(Context& ctx) {
  TFN_ASSIGN_OR_RETURN(Ref x, ctx.Input(0));
  TFN_ASSIGN_OR_RETURN(Ref axis, ctx.Input(1));
  TFN_ASSIGN_OR_RETURN(Ref y, ctx.Add(OpId::kCumSum, {x, axis},
                                      {{"exclusive", AttrValue::Int(ctx.AttrInt("exclusive", 0))},
                                       {"reverse", AttrValue::Int(ctx.AttrInt("reverse", 0))}}));
  return ctx.Output(0, y);
}
TFN_ONNX_CONVERTER("CumSum", 11, ConvertCumSum);

}  // namespace
}  // namespace tfn::onnx_import
