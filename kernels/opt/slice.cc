// The optimized slice (tfn_opt_slice; params SliceParams as the
// reference's), every dtype: the same view (ResolveSliceView, the one
// definition of slice's semantics), copied by strided_copy.h as whole rows
// where the innermost dim is contiguous, in tiles or a strided loop where it
// is not, over ctx's threads. A channel split of an NHWC tensor, for
// instance, is one memcpy per pixel instead of an index computation per
// element.
#include "kernels/opt/strided_copy.h"
#include "kernels/ref/ref_kernels.h"
#include "kernels/ref/tensor_util.h"

namespace tfn::kernels {

TFN_KERNEL(tfn_opt_slice) {
  if (num_inputs < 1 || num_outputs != 1) return TFN_KERNEL_BAD_SHAPE;
  const TfnTensor& x = inputs[0];
  const TfnTensor& y = outputs[0];
  if (x.dtype != y.dtype) return TFN_KERNEL_BAD_SHAPE;
  int64_t base = 0, strides[TFN_KERNEL_MAX_RANK];
  const int32_t status = ResolveSliceView(*static_cast<const SliceParams*>(params), inputs,
                                          num_inputs, y, &base, strides);
  if (status != TFN_KERNEL_OK) return status;
  StridedLayout l;
  for (int d = 0; d < y.rank; ++d) {
    if (y.dims[d] == 0) return TFN_KERNEL_OK;
    l.Add(y.dims[d], strides[d]);
  }
  l.Finish();
  const int bytes = DTypeSize(static_cast<DType>(x.dtype));
  return CopyStrided(l, static_cast<const char*>(x.data) + base * bytes, y.data, bytes, ctx);
}

}  // namespace tfn::kernels
