// The table of optimized kernels: for each op, the conditions under which a
// faster kernel replaces the reference one chosen by PrepareKernel.
#include <string>

#include "kernels/opt/opt_kernels.h"
#include "kernels/ref/ref_kernels.h"
#include "kernels/ref/resize_taps.h"

// Optimized kernels (kernels/opt/*.cc).
TFN_KERNEL(tfn_opt_matmul);
TFN_SCRATCH(tfn_opt_matmul_scratch);
TFN_KERNEL(tfn_opt_unary);       // opt/elementwise.cc
TFN_KERNEL(tfn_opt_binary);      // opt/elementwise_binary.cc
TFN_KERNEL(tfn_opt_where);       // opt/elementwise_where_cast.cc
TFN_KERNEL(tfn_opt_cast);        // opt/elementwise_where_cast.cc
TFN_KERNEL(tfn_opt_reduce);      // opt/reduce.cc
TFN_KERNEL(tfn_opt_argreduce);   // opt/argreduce.cc
TFN_KERNEL(tfn_opt_softmax);     // opt/normalize.cc
TFN_KERNEL(tfn_opt_layer_norm);  // opt/normalize.cc
TFN_KERNEL(tfn_opt_conv2d);      // opt/conv.cc
TFN_SCRATCH(tfn_opt_conv2d_scratch);
TFN_KERNEL(tfn_opt_fused_conv2d);  // opt/conv.cc
TFN_SCRATCH(tfn_opt_fused_conv2d_scratch);
TFN_KERNEL(tfn_opt_fused_matmul);  // opt/fused_matmul.cc
TFN_KERNEL(tfn_opt_transpose);     // opt/transpose.cc
TFN_KERNEL(tfn_opt_slice);         // opt/slice.cc
TFN_KERNEL(tfn_opt_gather);        // opt/gather.cc
TFN_KERNEL(tfn_opt_concat);        // opt/concat.cc
TFN_KERNEL(tfn_opt_pad);           // opt/pad.cc
TFN_KERNEL(tfn_opt_split);         // opt/concat.cc
TFN_KERNEL(tfn_opt_pool2d);        // opt/pool.cc
TFN_KERNEL(tfn_opt_resize);        // opt/resize.cc
TFN_KERNEL(tfn_opt_conv2d_transpose);  // opt/conv_transpose.cc
TFN_SCRATCH(tfn_opt_conv2d_transpose_scratch);
TFN_SCRATCH(tfn_opt_resize_scratch);
TFN_SCRATCH(tfn_opt_fused_matmul_scratch);
TFN_KERNEL(tfn_opt_quantize_linear);    // opt/quantize.cc
TFN_KERNEL(tfn_opt_dequantize_linear);  // opt/quantize.cc
TFN_KERNEL(tfn_opt_qlinear_add);        // opt/qlinear_add.cc
TFN_KERNEL(tfn_opt_qlinear);            // opt/qlinear.cc
TFN_SCRATCH(tfn_opt_qlinear_scratch);

