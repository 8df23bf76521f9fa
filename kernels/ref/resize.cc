// Reference kernel of resize: ONNX Resize's semantics on any rank and layout.
//
// Each output coordinate maps to an input coordinate per axis (the
// coordinate transformation), which picks taps with weights per axis:
// nearest one tap, linear two, cubic four (Keys' kernel with coefficient a).
// The output is the sum over the product of the axes' taps. Taps outside the
// input read the edge (ONNX's reference pads with 'edge'), unless
// exclude_outside drops them and renormalizes the rest; tf_crop_and_resize
// writes extrapolation_value where a coordinate leaves the input.
//
// The scale of an axis is the `scales` input when given (ONNX uses it, not
// out/in, in the transformation) and out/in otherwise; "the output length"
// in the transformations is scale * in, as in ONNX's reference.
#include <cmath>
#include <string>
#include <type_traits>

#include "kernels/ref/ref_kernels.h"
#include "kernels/ref/scalar_ops.h"
#include "kernels/ref/tensor_util.h"

namespace tfn::kernels {
namespace {

const char* const kCoordModes[] = {"half_pixel", "pytorch_half_pixel",   "align_corners",
                                   "asymmetric", "tf_half_pixel_for_nn", "tf_crop_and_resize"};
enum Coord { kHalfPixel, kPytorchHalfPixel, kAlignCorners, kAsymmetric, kTfHalfPixel, kCropResize };
const char* const kNearestModes[] = {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"};
enum Nearest { kRoundPreferFloor, kRoundPreferCeil, kFloor, kCeil };

struct AxisTaps {
  int n = 0;
  int64_t index[4];
  double weight[4];
};

// The input coordinate of output coordinate `x` along one axis.
double SourceCoord(int coord, double x, int64_t in, double scale, double start, double end) {
  const double out_len = scale * static_cast<double>(in);
  const double last = static_cast<double>(in - 1);
  switch (coord) {
    case kPytorchHalfPixel:
      return out_len > 1 ? (x + 0.5) / scale - 0.5 : 0.0;
    case kAlignCorners:
      return out_len == 1 ? 0.0 : x * last / (out_len - 1);
    case kAsymmetric:
      return x / scale;
    case kTfHalfPixel:
      return (x + 0.5) / scale;
    case kCropResize:
      return out_len > 1 ? start * last + x * (end - start) * last / (out_len - 1)
                         : 0.5 * (start + end) * last;
    default:
      return (x + 0.5) / scale - 0.5;
  }
}

// Taps of one axis at source coordinate `s`.
void Taps(const ResizeParams& p, double s, int64_t in, AxisTaps* t) {
  const double base = std::floor(s);
  const double r = s - base;
  const int64_t i0 = static_cast<int64_t>(base);
  t->n = 0;
  if (p.mode == 0) {
    int64_t i = i0;
    if (r != 0) {
      const bool up = p.nearest_mode == kRoundPreferFloor  ? r > 0.5
                      : p.nearest_mode == kRoundPreferCeil ? r >= 0.5
                                                           : p.nearest_mode == kCeil;
      i = up ? i0 + 1 : i0;
    }
    t->index[0] = i;
    t->weight[0] = 1;
    t->n = 1;
  } else if (p.mode == 1) {
    t->index[0] = i0;
    t->weight[0] = 1 - r;
    t->index[1] = i0 + 1;
    t->weight[1] = r;
    t->n = 2;
  } else {
    const double a = p.cubic_coeff_a;
    auto near = [a](double d) { return ((a + 2) * d - (a + 3)) * d * d + 1; };       // |d| <= 1
    auto far = [a](double d) { return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a; };  // 1 < |d| < 2
    const double w[4] = {far(r + 1), near(r), near(1 - r), far(2 - r)};
    for (int k = 0; k < 4; ++k) {
      t->index[k] = i0 - 1 + k;
      t->weight[k] = w[k];
    }
    t->n = 4;
  }
  double total = 0;
  int kept = 0;
  for (int k = 0; k < t->n; ++k) {
    const bool outside = t->index[k] < 0 || t->index[k] >= in;
    if (outside && p.exclude_outside) continue;
    if (t->weight[k] == 0) continue;  // integer coordinates: one tap suffices
    t->index[kept] = outside ? (t->index[k] < 0 ? 0 : in - 1) : t->index[k];
    t->weight[kept] = t->weight[k];
    total += t->weight[k];
    ++kept;
  }
  t->n = kept;
  if (p.exclude_outside && total != 0) {
    for (int k = 0; k < kept; ++k) t->weight[k] /= total;
  }
}

}  // namespace

TFN_KERNEL(tfn_ref_resize) {
  const auto& p = *static_cast<const ResizeParams*>(params);
  const TfnTensor& x = inputs[0];
  const TfnTensor& y = outputs[0];
  const int rank = x.rank;
  if (y.rank != rank || rank < 1 || rank > TFN_KERNEL_MAX_RANK) return TFN_KERNEL_BAD_SHAPE;
  const bool has_scales = num_inputs > 2, has_roi = num_inputs > 3;
  if ((has_scales && NumElementsOf(inputs[2]) != rank) ||
      (has_roi && NumElementsOf(inputs[3]) != 2 * rank)) {
    return TFN_KERNEL_BAD_SHAPE;
  }
  const int64_t total = NumElementsOf(y);
  if (total == 0) return TFN_KERNEL_OK;
  for (int d = 0; d < rank; ++d) {
    if (x.dims[d] == 0) return TFN_KERNEL_BAD_SHAPE;
  }
  auto element = [](const TfnTensor& t, int i) {
    return t.dtype == static_cast<int32_t>(DType::kFloat64)
               ? DataOf<double>(t)[i]
               : static_cast<double>(DataOf<float>(t)[i]);
  };
  double scale[TFN_KERNEL_MAX_RANK], start[TFN_KERNEL_MAX_RANK], end[TFN_KERNEL_MAX_RANK];
  int64_t in_strides[TFN_KERNEL_MAX_RANK];
  StridesOf(x, in_strides);
  for (int d = 0; d < rank; ++d) {
    scale[d] = has_scales ? element(inputs[2], d) : 0;
    if (!(scale[d] > 0)) scale[d] = static_cast<double>(y.dims[d]) / static_cast<double>(x.dims[d]);
    start[d] = has_roi ? element(inputs[3], d) : 0;
    end[d] = has_roi ? element(inputs[3], rank + d) : 1;
  }
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
