// Shape rules of quantize_linear and dequantize_linear (ONNX's QuantizeLinear
// and DequantizeLinear): the output has x's shape; scale (and zero_point,
// when given) are per tensor (one element) or per axis (1-D, x.dims[axis]
// long).
#pragma once

#include "core/op_def.h"

namespace tfn::rules {

// The dtypes a quantized tensor may have.
inline bool IsQuantizedType(DType t) {
  return t == DType::kInt8 || t == DType::kUInt8 || t == DType::kInt16 || t == DType::kUInt16 ||
         t == DType::kInt32;
}

template <class D>
Status CheckQuantParams(InferContext<D>& c) {
  const ShapeT<D>& x = c.in(0);
  const int64_t axis_attr = c.attrs->GetInt("axis");
  int axis = -1;
  const bool axis_ok = NormalizeAxis(axis_attr, x.rank(), &axis);
  for (int i = 1; i < c.num_inputs; ++i) {
    const ShapeT<D>& p = c.in(i);
    const bool per_tensor = p.rank() == 0 || (p.rank() == 1 && KnownEqual(p[0], D(1)));
    const bool per_axis = p.rank() == 1 && axis_ok && !KnownNotEqual(p[0], x[axis]);
    const ShapeT<D>& scale = c.in(1);
    const bool same_as_scale =
        i < 2 || (p.rank() == scale.rank() && (p.rank() == 0 || !KnownNotEqual(p[0], scale[0])));
    if ((per_tensor || per_axis) && same_as_scale) continue;
    // One message for every mismatch (the minimal runtime links this rule).
    return c.Error(std::string(c.InputName(i)) + " " + c.TypeStr(i) +
                   " must hold one value, or one per index of axis " + std::to_string(axis_attr) +
                   " of x " + c.TypeStr(0) + " (scale and zero_point alike)");
  }
  c.out(0) = x;
  return Status::Ok();
}

// y = saturate(round_half_even(x / scale) + zero_point), of dtype attribute "dtype".
template <class D>
Status InferQuantizeLinear(InferContext<D>& c) {
  const DType to = c.attrs->GetType("dtype");
  if (!IsQuantizedType(to)) {
    return c.Error(std::string("dtype must be int8, uint8, int16, uint16 or int32, got ") +
                   DTypeName(to));
  }
  if (c.num_inputs > 2 && c.type(2) != to) {
    return c.Error(std::string("zero_point ") + c.TypeStr(2) + " must have the output dtype " +
                   DTypeName(to));
  }
  return CheckQuantParams(c);
}

// y = (x - zero_point) * scale, of scale's dtype.
template <class D>
Status InferDequantizeLinear(InferContext<D>& c) {
  return CheckQuantParams(c);
}

}  // namespace tfn::rules
