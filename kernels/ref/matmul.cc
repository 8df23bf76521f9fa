// Reference kernel of matmul: batched, with NumPy broadcasting of the batch
// dims and an optional transpose of either operand. One dot product per
// output element. Floats (f32 included) accumulate in double: this is the
// oracle the optimized GEMM kernels are compared against, so it should be the
// most accurate result, not the one a float accumulator happens to give.
// Integers accumulate in their own type with wrapping arithmetic, as the
// elementwise ops do.
#include <type_traits>

#include "kernels/ref/ref_kernels.h"
#include "kernels/ref/scalar_ops.h"
#include "kernels/ref/tensor_util.h"

namespace tfn::kernels {
namespace {

template <class T>
using MatMulAccumulator = std::conditional_t<kIsFloat<T>, double, typename WrapType<T>::type>;

}  // namespace

TFN_KERNEL(tfn_ref_matmul) {
  const auto& p = *static_cast<const MatMulParams*>(params);
  const TfnTensor& a = inputs[0];
  const TfnTensor& b = inputs[1];
  const TfnTensor& y = outputs[0];
  if (a.rank < 2 || b.rank < 2 || y.rank < 2) return TFN_KERNEL_BAD_SHAPE;
  const int64_t a_rows = a.dims[a.rank - 2], a_cols = a.dims[a.rank - 1];
  const int64_t b_rows = b.dims[b.rank - 2], b_cols = b.dims[b.rank - 1];
  const int64_t m = p.transpose_a ? a_cols : a_rows;
  const int64_t k = p.transpose_a ? a_rows : a_cols;
  const int64_t kb = p.transpose_b ? b_cols : b_rows;
  const int64_t n = p.transpose_b ? b_rows : b_cols;
  if (k != kb || y.dims[y.rank - 2] != m || y.dims[y.rank - 1] != n) return TFN_KERNEL_BAD_SHAPE;

  // Batch strides count whole matrices; 0 where an operand's batch dim broadcasts.
  TfnTensor y_batch = MatrixBatchDims(y);
  int64_t sa[TFN_KERNEL_MAX_RANK], sb[TFN_KERNEL_MAX_RANK];
  BroadcastStrides(MatrixBatchDims(a), y_batch.rank, sa);
  BroadcastStrides(MatrixBatchDims(b), y_batch.rank, sb);
  const int64_t batches = NumElementsOf(y_batch);

  return DispatchDType(a.dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, bool>) {
      return TFN_KERNEL_UNSUPPORTED;
    } else {
      using Acc = MatMulAccumulator<T>;
      for (int64_t batch = 0; batch < batches; ++batch) {
        const T* am = DataOf<T>(a) + OffsetAt(batch, y_batch, sa) * a_rows * a_cols;
        const T* bm = DataOf<T>(b) + OffsetAt(batch, y_batch, sb) * b_rows * b_cols;
        T* ym = DataOf<T>(y) + batch * m * n;
        for (int64_t i = 0; i < m; ++i) {
          for (int64_t j = 0; j < n; ++j) {
            Acc acc = 0;
            for (int64_t t = 0; t < k; ++t) {
              T av = p.transpose_a ? am[t * a_cols + i] : am[i * a_cols + t];
              T bv = p.transpose_b ? bm[j * b_cols + t] : bm[t * b_cols + j];
              acc += static_cast<Acc>(av) * static_cast<Acc>(bv);
            }
            ym[i * n + j] = static_cast<T>(acc);
          }
        }
      }
      return TFN_KERNEL_OK;
    }
  });
}

Status PrepareMatMul(const NodeSignature& node, KernelPlan* plan) {
  auto* p = plan->As<MatMulParams>();
  p->transpose_a = node.attrs->GetInt("transpose_a") != 0;
  p->transpose_b = node.attrs->GetInt("transpose_b") != 0;
  plan->fn = tfn_ref_matmul;
  plan->symbol = "tfn_ref_matmul";
  return Status::Ok();
}

}  // namespace tfn::kernels
