// Reference kernel of resize: ONNX Resize's semantics on any rank and layout
// (ref/resize_taps.h: the coordinate transformations and the taps of each
// axis). The output is the sum over the product of the axes' taps, in
// double; tf_crop_and_resize writes extrapolation_value where a coordinate
// leaves the input.
#include <string>
#include <type_traits>

#include "kernels/ref/ref_kernels.h"
#include "kernels/ref/resize_taps.h"
#include "kernels/ref/scalar_ops.h"
#include "kernels/ref/tensor_util.h"

namespace tfn::kernels {

using namespace resize;  // NOLINT: the modes and taps this file implements

TFN_KERNEL(tfn_ref_resize) {
  const auto& p = *static_cast<const ResizeParams*>(params);
  const TfnTensor& x = inputs[0];
  const TfnTensor& y = outputs[0];
  const int rank = x.rank;
  if (y.rank != rank || rank < 1 || rank > TFN_KERNEL_MAX_RANK) return TFN_KERNEL_BAD_SHAPE;
  double scale[TFN_KERNEL_MAX_RANK], start[TFN_KERNEL_MAX_RANK], end[TFN_KERNEL_MAX_RANK];
  if (!AxisScales(inputs, num_inputs, x, y, scale, start, end)) return TFN_KERNEL_BAD_SHAPE;
  const int64_t total = NumElementsOf(y);
  if (total == 0) return TFN_KERNEL_OK;
  for (int d = 0; d < rank; ++d) {
    if (x.dims[d] == 0) return TFN_KERNEL_BAD_SHAPE;
  }
  int64_t in_strides[TFN_KERNEL_MAX_RANK];
  StridesOf(x, in_strides);
  return DispatchDType(x.dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, bool>) {
      return TFN_KERNEL_UNSUPPORTED;
    } else {
      const T* xs = DataOf<T>(x);
      T* ys = DataOf<T>(y);
      AxisTaps taps[TFN_KERNEL_MAX_RANK];
      for (int64_t i = 0; i < total; ++i) {
        bool outside = false;
        for (int64_t rest = i, d = rank - 1; d >= 0; --d) {
          const int64_t coord = rest % y.dims[d];
          rest /= y.dims[d];
          const double s = SourceCoord(p.coord, static_cast<double>(coord), x.dims[d], scale[d],
                                       start[d], end[d]);
          outside |= p.coord == kCropResize && (s < 0 || s > static_cast<double>(x.dims[d] - 1));
          Taps(p, s, x.dims[d], &taps[d]);
        }
        bool empty = false;  // exclude_outside left an axis without taps
        for (int d = 0; d < rank; ++d) empty |= taps[d].n == 0;
        double acc = 0;
        if (outside) {
          acc = p.extrapolation_value;
        } else if (!empty) {
          int pos[TFN_KERNEL_MAX_RANK] = {};  // odometer over the taps of every axis
          while (true) {
            double w = 1;
            int64_t off = 0;
            for (int d = 0; d < rank; ++d) {
              w *= taps[d].weight[pos[d]];
              off += taps[d].index[pos[d]] * in_strides[d];
            }
            acc += w * static_cast<double>(xs[off]);
            int d = rank - 1;
            while (d >= 0 && ++pos[d] == taps[d].n) pos[d--] = 0;
            if (d < 0) break;
          }
        }
        ys[i] = kIsFloat<T> ? static_cast<T>(acc) : static_cast<T>(std::nearbyint(acc));
      }
      return TFN_KERNEL_OK;
    }
  });
}

Status PrepareResize(const NodeSignature& node, KernelPlan* plan) {
  auto* p = plan->As<ResizeParams>();
  const std::string mode = node.attrs->GetString("mode");
  const std::string coord = node.attrs->GetString("coordinate_transformation_mode");
  const std::string nearest = node.attrs->GetString("nearest_mode");
  p->mode = mode == "nearest" ? 0 : mode == "linear" ? 1 : mode == "cubic" ? 2 : -1;
  p->coord = p->nearest_mode = -1;
  for (int i = 0; i < 6; ++i) {
    if (coord == kCoordModes[i]) p->coord = i;
  }
  for (int i = 0; i < 4; ++i) {
    if (nearest == kNearestModes[i]) p->nearest_mode = i;
  }
  if (p->mode < 0 || p->coord < 0 || p->nearest_mode < 0) {
    return InvalidArgument("resize: unknown mode '" + mode + "', coordinate_transformation_mode '" +
                           coord + "' or nearest_mode '" + nearest + "'");
  }
  p->exclude_outside = node.attrs->GetInt("exclude_outside") != 0;
  p->cubic_coeff_a = node.attrs->GetFloat("cubic_coeff_a");
  p->extrapolation_value = node.attrs->GetFloat("extrapolation_value");
  plan->fn = tfn_ref_resize;
  plan->symbol = "tfn_ref_resize";
  return Status::Ok();
}

}  // namespace tfn::kernels
