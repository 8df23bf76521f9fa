// Internal declarations of the kernel families: each family file defines its
// extern "C" kernels and one Prepare function that decodes attributes into
// params and picks the reference kernel. registry.cc dispatches to them.
#pragma once

#include "core/dcheck.h"
#include "kernels/kernels.h"
#include "kernels/params.h"

// Declares or defines a kernel entry point with the ABI of kernel_abi.h.
#define TFN_KERNEL(name)                                                             \
  extern "C" int32_t name(                                                           \
      [[maybe_unused]] const void* params, [[maybe_unused]] const TfnTensor* inputs, \
      [[maybe_unused]] int32_t num_inputs, [[maybe_unused]] TfnTensor* outputs,      \
      [[maybe_unused]] int32_t num_outputs, [[maybe_unused]] const TfnKernelContext* ctx)
#define TFN_SCRATCH(name)                                                             \
  extern "C" int64_t name(                                                            \
      [[maybe_unused]] const void* params, [[maybe_unused]] const TfnTensor* inputs,  \
      [[maybe_unused]] int32_t num_inputs, [[maybe_unused]] const TfnTensor* outputs, \
      [[maybe_unused]] int32_t num_outputs)

namespace tfn::kernels {

// unary, binary, where, cast, identity (ref/elementwise.cc)
Status PrepareElementwise(const NodeSignature& node, KernelPlan* plan);
// matmul (ref/matmul.cc)
Status PrepareMatMul(const NodeSignature& node, KernelPlan* plan);
// reduce_*, argmax, argmin (ref/reduce.cc)
Status PrepareReduce(const NodeSignature& node, KernelPlan* plan);
// cumsum (ref/cumsum.cc)
Status PrepareCumSum(const NodeSignature& node, KernelPlan* plan);
// softmax, log_softmax, layer_norm (ref/normalize.cc)
Status PrepareNormalize(const NodeSignature& node, KernelPlan* plan);
// reshape, transpose, expand_dims, squeeze, concat, split, slice, gather, pad,
// broadcast_to, tile, shape, size (ref/shape_ops.cc)
Status PrepareShapeOp(const NodeSignature& node, KernelPlan* plan);
// fill, fill_like, range, random_uniform, random_normal (ref/factory.cc)
Status PrepareFactory(const NodeSignature& node, KernelPlan* plan);
// conv2d, max_pool2d, avg_pool2d (ref/conv.cc)
Status PrepareConv(const NodeSignature& node, KernelPlan* plan);
// conv2d's attributes (strides, dilations, padding, pads, groups) of any
// conv2d-like node; has_bias is num_inputs > 2 (ref/conv.cc)
Status DecodeConv2DParams(const NodeSignature& node, Conv2DParams* p);
// fused_matmul, fused_conv2d (ref/fused.cc)
Status PrepareFused(const NodeSignature& node, KernelPlan* plan);
// conv2d_transpose (ref/conv_transpose.cc)
Status PrepareConvTranspose(const NodeSignature& node, KernelPlan* plan);
// resize (ref/resize.cc)
Status PrepareResize(const NodeSignature& node, KernelPlan* plan);
// gather_elements, scatter_elements, gather_nd, scatter_nd (ref/gather_scatter.cc)
Status PrepareGatherScatter(const NodeSignature& node, KernelPlan* plan);
// top_k (ref/top_k.cc)
Status PrepareTopK(const NodeSignature& node, KernelPlan* plan);
// quantize_linear, dequantize_linear (ref/quantize.cc)
Status PrepareQuantize(const NodeSignature& node, KernelPlan* plan);
// qlinear_conv2d, qlinear_matmul, conv2d_integer, matmul_integer (ref/qlinear.cc)
Status PrepareQLinear(const NodeSignature& node, KernelPlan* plan);
// qlinear_add (ref/qlinear_add.cc)
Status PrepareQLinearAdd(const NodeSignature& node, KernelPlan* plan);
// non_zero, unique (ref/data_dependent.cc)
Status PrepareDataDependent(const NodeSignature& node, KernelPlan* plan);

// The view a slice of x (inputs[0]) takes for output y: y's element at
// index i is x's at base + sum_d i_d * strides[d] (strides in elements, may
// be negative). begin, end and strides are `params`' or, given as inputs 1-3
// (strides optional), read from them. The one definition of slice's
// semantics, for the reference and the optimized kernel (ref/shape_ops.cc).
int32_t ResolveSliceView(SliceParams params, const TfnTensor* inputs, int32_t num_inputs,
                         const TfnTensor& y, int64_t* base, int64_t* strides);

// gather's indices into a dim of size n (ref/shape_ops.cc), for the reference
// and the optimized kernel: int32 or int64 (else TFN_KERNEL_UNSUPPORTED),
// negative ones wrap once, anything else outside [0, n) is
// TFN_KERNEL_INDEX_OUT_OF_RANGE, checked before any output is written.
int32_t CheckGatherIndices(const TfnTensor& indices, int64_t n);
inline int64_t GatherIndexAt(const TfnTensor& indices, int64_t j, int64_t n) {
  const int64_t v = indices.dtype == static_cast<int32_t>(DType::kInt32)
                        ? static_cast<const int32_t*>(indices.data)[j]
                        : static_cast<const int64_t*>(indices.data)[j];
  return v < 0 ? v + n : v;
}

}  // namespace tfn::kernels
