// The optimized pad (tfn_opt_pad; params PadParams as the reference's):
// constant mode, every dtype. The output is filled with the constant, then
// x goes in as rows: the dims inside the innermost padded one are the same
// in x and y, so each run of x along that dim is one memcpy (a spatial pad
// of an NHWC tensor copies a row of pixels at a time), rows split over
// ctx's threads. Reflect and edge modes run the reference kernel. The
// paddings or value given as inputs run the reference kernel too.
#include <cstring>

#include "core/element_convert.h"
#include "kernels/ref/ref_kernels.h"
#include "kernels/ref/tensor_util.h"

namespace tfn::kernels {

TFN_KERNEL(tfn_ref_pad);  // ref/shape_ops.cc: reflect and edge

namespace {

// Fills n elements of `bytes` each with the first `bytes` of `bits`.
void Fill(char* out, int64_t n, int bytes, uint64_t bits) {
  if (bits == 0) {
    std::memset(out, 0, static_cast<size_t>(n * bytes));
    return;
  }
  switch (bytes) {
    case 1:
      std::memset(out, static_cast<int>(bits & 0xff), static_cast<size_t>(n));
      return;
    case 2: {
      const uint16_t v = static_cast<uint16_t>(bits);
      for (int64_t i = 0; i < n; ++i) std::memcpy(out + 2 * i, &v, 2);
      return;
    }
    case 4: {
      const uint32_t v = static_cast<uint32_t>(bits);
      for (int64_t i = 0; i < n; ++i) std::memcpy(out + 4 * i, &v, 4);
      return;
    }
    default:
      for (int64_t i = 0; i < n; ++i) std::memcpy(out + 8 * i, &bits, 8);
  }
}

}  // namespace

TFN_KERNEL(tfn_opt_pad) {
  const auto& p = *static_cast<const PadParams*>(params);
  // Paddings and value from the attributes (the common case: traced pads and
  // ONNX's constant ones); given as inputs, the reference reads them.
  if (p.mode != 0 || p.pads_from_input || num_inputs != 1 || num_outputs != 1) {
    return tfn_ref_pad(params, inputs, num_inputs, outputs, num_outputs, ctx);
  }
  const TfnTensor& x = inputs[0];
  const TfnTensor& y = outputs[0];
  if (x.rank != y.rank || x.rank > 8 || x.dtype != y.dtype) return TFN_KERNEL_BAD_SHAPE;
  const int64_t* pads = p.pads;
  for (int d = 0; d < x.rank; ++d) {
    if (y.dims[d] != x.dims[d] + pads[2 * d] + pads[2 * d + 1]) return TFN_KERNEL_BAD_SHAPE;
  }
  uint64_t fill_bits = 0;  // the value in x's dtype, in the first DTypeSize bytes
  StoreWide(static_cast<DType>(x.dtype), &fill_bits, 0, WideOfDouble(p.constant_value));
  const int bytes = DTypeSize(static_cast<DType>(x.dtype));
  if (bytes != 1 && bytes != 2 && bytes != 4 && bytes != 8) return TFN_KERNEL_UNSUPPORTED;
  const int64_t out_count = NumElementsOf(y);
  if (out_count == 0) return TFN_KERNEL_OK;
  char* out = static_cast<char*>(y.data);
  const char* in = static_cast<const char*>(x.data);
  Fill(out, out_count, bytes, fill_bits);
  if (NumElementsOf(x) == 0) return TFN_KERNEL_OK;

  int k = -1;  // the innermost padded dim
  for (int d = 0; d < x.rank; ++d) {
    if (pads[2 * d] != 0 || pads[2 * d + 1] != 0) k = d;
  }
  if (k < 0) {
    std::memcpy(out, in, static_cast<size_t>(out_count * bytes));
    return TFN_KERNEL_OK;
  }
  int64_t inner = 1;
  for (int d = k + 1; d < x.rank; ++d) inner *= x.dims[d];
  int64_t y_strides[TFN_KERNEL_MAX_RANK];
  StridesOf(y, y_strides);
  const int64_t row = x.dims[k] * inner, row_bytes = row * bytes;
  int64_t rows = 1;
  for (int d = 0; d < k; ++d) rows *= x.dims[d];
  auto copy = [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      int64_t rest = r, offset = pads[2 * k] * inner;
      for (int d = k - 1; d >= 0; --d) {
        offset += (rest % x.dims[d] + pads[2 * d]) * y_strides[d];
        rest /= x.dims[d];
      }
      std::memcpy(out + offset * bytes, in + r * row_bytes, static_cast<size_t>(row_bytes));
    }
  };
  ParallelFor(ctx, rows, row_bytes >= 16384 ? 1 : 16384 / row_bytes, copy);
  return TFN_KERNEL_OK;
}

}  // namespace tfn::kernels