namespace tfn::kernels {
namespace {

void Use(KernelPlan* plan, TfnKernelFn fn, const char* symbol) {
  plan->fn = fn;
  plan->symbol = symbol;
}

// Bits set form one run (or none): the reduced axes are contiguous.
bool IsOneRun(uint32_t mask) {
  if (mask == 0) return true;
  while (!(mask & 1u)) mask >>= 1;
  return (mask & (mask + 1)) == 0;
}

bool IsFloat(DType t) { return t == DType::kFloat32 || t == DType::kFloat64; }

// The row form of a float32 elementwise op (kernels.h), or null.
ElementwiseRowFn RowForm(const NodeSignature& node, const std::string& ref) {
  for (int i = 0; i < node.num_inputs; ++i) {
    if (node.in_types[i] != DType::kFloat32) return nullptr;
  }
  if (node.num_outputs != 1 || node.out_types[0] != DType::kFloat32) return nullptr;
  if (ref == "tfn_ref_unary") return node.op == OpId::kIdentity ? nullptr : opt::UnaryRowF32;
  return ref == "tfn_ref_binary" && opt::IsFloatArith(node.op) ? opt::BinaryRowF32 : nullptr;
}

}  // namespace

void SelectOptimized(const NodeSignature& node, KernelPlan* plan) {
  switch (node.op) {
    case OpId::kMatMul:  // float32 GEMM (opt/matmul.cc); params: MatMulParams, as the reference
      if (node.in_types[0] == DType::kFloat32 && node.in_types[1] == DType::kFloat32) {
        plan->fn = tfn_opt_matmul;
        plan->symbol = "tfn_opt_matmul";
        plan->scratch = tfn_opt_matmul_scratch;
        plan->scratch_symbol = "tfn_opt_matmul_scratch";
      }
      break;
    // float32 NHWC convolutions (opt/conv.cc): implicit GEMM on the packed
    // filter, depthwise direct; fused_* apply their epilogue per tile.
    case OpId::kConv2D:
    case OpId::kFusedConv2D:
      if (node.in_types[0] == DType::kFloat32 && node.in_types[1] == DType::kFloat32) {
        const bool fused = node.op == OpId::kFusedConv2D;
        Use(plan, fused ? tfn_opt_fused_conv2d : tfn_opt_conv2d,
            fused ? "tfn_opt_fused_conv2d" : "tfn_opt_conv2d");
        plan->scratch = fused ? tfn_opt_fused_conv2d_scratch : tfn_opt_conv2d_scratch;
        plan->scratch_symbol = fused ? "tfn_opt_fused_conv2d_scratch" : "tfn_opt_conv2d_scratch";
      }
      break;
    case OpId::kQuantizeLinear:  // float32 <-> int8/uint8, per tensor (per axis: the reference)
      if (node.in_types[0] == DType::kFloat32 && node.in_types[1] == DType::kFloat32 &&
          (node.out_types[0] == DType::kInt8 || node.out_types[0] == DType::kUInt8)) {
        Use(plan, tfn_opt_quantize_linear, "tfn_opt_quantize_linear");
      }
      break;
    case OpId::kDequantizeLinear:
      if (node.out_types[0] == DType::kFloat32 && node.in_types[1] == DType::kFloat32 &&
          (node.in_types[0] == DType::kInt8 || node.in_types[0] == DType::kUInt8)) {
        Use(plan, tfn_opt_dequantize_linear, "tfn_opt_dequantize_linear");
      }
      break;
    case OpId::kQLinearAdd:  // vectorized; mixed int8/uint8 operands: the reference
      Use(plan, tfn_opt_qlinear_add, "tfn_opt_qlinear_add");
      break;
    case OpId::kQLinearConv2D:  // int8/uint8: the int8 GEMM (opt/qlinear.cc)
    case OpId::kQLinearMatMul:
    case OpId::kConv2DInteger:
    case OpId::kMatMulInteger:
      Use(plan, tfn_opt_qlinear, "tfn_opt_qlinear");
      plan->scratch = tfn_opt_qlinear_scratch;
      plan->scratch_symbol = "tfn_opt_qlinear_scratch";
      break;
    case OpId::kConv2DTranspose:  // float32: a GEMM per image and group, then col2im
                                  // (opt/conv_transpose.cc)
      if (node.in_types[0] == DType::kFloat32 && node.in_types[1] == DType::kFloat32) {
        Use(plan, tfn_opt_conv2d_transpose, "tfn_opt_conv2d_transpose");
        plan->scratch = tfn_opt_conv2d_transpose_scratch;
        plan->scratch_symbol = "tfn_opt_conv2d_transpose_scratch";
      }
      break;
    case OpId::kFusedMatMul:  // GEMM with the epilogue (opt/fused_matmul.cc); a
                              // bfloat16 b once prepacked (the bf16 GEMM)
      if (node.in_types[0] == DType::kFloat32 &&
          (node.in_types[1] == DType::kFloat32 ||
           (node.in_types[1] == DType::kBFloat16 && node.attrs->GetInt("packed_n") > 0))) {
        Use(plan, tfn_opt_fused_matmul, "tfn_opt_fused_matmul");
        plan->scratch = tfn_opt_fused_matmul_scratch;
        plan->scratch_symbol = "tfn_opt_fused_matmul_scratch";
      }
      break;
    case OpId::kMaxPool2D:  // float32 NHWC, bit-identical to the reference (opt/pool.cc)
    case OpId::kAvgPool2D:
      if (node.in_types[0] == DType::kFloat32) Use(plan, tfn_opt_pool2d, "tfn_opt_pool2d");
      break;
    // float32 resize with per-axis tap tables, any rank and layout
    // (opt/resize.cc); tf_crop_and_resize stays with the reference.
    case OpId::kResize:
      if (node.in_types[0] == DType::kFloat32 &&
          plan->Get<ResizeParams>().coord != resize::kCropResize) {
        Use(plan, tfn_opt_resize, "tfn_opt_resize");
        plan->scratch = tfn_opt_resize_scratch;
        plan->scratch_symbol = "tfn_opt_resize_scratch";
      }
      break;
    case OpId::kTranspose:  // every dtype; 16x16 tiles between the innermost dims
                            // (opt/transpose.cc)
      Use(plan, tfn_opt_transpose, "tfn_opt_transpose");
      break;
    case OpId::kSlice:  // every dtype; the reference's view, copied by rows or tiles
                        // (opt/slice.cc)
      Use(plan, tfn_opt_slice, "tfn_opt_slice");
      break;
    case OpId::kGather:  // every dtype; a memcpy per row after the axis (opt/gather.cc)
      Use(plan, tfn_opt_gather, "tfn_opt_gather");
      break;
    case OpId::kPad:  // constant mode, attribute paddings, every dtype: a fill, then a
                      // memcpy per row (opt/pad.cc)
      if (plan->Get<PadParams>().mode == 0 && !plan->Get<PadParams>().pads_from_input) {
        Use(plan, tfn_opt_pad, "tfn_opt_pad");
      }
      break;
    case OpId::kConcat:  // every dtype; a memcpy per piece, bytes split over the threads
                         // (opt/concat.cc)
      Use(plan, tfn_opt_concat, "tfn_opt_concat");
      break;
    case OpId::kSplit:
      Use(plan, tfn_opt_split, "tfn_opt_split");
      break;
    // Reductions (opt/reduce.cc, argreduce.cc): params as the reference. reduce_*
    // needs its axes to be one contiguous run ([outer, reduced, inner]); axes
    // given as an input at run time are checked by the kernel, which hands
    // other axis sets to the reference kernel.
    case OpId::kReduceSum:
    case OpId::kReduceMean:
    case OpId::kReduceMax:
    case OpId::kReduceMin:
    case OpId::kReduceProd:
      if (node.in_types[0] != DType::kBool &&
          (node.num_inputs > 1 || IsOneRun(plan->Get<ReduceParams>().axes_mask))) {
        Use(plan, tfn_opt_reduce, "tfn_opt_reduce");
      }
      break;
    case OpId::kArgMax:
    case OpId::kArgMin:
      if (node.in_types[0] != DType::kBool) Use(plan, tfn_opt_argreduce, "tfn_opt_argreduce");
      break;
    // softmax/log_softmax over the last axis, layer_norm (opt/normalize.cc).
    case OpId::kSoftmax:
    case OpId::kLogSoftmax:
      if (IsFloat(node.in_types[0]) && plan->Get<SoftmaxParams>().axis == node.in_ranks[0] - 1) {
        Use(plan, tfn_opt_softmax, "tfn_opt_softmax");
      }
      break;
    case OpId::kLayerNorm:
      if (IsFloat(node.in_types[0])) Use(plan, tfn_opt_layer_norm, "tfn_opt_layer_norm");
      break;
    default:
      // Elementwise ops, every dtype (opt/elementwise*.cc), params ElementwiseParams:
      // each reference kernel of ref/elementwise.cc has its optimized twin. Ops with
      // another reference kernel (e.g. float predicates) keep it.
      if (GetOpDef(node.op).has(kElementwise) && plan->symbol != nullptr) {
        const std::string ref = plan->symbol;
        if (ref == "tfn_ref_unary") Use(plan, tfn_opt_unary, "tfn_opt_unary");
        if (ref == "tfn_ref_binary") Use(plan, tfn_opt_binary, "tfn_opt_binary");
        plan->row = RowForm(node, ref);
        if (ref == "tfn_ref_where") Use(plan, tfn_opt_where, "tfn_opt_where");
        if (ref == "tfn_ref_cast") Use(plan, tfn_opt_cast, "tfn_opt_cast");
      }
      break;  // otherwise no optimized kernel: keep the reference one
  }
  (void)plan;
}

}  // namespace tfn::kernels
