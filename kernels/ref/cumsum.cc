// Reference kernel of cumsum: the running sum of x along one axis, the axis
// read from input 1 (an int32/int64 scalar) at run time, as ONNX's CumSum and
// TensorFlow's cumsum take it.
//
// Semantics: exclusive=1 leaves element i out of its own sum (the first
// output along the axis is 0); reverse=1 sums from the end of the axis. Float
// sums accumulate in double (the oracle should be the accurate answer);
// integers accumulate in their own type with wrapping arithmetic. An axis
// outside [-rank, rank) fails with TFN_KERNEL_INDEX_OUT_OF_RANGE.
#include <type_traits>

#include "kernels/ref/ref_kernels.h"
#include "kernels/ref/scalar_ops.h"
#include "kernels/ref/tensor_util.h"

namespace tfn::kernels {

TFN_KERNEL(tfn_ref_cumsum) {
  const auto& p = *static_cast<const CumSumParams*>(params);
  const TfnTensor& x = inputs[0];
  if (NumElementsOf(inputs[1]) != 1) return TFN_KERNEL_BAD_SHAPE;
  int64_t axis = inputs[1].dtype == static_cast<int32_t>(DType::kInt32)
                     ? *DataOf<int32_t>(inputs[1])
                     : *DataOf<int64_t>(inputs[1]);
  if (axis < -x.rank || axis >= x.rank) return TFN_KERNEL_INDEX_OUT_OF_RANGE;
  if (axis < 0) axis += x.rank;
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < axis; ++d) outer *= x.dims[d];
  for (int d = static_cast<int>(axis) + 1; d < x.rank; ++d) inner *= x.dims[d];
  const int64_t n = x.dims[axis];
  if (NumElementsOf(outputs[0]) != outer * n * inner) return TFN_KERNEL_BAD_SHAPE;
  return DispatchDType(x.dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, bool>) {
      return TFN_KERNEL_UNSUPPORTED;
    } else {
      using Acc = std::conditional_t<kIsFloat<T>, double, typename WrapType<T>::type>;
      const T* xs = DataOf<T>(x);
      T* ys = DataOf<T>(outputs[0]);
      for (int64_t o = 0; o < outer; ++o) {
        for (int64_t i = 0; i < inner; ++i) {
          const int64_t base = o * n * inner + i;
          Acc sum = 0;
          for (int64_t k = 0; k < n; ++k) {
            const int64_t at = base + (p.reverse ? n - 1 - k : k) * inner;
            const Acc v = static_cast<Acc>(xs[at]);
            if (!p.exclusive) sum += v;
            ys[at] = static_cast<T>(sum);
            if (p.exclusive) sum += v;
          }
        }
      }
      return TFN_KERNEL_OK;
    }
  });
}

Status PrepareCumSum(const NodeSignature& node, KernelPlan* plan) {
  auto* p = plan->As<CumSumParams>();
  p->exclusive = node.attrs->GetInt("exclusive") != 0;
  p->reverse = node.attrs->GetInt("reverse") != 0;
  plan->fn = tfn_ref_cumsum;
  plan->symbol = "tfn_ref_cumsum";
  return Status::Ok();
}

}  // namespace tfn::kernels
