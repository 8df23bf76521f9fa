// What the reference and the optimized kernels of the quantized linear ops
// (qlinear_conv2d, qlinear_matmul, conv2d_integer, matmul_integer) share:
// where each operand is among the inputs, and the two definitions of their
// requantization that must not differ between kernels: the per-channel
// multiplier and the output bounds of a fused activation.
#pragma once

#include <cstdint>

#include "core/dtype.h"
#include "core/packed_layout.h"
#include "kernels/kernel_abi.h"
#include "kernels/params.h"

namespace tfn::kernels {

// The operands of one quantized linear node; absent ones are null.
struct QLinearOperands {
  const TfnTensor* x;  // input / a
  const TfnTensor* w;  // filter / b
  const TfnTensor *x_scale, *x_zero_point, *w_scale, *w_zero_point;
  const TfnTensor *y_scale, *y_zero_point, *bias;
};

inline QLinearOperands QLinearOperandsOf(const QLinearParams& p, const TfnTensor* in, int n) {
  auto at = [&](int i) { return i < n ? &in[i] : nullptr; };
  if (p.requantize) {
    return {at(0), at(3), at(1), at(2), at(4), at(5), at(6), at(7), at(8)};
  }
  return {at(0), at(1), nullptr, at(2), nullptr, at(3), nullptr, nullptr, nullptr};
}

// Element (k, n) of matrix `m` of prepacked int8 weights (K x N each; the
// layout of core/packed_layout.h). Prepacked uint8 weights are stored
// sign-flipped: compare them with their zero point minus 128
// (PackedZeroPointShift).
inline int32_t PackedInt8At(const void* data, int64_t K, int64_t N, int64_t m, int64_t k,
                            int64_t n) {
  const int64_t panels = (N + kInt8PanelWidth - 1) / kInt8PanelWidth, rows = (K + 3) / 4 + 1;
  const int64_t panel = m * panels + n / kInt8PanelWidth;
  return static_cast<const int8_t*>(
      data)[(panel * rows + k / 4) * kInt8PanelRowBytes + (n % kInt8PanelWidth) * 4 + k % 4];
}
inline int32_t PackedZeroPointShift(const QLinearParams& p, const TfnTensor* w_zero_point) {
  return p.packed && w_zero_point && w_zero_point->dtype != static_cast<int32_t>(DType::kInt8)
             ? -128
             : 0;
}

// The requantization multiplier of output channel c: x_scale * w_scale(c) /
// y_scale, in float32 in this order (ONNX Runtime's QLinearConv).
inline float RequantMultiplier(float x_scale, float w_scale, float y_scale) {
  return x_scale * w_scale / y_scale;
}

// The clamp of a requantized output: the dtype's range, narrowed by a fused
// relu (to the zero point) or clip (its bounds quantized like
// quantize_linear: round half to even, plus the zero point, saturated).
inline void QuantizedOutputBounds(const QLinearParams& p, float y_scale, int32_t y_zero_point,
                                  bool is_signed, int32_t* qmin, int32_t* qmax) {
  *qmin = is_signed ? -128 : 0;
  *qmax = is_signed ? 127 : 255;
  auto quantize = [&](float v) {
    float q = __builtin_nearbyintf(v / y_scale) + static_cast<float>(y_zero_point);
    if (q != q) q = static_cast<float>(y_zero_point);  // a NaN scale: no bound but the dtype's
    q = q < static_cast<float>(*qmin) ? static_cast<float>(*qmin) : q;
    q = q > static_cast<float>(*qmax) ? static_cast<float>(*qmax) : q;
    return static_cast<int32_t>(q);
  };
  if (p.act == kActRelu) {
    *qmin = quantize(0.0f);
  } else if (p.act == kActClip) {
    const int32_t lo = quantize(p.clip_min), hi = quantize(p.clip_max);
    *qmin = lo;
    *qmax = hi < lo ? lo : hi;
  }
}

}  // namespace tfn::kernels
