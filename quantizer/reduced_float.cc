// Implementation of the reduced-float layer forms (reduced_float.h).
#include "quantizer/reduced_float.h"

#include <cmath>
#include <cstdio>

#include "core/half.h"

namespace tfn::quantizer {
namespace {

using ir::ValueRef;

absl::StatusOr<ValueRef> Cast(ir::Graph& g, ValueRef v, DType to) {
  return g.Add(OpId::kCast, {v}, Attrs{{"dtype", AttrValue::Type(to)}});
}

// w's values as float16 or bfloat16 bits, rounded to nearest even.
absl::StatusOr<ConstTensor> Narrow(const ConstTensor& w, DType to, const std::string& layer) {
  void* data = nullptr;
  ConstTensor out = ConstTensor::Allocate(to, w.shape, &data);
  auto* bits = static_cast<uint16_t*>(data);
  const float* src = w.as<float>();
  for (int64_t i = 0; i < w.num_elements(); ++i) {
    const float v = src[i];
    if (!std::isfinite(v)) {
      return absl::InvalidArgumentError("layer " + layer + ": its weight holds " +
                                        std::string(std::isnan(v) ? "NaN" : "inf") +
                                        " at element " + std::to_string(i) +
                                        "; only finite weights can be stored narrow (keep the "
                                        "layer float with --keep-float " +
                                        layer + ")");
    }
    if (to == DType::kFloat16 && std::fabs(v) > 65504.0f) {
      char value[32];
      std::snprintf(value, sizeof value, "%g", v);
      return absl::InvalidArgumentError(
          "layer " + layer + ": its weight holds " + value + " at element " + std::to_string(i) +
          ", beyond float16's range (+-65504); use --bf16, or keep the layer float with "
          "--keep-float " +
          layer);
    }
    bits[i] = to == DType::kFloat16 ? FloatToHalfBits(v) : FloatToBFloat16Bits(v);
  }
  return out;
}

}  // namespace

const char* ReducedFloatName(ReducedFloat mode) {
  return mode == ReducedFloat::kBFloat16 ? "bf16" : "fp16-weights";
}

absl::StatusOr<ValueRef> EmitReducedFloatRoot(ir::Graph& g, const ir::Node& root,
                                              std::vector<ValueRef> inputs,
                                              const ConstTensor& weight, ReducedFloat mode,
                                              const std::string& layer) {
  const DType narrow = mode == ReducedFloat::kBFloat16 ? DType::kBFloat16 : DType::kFloat16;
  absl::StatusOr<ConstTensor> w = Narrow(weight, narrow, layer);
  if (!w.ok()) return w.status();
  absl::StatusOr<ValueRef> wide = Cast(g, g.AddConstant(*std::move(w)), DType::kFloat32);
  if (!wide.ok()) return wide;
  inputs[1] = *wide;
  if (mode == ReducedFloat::kBFloat16 && root.op == OpId::kMatMul) {
    absl::StatusOr<ValueRef> x = Cast(g, inputs[0], DType::kBFloat16);
    if (x.ok()) x = Cast(g, *x, DType::kFloat32);
    if (!x.ok()) return x;
    inputs[0] = *x;
  }
  return g.Add(root.op, std::move(inputs), root.attrs);
}

}  // namespace tfn::quantizer
