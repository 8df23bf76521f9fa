// The op functions of the front end: factories, math, linear algebra, shape
// manipulation, convolution. Each works eagerly outside a trace and records a
// graph node inside one. Broadcasting follows NumPy; bad arguments throw
// tfn::Error naming the op, the argument, what was expected and what was given.
// All functions are thread-safe for eager tensors.
#pragma once

#include <cstdint>
#include <string>
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
template <class T, class = std::enable_if_t<std::is_arithmetic_v<T>>>
Tensor constant(T value) {
  return constant(std::vector<T>{value}, Shape{});
}
Tensor constant(std::initializer_list<float> values);
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
Tensor logical_not(const Tensor& x);
Tensor cast(const Tensor& x, DType dtype);

Tensor add(const Tensor& a, const Tensor& b);
Tensor sub(const Tensor& a, const Tensor& b);
Tensor mul(const Tensor& a, const Tensor& b);
Tensor div(const Tensor& a, const Tensor& b);  // integers truncate; x/0 = 0 for integers
Tensor pow(const Tensor& a, const Tensor& b);
Tensor maximum(const Tensor& a, const Tensor& b);
Tensor minimum(const Tensor& a, const Tensor& b);
Tensor mod(const Tensor& a, const Tensor& b);  // floor-mod: the sign of b
Tensor equal(const Tensor& a, const Tensor& b);
Tensor not_equal(const Tensor& a, const Tensor& b);
Tensor less(const Tensor& a, const Tensor& b);
Tensor less_equal(const Tensor& a, const Tensor& b);
Tensor greater(const Tensor& a, const Tensor& b);
Tensor greater_equal(const Tensor& a, const Tensor& b);
Tensor logical_and(const Tensor& a, const Tensor& b);
Tensor logical_or(const Tensor& a, const Tensor& b);
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
Tensor argmax(const Tensor& x, int64_t axis = 0, bool keepdims = false);
Tensor argmin(const Tensor& x, int64_t axis = 0, bool keepdims = false);
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
struct Pool2DOptions {
  std::vector<int64_t> ksize = {2, 2};
  std::vector<int64_t> strides = {2, 2};
  std::string padding = "VALID";
  std::vector<int64_t> pads = {};
  bool count_include_pad = false;  // avg_pool2d with padding
};
Tensor max_pool2d(const Tensor& input, const Pool2DOptions& options = {});
Tensor avg_pool2d(const Tensor& input, const Pool2DOptions& options = {});

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
