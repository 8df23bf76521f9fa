// The arithmetic of qlinear_add (core/op_sigs.h), shared by the reference
// kernel (ref/qlinear_add.cc) and the optimized one (opt/qlinear_add.cc):
// per element, in float32,
//   s = float(a - a_zero_point) * a_scale + float(b - b_zero_point) * b_scale
//   s = relu(s)                             (attribute relu = 1)
//   y = saturate(round_half_even(s / output_scale) + output_zero_point)
// the very operations dequantize_linear, add, relu and quantize_linear take
// (ref/quantize.cc, scalar_ops.h), in that order: a fused island gives what
// the unfused ops gave, bit for bit.
#pragma once

#include <cstdint>

#include "core/dtype.h"
#include "kernels/kernel_abi.h"
#include "kernels/ref/tensor_util.h"

namespace tfn::kernels {

// The scalar operands of one qlinear_add call.
struct QLinearAddScalars {
  float a_scale, b_scale, y_scale;
  int32_t a_zero, b_zero, y_zero;
  int32_t y_min, y_max;  // the output dtype's range
  bool relu;
};

inline int32_t Int8At(const TfnTensor& t, int64_t e) {
  return t.dtype == static_cast<int32_t>(DType::kInt8) ? static_cast<const int8_t*>(t.data)[e]
                                                       : static_cast<const uint8_t*>(t.data)[e];
}

// TFN_KERNEL_BAD_SHAPE unless every scale and zero point holds one value
// and a, b and y have as many elements.
inline int32_t QLinearAddScalarsOf(const TfnTensor* inputs, const TfnTensor& y, bool relu,
                                   QLinearAddScalars* k) {
  for (int i : {1, 2, 4, 5, 6, 7}) {
    if (NumElementsOf(inputs[i]) != 1) return TFN_KERNEL_BAD_SHAPE;
  }
  const int64_t n = NumElementsOf(y);
  if (NumElementsOf(inputs[0]) != n || NumElementsOf(inputs[3]) != n) return TFN_KERNEL_BAD_SHAPE;
  const bool is_signed = y.dtype == static_cast<int32_t>(DType::kInt8);
  *k = {*static_cast<const float*>(inputs[1].data),
        *static_cast<const float*>(inputs[4].data),
        *static_cast<const float*>(inputs[6].data),
        Int8At(inputs[2], 0),
        Int8At(inputs[5], 0),
        Int8At(inputs[7], 0),
        is_signed ? -128 : 0,
        is_signed ? 127 : 255,
        relu};
  return TFN_KERNEL_OK;
}

// s before quantizing (the first two steps above).
inline float QLinearAddSum(int32_t a, int32_t b, const QLinearAddScalars& k) {
  const float da = static_cast<float>(a - k.a_zero) * k.a_scale;
  const float db = static_cast<float>(b - k.b_zero) * k.b_scale;
  const float s = da + db;
  return k.relu && s < 0 ? 0.0f : s;
}

}  // namespace tfn::kernels
