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
  int32_t bfloat16_truncate;  // cast: 1 to truncate to bfloat16 (ONNX), 0 to round
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
  int32_t select_last;  // 1: ties and NaNs resolve to the last index
};

// cumsum: the axis is read from input 1 at run time.
struct CumSumParams {
  int32_t exclusive;  // 1: element i sums the elements before i (not i itself)
  int32_t reverse;    // 1: sum from the end of the axis
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

struct QLinearAddParams {  // qlinear_add
  int32_t relu;            // activation "relu"
};

struct QuantizeParams {  // quantize_linear, dequantize_linear
  int32_t axis;          // normalized; -1 when it does not fit x (per tensor only)
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
  int32_t pads_from_input;  // 1: the paddings are input 1 (pads unused)
  double constant_value;    // unless input 2 gives it
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

// Padding before the first cell of one spatial dim of conv2d-like ops:
// EXPLICIT the given pad, VALID none, SAME TensorFlow's rule (the smaller
// half of max((out - 1) * stride + window - in, 0)).
inline int64_t Conv2DPadBefore(const Conv2DParams& p, int dim, int64_t in, int64_t out,
                               int64_t window) {
  if (p.padding == 2) return p.pads[2 * dim];  // EXPLICIT
  if (p.padding == 0) return 0;                // VALID
  const int64_t total = (out - 1) * p.strides[dim] + window - in;
  return total > 0 ? total / 2 : 0;
}

// qlinear_conv2d, conv2d_integer (`conv` decoded as conv2d's), qlinear_matmul,
// matmul_integer. Inputs are ordered as in core/op_sigs.h (x, x_scale,
// x_zero_point, w, w_scale, w_zero_point, y_scale, y_zero_point, bias for
// the qlinear ops; x, w, x_zero_point, w_zero_point for the integer ones).
struct QLinearParams {
  Conv2DParams conv;
  int32_t is_conv;
  int32_t requantize;  // 1: qlinear_* (scales, requantized output); 0: int32 output
  int32_t act;         // kActNone, kActRelu or kActClip
  float clip_min, clip_max;
  // 1: the weights are prepacked (core/packed_layout.h) and packed_dims
  // holds their logical shape: [KH, KW, Cin/groups, Cout] or [K, N, 0, 0].
  int32_t packed;
  int32_t packed_dims[4];
};

struct Pool2DParams {
  int32_t ksize[2];
  int32_t strides[2];
  int32_t pads[4];
  int32_t padding;
  int32_t is_max;
  int32_t count_include_pad;
  int32_t dilations[2];
  int32_t pad_;
};

// conv2d_transpose: pads crop {top, bottom, left, right} of the full output
// (output_padding shows only in the output shape the kernel is given).
struct Conv2DTransposeParams {
  int32_t strides[2];
  int32_t dilations[2];
  int32_t pads[4];
  int32_t groups;
  int32_t has_bias;
};

// resize: mode 0 nearest, 1 linear, 2 cubic; coord and nearest_mode index the
// names in kernels/ref/resize.cc.
struct ResizeParams {
  int32_t mode;
  int32_t coord;
  int32_t nearest_mode;
  int32_t exclude_outside;
  double cubic_coeff_a;
  double extrapolation_value;
};

// gather_elements, scatter_elements, gather_nd, scatter_nd: reduction 0 none
// (assign), 1 add, 2 mul, 3 max, 4 min; applied in the order of the updates.
struct GatherScatterParams {
  int32_t axis;        // *_elements
  int32_t batch_dims;  // gather_nd
  int32_t reduction;   // scatter_*
  int32_t pad_;
};

struct TopKParams {
  int32_t axis;
  int32_t largest;  // 1: the k largest, 0: the k smallest
};

struct UniqueParams {
  int32_t axis;  // -1: x flattened
  int32_t sorted;
};

// fused_matmul and fused_conv2d (core/op_sigs.h): y = act(op(...) + bias +
// residual), each term optional. clip: min(max(v, clip_min), clip_max).
enum FusedActivation : int32_t {
  kActNone = 0,
  kActRelu = 1,
  kActClip = 2,
  kActSigmoid = 3,
  kActTanh = 4,
  kActGelu = 5,      // erf form
  kActGeluTanh = 6,  // tanh approximation
  // From here on, activations with parameters act_alpha (a) and act_beta (b)
  // or two uses of v, rounded like the ops they replace:
  kActHardSigmoid = 7,  // max(min(v * a + b, 1), 0)
  kActHardSwish = 8,    // v * hard_sigmoid(v)
  kActSilu = 9,         // v * sigmoid(v)
};

struct FusedMatMulParams {
  int32_t transpose_b;
  int32_t packed_n;  // > 0: b is prepacked (kernels/opt/gemm.h layout) for N = packed_n
  int32_t activation;
  int32_t has_bias;
  int32_t has_residual;
  float clip_min;
  float clip_max;
  float act_alpha;  // hard_sigmoid and hard_swish
  float act_beta;
};

struct FusedConv2DParams {
  Conv2DParams conv;  // conv.has_bias: input 2 is the bias
  int32_t activation;
  int32_t has_residual;
  int32_t packed_out_channels;  // > 0: the filter is prepacked for this many outputs
  float clip_min;
  float clip_max;
  int32_t winograd;  // 1: the prepacked filter is Winograd F(2x2, 3x3)'s (rules_fused.h)
  float act_alpha;   // hard_sigmoid and hard_swish
  float act_beta;
  int32_t pad_;
};

}  // namespace tfn::kernels
