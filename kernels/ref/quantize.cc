// Reference kernels of quantize_linear and dequantize_linear (ONNX's
// QuantizeLinear and DequantizeLinear, the arithmetic of TFLite's int8
// spec), per tensor or per axis:
//   quantize:   y = saturate(round_half_even(x / scale) + zero_point)
//   dequantize: y = (x - zero_point) * scale
// Both compute in float32 whatever the float dtype of x or scale (as ONNX
// Runtime does: the quotient and the product are float32 operations), and
// store through core/element_convert.h, so every float and quantized dtype
// shares one loop.
#include <cmath>

#include "core/element_convert.h"
#include "kernels/ref/ref_kernels.h"
#include "kernels/ref/tensor_util.h"

namespace tfn::kernels {
namespace {

// Where element e's scale and zero point are: the channel index along the
// axis, or 0 per tensor.
struct ChannelOf {
  int64_t inner = 1, channels = 1;
  int64_t operator()(int64_t e) const { return channels == 1 ? 0 : (e / inner) % channels; }
};

// 0 when the params fit x: a per-tensor scale, or one per channel of `axis`.
int32_t MakeChannelOf(const QuantizeParams& p, const TfnTensor* inputs, int32_t num_inputs,
                      ChannelOf* out) {
  const TfnTensor& x = inputs[0];
  const int64_t count = NumElementsOf(inputs[1]);
  if (num_inputs > 2 && NumElementsOf(inputs[2]) != count) return TFN_KERNEL_BAD_SHAPE;
  if (count == 1 && inputs[1].rank <= 1) return TFN_KERNEL_OK;
  if (p.axis < 0 || p.axis >= x.rank || inputs[1].rank != 1 || count != x.dims[p.axis]) {
    return TFN_KERNEL_BAD_SHAPE;
  }
  out->channels = count;
  for (int d = p.axis + 1; d < x.rank; ++d) out->inner *= x.dims[d];
  return TFN_KERNEL_OK;
}

float ScaleAt(const TfnTensor& scale, int64_t c) {
  return WideToFloat(LoadWide(static_cast<DType>(scale.dtype), scale.data, c));
}

int64_t ZeroPointAt(const TfnTensor* inputs, int32_t num_inputs, int64_t c) {
  if (num_inputs < 3) return 0;
  return WideToInt<int64_t>(LoadWide(static_cast<DType>(inputs[2].dtype), inputs[2].data, c));
}

}  // namespace

TFN_KERNEL(tfn_ref_quantize_linear) {
  const auto& p = *static_cast<const QuantizeParams*>(params);
  const TfnTensor& x = inputs[0];
  const TfnTensor& y = outputs[0];
  ChannelOf channel_of;
  if (int32_t code = MakeChannelOf(p, inputs, num_inputs, &channel_of)) return code;
  const DType from = static_cast<DType>(x.dtype), to = static_cast<DType>(y.dtype);
  const int64_t n = NumElementsOf(y);
  for (int64_t e = 0; e < n; ++e) {
    const int64_t c = channel_of(e);
    const float q = WideToFloat(LoadWide(from, x.data, e)) / ScaleAt(inputs[1], c);
    // nearbyint rounds half to even in the default rounding mode; adding the
    // zero point in float and saturating in element_convert.h maps ±inf to
    // the range's ends and NaN to 0 (as ONNX Runtime's float path does).
    const float r =
        __builtin_nearbyintf(q) + static_cast<float>(ZeroPointAt(inputs, num_inputs, c));
    StoreWide(to, y.data, e, WideOfDouble(r));
  }
  return TFN_KERNEL_OK;
}

TFN_KERNEL(tfn_ref_dequantize_linear) {
  const auto& p = *static_cast<const QuantizeParams*>(params);
  const TfnTensor& x = inputs[0];
  const TfnTensor& y = outputs[0];
  ChannelOf channel_of;
  if (int32_t code = MakeChannelOf(p, inputs, num_inputs, &channel_of)) return code;
  const DType from = static_cast<DType>(x.dtype), to = static_cast<DType>(y.dtype);
  const int64_t n = NumElementsOf(y);
  for (int64_t e = 0; e < n; ++e) {
    const int64_t c = channel_of(e);
    const int64_t v =
        WideToInt<int64_t>(LoadWide(from, x.data, e)) - ZeroPointAt(inputs, num_inputs, c);
    StoreWide(to, y.data, e, WideOfDouble(static_cast<float>(v) * ScaleAt(inputs[1], c)));
  }
  return TFN_KERNEL_OK;
}

Status PrepareQuantize(const NodeSignature& node, KernelPlan* plan) {
  auto* p = plan->As<QuantizeParams>();
  int axis = -1;
  if (!NormalizeAxis(node.attrs->GetInt("axis"), node.in_ranks[0], &axis)) axis = -1;
  p->axis = axis;  // -1: only a per-tensor scale fits (the kernel checks)
  const bool quantize = node.op == OpId::kQuantizeLinear;
  plan->fn = quantize ? tfn_ref_quantize_linear : tfn_ref_dequantize_linear;
  plan->symbol = quantize ? "tfn_ref_quantize_linear" : "tfn_ref_dequantize_linear";
  return Status::Ok();
}

}  // namespace tfn::kernels
