// The optimized gather (tfn_opt_gather; params AxisParams as the
// reference's), every dtype: out[o, j, :] = x[o, indices[j], :], each row
// of the dims after the axis one memcpy (one typed copy when that row is a
// single element), rows split over ctx's threads. The indices are checked
// as the reference checks them (CheckGatherIndices) before anything is
// written.
#include <cstring>

#include "kernels/ref/ref_kernels.h"
#include "kernels/ref/tensor_util.h"

namespace tfn::kernels {
namespace {

constexpr int64_t kMinChunkBytes = 64 * 1024;

// Single elements of W: x[o, indices[j]] for every (o, j).
template <class W>
void GatherElements(const W* x, W* y, const TfnTensor& idx, int64_t n, int64_t count,
                    const TfnKernelContext* ctx, int64_t outer) {
  auto rows = [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const int64_t o = r / count, j = r % count;
      y[r] = x[o * n + GatherIndexAt(idx, j, n)];
    }
  };
  ParallelFor(ctx, outer * count, 1 + kMinChunkBytes / static_cast<int64_t>(sizeof(W)), rows);
}

}  // namespace

TFN_KERNEL(tfn_opt_gather) {
  const int axis = static_cast<const AxisParams*>(params)->axis;
  if (num_inputs < 2 || num_outputs != 1) return TFN_KERNEL_BAD_SHAPE;
  const TfnTensor& x = inputs[0];
  const TfnTensor& idx = inputs[1];
  const TfnTensor& y = outputs[0];
  if (axis < 0 || axis >= x.rank || x.dtype != y.dtype) return TFN_KERNEL_BAD_SHAPE;
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < axis; ++d) outer *= x.dims[d];
  for (int d = axis + 1; d < x.rank; ++d) inner *= x.dims[d];
  const int64_t n = x.dims[axis], count = NumElementsOf(idx);
  if (NumElementsOf(y) != outer * count * inner) return TFN_KERNEL_BAD_SHAPE;
  const int32_t status = CheckGatherIndices(idx, n);
  if (status != TFN_KERNEL_OK) return status;
  const int64_t bytes = DTypeSize(static_cast<DType>(x.dtype));
  if (bytes == 0) return TFN_KERNEL_UNSUPPORTED;
  if (outer * count * inner == 0) return TFN_KERNEL_OK;
  if (inner == 1) {
    switch (bytes) {
      case 1:
        GatherElements(DataOf<uint8_t>(x), DataOf<uint8_t>(y), idx, n, count, ctx, outer);
        return TFN_KERNEL_OK;
      case 4:
        GatherElements(DataOf<uint32_t>(x), DataOf<uint32_t>(y), idx, n, count, ctx, outer);
        return TFN_KERNEL_OK;
      case 8:
        GatherElements(DataOf<uint64_t>(x), DataOf<uint64_t>(y), idx, n, count, ctx, outer);
        return TFN_KERNEL_OK;
      default:
        break;
    }
  }
  const char* xs = static_cast<const char*>(x.data);
  char* ys = static_cast<char*>(y.data);
  const int64_t row = inner * bytes;
  auto rows = [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const int64_t o = r / count, j = r % count;
      std::memcpy(ys + r * row, xs + (o * n + GatherIndexAt(idx, j, n)) * row,
                  static_cast<size_t>(row));
    }
  };
  ParallelFor(ctx, outer * count, 1 + kMinChunkBytes / row, rows);
  return TFN_KERNEL_OK;
}

}  // namespace tfn::kernels
