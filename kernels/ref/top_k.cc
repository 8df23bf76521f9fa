// Reference kernel of top_k (ONNX's TopK): along one axis, the k largest (or
// smallest) elements in order, and their int64 indices. Equal values keep the
// lower index first; NaN counts as larger than every number (first with
// largest=1, last with largest=0). The result is always sorted, which also
// satisfies sorted=0 (any order allowed). k is read from input 1 at run time.
//
// Scratch: one int64 per element of the axis (the slice's sort order).
#include <algorithm>
#include <cmath>
#include <string>
#include <type_traits>

#include "kernels/ref/ref_kernels.h"
#include "kernels/ref/scalar_ops.h"
#include "kernels/ref/tensor_util.h"

namespace tfn::kernels {
namespace {

// a < b in top_k's value order (NaN above everything, NaNs equal).
template <class T>
bool ValueLess(T a, T b) {
  if constexpr (kIsFloat<T>) {
    if (std::isnan(a)) return false;
    if (std::isnan(b)) return true;
  }
  return a < b;
}

}  // namespace

TFN_SCRATCH(tfn_ref_top_k_scratch) {
  const auto& p = *static_cast<const TopKParams*>(params);
  if (p.axis < 0 || p.axis >= inputs[0].rank) return 0;
  return inputs[0].dims[p.axis] * static_cast<int64_t>(sizeof(int64_t));
}

TFN_KERNEL(tfn_ref_top_k) {
  const auto& p = *static_cast<const TopKParams*>(params);
  const TfnTensor& x = inputs[0];
  const TfnTensor& values = outputs[0];
  const TfnTensor& indices = outputs[1];
  if (p.axis < 0 || p.axis >= x.rank || values.rank != x.rank || indices.rank != x.rank ||
      indices.dtype != static_cast<int32_t>(DType::kInt64)) {
    return TFN_KERNEL_BAD_SHAPE;
  }
  const int64_t n = x.dims[p.axis], k = values.dims[p.axis];
  for (int d = 0; d < x.rank; ++d) {
    if (values.dims[d] != indices.dims[d] || (d != p.axis && values.dims[d] != x.dims[d])) {
      return TFN_KERNEL_BAD_SHAPE;
    }
  }
  if (k < 0 || k > n) return TFN_KERNEL_BAD_SHAPE;
  if (NumElementsOf(values) == 0) return TFN_KERNEL_OK;
  if (!ctx || ctx->scratch_bytes < n * static_cast<int64_t>(sizeof(int64_t))) {
    return TFN_KERNEL_SCRATCH_TOO_SMALL;
  }
  int64_t* order = static_cast<int64_t*>(ctx->scratch);
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < p.axis; ++d) outer *= x.dims[d];
  for (int d = p.axis + 1; d < x.rank; ++d) inner *= x.dims[d];
  return DispatchDType(x.dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, bool>) {
      return TFN_KERNEL_UNSUPPORTED;
    } else {
      const T* xs = DataOf<T>(x);
      T* vs = DataOf<T>(values);
      int64_t* is = DataOf<int64_t>(indices);
      for (int64_t o = 0; o < outer; ++o) {
        for (int64_t i = 0; i < inner; ++i) {
          const T* slice = xs + o * n * inner + i;  // element j at slice[j * inner]
          auto before = [&](int64_t a, int64_t b) {
            const T va = slice[a * inner], vb = slice[b * inner];
            if (p.largest ? ValueLess(vb, va) : ValueLess(va, vb)) return true;
            if (ValueLess(va, vb) || ValueLess(vb, va)) return false;
            return a < b;  // equal values: the lower index first
          };
          for (int64_t j = 0; j < n; ++j) order[j] = j;
          std::partial_sort(order, order + k, order + n, before);
          for (int64_t j = 0; j < k; ++j) {
            const int64_t at = (o * k + j) * inner + i;
            vs[at] = slice[order[j] * inner];
            is[at] = order[j];
          }
        }
      }
      return TFN_KERNEL_OK;
    }
  });
}

Status PrepareTopK(const NodeSignature& node, KernelPlan* plan) {
  auto* p = plan->As<TopKParams>();
  TFN_DCHECK(node.num_inputs == 2);  // CheckNode: x and k, the axis within x's rank
  const bool axis_ok = NormalizeAxis(node.attrs->GetInt("axis"), node.in_ranks[0], &p->axis);
  TFN_DCHECK(axis_ok);
  (void)axis_ok;
  p->largest = node.attrs->GetInt("largest") != 0;
  plan->fn = tfn_ref_top_k;
  plan->symbol = "tfn_ref_top_k";
  plan->scratch = tfn_ref_top_k_scratch;
  plan->scratch_symbol = "tfn_ref_top_k_scratch";
  return Status::Ok();
}

}  // namespace tfn::kernels
