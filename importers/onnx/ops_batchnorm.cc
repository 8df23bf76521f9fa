// Converters of ONNX's per-channel normalizations: BatchNormalization
// (inference form) and InstanceNormalization.
//
// BatchNormalization becomes y = x * s + t with s = scale / sqrt(var + eps)
// and t = bias - mean * s, per channel (axis 1). With constant statistics, s
// and t fold to constants at import, and after a Conv the conv_scale_fold
// pass merges the mul and add into the convolution's filter and bias.
#include "importers/onnx/context.h"

namespace tfn::onnx_import {
namespace {

AttrValue Ints(std::vector<int64_t> v) { return AttrValue::Ints(std::move(v)); }

// A per-channel vector [C] reshaped to [C, 1, ...] so it broadcasts over
// axis 1 of a rank-`rank` NC... tensor.
absl::StatusOr<ir::ValueRef> PerChannel(Context& ctx, ir::ValueRef v, int rank) {
  if (rank <= 2) return v;
  std::vector<int64_t> shape = {-1};
  for (int i = 2; i < rank; ++i) shape.push_back(1);
  return ctx.Add(OpId::kReshape, {v}, {{"shape", Ints(shape)}});
}

absl::Status ConvertBatchNorm(Context& ctx) {
  if (ctx.AttrInt("training_mode", 0) != 0) {
    return ctx.Unsupported("BatchNormalization in training mode");
  }
  for (int i = 1; i < ctx.node().output_size(); ++i) {
    if (!ctx.node().output(i).empty()) {
      return ctx.Unsupported("BatchNormalization's running statistics outputs (training)");
    }
  }
  if (ctx.AttrInt("spatial", 1) == 0) return ctx.Unsupported("BatchNormalization with spatial=0");
  std::vector<ir::ValueRef> in;
  for (int i = 0; i < 5; ++i) {
    absl::StatusOr<ir::ValueRef> v = ctx.Input(i);
    if (!v.ok()) return v.status();
    in.push_back(*v);
  }
  const ir::ValueRef x = in[0], scale = in[1], bias = in[2], mean = in[3], var = in[4];
  const int rank = ctx.Type(x).shape.rank();
  if (rank < 2) return ctx.Error("input must be [N, C, ...]");
  const DType t = ctx.Type(x).dtype;
  absl::StatusOr<ir::ValueRef> s =
      ctx.Add(OpId::kAdd, {var, ctx.Scalar(t, ctx.AttrFloat("epsilon", 1e-5f))});
  if (s.ok()) s = ctx.Add(OpId::kRsqrt, {*s});
  if (s.ok()) s = ctx.Add(OpId::kMul, {scale, *s});
  if (!s.ok()) return s.status();
  absl::StatusOr<ir::ValueRef> shift = ctx.Add(OpId::kMul, {mean, *s});
  if (shift.ok()) shift = ctx.Add(OpId::kSub, {bias, *shift});
  if (!shift.ok()) return shift.status();
  s = PerChannel(ctx, *s, rank);
  if (s.ok()) shift = PerChannel(ctx, *shift, rank);
  if (!s.ok() || !shift.ok()) return !s.ok() ? s.status() : shift.status();
  absl::StatusOr<ir::ValueRef> y = ctx.Add(OpId::kMul, {x, *s});
  if (y.ok()) y = ctx.Add(OpId::kAdd, {*y, *shift});
  if (!y.ok()) return y.status();
  return ctx.Output(0, *y);
}
TFN_ONNX_CONVERTER("BatchNormalization", 1, ConvertBatchNorm);

// y = scale * (x - mean) / sqrt(var + eps) + bias, statistics over the
// spatial axes of each (sample, channel).
absl::Status ConvertInstanceNorm(Context& ctx) {
  absl::StatusOr<ir::ValueRef> x = ctx.Input(0), scale = ctx.Input(1), bias = ctx.Input(2);
  if (!x.ok() || !scale.ok() || !bias.ok()) {
    return !x.ok() ? x.status() : !scale.ok() ? scale.status() : bias.status();
  }
  const int rank = ctx.Type(*x).shape.rank();
  if (rank < 3) return ctx.Error("input must be [N, C, spatial...]");
  const DType t = ctx.Type(*x).dtype;
  std::vector<int64_t> axes;
  for (int i = 2; i < rank; ++i) axes.push_back(i);
  Attrs keep{{"axes", Ints(axes)}, {"keepdims", AttrValue::Int(1)}};
  absl::StatusOr<ir::ValueRef> mean = ctx.Add(OpId::kReduceMean, {*x}, keep);
  if (!mean.ok()) return mean.status();
  absl::StatusOr<ir::ValueRef> centered = ctx.Add(OpId::kSub, {*x, *mean});
  if (!centered.ok()) return centered.status();
  absl::StatusOr<ir::ValueRef> inv = ctx.Add(OpId::kMul, {*centered, *centered});
  if (inv.ok()) inv = ctx.Add(OpId::kReduceMean, {*inv}, keep);
  if (inv.ok()) inv = ctx.Add(OpId::kAdd, {*inv, ctx.Scalar(t, ctx.AttrFloat("epsilon", 1e-5f))});
  if (inv.ok()) inv = ctx.Add(OpId::kRsqrt, {*inv});
  if (!inv.ok()) return inv.status();
  absl::StatusOr<ir::ValueRef> s = PerChannel(ctx, *scale, rank);
  absl::StatusOr<ir::ValueRef> b = PerChannel(ctx, *bias, rank);
  if (!s.ok() || !b.ok()) return !s.ok() ? s.status() : b.status();
  absl::StatusOr<ir::ValueRef> y = ctx.Add(OpId::kMul, {*centered, *inv});
  if (y.ok()) y = ctx.Add(OpId::kMul, {*y, *s});
  if (y.ok()) y = ctx.Add(OpId::kAdd, {*y, *b});
  if (!y.ok()) return y.status();
  return ctx.Output(0, *y);
}
TFN_ONNX_CONVERTER("InstanceNormalization", 1, ConvertInstanceNorm);

}  // namespace
}  // namespace tfn::onnx_import
