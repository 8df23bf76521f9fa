// The op functions of the front end: factories, math, linear algebra, shape
// manipulation, convolution. Each works eagerly outside a trace and records a
// graph node inside one. Broadcasting follows NumPy; bad arguments throw
// tfn::Error naming the op, the argument, what was expected and what was given.
// All functions are thread-safe for eager tensors.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "tracer/tensor.h"

namespace tfn {

// ---- factories ----
Tensor constant(const ConstTensor& value);
template <class T>
Tensor constant(const std::vector<T>& values, Shape shape) {
  int64_t n = 0;
  if (!CheckedNumElements(shape, &n) || n != static_cast<int64_t>(values.size())) {
    throw Error(StatusCode::kInvalidArgument,
                "constant: shape " + ShapeToString(shape) + " does not hold " +
                    std::to_string(values.size()) + " values");
  }
  std::vector<T> copy(values.begin(), values.end());
  if constexpr (std::is_same_v<T, bool>) {
    std::vector<unsigned char> bytes(copy.begin(), copy.end());
    return constant(ConstTensor::Copy(DType::kBool, shape, bytes.data()));
  } else {
    return constant(ConstTensor::Copy(DTypeOf<T>::value, shape, copy.data()));
  }
}
template <class T>
Tensor constant(const std::vector<T>& values) {
  return constant(values, Shape{static_cast<int64_t>(values.size())});
}
// A scalar keeps its C++ type: constant(3) is int32, constant(2.f) f32,
// constant(2.0) f64, constant(true) bool.
template <class T, class = std::enable_if_t<std::is_arithmetic_v<T>>>
Tensor constant(T value) {
  return constant(std::vector<T>{value}, Shape{});
}

namespace detail {
// The dtype of a braced list of literals, as tf.constant gives a Python
// list: integers int32 ([1, 2]), floating point float32 ([1., 2.]), bools
// bool. A C++ double literal counts as a Python float, so {1.0, 2.0} is f32
// too; 64-bit integers ({1L}, int64_t values) stay int64, as Python ints
// that do not fit int32 do. A typed std::vector keeps its type.
template <class T>
using LiteralElement =
    std::conditional_t<std::is_same_v<T, bool>, bool,
                       std::conditional_t<std::is_floating_point_v<T>, float,
                                          std::conditional_t<sizeof(T) <= 4, int32_t, int64_t>>>;
template <class T>
inline constexpr bool kIsLiteralElement = std::is_same_v<T, bool> || std::is_floating_point_v<T> ||
                                          (std::is_integral_v<T> && std::is_signed_v<T> &&
                                           !std::is_same_v<T, char> &&
                                           (sizeof(T) == 4 || sizeof(T) == 8));
}  // namespace detail

// constant({1, 2}) is int32[2], constant({1.f, 2.f}) and constant({1.0, 2.0})
// f32[2], constant({true}) bool[1] (see LiteralElement above); mixed lists
// such as {1, 2.5} do not compile. Use std::vector<double> for f64.
template <class T, class = std::enable_if_t<std::is_arithmetic_v<T>>>
Tensor constant(std::initializer_list<T> values, Shape shape) {
  static_assert(detail::kIsLiteralElement<T>,
                "tfn::constant({...}): list int, int64_t, float, double or bool literals "
                "(unsigned and char types have no dtype)");
  using E = detail::LiteralElement<T>;
  return constant(std::vector<E>(values.begin(), values.end()), std::move(shape));
}
template <class T, class = std::enable_if_t<std::is_arithmetic_v<T>>>
Tensor constant(std::initializer_list<T> values) {
  return constant(values, Shape{static_cast<int64_t>(values.size())});
}
Tensor zeros(Shape shape, DType dtype = DType::kFloat32);
Tensor ones(Shape shape, DType dtype = DType::kFloat32);
Tensor fill(Shape shape, double value, DType dtype = DType::kFloat32);
Tensor zeros_like(const Tensor& x);
Tensor ones_like(const Tensor& x);
Tensor full_like(const Tensor& x, double value);
// [start, limit) in steps of delta.
Tensor range(double start, double limit, double delta = 1, DType dtype = DType::kInt64);
Tensor range(int64_t limit, DType dtype = DType::kInt64);
// Deterministic for a given seed (the same on every machine and thread count).
Tensor random_uniform(Shape shape, uint64_t seed, double minval = 0, double maxval = 1,
                      DType dtype = DType::kFloat32);
Tensor random_normal(Shape shape, uint64_t seed, double mean = 0, double stddev = 1,
                     DType dtype = DType::kFloat32);

// ---- elementwise ----
Tensor identity(const Tensor& x);
Tensor neg(const Tensor& x);
Tensor abs(const Tensor& x);
Tensor sign(const Tensor& x);
Tensor relu(const Tensor& x);
Tensor exp(const Tensor& x);
Tensor log(const Tensor& x);
Tensor sqrt(const Tensor& x);
Tensor rsqrt(const Tensor& x);
Tensor tanh(const Tensor& x);
Tensor sigmoid(const Tensor& x);
// approximate_tanh selects 0.5x(1+tanh(sqrt(2/pi)(x+0.044715x^3))) over the erf form.
Tensor gelu(const Tensor& x, bool approximate_tanh = false);
Tensor erf(const Tensor& x);
Tensor sin(const Tensor& x);
Tensor cos(const Tensor& x);
Tensor floor(const Tensor& x);
Tensor ceil(const Tensor& x);
Tensor round(const Tensor& x);  // half to even
Tensor tan(const Tensor& x);
Tensor asin(const Tensor& x);
Tensor acos(const Tensor& x);
Tensor atan(const Tensor& x);
Tensor sinh(const Tensor& x);
Tensor cosh(const Tensor& x);
Tensor asinh(const Tensor& x);
Tensor acosh(const Tensor& x);
Tensor atanh(const Tensor& x);
Tensor is_inf(const Tensor& x);  // bool: +inf or -inf
Tensor is_nan(const Tensor& x);  // bool
Tensor logical_not(const Tensor& x);
// Any dtype to any dtype: floats → ints truncate and saturate (NaN → 0),
// ints wrap, → float16/bfloat16 round to nearest even.
Tensor cast(const Tensor& x, DType dtype);

// Quantization (ONNX's QuantizeLinear/DequantizeLinear, TFLite's int8
// arithmetic). scale (and zero_point) hold one value, or one per index of
// x's dim `axis`. quantize: saturate(round_half_even(x / scale) + zero_point)
// in zero_point's dtype, or in `dtype` with zero point 0 (int8, uint8,
// int16, uint16, int32). dequantize: (x - zero_point) * scale, in scale's dtype.
Tensor quantize_linear(const Tensor& x, const Tensor& scale, const Tensor& zero_point,
                       int64_t axis = 1);
Tensor quantize_linear(const Tensor& x, const Tensor& scale, DType dtype, int64_t axis = 1);
Tensor dequantize_linear(const Tensor& x, const Tensor& scale, const Tensor& zero_point,
                         int64_t axis = 1);
Tensor dequantize_linear(const Tensor& x, const Tensor& scale, int64_t axis = 1);

Tensor add(const Tensor& a, const Tensor& b);
Tensor sub(const Tensor& a, const Tensor& b);
Tensor mul(const Tensor& a, const Tensor& b);
Tensor div(const Tensor& a, const Tensor& b);  // integers truncate; x/0 = 0 for integers
Tensor pow(const Tensor& a, const Tensor& b);
Tensor maximum(const Tensor& a, const Tensor& b);
Tensor minimum(const Tensor& a, const Tensor& b);
Tensor mod(const Tensor& a, const Tensor& b);  // floor-mod: the sign of b
Tensor fmod(const Tensor& a, const Tensor& b);  // truncated remainder: the sign of a (C's fmod)
Tensor equal(const Tensor& a, const Tensor& b);
Tensor not_equal(const Tensor& a, const Tensor& b);
Tensor less(const Tensor& a, const Tensor& b);
Tensor less_equal(const Tensor& a, const Tensor& b);
Tensor greater(const Tensor& a, const Tensor& b);
Tensor greater_equal(const Tensor& a, const Tensor& b);
Tensor logical_and(const Tensor& a, const Tensor& b);
Tensor logical_or(const Tensor& a, const Tensor& b);
Tensor logical_xor(const Tensor& a, const Tensor& b);
Tensor where(const Tensor& condition, const Tensor& x, const Tensor& y);

// ---- linear algebra, reductions, normalization ----
Tensor matmul(const Tensor& a, const Tensor& b, bool transpose_a = false,
              bool transpose_b = false);
// Empty axes reduce over all dims.
Tensor reduce_sum(const Tensor& x, std::vector<int64_t> axes = {}, bool keepdims = false);
Tensor reduce_mean(const Tensor& x, std::vector<int64_t> axes = {}, bool keepdims = false);
Tensor reduce_max(const Tensor& x, std::vector<int64_t> axes = {}, bool keepdims = false);
Tensor reduce_min(const Tensor& x, std::vector<int64_t> axes = {}, bool keepdims = false);
Tensor reduce_prod(const Tensor& x, std::vector<int64_t> axes = {}, bool keepdims = false);
// The first index of the extreme value (a NaN counts as the extreme), or the
// last one with select_last_index.
Tensor argmax(const Tensor& x, int64_t axis = 0, bool keepdims = false,
              bool select_last_index = false);
Tensor argmin(const Tensor& x, int64_t axis = 0, bool keepdims = false,
              bool select_last_index = false);
// Running sum along axis; exclusive leaves each element out of its own sum,
// reverse sums from the end.
Tensor cumsum(const Tensor& x, int64_t axis, bool exclusive = false, bool reverse = false);
Tensor softmax(const Tensor& x, int64_t axis = -1);
Tensor log_softmax(const Tensor& x, int64_t axis = -1);
// Normalizes over dims [axis, rank); scale and bias have those dims.
Tensor layer_norm(const Tensor& x, const Tensor& scale, const Tensor& bias, int64_t axis = -1,
                  double epsilon = 1e-5);

// ---- shapes ----
// One -1 in `shape` is inferred from the element count.
Tensor reshape(const Tensor& x, std::vector<int64_t> shape);
// Empty perm reverses the dims.
Tensor transpose(const Tensor& x, std::vector<int64_t> perm = {});
Tensor expand_dims(const Tensor& x, int64_t axis);
// Empty axes remove every dim of size 1.
Tensor squeeze(const Tensor& x, std::vector<int64_t> axes = {});
Tensor concat(const std::vector<Tensor>& values, int64_t axis);
std::vector<Tensor> split(const Tensor& x, int64_t num_splits, int64_t axis = 0);
// One -1 in sizes takes the rest.
std::vector<Tensor> split(const Tensor& x, std::vector<int64_t> sizes, int64_t axis);
// Python slicing per dim: negative indices count from the end, out-of-range
// bounds clamp, kSliceEnd means "to the end", strides may be negative.
inline constexpr int64_t kSliceEnd = int64_t{1} << 62;
Tensor slice(const Tensor& x, std::vector<int64_t> begin, std::vector<int64_t> end,
             std::vector<int64_t> strides = {});
Tensor gather(const Tensor& params, const Tensor& indices, int64_t axis = 0);
// paddings: (before, after) per dim; mode "constant", "reflect" or "edge".
Tensor pad(const Tensor& x, std::vector<std::pair<int64_t, int64_t>> paddings,
           const std::string& mode = "constant", double constant_value = 0);
Tensor broadcast_to(const Tensor& x, Shape shape);
Tensor tile(const Tensor& x, std::vector<int64_t> multiples);
// The run-time shape as an int64 vector (works on dynamic dims inside a trace).
Tensor shape(const Tensor& x);
// The run-time element count as an int64 scalar.
Tensor size(const Tensor& x);

// ---- indexing (tracer/ops_indexing.cc); indices are int32/int64, negative
// ones count from the end, others outside the indexed dim are an error ----
// out[i][j][k] = params[i][indices[i][j][k]][k] for axis 1 (and likewise for
// other axes); indices have params' rank and the output their shape.
Tensor gather_elements(const Tensor& params, const Tensor& indices, int64_t axis = 0);
// A copy of data with data[i][indices[i][j][k]][k] = updates[i][j][k] for axis
// 1; reduction "none" (the last duplicate wins), "add", "mul", "max", "min".
Tensor scatter_elements(const Tensor& data, const Tensor& indices, const Tensor& updates,
                        int64_t axis = 0, const std::string& reduction = "none");
// indices [..., m]: each tuple of m indices picks data[i0, ..., im-1] (a
// slice of the remaining dims), after batch_dims leading dims shared by both.
Tensor gather_nd(const Tensor& params, const Tensor& indices, int64_t batch_dims = 0);
// A copy of data with data[tuple t] = updates[t] (reduction as scatter_elements).
Tensor scatter_nd(const Tensor& data, const Tensor& indices, const Tensor& updates,
                  const std::string& reduction = "none");
// The k largest (or smallest) elements along axis, sorted, with their int64
// indices; equal values keep the lower index first. {values, indices}.
std::pair<Tensor, Tensor> top_k(const Tensor& x, int64_t k, int64_t axis = -1, bool largest = true);
std::pair<Tensor, Tensor> top_k(const Tensor& x, const Tensor& k, int64_t axis = -1,
                                bool largest = true);
// int64 [rank, count]: the coordinates of x's nonzero elements in row-major
// order (a data-dependent shape inside a trace).
Tensor non_zero(const Tensor& x);
// The distinct elements of x (flattened) or, given an axis, its distinct
// slices along it, as ONNX's Unique: sorted ascending, or in the order of
// first occurrence with sorted = false. Data-dependent shapes inside a trace.
struct UniqueResult {
  Tensor values;           // the distinct items
  Tensor indices;          // int64: the first occurrence of each in x
  Tensor inverse_indices;  // int64: for each item of x, its position in values
  Tensor counts;           // int64: how often each occurs
};
UniqueResult unique(const Tensor& x, std::optional<int64_t> axis = std::nullopt,
                    bool sorted = true);

// ---- convolution and pooling (NHWC input; filter [KH, KW, C/groups, O]) ----
struct Conv2DOptions {
  std::vector<int64_t> strides = {1, 1};
  std::string padding = "VALID";  // "VALID", "SAME" or "EXPLICIT"
  std::vector<int64_t> pads = {};  // EXPLICIT: {top, bottom, left, right}
  std::vector<int64_t> dilations = {1, 1};
  int64_t groups = 1;  // groups == channels: depthwise
};
Tensor conv2d(const Tensor& input, const Tensor& filter, const Conv2DOptions& options = {});
Tensor conv2d(const Tensor& input, const Tensor& filter, const Tensor& bias,
              const Conv2DOptions& options = {});
// int8 convolution and matmul with int32 accumulation (ONNX's QLinearConv /
// QLinearMatMul and ConvInteger / MatMulInteger; core/rules/rules_quant.h):
// input/a and filter/b int8 or uint8, float32 scales, zero points of their
// tensor's dtype (filter/b: one, or one per output channel), bias int32 at
// input_scale * filter_scale. qlinear_*: requantized to output_zero_point's
// dtype, round_half_even(acc * input_scale * filter_scale / output_scale) +
// output_zero_point; *_integer: the int32 sums.
struct QuantParams {
  Tensor scale, zero_point;
};
Tensor qlinear_conv2d(const Tensor& input, const QuantParams& input_q, const Tensor& filter,
                      const QuantParams& filter_q, const QuantParams& output_q, const Tensor& bias,
                      const Conv2DOptions& options = {});
Tensor qlinear_matmul(const Tensor& a, const QuantParams& a_q, const Tensor& b,
                      const QuantParams& b_q, const QuantParams& output_q);
// a + b of 8-bit tensors of one shape (one scale and zero point each),
// requantized: quantize(dequantize(a) + dequantize(b)) in float32, step for
// step as quantize_linear / dequantize_linear compute it; relu = true clamps
// the sum at 0 first. The int8 form of a QDQ graph's residual add.
Tensor qlinear_add(const Tensor& a, const QuantParams& a_q, const Tensor& b, const QuantParams& b_q,
                   const QuantParams& output_q, bool relu = false);
Tensor conv2d_integer(const Tensor& input, const Tensor& filter, const Tensor& input_zero_point,
                      const Tensor& filter_zero_point, const Conv2DOptions& options = {});
Tensor matmul_integer(const Tensor& a, const Tensor& b, const Tensor& a_zero_point,
                      const Tensor& b_zero_point);
struct Pool2DOptions {
  std::vector<int64_t> ksize = {2, 2};
  std::vector<int64_t> strides = {2, 2};
  std::string padding = "VALID";
  std::vector<int64_t> pads = {};
  bool count_include_pad = false;  // avg_pool2d with padding
  std::vector<int64_t> dilations = {1, 1};
  bool ceil_mode = false;  // round the output size up (a window may hang over the end)
};
Tensor max_pool2d(const Tensor& input, const Pool2DOptions& options = {});
Tensor avg_pool2d(const Tensor& input, const Pool2DOptions& options = {});
// The gradient of conv2d with respect to its input ("deconvolution"): NHWC
// input, filter [KH, KW, out_channels/groups, in_channels]. The full output is
// (in - 1) * stride + (k - 1) * dilation + 1 per spatial dim; pads crop it,
// output_padding extends it at the end.
struct Conv2DTransposeOptions {
  std::vector<int64_t> strides = {1, 1};
  std::vector<int64_t> pads = {};            // {top, bottom, left, right}
  std::vector<int64_t> output_padding = {};  // {height, width}
  std::vector<int64_t> dilations = {1, 1};
  int64_t groups = 1;
};
Tensor conv2d_transpose(const Tensor& input, const Tensor& filter,
                        const Conv2DTransposeOptions& options = {});
Tensor conv2d_transpose(const Tensor& input, const Tensor& filter, const Tensor& bias,
                        const Conv2DTransposeOptions& options = {});
// Resizes every axis of x to `sizes` (any layout: NHWC images resize dims 1
// and 2) with ONNX Resize's semantics. `scales`, when given, are the per-axis
// scales the coordinate transformation uses (else sizes / x.shape).
struct ResizeOptions {
  std::string mode = "nearest";  // "nearest", "linear" or "cubic"
  // "half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric", "tf_half_pixel_for_nn"
  std::string coordinate_transformation_mode = "half_pixel";
  std::string nearest_mode = "round_prefer_floor";  // "round_prefer_ceil", "floor", "ceil"
  double cubic_coeff_a = -0.75;
  bool exclude_outside = false;
  std::vector<double> scales = {};
};
Tensor resize(const Tensor& x, Shape sizes, const ResizeOptions& options = {});

// ---- operators (elementwise, broadcasting) ----
Tensor operator+(const Tensor& a, const Tensor& b);
Tensor operator-(const Tensor& a, const Tensor& b);
Tensor operator*(const Tensor& a, const Tensor& b);
Tensor operator/(const Tensor& a, const Tensor& b);
Tensor operator-(const Tensor& x);
Tensor operator<(const Tensor& a, const Tensor& b);
Tensor operator<=(const Tensor& a, const Tensor& b);
Tensor operator>(const Tensor& a, const Tensor& b);
Tensor operator>=(const Tensor& a, const Tensor& b);
Tensor operator==(const Tensor& a, const Tensor& b);
Tensor operator!=(const Tensor& a, const Tensor& b);
Tensor operator&(const Tensor& a, const Tensor& b);  // logical_and
Tensor operator|(const Tensor& a, const Tensor& b);  // logical_or
Tensor operator!(const Tensor& x);                    // logical_not

// A C++ number next to a tensor takes the tensor's dtype (x * 2.0, 1 + n).
Tensor ScalarLike(const Tensor& like, double value);
#define TFN_SCALAR_OPERATOR(op)                                             \
  template <class S, class = std::enable_if_t<std::is_arithmetic_v<S>>>     \
  Tensor operator op(const Tensor& a, S b) {                                \
    return a op ScalarLike(a, static_cast<double>(b));                      \
  }                                                                         \
  template <class S, class = std::enable_if_t<std::is_arithmetic_v<S>>>     \
  Tensor operator op(S a, const Tensor& b) {                                \
    return ScalarLike(b, static_cast<double>(a)) op b;                      \
  }
TFN_SCALAR_OPERATOR(+)
TFN_SCALAR_OPERATOR(-)
TFN_SCALAR_OPERATOR(*)
TFN_SCALAR_OPERATOR(/)
TFN_SCALAR_OPERATOR(<)
TFN_SCALAR_OPERATOR(<=)
TFN_SCALAR_OPERATOR(>)
TFN_SCALAR_OPERATOR(>=)
TFN_SCALAR_OPERATOR(==)
TFN_SCALAR_OPERATOR(!=)
#undef TFN_SCALAR_OPERATOR

}  // namespace tfn
