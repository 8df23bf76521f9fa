// Reference kernels of the elementwise ops: unary, float predicates (is_inf,
// is_nan), binary with NumPy broadcasting, where, cast. Simple index
// arithmetic per element: these are the oracle, not the fast path (see
// kernels/opt/elementwise.cc).
#include "core/element_convert.h"
#include "kernels/ref/ref_kernels.h"
#include "kernels/ref/scalar_ops.h"
#include "kernels/ref/tensor_util.h"

namespace tfn::kernels {

TFN_KERNEL(tfn_ref_unary) {
  const auto& p = *static_cast<const ElementwiseParams*>(params);
  OpId op = static_cast<OpId>(p.op);
  int64_t n = NumElementsOf(outputs[0]);
  return DispatchDType(inputs[0].dtype, [&](auto tag) {
    using T = decltype(tag);
    const T* x = DataOf<T>(inputs[0]);
    T* y = DataOf<T>(outputs[0]);
    for (int64_t i = 0; i < n; ++i) y[i] = ApplyUnary<T>(op, x[i], p.gelu_tanh != 0);
    return TFN_KERNEL_OK;
  });
}

// is_inf, is_nan: a float input, a bool output.
TFN_KERNEL(tfn_ref_predicate) {
  OpId op = static_cast<OpId>(static_cast<const ElementwiseParams*>(params)->op);
  int64_t n = NumElementsOf(outputs[0]);
  bool* y = DataOf<bool>(outputs[0]);
  return DispatchDType(inputs[0].dtype, [&](auto tag) {
    using T = decltype(tag);
    const T* x = DataOf<T>(inputs[0]);
    for (int64_t i = 0; i < n; ++i) y[i] = ApplyPredicate<T>(op, x[i]);
    return TFN_KERNEL_OK;
  });
}

TFN_KERNEL(tfn_ref_binary) {
  OpId op = static_cast<OpId>(static_cast<const ElementwiseParams*>(params)->op);
  int64_t sa[TFN_KERNEL_MAX_RANK], sb[TFN_KERNEL_MAX_RANK];
  BroadcastStrides(inputs[0], outputs[0].rank, sa);
  BroadcastStrides(inputs[1], outputs[0].rank, sb);
  int64_t n = NumElementsOf(outputs[0]);
  return DispatchDType(inputs[0].dtype, [&](auto tag) {
    using T = decltype(tag);
    const T* a = DataOf<T>(inputs[0]);
    const T* b = DataOf<T>(inputs[1]);
    if (IsCompareOp(op)) {
      bool* y = DataOf<bool>(outputs[0]);
      for (int64_t i = 0; i < n; ++i) {
        y[i] = ApplyCompare<T>(op, a[OffsetAt(i, outputs[0], sa)], b[OffsetAt(i, outputs[0], sb)]);
      }
    } else {
      T* y = DataOf<T>(outputs[0]);
      for (int64_t i = 0; i < n; ++i) {
        y[i] = ApplyArith<T>(op, a[OffsetAt(i, outputs[0], sa)], b[OffsetAt(i, outputs[0], sb)]);
      }
    }
    return TFN_KERNEL_OK;
  });
}

TFN_KERNEL(tfn_ref_where) {
  int64_t sc[TFN_KERNEL_MAX_RANK], sx[TFN_KERNEL_MAX_RANK], sy[TFN_KERNEL_MAX_RANK];
  BroadcastStrides(inputs[0], outputs[0].rank, sc);
  BroadcastStrides(inputs[1], outputs[0].rank, sx);
  BroadcastStrides(inputs[2], outputs[0].rank, sy);
  int64_t n = NumElementsOf(outputs[0]);
  const bool* c = DataOf<bool>(inputs[0]);
  return DispatchStorage(inputs[1].dtype, [&](auto tag) {
    using T = decltype(tag);
    const T* x = DataOf<T>(inputs[1]);
    const T* y = DataOf<T>(inputs[2]);
    T* o = DataOf<T>(outputs[0]);
    for (int64_t i = 0; i < n; ++i) {
      o[i] = c[OffsetAt(i, outputs[0], sc)] ? x[OffsetAt(i, outputs[0], sx)] : y[OffsetAt(i, outputs[0], sy)];
    }
    return TFN_KERNEL_OK;
  });
}

// Every pair of dtypes through one wide value (core/element_convert.h): 13 loaders
// and 13 storers instead of 169 loops.
TFN_KERNEL(tfn_ref_cast) {
  const int64_t n = NumElementsOf(outputs[0]);
  if (NumElementsOf(inputs[0]) != n) return TFN_KERNEL_BAD_SHAPE;
  const DType from = static_cast<DType>(inputs[0].dtype), to = static_cast<DType>(outputs[0].dtype);
  if (DTypeSize(from) == 0 || DTypeSize(to) == 0) return TFN_KERNEL_UNSUPPORTED;
  const bool truncate = static_cast<const ElementwiseParams*>(params)->bfloat16_truncate != 0;
  for (int64_t i = 0; i < n; ++i) {
    StoreWide(to, outputs[0].data, i, LoadWide(from, inputs[0].data, i), truncate);
  }
  return TFN_KERNEL_OK;
}

Status PrepareElementwise(const NodeSignature& node, KernelPlan* plan) {
  auto* p = plan->As<ElementwiseParams>();
  p->op = static_cast<int32_t>(node.op);
  p->gelu_tanh = node.op == OpId::kGelu && node.attrs->GetString("approximate") == "tanh";
  p->bfloat16_truncate = node.op == OpId::kCast && node.attrs->GetInt("truncate") != 0;
  if (node.op == OpId::kGelu) {
    std::string mode = node.attrs->GetString("approximate");
    if (mode != "none" && mode != "tanh") {
      return InvalidArgument("gelu: approximate must be 'none' or 'tanh', got '" + mode + "'");
    }
  }
  if (node.op == OpId::kWhere) {
    plan->fn = tfn_ref_where;
    plan->symbol = "tfn_ref_where";
  } else if (node.op == OpId::kCast) {
    plan->fn = tfn_ref_cast;
    plan->symbol = "tfn_ref_cast";
  } else if (IsPredicateOp(node.op)) {
    plan->fn = tfn_ref_predicate;
    plan->symbol = "tfn_ref_predicate";
  } else if (node.num_inputs == 2) {
    plan->fn = tfn_ref_binary;
    plan->symbol = "tfn_ref_binary";
  } else {
    plan->fn = tfn_ref_unary;
    plan->symbol = "tfn_ref_unary";
  }
  return Status::Ok();
}

}  // namespace tfn::kernels
