// ONNX Resize's coordinate semantics, shared by the reference kernel
// (ref/resize.cc, the oracle) and the optimized one (opt/resize.cc), so that
// both pick the same taps and weights and differ only in how they sum.
//
// Each output coordinate maps to an input coordinate per axis (the
// coordinate transformation), which picks taps with weights per axis:
// nearest one tap, linear two, cubic four (Keys' kernel with coefficient a).
// Taps outside the input read the edge (ONNX's reference pads with 'edge'),
// unless exclude_outside drops them and renormalizes the rest.
//
// The scale of an axis is the `scales` input when given (ONNX uses it, not
// out/in, in the transformation) and out/in otherwise; "the output length"
// in the transformations is scale * in, as in ONNX's reference.
#pragma once

#include <cmath>
#include <cstdint>

#include "kernels/kernel_abi.h"
#include "kernels/params.h"
#include "kernels/ref/tensor_util.h"

namespace tfn::kernels::resize {

inline const char* const kCoordModes[] = {"half_pixel",           "pytorch_half_pixel",
                                          "align_corners",        "asymmetric",
                                          "tf_half_pixel_for_nn", "tf_crop_and_resize"};
enum Coord { kHalfPixel, kPytorchHalfPixel, kAlignCorners, kAsymmetric, kTfHalfPixel, kCropResize };
inline const char* const kNearestModes[] = {"round_prefer_floor", "round_prefer_ceil", "floor",
                                            "ceil"};
enum Nearest { kRoundPreferFloor, kRoundPreferCeil, kFloor, kCeil };

struct AxisTaps {
  int n = 0;
  int64_t index[4];
  double weight[4];
};

// Per-axis scale and region of interest, from the optional inputs `scales`
// (input 2) and `roi` (input 3). Returns false when their sizes do not
// match the rank.
inline bool AxisScales(const TfnTensor* inputs, int32_t num_inputs, const TfnTensor& x,
                       const TfnTensor& y, double* scale, double* start, double* end) {
  const int rank = x.rank;
  const bool has_scales = num_inputs > 2, has_roi = num_inputs > 3;
  if ((has_scales && NumElementsOf(inputs[2]) != rank) ||
      (has_roi && NumElementsOf(inputs[3]) != 2 * rank)) {
    return false;
  }
  auto element = [](const TfnTensor& t, int i) {
    return t.dtype == static_cast<int32_t>(DType::kFloat64)
               ? DataOf<double>(t)[i]
               : static_cast<double>(DataOf<float>(t)[i]);
  };
  for (int d = 0; d < rank; ++d) {
    scale[d] = has_scales ? element(inputs[2], d) : 0;
    if (!(scale[d] > 0)) scale[d] = static_cast<double>(y.dims[d]) / static_cast<double>(x.dims[d]);
    start[d] = has_roi ? element(inputs[3], d) : 0;
    end[d] = has_roi ? element(inputs[3], rank + d) : 1;
  }
  return true;
}

// The input coordinate of output coordinate `x` along one axis.
inline double SourceCoord(int coord, double x, int64_t in, double scale, double start, double end) {
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
inline void Taps(const ResizeParams& p, double s, int64_t in, AxisTaps* t) {
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

}  // namespace tfn::kernels::resize
