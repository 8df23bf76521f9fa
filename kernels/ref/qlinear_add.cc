// Reference kernel of qlinear_add: ref/qlinear_add.h's arithmetic, one
// element at a time.
#include "kernels/ref/qlinear_add.h"

#include "kernels/ref/ref_kernels.h"
#include "kernels/ref/tensor_util.h"

namespace tfn::kernels {

TFN_KERNEL(tfn_ref_qlinear_add) {
  const auto& p = *static_cast<const QLinearAddParams*>(params);
  const TfnTensor& y = outputs[0];
  QLinearAddScalars k;
  if (int32_t code = QLinearAddScalarsOf(inputs, y, p.relu != 0, &k)) return code;
  const int64_t n = NumElementsOf(y);
  const bool is_signed = y.dtype == static_cast<int32_t>(DType::kInt8);
  for (int64_t e = 0; e < n; ++e) {
    const float s = QLinearAddSum(Int8At(inputs[0], e), Int8At(inputs[3], e), k);
    // As quantize_linear: nearbyint rounds half to even; NaN saturates to 0.
    const float r = __builtin_nearbyintf(s / k.y_scale) + static_cast<float>(k.y_zero);
    const int32_t q = r != r                            ? 0
                      : r < static_cast<float>(k.y_min) ? k.y_min
                      : r > static_cast<float>(k.y_max) ? k.y_max
                                                        : static_cast<int32_t>(r);
    if (is_signed) {
      static_cast<int8_t*>(y.data)[e] = static_cast<int8_t>(q);
    } else {
      static_cast<uint8_t*>(y.data)[e] = static_cast<uint8_t>(q);
    }
  }
  return TFN_KERNEL_OK;
}

Status PrepareQLinearAdd(const NodeSignature& node, KernelPlan* plan) {
  plan->As<QLinearAddParams>()->relu = node.attrs->GetInt("relu") != 0 ? 1 : 0;
  plan->fn = tfn_ref_qlinear_add;
  plan->symbol = "tfn_ref_qlinear_add";
  return Status::Ok();
}

}  // namespace tfn::kernels
