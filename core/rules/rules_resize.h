// Shape rule of resize: the output shape is the value of the `sizes` input.
//
// resize is layout-free: every axis has its own size (and scale), so an ONNX
// NCHW Resize maps onto it without transposes and an NHWC graph uses it the
// same way. An empty `sizes` means trunc(x.shape * scales) with constant
// scales, a shape that follows from x's (a dynamic batch stays symbolic, not
// data-dependent). When `sizes` is computed at run time, the symbolic rule
// still keeps what constant `scales` imply: a scale of 1 keeps the dim, an
// integer scale k multiplies it; other dims become fresh unknowns.
#pragma once

#include <cmath>
#include <string>

#include "core/rules/rules_shape.h"

namespace tfn::rules {

inline bool IsOneOf(const std::string& s, std::initializer_list<const char*> options) {
  for (const char* o : options) {
    if (s == o) return true;
  }
  return false;
}

// trunc(size * scale) as a dim; a product past 2^62 is an error, not a
// double converted out of int64's range (undefined).
template <class D>
Status ScaledDim(const InferContext<D>& c, int axis, int64_t size, double scale, D* out) {
  const double scaled = static_cast<double>(size) * scale;
  if (!(scaled < 4.6e18)) {
    return c.Errorf("scale %lld of axis %lld makes the output's size %lld, too large",
                    static_cast<long long>(scale), static_cast<long long>(axis),
                    static_cast<long long>(scaled));
  }
  *out = D(static_cast<int64_t>(scaled));
  return Status::Ok();
}

template <class D>
Status InferResize(InferContext<D>& c) {
  const ShapeT<D>& x = c.in(0);
  const int rank = x.rank();
  if (rank < 1) return c.Errorf("x must have rank >= 1, got %s", c.TypeStr(0).c_str());
  const std::string mode = c.attrs->GetString("mode");
  const std::string coord = c.attrs->GetString("coordinate_transformation_mode");
  const std::string nearest = c.attrs->GetString("nearest_mode");
  if (!IsOneOf(mode, {"nearest", "linear", "cubic"})) {
    return c.Error("mode '" + mode + "' is not one of nearest, linear, cubic");
  }
  if (!IsOneOf(coord, {"half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric",
                       "tf_half_pixel_for_nn", "tf_crop_and_resize"})) {
    return c.Error("coordinate_transformation_mode '" + coord +
                   "' is not one of half_pixel, pytorch_half_pixel, align_corners, asymmetric, "
                   "tf_half_pixel_for_nn, tf_crop_and_resize");
  }
  if (!IsOneOf(nearest, {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"})) {
    return c.Error("nearest_mode '" + nearest +
                   "' is not one of round_prefer_floor, round_prefer_ceil, floor, ceil");
  }
  auto is_vector = [&](int i, int64_t n) {
    const ShapeT<D>& s = c.in(i);
    return s.rank() == 1 && !KnownNotEqual(s[0], D(n));
  };
  if (!is_vector(1, rank) && !is_vector(1, 0)) {
    return c.Errorf("sizes must be [%lld] (one per axis of x) or [0], got %s",
                    static_cast<long long>(rank), c.TypeStr(1).c_str());
  }
  if (c.num_inputs > 2 && !is_vector(2, rank)) {
    return c.Errorf("scales must be [%lld], got %s", static_cast<long long>(rank),
                    c.TypeStr(2).c_str());
  }
  if (c.num_inputs > 3 && !is_vector(3, 2 * rank)) {
    return c.Errorf("roi must be [%lld] (starts, then ends), got %s",
                    static_cast<long long>(2 * rank), c.TypeStr(3).c_str());
  }
  if (coord == "tf_crop_and_resize" && c.num_inputs < 4) {
    return c.Error("tf_crop_and_resize needs the roi input");
  }
  ShapeT<D> out = x;
  const ConstTensor* scales = c.num_inputs > 2 ? c.value(2) : nullptr;
  if (const ConstTensor* sizes = c.value(1); sizes && sizes->num_elements() == 0) {
    // Empty sizes: the output is trunc(x.shape * scales), known whenever x's
    // shape is (no data-dependent shape for a dynamic batch).
    if (!scales || scales->num_elements() != rank) {
      return c.Error("empty sizes need constant scales, one per axis");
    }
    for (int i = 0; i < rank; ++i) {
      const double s = scales->ElementAsDouble(i);
      if (!(s > 0)) return c.Errorf("scales must be > 0, got %lld", static_cast<long long>(s));
      if (s == std::floor(s) && s < 1e9) {
        out[i] = x[i] * D(static_cast<int64_t>(s));
      } else if (IsKnown(x[i])) {
        TFN_RETURN_IF_ERROR(ScaledDim(c, i, KnownValue(x[i]), s, &out[i]));
      } else {
        return c.Errorf("a fractional scale of the dynamic axis %lld of %s needs the sizes",
                        static_cast<long long>(i), c.TypeStr(0).c_str());
      }
    }
  } else if (const ConstTensor* sizes = c.value(1)) {
    if (sizes->num_elements() != rank) return c.Error("sizes has the wrong length");
    for (int i = 0; i < rank; ++i) {
      const int64_t v = sizes->ElementAsInt(i);
      if (v < 0) return c.Errorf("sizes must be >= 0, got %lld", static_cast<long long>(v));
      if (IsKnown(x[i]) && KnownValue(x[i]) == 0 && v > 0) {
        return c.Errorf("cannot resize the empty axis %lld of %s to %lld",
                        static_cast<long long>(i), c.TypeStr(0).c_str(), static_cast<long long>(v));
      }
      out[i] = D(v);
    }
  } else {
    for (int i = 0; i < rank; ++i) {
      const double s = scales && scales->num_elements() == rank ? scales->ElementAsDouble(i) : 0;
      if (s > 0 && s == std::floor(s) && s < 1e9) {
        out[i] = x[i] * D(static_cast<int64_t>(s));
      } else if (s > 0 && IsKnown(x[i])) {
        TFN_RETURN_IF_ERROR(ScaledDim(c, i, KnownValue(x[i]), s, &out[i]));
      } else if (c.fresh_dim) {
        out[i] = c.fresh_dim();
      } else {
        return c.Error("the value of sizes is needed");
      }
    }
  }
  c.out(0) = out;
  return Status::Ok();
}

}  // namespace tfn::rules
