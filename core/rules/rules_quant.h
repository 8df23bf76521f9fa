// Shape rules of quantize_linear and dequantize_linear (ONNX's QuantizeLinear
// and DequantizeLinear): the output has x's shape; scale (and zero_point,
// when given) are per tensor (one element) or per axis (1-D, x.dims[axis]
// long). Then the shape rules of the quantized conv2d and matmul.
#pragma once

#include "core/op_def.h"
#include "core/packed_layout.h"
#include "core/rules/rules_linalg.h"
#include "core/rules/rules_nn.h"

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
    return c.Errorf(
        "%s %s must hold one value, or one per index of axis %lld of x %s (scale and "
        "zero_point alike)",
        c.InputName(i), c.TypeStr(i).c_str(), static_cast<long long>(axis_attr),
        c.TypeStr(0).c_str());
  }
  c.out(0) = x;
  return Status::Ok();
}

// y = saturate(round_half_even(x / scale) + zero_point), of dtype attribute "dtype".
template <class D>
Status InferQuantizeLinear(InferContext<D>& c) {
  const DType to = c.attrs->GetType("dtype");
  if (!IsQuantizedType(to)) {
    return c.Errorf("dtype must be int8, uint8, int16, uint16 or int32, got %s", DTypeName(to));
  }
  if (c.num_inputs > 2 && c.type(2) != to) {
    return c.Errorf("zero_point %s must have the output dtype %s", c.TypeStr(2).c_str(),
                    DTypeName(to));
  }
  return CheckQuantParams(c);
}

// y = (x - zero_point) * scale, of scale's dtype.
template <class D>
Status InferDequantizeLinear(InferContext<D>& c) {
  return CheckQuantParams(c);
}

// ---- qlinear_conv2d, qlinear_matmul, conv2d_integer, matmul_integer ----

// Input i holds one value, or (channels given) one per output channel.
template <class D>
Status QuantParamShape(InferContext<D>& c, int i, const D* channels) {
  const ShapeT<D>& p = c.in(i);
  if (p.rank() == 0 || (p.rank() == 1 && KnownEqual(p[0], D(1)))) return Status::Ok();
  if (channels && p.rank() == 1 && !KnownNotEqual(p[0], *channels)) return Status::Ok();
  return c.Errorf("%s %s must hold one value%s%s", c.InputName(i), c.TypeStr(i).c_str(),
                  channels ? " or one per output channel: " : "",
                  channels ? DimToString(*channels).c_str() : "");
}

// Input zp_i (a zero point) has the dtype of the tensor it belongs to.
template <class D>
Status ZeroPointType(InferContext<D>& c, int zp_i, int tensor_i) {
  if (zp_i >= c.num_inputs || c.type(zp_i) == c.type(tensor_i)) return Status::Ok();
  return c.Errorf("%s %s must have the dtype of %s %s", c.InputName(zp_i), c.TypeStr(zp_i).c_str(),
                  c.InputName(tensor_i), c.TypeStr(tensor_i).c_str());
}

// The activation attributes of the qlinear ops.
template <class D>
Status QActivation(InferContext<D>& c) {
  const std::string act = c.attrs->GetString("activation");
  if (act == "none" || act == "relu" || act == "clip") return Status::Ok();
  return c.Errorf("activation must be none, relu or clip, got '%s'", act.c_str());
}

// Inputs: x, x_scale, x_zp, w, w_scale, w_zp, y_scale, y_zp (and bias),
// w being the filter or b; `channels` the output channel count. A
// prepacked w is int8 whatever its zero point's dtype (uint8 weights are
// packed sign-flipped).
template <class D>
Status QLinearParams(InferContext<D>& c, const D& channels, bool packed) {
  TFN_RETURN_IF_ERROR(QActivation(c));
  TFN_RETURN_IF_ERROR(ZeroPointType(c, 2, 0));
  if (!packed) TFN_RETURN_IF_ERROR(ZeroPointType(c, 5, 3));
  for (int i : {1, 2, 6, 7}) {
    TFN_RETURN_IF_ERROR(QuantParamShape(c, i, static_cast<const D*>(nullptr)));
  }
  for (int i : {4, 5}) TFN_RETURN_IF_ERROR(QuantParamShape(c, i, &channels));
  c.out_types[0] = c.type(7);
  return Status::Ok();
}

// The logical shape of a prepacked weight input w_i given by attribute
// `attr` (`rank` entries) in *logical, after checking w_i is the packed
// tensor core/packed_layout.h describes for `groups` matrices of K x N.
template <class D>
Status PackedWeights(InferContext<D>& c, int w_i, const char* attr, int rank, int64_t groups,
                     ShapeT<D>* logical) {
  const std::vector<int64_t> dims = c.attrs->GetInts(attr);
  bool ok = static_cast<int>(dims.size()) == rank && groups > 0;
  for (int64_t d : dims) ok = ok && d > 0;
  if (!ok) return c.Errorf("attribute %s needs %d positive entries", attr, rank);
  const int64_t n = dims[rank - 1], k = rank == 2 ? dims[0] : dims[0] * dims[1] * dims[2];
  const int64_t panels = (n / groups + kInt8PanelWidth - 1) / kInt8PanelWidth;
  const ShapeT<D> want{D(groups), D(panels), D((k + 3) / 4 + 1), D(kInt8PanelRowBytes)};
  const ShapeT<D>& w = c.in(w_i);
  bool same = c.type(w_i) == DType::kInt8 && w.rank() == 4 && n % groups == 0;
  for (int i = 0; same && i < 4; ++i) same = !KnownNotEqual(w[i], want[i]);
  if (!same) {
    return c.Errorf("%s %s is not the prepacked int8 %s of %s", c.InputName(w_i),
                    c.TypeStr(w_i).c_str(), ShapeStr(want).c_str(), attr);
  }
  *logical = ShapeT<D>();
  for (int64_t d : dims) logical->push_back(D(d));
  return Status::Ok();
}

