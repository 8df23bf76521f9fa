// The optimized transpose (tfn_opt_transpose; params TransposeParams as the
// reference's), every dtype (moved as 1-, 2-, 4- or 8-byte words: exact):
// the output is a strided view of the input, copied by strided_copy.h (rows,
// or 16 x 16 tiles for layout changes such as NCHW <-> NHWC).
#include "kernels/opt/strided_copy.h"
#include "kernels/ref/ref_kernels.h"
#include "kernels/ref/tensor_util.h"

namespace tfn::kernels {

TFN_KERNEL(tfn_opt_transpose) {
  const auto& p = *static_cast<const TransposeParams*>(params);
  const TfnTensor& x = inputs[0];
  const TfnTensor& y = outputs[0];
  if (num_inputs < 1 || num_outputs != 1 || x.rank != y.rank || x.dtype != y.dtype) {
    return TFN_KERNEL_BAD_SHAPE;
  }
  int64_t in_strides[TFN_KERNEL_MAX_RANK];
  StridesOf(x, in_strides);
  StridedLayout l;
  for (int d = 0; d < y.rank; ++d) {
    if (p.perm[d] < 0 || p.perm[d] >= x.rank || y.dims[d] != x.dims[p.perm[d]]) {
      return TFN_KERNEL_BAD_SHAPE;
    }
    if (y.dims[d] == 0) return TFN_KERNEL_OK;
    l.Add(y.dims[d], in_strides[p.perm[d]]);
  }
  l.Finish();
  return CopyStrided(l, x.data, y.data, static_cast<int>(DTypeSize(static_cast<DType>(x.dtype))),
                     ctx);
}

}  // namespace tfn::kernels
