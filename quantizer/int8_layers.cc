// Implementation of per-channel weight quantization and dynamic matmuls.
#include "quantizer/int8_layers.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace tfn::quantizer {

absl::StatusOr<Int8Weight> QuantizeWeight(const ConstTensor& w, int axis,
                                          const std::string& layer) {
  const int64_t channels = w.shape[axis];
  // Element i belongs to channel (i / inner) % channels.
  int64_t inner = 1;
  for (int d = axis + 1; d < w.shape.rank(); ++d) inner *= w.shape[d];
  const int64_t n = w.num_elements();
  std::vector<double> amax(channels, 0);
  for (int64_t i = 0; i < n; ++i) {
    const double v = w.as<float>()[i];
    if (!std::isfinite(v)) {
      return absl::InvalidArgumentError("the weight of layer " + layer + " holds " +
                                        std::to_string(v) +
                                        ": only finite weights can be quantized");
    }
    const int64_t c = (i / inner) % channels;
    amax[c] = std::max(amax[c], std::fabs(v));
  }
  Int8Weight out;
  out.scales.resize(channels);
  for (int64_t c = 0; c < channels; ++c) {
    out.scales[c] = amax[c] > 0 ? static_cast<float>(amax[c] / 127.0) : 1.0f;
  }
  void* data = nullptr;
  out.q = ConstTensor::Allocate(DType::kInt8, w.shape, &data);
  for (int64_t i = 0; i < n; ++i) {
    const double v = std::nearbyint(w.as<float>()[i] / out.scales[(i / inner) % channels]);
    static_cast<int8_t*>(data)[i] = static_cast<int8_t>(std::min(127.0, std::max(-127.0, v)));
  }
  return out;
}

absl::StatusOr<ir::ValueRef> EmitDynamicMatMul(ir::Graph& g, ir::ValueRef x, const Int8Weight& w) {
  auto scalar = [&](float v) { return g.AddConstant(ConstTensor::Scalar<float>(v)); };
  std::vector<int64_t> all;
  for (int d = 0; d < g.type(x).shape.rank(); ++d) all.push_back(d);
  const Attrs reduce = {{"axes", AttrValue::Ints(all)}, {"keepdims", AttrValue::Int(0)}};
  // DynamicQuantizeLinear, as ONNX defines it; the scale is kept above 0 so
  // that an all-zero x gives zeros instead of 0 / 0.
  absl::StatusOr<ir::ValueRef> lo = g.Add(OpId::kReduceMin, {x}, reduce);
  if (lo.ok()) lo = g.Add(OpId::kMinimum, {*lo, scalar(0)});
  absl::StatusOr<ir::ValueRef> hi = g.Add(OpId::kReduceMax, {x}, reduce);
  if (hi.ok()) hi = g.Add(OpId::kMaximum, {*hi, scalar(0)});
  if (!lo.ok() || !hi.ok()) return lo.ok() ? hi : lo;
  absl::StatusOr<ir::ValueRef> scale = g.Add(OpId::kSub, {*hi, *lo});
  if (scale.ok()) scale = g.Add(OpId::kDiv, {*scale, scalar(255)});
  if (scale.ok()) {
    scale = g.Add(OpId::kMaximum, {*scale, scalar(std::numeric_limits<float>::min())});
  }
  if (!scale.ok()) return scale;
  absl::StatusOr<ir::ValueRef> zero = g.Add(OpId::kDiv, {*lo, *scale});
  if (zero.ok()) zero = g.Add(OpId::kNeg, {*zero});
  if (zero.ok()) zero = g.Add(OpId::kMaximum, {*zero, scalar(0)});
  if (zero.ok()) zero = g.Add(OpId::kMinimum, {*zero, scalar(255)});
  if (zero.ok()) zero = g.Add(OpId::kRound, {*zero});
  if (zero.ok()) zero = g.Add(OpId::kCast, {*zero}, {{"dtype", AttrValue::Type(DType::kUInt8)}});
  if (!zero.ok()) return zero;
  absl::StatusOr<ir::ValueRef> xq =
      g.Add(OpId::kQuantizeLinear, {x, *scale, *zero}, {{"dtype", AttrValue::Type(DType::kUInt8)}});
  if (!xq.ok()) return xq;
  // float(acc) * (x_scale * w_scale(n))
  absl::StatusOr<ir::ValueRef> acc = g.Add(OpId::kMatMulInteger, {*xq, g.AddConstant(w.q), *zero});
  if (acc.ok()) acc = g.Add(OpId::kCast, {*acc}, {{"dtype", AttrValue::Type(DType::kFloat32)}});
  const int64_t n = static_cast<int64_t>(w.scales.size());
  absl::StatusOr<ir::ValueRef> unit =
      g.Add(OpId::kMul,
            {*scale, g.AddConstant(ConstTensor::Copy(DType::kFloat32, Shape{n}, w.scales.data()))});
  if (!acc.ok() || !unit.ok()) return acc.ok() ? unit : acc;
  return g.Add(OpId::kMul, {*acc, *unit});
}

}  // namespace tfn::quantizer
