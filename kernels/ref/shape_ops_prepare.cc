// Load-time preparation of the shape-manipulation kernels (shape_ops.cc):
// params for transpose, slice and pad, and the kernel each shape op runs.
// Nodes have passed CheckNode (core/node_check.h), which owns the checks of
// axes, permutations and per-dim lists against the input's rank; here they
// are only asserted. Apart from the kernels so that it can be compiled for
// size (kernels/CMakeLists.txt) while the kernels stay -O3.
#include <string>
#include <vector>

#include "kernels/ref/ref_kernels.h"
#include "kernels/ref/scalar_ops.h"
#include "kernels/ref/tensor_util.h"

namespace tfn::kernels {

// The kernels, in shape_ops.cc.
TFN_KERNEL(tfn_ref_copy);
TFN_KERNEL(tfn_ref_transpose);
TFN_KERNEL(tfn_ref_concat);
TFN_KERNEL(tfn_ref_split);
TFN_KERNEL(tfn_ref_slice);
TFN_KERNEL(tfn_ref_gather);
TFN_KERNEL(tfn_ref_pad);
TFN_KERNEL(tfn_ref_broadcast_to);
TFN_KERNEL(tfn_ref_tile);
TFN_KERNEL(tfn_ref_shape);
TFN_KERNEL(tfn_ref_size);

namespace {

Status PrepareTranspose(const NodeSignature& node, KernelPlan* plan) {
  const int rank = node.in_ranks[0];
  std::vector<int64_t> perm = node.attrs->GetInts("perm");
  if (perm.empty()) {
    for (int i = rank - 1; i >= 0; --i) perm.push_back(i);
  }
  auto* p = plan->As<TransposeParams>();
  TFN_DCHECK(static_cast<int>(perm.size()) == rank && rank <= TFN_KERNEL_MAX_RANK);
  for (int i = 0; i < rank; ++i) {
    const bool axis_ok = NormalizeAxis(perm[i], rank, &p->perm[i]);
    TFN_DCHECK(axis_ok);
    (void)axis_ok;
  }
  return Status::Ok();
}

Status PrepareSlice(const NodeSignature& node, KernelPlan* plan) {
  const size_t rank = static_cast<size_t>(node.in_ranks[0]);
  if (node.num_inputs > 1) {  // read at run time (the shape rule checks the values)
    plan->As<SliceParams>();
    return Status::Ok();
  }
  std::vector<int64_t> begin = node.attrs->GetInts("begin"), end = node.attrs->GetInts("end");
  std::vector<int64_t> strides = node.attrs->GetInts("strides");
  if (strides.empty()) strides.assign(rank, 1);
  TFN_DCHECK(begin.size() == rank && end.size() == rank && strides.size() == rank);
  auto* p = plan->As<SliceParams>();
  for (size_t i = 0; i < rank; ++i) {
    // 0 has no meaning; INT64_MIN cannot be negated (CheckNode rejects both).
    TFN_DCHECK(strides[i] != 0 && strides[i] != std::numeric_limits<int64_t>::min());
    p->begin[i] = begin[i];
    p->end[i] = end[i];
    p->strides[i] = strides[i];
  }
  return Status::Ok();
}

Status PreparePad(const NodeSignature& node, KernelPlan* plan) {
  std::vector<int64_t> pads = node.attrs->GetInts("paddings");
  std::string mode = node.attrs->GetString("mode");
  auto* p = plan->As<PadParams>();
  p->mode = mode == "constant" ? 0 : mode == "reflect" ? 1 : mode == "edge" ? 2 : -1;
  if (p->mode < 0)
    return InvalidArgument("pad: mode '" + mode + "' is not one of constant, reflect, edge");
  p->pads_from_input = node.num_inputs > 1;
  if (p->pads_from_input) {
    p->constant_value = node.attrs->GetFloat("constant_value");
    return Status::Ok();  // the shape rule has checked the values
  }
  TFN_DCHECK(pads.size() == 2 * static_cast<size_t>(node.in_ranks[0]));
  for (size_t i = 0; i < pads.size() && i < 2 * TFN_KERNEL_MAX_RANK; ++i) {
    TFN_DCHECK(pads[i] >= 0);
    p->pads[i] = pads[i];
  }
  p->constant_value = node.attrs->GetFloat("constant_value");
  return Status::Ok();
}

}  // namespace

Status PrepareShapeOp(const NodeSignature& node, KernelPlan* plan) {
  TFN_DCHECK(node.num_inputs >= 1);  // every shape op has x (CheckNode)
  const int rank = node.in_ranks[0];
  Status s;
  switch (node.op) {
    case OpId::kReshape:
    case OpId::kExpandDims:
    case OpId::kSqueeze:
      plan->fn = tfn_ref_copy;
      plan->symbol = "tfn_ref_copy";
      break;
    case OpId::kTranspose:
      s = PrepareTranspose(node, plan);
      plan->fn = tfn_ref_transpose;
      plan->symbol = "tfn_ref_transpose";
      break;
    case OpId::kConcat:
    case OpId::kSplit:
    case OpId::kGather: {
      const bool axis_ok =
          NormalizeAxis(node.attrs->GetInt("axis"), rank, &plan->As<AxisParams>()->axis);
      TFN_DCHECK(axis_ok);
      (void)axis_ok;
      if (node.op == OpId::kConcat) {
        plan->fn = tfn_ref_concat;
        plan->symbol = "tfn_ref_concat";
      } else if (node.op == OpId::kSplit) {
        plan->fn = tfn_ref_split;
        plan->symbol = "tfn_ref_split";
      } else {
        plan->fn = tfn_ref_gather;
        plan->symbol = "tfn_ref_gather";
      }
      break;
    }
    case OpId::kSlice:
      s = PrepareSlice(node, plan);
      plan->fn = tfn_ref_slice;
      plan->symbol = "tfn_ref_slice";
      break;
    case OpId::kPad:
      s = PreparePad(node, plan);
      plan->fn = tfn_ref_pad;
      plan->symbol = "tfn_ref_pad";
      break;
    case OpId::kBroadcastTo:
      plan->fn = tfn_ref_broadcast_to;
      plan->symbol = "tfn_ref_broadcast_to";
      break;
    case OpId::kTile:
      plan->fn = tfn_ref_tile;
      plan->symbol = "tfn_ref_tile";
      break;
    case OpId::kShape:
      plan->fn = tfn_ref_shape;
      plan->symbol = "tfn_ref_shape";
      break;
    case OpId::kSize:
      plan->fn = tfn_ref_size;
      plan->symbol = "tfn_ref_size";
      break;
    default:
      return Internal(std::string(OpName(node.op)) + " is not a shape op");
  }
  return s;
}

}  // namespace tfn::kernels