template <class D>
Status InferQLinearConv2D(InferContext<D>& c) {
  const bool packed = !c.attrs->GetInts("packed_filter").empty();
  ShapeT<D> filter;
  if (packed) {
    TFN_RETURN_IF_ERROR(
        PackedWeights(c, 3, "packed_filter", 4, c.attrs->GetInt("groups"), &filter));
  }
  TFN_RETURN_IF_ERROR(ConvShape(c, 0, 3, 8, packed ? &filter : nullptr));
  return QLinearParams(c, packed ? filter[3] : c.in(3)[3], packed);
}

template <class D>
Status InferQLinearMatMul(InferContext<D>& c) {
  const bool packed = !c.attrs->GetInts("packed_b").empty();
  ShapeT<D> packed_b;
  if (packed) TFN_RETURN_IF_ERROR(PackedWeights(c, 3, "packed_b", 2, 1, &packed_b));
  TFN_RETURN_IF_ERROR(MatMulShape(c, 0, 3, packed ? &packed_b : nullptr));
  const ShapeT<D>& b = packed ? packed_b : c.in(3);
  if (c.num_inputs > 8) {
    const ShapeT<D>& bias = c.in(8);
    if (bias.rank() != 1 || KnownNotEqual(bias[0], b[b.rank() - 1])) {
      return c.Errorf("bias must be [%s], got %s", DimToString(b[b.rank() - 1]).c_str(),
                      c.TypeStr(8).c_str());
    }
  }
  return QLinearParams(c, b[b.rank() - 1], packed);
}

template <class D>
Status InferConv2DInteger(InferContext<D>& c) {
  TFN_RETURN_IF_ERROR(ConvShape(c, 0, 1, -1));
  TFN_RETURN_IF_ERROR(ZeroPointType(c, 2, 0));
  TFN_RETURN_IF_ERROR(ZeroPointType(c, 3, 1));
  if (c.num_inputs > 2) TFN_RETURN_IF_ERROR(QuantParamShape(c, 2, static_cast<const D*>(nullptr)));
  if (c.num_inputs > 3) TFN_RETURN_IF_ERROR(QuantParamShape(c, 3, &c.in(1)[3]));
  c.out_types[0] = DType::kInt32;
  return Status::Ok();
}

// a and b of one shape, each with its own scale and zero point (one value
// each); y of output_zero_point's dtype and a's shape.
template <class D>
Status InferQLinearAdd(InferContext<D>& c) {
  const ShapeT<D>& a = c.in(0);
  const ShapeT<D>& b = c.in(3);
  bool same = a.rank() == b.rank();
  for (int d = 0; same && d < a.rank(); ++d) same = !KnownNotEqual(a[d], b[d]);
  if (!same) {
    return c.Errorf("a %s and b %s must have one shape", c.TypeStr(0).c_str(),
                    c.TypeStr(3).c_str());
  }
  TFN_RETURN_IF_ERROR(ZeroPointType(c, 2, 0));
  TFN_RETURN_IF_ERROR(ZeroPointType(c, 5, 3));
  for (int i : {1, 2, 4, 5, 6, 7}) {
    TFN_RETURN_IF_ERROR(QuantParamShape(c, i, static_cast<const D*>(nullptr)));
  }
  c.out(0) = a;
  c.out_types[0] = c.type(7);
  return Status::Ok();
}

// ONNX's MatMulInteger: a_zero_point per tensor or per row of a (2-D a),
// b_zero_point per tensor or per column of b.
template <class D>
Status InferMatMulInteger(InferContext<D>& c) {
  TFN_RETURN_IF_ERROR(MatMulShape(c, 0, 1));
  TFN_RETURN_IF_ERROR(ZeroPointType(c, 2, 0));
  TFN_RETURN_IF_ERROR(ZeroPointType(c, 3, 1));
  const ShapeT<D>& a = c.in(0);
  const ShapeT<D>& b = c.in(1);
  if (c.num_inputs > 2) {
    const D* rows = a.rank() == 2 ? &a[0] : nullptr;
    TFN_RETURN_IF_ERROR(QuantParamShape(c, 2, rows));
  }
  if (c.num_inputs > 3) TFN_RETURN_IF_ERROR(QuantParamShape(c, 3, &b[b.rank() - 1]));
  c.out_types[0] = DType::kInt32;
  return Status::Ok();
}

}  // namespace tfn::rules
