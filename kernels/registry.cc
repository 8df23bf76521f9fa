// PrepareKernel: routes each op to its kernel family, then swaps in the
// optimized kernel where one exists for the node. The minimal runtime
// (TFN_OPTIMIZED_KERNELS=0, kernels/README.md) has no kernels/opt and keeps
// the reference kernel of every op.
#include <string>

#include "core/shape.h"
#include "kernels/ref/ref_kernels.h"
#if TFN_OPTIMIZED_KERNELS
#include "kernels/opt/opt_kernels.h"
#endif

namespace tfn::kernels {
namespace {

#if TFN_OPTIMIZED_KERNELS
// Nodes the optimized kernels (kernels/opt) do not implement: they keep the
// reference kernel until opt/select.cc learns them.
bool ReferenceOnly(const NodeSignature& node) {
  switch (node.op) {
    case OpId::kIsInf:  // bool output of a float input (opt unary writes the input's dtype)
    case OpId::kIsNan:
    case OpId::kLogicalXor:  // not among opt/elementwise_binary.cc's bool ops
      return true;
    case OpId::kArgMax:
    case OpId::kArgMin:
      return node.attrs->GetInt("select_last_index") != 0;
    case OpId::kReduceSum:  // axes as input 1: read at run time
    case OpId::kReduceMean:
    case OpId::kReduceMax:
    case OpId::kReduceMin:
    case OpId::kReduceProd:
      return node.num_inputs > 1;
    default:
      return false;
  }
}
#endif

}  // namespace

Status PrepareKernel(const NodeSignature& node, Variant variant, KernelPlan* plan) {
  *plan = KernelPlan();
  // The one check of a node's structure (core/node_check.h); the loader has
  // run it already, other callers (tests, aot, benchmarks) may not have.
  TFN_RETURN_IF_ERROR(CheckNode(node));
  Status s;
  switch (node.op) {
    case OpId::kParameter:
    case OpId::kConstant:
    case OpId::kCond:
    case OpId::kWhileLoop:
    case OpId::kPrint:
    case OpId::kVarRead:
    case OpId::kVarAssign:
    case OpId::kVarAssignAdd:
      return Internal(std::string(OpName(node.op)) + " has no kernel; the executor runs it");
    case OpId::kMatMul:
      s = PrepareMatMul(node, plan);
      break;
    case OpId::kCumSum:
      s = PrepareCumSum(node, plan);
      break;
    case OpId::kReduceSum:
    case OpId::kReduceMean:
    case OpId::kReduceMax:
    case OpId::kReduceMin:
    case OpId::kReduceProd:
    case OpId::kArgMax:
    case OpId::kArgMin:
      s = PrepareReduce(node, plan);
      break;
    case OpId::kSoftmax:
    case OpId::kLogSoftmax:
    case OpId::kLayerNorm:
      s = PrepareNormalize(node, plan);
      break;
    case OpId::kReshape:
    case OpId::kTranspose:
    case OpId::kExpandDims:
    case OpId::kSqueeze:
    case OpId::kConcat:
    case OpId::kSplit:
    case OpId::kSlice:
    case OpId::kGather:
    case OpId::kPad:
    case OpId::kBroadcastTo:
    case OpId::kTile:
    case OpId::kShape:
    case OpId::kSize:
      s = PrepareShapeOp(node, plan);
      break;
    case OpId::kFill:
    case OpId::kFillLike:
    case OpId::kRange:
    case OpId::kRandomUniform:
    case OpId::kRandomNormal:
      s = PrepareFactory(node, plan);
      break;
    case OpId::kConv2D:
    case OpId::kMaxPool2D:
    case OpId::kAvgPool2D:
      s = PrepareConv(node, plan);
      break;
    case OpId::kConv2DTranspose:
      s = PrepareConvTranspose(node, plan);
      break;
    case OpId::kFusedMatMul:
    case OpId::kFusedConv2D:
      s = PrepareFused(node, plan);
      break;
    case OpId::kResize:
      s = PrepareResize(node, plan);
      break;
    case OpId::kGatherElements:
    case OpId::kScatterElements:
    case OpId::kGatherND:
    case OpId::kScatterND:
      s = PrepareGatherScatter(node, plan);
      break;
    case OpId::kTopK:
      s = PrepareTopK(node, plan);
      break;
    case OpId::kQuantizeLinear:
    case OpId::kDequantizeLinear:
      s = PrepareQuantize(node, plan);
      break;
    case OpId::kQLinearConv2D:
    case OpId::kQLinearMatMul:
    case OpId::kConv2DInteger:
    case OpId::kMatMulInteger:
      s = PrepareQLinear(node, plan);
      break;
    case OpId::kQLinearAdd:
      s = PrepareQLinearAdd(node, plan);
      break;
    case OpId::kNonZero:
    case OpId::kUnique:
      s = PrepareDataDependent(node, plan);
      break;
    default:
      if (GetOpDef(node.op).has(kElementwise)) {
        s = PrepareElementwise(node, plan);
        break;
      }
      return Unimplemented(std::string(OpName(node.op)) + ": no kernel is registered");
  }
  TFN_RETURN_IF_ERROR(s);
#if TFN_OPTIMIZED_KERNELS
  if (variant == Variant::kOptimized && !ReferenceOnly(node)) SelectOptimized(node, plan);
#else
  (void)variant;  // no kernels/opt in this build: both variants are the reference kernels
#endif
  return Status::Ok();
}

void FillTensor(TfnTensor* t, void* data, DType dtype, const Shape& shape) {
  const int rank = shape.rank();
  t->data = data;
  t->rank = rank;
  t->dtype = static_cast<int32_t>(dtype);
  for (int i = 0; i < rank; ++i) t->dims[i] = shape[i];
  for (int i = rank; i < TFN_KERNEL_MAX_RANK; ++i) t->dims[i] = 0;
}

int64_t ScratchBytes(const KernelPlan& plan, const TfnTensor* inputs, int num_inputs,
                     const TfnTensor* outputs, int num_outputs) {
  if (!plan.scratch) return 0;
  return plan.scratch(plan.params, inputs, num_inputs, outputs, num_outputs);
}

Status KernelError(int32_t code, OpId op, const TfnTensor* inputs, int num_inputs) {
  std::string args;
  for (int i = 0; i < num_inputs; ++i) {
    Shape s(inputs[i].dims, inputs[i].dims + inputs[i].rank);
    args += std::string(i ? ", " : "") + GetOpDef(op).InputAt(i)->name + " " +
            TypeToString(inputs[i].dtype, s);
  }
  std::string name = OpName(op);
  switch (code) {
    case TFN_KERNEL_OK:
      return Status::Ok();
    case TFN_KERNEL_INDEX_OUT_OF_RANGE:
      return OutOfRange(name + ": an index is outside the valid range of the indexed axis (" +
                        args + "); indices must be in [-n, n) for an axis of size n");
    case TFN_KERNEL_UNSUPPORTED:
      return Unimplemented(name + ": the kernel does not support these inputs (" + args + ")");
    case TFN_KERNEL_SCRATCH_TOO_SMALL:
      return Internal(name + ": the scratch area given to the kernel is too small");
    default:
      return Internal(name + ": the kernel failed with code " + std::to_string(code) + " (" + args +
                      ")");
  }
}

}  // namespace tfn::kernels
