// Op-specific kernel parameters: plain structs decoded once from attributes.
//
// They hold no pointers, so AOT objects can embed their bytes and kernels
// compiled for another target read them with the same layout (fixed-width
// fields, natural alignment, identical on every LP64 target).
#pragma once

#include <cstdint>

namespace tfn::kernels {

// Unary and binary elementwise ops, where, cast: `op` is the OpId value.
struct ElementwiseParams {
  int32_t op;
  int32_t gelu_tanh;  // gelu: 1 for the tanh approximation
};

struct MatMulParams {
  int32_t transpose_a;
  int32_t transpose_b;
};

// reduce_* over the axes in `axes_mask` (bit i = axis i of the input).
struct ReduceParams {
  int32_t op;
  uint32_t axes_mask;
};

struct ArgReduceParams {
  int32_t is_max;
  int32_t axis;
};

struct SoftmaxParams {
  int32_t axis;
  int32_t log;  // log_softmax
};

struct LayerNormParams {
  int32_t axis;
  int32_t pad_;
  double epsilon;
};

struct TransposeParams {
  int32_t perm[8];
};

struct AxisParams {  // concat, split, gather
  int32_t axis;
};

// slice: raw begin/end/strides as given (Python semantics resolved per call).
struct SliceParams {
  int64_t begin[8];
  int64_t end[8];
  int64_t strides[8];
};

struct PadParams {
  int64_t pads[16];  // before0, after0, before1, ...
  int32_t mode;      // 0 constant, 1 reflect, 2 edge
  int32_t pad_;
  double constant_value;
};

struct FillParams {  // fill, fill_like
  double value;
};

struct RangeParams {
  double start;
  double delta;
};

struct RandomParams {
  uint64_t seed;
  double a;  // minval or mean
  double b;  // maxval or stddev
  int32_t normal;
  int32_t pad_;
};

// conv2d and pooling: padding 0 VALID, 1 SAME, 2 EXPLICIT (pads used).
struct Conv2DParams {
  int32_t strides[2];
  int32_t dilations[2];
  int32_t pads[4];  // top, bottom, left, right (EXPLICIT)
  int32_t padding;
  int32_t groups;
  int32_t has_bias;
  int32_t pad_;
};

struct Pool2DParams {
  int32_t ksize[2];
  int32_t strides[2];
  int32_t pads[4];
  int32_t padding;
  int32_t is_max;
  int32_t count_include_pad;
  int32_t pad_;
};

}  // namespace tfn::kernels
