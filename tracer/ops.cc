// The op functions: each builds attributes and goes through detail::ApplyOp.
#include "tracer/ops.h"

#include "tracer/trace_context.h"

namespace tfn {

using detail::Apply1;
using detail::ApplyOp;

namespace {
AttrValue ShapeAttr(const Shape& s) {
  return AttrValue::Ints(std::vector<int64_t>(s.begin(), s.end()));
}
AttrValue Ints(std::vector<int64_t> v) { return AttrValue::Ints(std::move(v)); }
AttrValue Int(int64_t v) { return AttrValue::Int(v); }
AttrValue Float(double v) { return AttrValue::Float(v); }
AttrValue Type(DType t) { return AttrValue::Type(t); }
}  // namespace

Tensor constant(const ConstTensor& value) { return Tensor::FromConst(value); }

Tensor fill(Shape shape, double value, DType dtype) {
  return Apply1(OpId::kFill, {},
                {{"shape", ShapeAttr(shape)}, {"value", Float(value)}, {"dtype", Type(dtype)}});
}
Tensor zeros(Shape shape, DType dtype) { return fill(shape, 0, dtype); }
Tensor ones(Shape shape, DType dtype) { return fill(shape, 1, dtype); }
Tensor full_like(const Tensor& x, double value) {
  return Apply1(OpId::kFillLike, {x}, {{"value", Float(value)}});
}
Tensor zeros_like(const Tensor& x) { return full_like(x, 0); }
Tensor ones_like(const Tensor& x) { return full_like(x, 1); }
Tensor range(double start, double limit, double delta, DType dtype) {
  return Apply1(OpId::kRange, {},
                {{"start", Float(start)},
                 {"limit", Float(limit)},
                 {"delta", Float(delta)},
                 {"dtype", Type(dtype)}});
}
Tensor range(int64_t limit, DType dtype) { return range(0, static_cast<double>(limit), 1, dtype); }
Tensor random_uniform(Shape shape, uint64_t seed, double minval, double maxval, DType dtype) {
  return Apply1(OpId::kRandomUniform, {},
                {{"shape", ShapeAttr(shape)},
                 {"seed", Int(static_cast<int64_t>(seed))},
                 {"minval", Float(minval)},
                 {"maxval", Float(maxval)},
                 {"dtype", Type(dtype)}});
}
Tensor random_normal(Shape shape, uint64_t seed, double mean, double stddev, DType dtype) {
  return Apply1(OpId::kRandomNormal, {},
                {{"shape", ShapeAttr(shape)},
                 {"seed", Int(static_cast<int64_t>(seed))},
                 {"mean", Float(mean)},
                 {"stddev", Float(stddev)},
                 {"dtype", Type(dtype)}});
}

#define TFN_UNARY(fn, id) \
  Tensor fn(const Tensor& x) { return Apply1(OpId::id, {x}); }
TFN_UNARY(identity, kIdentity)
TFN_UNARY(neg, kNeg)
TFN_UNARY(abs, kAbs)
TFN_UNARY(sign, kSign)
TFN_UNARY(relu, kRelu)
TFN_UNARY(exp, kExp)
TFN_UNARY(log, kLog)
TFN_UNARY(sqrt, kSqrt)
TFN_UNARY(rsqrt, kRsqrt)
TFN_UNARY(tanh, kTanh)
TFN_UNARY(sigmoid, kSigmoid)
TFN_UNARY(erf, kErf)
TFN_UNARY(sin, kSin)
TFN_UNARY(cos, kCos)
TFN_UNARY(floor, kFloor)
TFN_UNARY(ceil, kCeil)
TFN_UNARY(round, kRound)
TFN_UNARY(logical_not, kLogicalNot)
TFN_UNARY(tan, kTan)
TFN_UNARY(asin, kAsin)
TFN_UNARY(acos, kAcos)
TFN_UNARY(atan, kAtan)
TFN_UNARY(sinh, kSinh)
TFN_UNARY(cosh, kCosh)
TFN_UNARY(asinh, kAsinh)
TFN_UNARY(acosh, kAcosh)
TFN_UNARY(atanh, kAtanh)
TFN_UNARY(is_inf, kIsInf)
TFN_UNARY(is_nan, kIsNan)
#undef TFN_UNARY

Tensor gelu(const Tensor& x, bool approximate_tanh) {
  return Apply1(OpId::kGelu, {x},
                {{"approximate", AttrValue::String(approximate_tanh ? "tanh" : "none")}});
}
Tensor cast(const Tensor& x, DType dtype) {
  return Apply1(OpId::kCast, {x}, {{"dtype", Type(dtype)}});
}

Tensor quantize_linear(const Tensor& x, const Tensor& scale, const Tensor& zero_point,
                       int64_t axis) {
  return Apply1(OpId::kQuantizeLinear, {x, scale, zero_point},
                {{"dtype", Type(zero_point.dtype())}, {"axis", Int(axis)}});
}
Tensor quantize_linear(const Tensor& x, const Tensor& scale, DType dtype, int64_t axis) {
  return Apply1(OpId::kQuantizeLinear, {x, scale}, {{"dtype", Type(dtype)}, {"axis", Int(axis)}});
}
Tensor dequantize_linear(const Tensor& x, const Tensor& scale, const Tensor& zero_point,
                         int64_t axis) {
  return Apply1(OpId::kDequantizeLinear, {x, scale, zero_point}, {{"axis", Int(axis)}});
}
Tensor dequantize_linear(const Tensor& x, const Tensor& scale, int64_t axis) {
  return Apply1(OpId::kDequantizeLinear, {x, scale}, {{"axis", Int(axis)}});
}

#define TFN_BINARY(fn, id) \
  Tensor fn(const Tensor& a, const Tensor& b) { return Apply1(OpId::id, {a, b}); }
TFN_BINARY(add, kAdd)
TFN_BINARY(sub, kSub)
TFN_BINARY(mul, kMul)
TFN_BINARY(div, kDiv)
TFN_BINARY(pow, kPow)
TFN_BINARY(maximum, kMaximum)
TFN_BINARY(minimum, kMinimum)
TFN_BINARY(mod, kMod)
TFN_BINARY(fmod, kFMod)
TFN_BINARY(equal, kEqual)
TFN_BINARY(not_equal, kNotEqual)
TFN_BINARY(less, kLess)
TFN_BINARY(less_equal, kLessEqual)
TFN_BINARY(greater, kGreater)
TFN_BINARY(greater_equal, kGreaterEqual)
TFN_BINARY(logical_and, kLogicalAnd)
TFN_BINARY(logical_or, kLogicalOr)
TFN_BINARY(logical_xor, kLogicalXor)
#undef TFN_BINARY

Tensor where(const Tensor& condition, const Tensor& x, const Tensor& y) {
  return Apply1(OpId::kWhere, {condition, x, y});
}

Tensor matmul(const Tensor& a, const Tensor& b, bool transpose_a, bool transpose_b) {
  return Apply1(OpId::kMatMul, {a, b},
                {{"transpose_a", Int(transpose_a)}, {"transpose_b", Int(transpose_b)}});
}

#define TFN_REDUCE(fn, id)                                                                        \
  Tensor fn(const Tensor& x, std::vector<int64_t> axes, bool keepdims) {                          \
    return Apply1(OpId::id, {x}, {{"axes", Ints(std::move(axes))}, {"keepdims", Int(keepdims)}}); \
  }
TFN_REDUCE(reduce_sum, kReduceSum)
TFN_REDUCE(reduce_mean, kReduceMean)
TFN_REDUCE(reduce_max, kReduceMax)
TFN_REDUCE(reduce_min, kReduceMin)
TFN_REDUCE(reduce_prod, kReduceProd)
#undef TFN_REDUCE

Tensor argmax(const Tensor& x, int64_t axis, bool keepdims, bool select_last_index) {
  return Apply1(OpId::kArgMax, {x},
                {{"axis", Int(axis)},
                 {"keepdims", Int(keepdims)},
                 {"select_last_index", Int(select_last_index)}});
}
Tensor argmin(const Tensor& x, int64_t axis, bool keepdims, bool select_last_index) {
  return Apply1(OpId::kArgMin, {x},
                {{"axis", Int(axis)},
                 {"keepdims", Int(keepdims)},
                 {"select_last_index", Int(select_last_index)}});
}
Tensor cumsum(const Tensor& x, int64_t axis, bool exclusive, bool reverse) {
  return Apply1(OpId::kCumSum, {x, detail::ScalarOf(DType::kInt64, static_cast<double>(axis))},
                {{"exclusive", Int(exclusive)}, {"reverse", Int(reverse)}});
}
Tensor softmax(const Tensor& x, int64_t axis) {
  return Apply1(OpId::kSoftmax, {x}, {{"axis", Int(axis)}});
}
Tensor log_softmax(const Tensor& x, int64_t axis) {
  return Apply1(OpId::kLogSoftmax, {x}, {{"axis", Int(axis)}});
}
Tensor layer_norm(const Tensor& x, const Tensor& scale, const Tensor& bias, int64_t axis,
                  double epsilon) {
  return Apply1(OpId::kLayerNorm, {x, scale, bias},
                {{"axis", Int(axis)}, {"epsilon", Float(epsilon)}});
}

Tensor reshape(const Tensor& x, std::vector<int64_t> shape) {
  return Apply1(OpId::kReshape, {x}, {{"shape", Ints(std::move(shape))}});
}
Tensor transpose(const Tensor& x, std::vector<int64_t> perm) {
  return Apply1(OpId::kTranspose, {x}, {{"perm", Ints(std::move(perm))}});
}
Tensor expand_dims(const Tensor& x, int64_t axis) {
  return Apply1(OpId::kExpandDims, {x}, {{"axis", Int(axis)}});
}
Tensor squeeze(const Tensor& x, std::vector<int64_t> axes) {
  return Apply1(OpId::kSqueeze, {x}, {{"axes", Ints(std::move(axes))}});
}
Tensor concat(const std::vector<Tensor>& values, int64_t axis) {
  if (values.empty())
    throw Error(StatusCode::kInvalidArgument, "concat: needs at least one tensor");
  return Apply1(OpId::kConcat, values, {{"axis", Int(axis)}});
}
std::vector<Tensor> split(const Tensor& x, int64_t num_splits, int64_t axis) {
  return ApplyOp(OpId::kSplit, {x}, {{"num_splits", Int(num_splits)}, {"axis", Int(axis)}});
}
std::vector<Tensor> split(const Tensor& x, std::vector<int64_t> sizes, int64_t axis) {
  if (sizes.empty()) throw Error(StatusCode::kInvalidArgument, "split: sizes must not be empty");
  return ApplyOp(OpId::kSplit, {x}, {{"sizes", Ints(std::move(sizes))}, {"axis", Int(axis)}});
}
Tensor slice(const Tensor& x, std::vector<int64_t> begin, std::vector<int64_t> end,
             std::vector<int64_t> strides) {
  return Apply1(OpId::kSlice, {x},
                {{"begin", Ints(std::move(begin))},
                 {"end", Ints(std::move(end))},
                 {"strides", Ints(std::move(strides))}});
}
Tensor gather(const Tensor& params, const Tensor& indices, int64_t axis) {
  return Apply1(OpId::kGather, {params, indices}, {{"axis", Int(axis)}});
}
Tensor pad(const Tensor& x, std::vector<std::pair<int64_t, int64_t>> paddings,
           const std::string& mode, double constant_value) {
  std::vector<int64_t> flat;
  for (auto [lo, hi] : paddings) {
    flat.push_back(lo);
    flat.push_back(hi);
  }
  return Apply1(OpId::kPad, {x},
                {{"paddings", Ints(flat)},
                 {"mode", AttrValue::String(mode)},
                 {"constant_value", Float(constant_value)}});
}
Tensor broadcast_to(const Tensor& x, Shape shape) {
  return Apply1(OpId::kBroadcastTo, {x}, {{"shape", ShapeAttr(shape)}});
}
Tensor tile(const Tensor& x, std::vector<int64_t> multiples) {
  return Apply1(OpId::kTile, {x}, {{"multiples", Ints(std::move(multiples))}});
}
Tensor shape(const Tensor& x) { return Apply1(OpId::kShape, {x}); }
Tensor size(const Tensor& x) { return Apply1(OpId::kSize, {x}); }

namespace {
Attrs ConvAttrs(const Conv2DOptions& o) {
  return {{"strides", Ints(o.strides)},
          {"padding", AttrValue::String(o.padding)},
          {"pads", Ints(o.pads)},
          {"dilations", Ints(o.dilations)},
          {"groups", Int(o.groups)}};
}
Attrs PoolAttrs(const Pool2DOptions& o) {
  return {{"ksize", Ints(o.ksize)},
          {"strides", Ints(o.strides)},
          {"padding", AttrValue::String(o.padding)},
          {"pads", Ints(o.pads)},
          {"count_include_pad", Int(o.count_include_pad)},
          {"dilations", Ints(o.dilations)},
          {"ceil_mode", Int(o.ceil_mode)}};
}
Attrs ConvTransposeAttrs(const Conv2DTransposeOptions& o) {
  return {{"strides", Ints(o.strides)},
          {"pads", Ints(o.pads)},
          {"output_padding", Ints(o.output_padding)},
          {"dilations", Ints(o.dilations)},
          {"groups", Int(o.groups)}};
}
}  // namespace

Tensor conv2d(const Tensor& input, const Tensor& filter, const Conv2DOptions& options) {
  return Apply1(OpId::kConv2D, {input, filter}, ConvAttrs(options));
}
Tensor conv2d(const Tensor& input, const Tensor& filter, const Tensor& bias,
              const Conv2DOptions& options) {
  return Apply1(OpId::kConv2D, {input, filter, bias}, ConvAttrs(options));
}
Tensor qlinear_conv2d(const Tensor& input, const QuantParams& input_q, const Tensor& filter,
                      const QuantParams& filter_q, const QuantParams& output_q, const Tensor& bias,
                      const Conv2DOptions& options) {
  return Apply1(OpId::kQLinearConv2D,
                {input, input_q.scale, input_q.zero_point, filter, filter_q.scale,
                 filter_q.zero_point, output_q.scale, output_q.zero_point, bias},
                ConvAttrs(options));
}
Tensor qlinear_matmul(const Tensor& a, const QuantParams& a_q, const Tensor& b,
                      const QuantParams& b_q, const QuantParams& output_q) {
  return Apply1(OpId::kQLinearMatMul, {a, a_q.scale, a_q.zero_point, b, b_q.scale, b_q.zero_point,
                                       output_q.scale, output_q.zero_point});
}
Tensor qlinear_add(const Tensor& a, const QuantParams& a_q, const Tensor& b, const QuantParams& b_q,
                   const QuantParams& output_q, bool relu) {
  return Apply1(OpId::kQLinearAdd,
                {a, a_q.scale, a_q.zero_point, b, b_q.scale, b_q.zero_point, output_q.scale,
                 output_q.zero_point},
                {{"relu", AttrValue::Int(relu ? 1 : 0)}});
}
Tensor conv2d_integer(const Tensor& input, const Tensor& filter, const Tensor& input_zero_point,
                      const Tensor& filter_zero_point, const Conv2DOptions& options) {
  return Apply1(OpId::kConv2DInteger, {input, filter, input_zero_point, filter_zero_point},
                ConvAttrs(options));
}
Tensor matmul_integer(const Tensor& a, const Tensor& b, const Tensor& a_zero_point,
                      const Tensor& b_zero_point) {
  return Apply1(OpId::kMatMulInteger, {a, b, a_zero_point, b_zero_point});
}
Tensor max_pool2d(const Tensor& input, const Pool2DOptions& options) {
  return Apply1(OpId::kMaxPool2D, {input}, PoolAttrs(options));
}
Tensor avg_pool2d(const Tensor& input, const Pool2DOptions& options) {
  return Apply1(OpId::kAvgPool2D, {input}, PoolAttrs(options));
}
Tensor conv2d_transpose(const Tensor& input, const Tensor& filter,
                        const Conv2DTransposeOptions& options) {
  return Apply1(OpId::kConv2DTranspose, {input, filter}, ConvTransposeAttrs(options));
}
Tensor conv2d_transpose(const Tensor& input, const Tensor& filter, const Tensor& bias,
                        const Conv2DTransposeOptions& options) {
  return Apply1(OpId::kConv2DTranspose, {input, filter, bias}, ConvTransposeAttrs(options));
}
Tensor resize(const Tensor& x, Shape sizes, const ResizeOptions& options) {
  std::vector<Tensor> inputs = {x, constant(std::vector<int64_t>(sizes.begin(), sizes.end()))};
  if (!options.scales.empty()) inputs.push_back(constant(options.scales));
  return Apply1(OpId::kResize, inputs,
                {{"mode", AttrValue::String(options.mode)},
                 {"coordinate_transformation_mode",
                  AttrValue::String(options.coordinate_transformation_mode)},
                 {"nearest_mode", AttrValue::String(options.nearest_mode)},
                 {"cubic_coeff_a", Float(options.cubic_coeff_a)},
                 {"exclude_outside", Int(options.exclude_outside)}});
}

Tensor operator+(const Tensor& a, const Tensor& b) { return add(a, b); }
Tensor operator-(const Tensor& a, const Tensor& b) { return sub(a, b); }
Tensor operator*(const Tensor& a, const Tensor& b) { return mul(a, b); }
Tensor operator/(const Tensor& a, const Tensor& b) { return div(a, b); }
Tensor operator-(const Tensor& x) { return neg(x); }
Tensor operator<(const Tensor& a, const Tensor& b) { return less(a, b); }
Tensor operator<=(const Tensor& a, const Tensor& b) { return less_equal(a, b); }
Tensor operator>(const Tensor& a, const Tensor& b) { return greater(a, b); }
Tensor operator>=(const Tensor& a, const Tensor& b) { return greater_equal(a, b); }
Tensor operator==(const Tensor& a, const Tensor& b) { return equal(a, b); }
Tensor operator!=(const Tensor& a, const Tensor& b) { return not_equal(a, b); }
Tensor operator&(const Tensor& a, const Tensor& b) { return logical_and(a, b); }
Tensor operator|(const Tensor& a, const Tensor& b) { return logical_or(a, b); }
Tensor operator!(const Tensor& x) { return logical_not(x); }

Tensor ScalarLike(const Tensor& like, double value) {
  return detail::ScalarOf(like.dtype(), value);
}

}  // namespace tfn
