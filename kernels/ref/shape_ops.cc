// Reference kernels of the shape-manipulation ops: reshape, expand_dims and
// squeeze (a plain copy: the layout is row-major either way), transpose,
// concat, split, slice, gather, pad, broadcast_to, tile, shape and size.
// Every dtype, bool included. Most are "output element i comes from input
// offset f(i)" loops; output shapes come from the shape rules (the caller
// sets them), and a kernel whose shapes disagree with its params reports
// TFN_KERNEL_BAD_SHAPE rather than reading out of bounds. Their load-time
// preparation is in shape_ops_prepare.cc.
#include <string>
#include <vector>

#include "core/element_convert.h"
#include "kernels/ref/ref_kernels.h"
#include "kernels/ref/scalar_ops.h"
#include "kernels/ref/tensor_util.h"

namespace tfn::kernels {
namespace {

// y[i] = x[offset(i)] for every element of y.
template <class OffsetFn>
int32_t CopyMapped(const TfnTensor& x, const TfnTensor& y, OffsetFn&& offset) {
  const int64_t n = NumElementsOf(y);
  return DispatchStorage(x.dtype, [&](auto tag) {
    using T = decltype(tag);
    const T* xs = DataOf<T>(x);
    T* ys = DataOf<T>(y);
    for (int64_t i = 0; i < n; ++i) ys[i] = xs[offset(i)];
    return TFN_KERNEL_OK;
  });
}

// Product of dims [begin, end) of t.
int64_t DimProduct(const TfnTensor& t, int begin, int end) {
  int64_t p = 1;
  for (int d = begin; d < end; ++d) p *= t.dims[d];
  return p;
}

// First index and length of a Python slice of a dim of size n. Must agree
// exactly with SliceLength in core/rules/rules_shape.h.
void ResolveSlice(int64_t n, int64_t begin, int64_t end, int64_t stride, int64_t* first,
                  int64_t* length) {
  constexpr int64_t kOpen = int64_t{1} << 62;
  auto clamp = [](int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : v > hi ? hi : v; };
  if (stride > 0) {
    int64_t b = begin >= kOpen    ? n
                : begin <= -kOpen ? 0
                                  : clamp(begin < 0 ? n + begin : begin, 0, n);
    int64_t e = end >= kOpen ? n : end <= -kOpen ? 0 : clamp(end < 0 ? n + end : end, 0, n);
    *first = b;
    *length = e > b ? (e - b - 1) / stride + 1 : 0;  // ceil without overflow for huge strides
  } else {
    int64_t b = begin >= kOpen    ? n - 1
                : begin <= -kOpen ? -1
                                  : clamp(begin < 0 ? n + begin : begin, -1, n - 1);
    int64_t e = end >= kOpen    ? n - 1
                : end <= -kOpen ? -1
                                : clamp(end < 0 ? n + end : end, -1, n - 1);
    *first = b;
    *length = b > e ? (b - e - 1) / -stride + 1 : 0;
  }
}

// Index into a dim of size n (n >= 1) for padded coordinate c under NumPy's
// 'reflect' (the edge is not repeated): periodic with period 2(n-1).
int64_t ReflectIndex(int64_t c, int64_t n) {
  if (n == 1) return 0;
  const int64_t period = 2 * (n - 1);
  c %= period;
  if (c < 0) c += period;
  return c >= n ? period - c : c;
}

}  // namespace

// reshape, expand_dims, squeeze: same elements, same order.
TFN_KERNEL(tfn_ref_copy) {
  if (NumElementsOf(inputs[0]) != NumElementsOf(outputs[0])) return TFN_KERNEL_BAD_SHAPE;
  return CopyMapped(inputs[0], outputs[0], [](int64_t i) { return i; });
}

TFN_KERNEL(tfn_ref_transpose) {
  const auto& p = *static_cast<const TransposeParams*>(params);
  const TfnTensor& x = inputs[0];
  const TfnTensor& y = outputs[0];
  if (x.rank != y.rank) return TFN_KERNEL_BAD_SHAPE;
  int64_t in_strides[TFN_KERNEL_MAX_RANK], strides[TFN_KERNEL_MAX_RANK];
  StridesOf(x, in_strides);
  for (int d = 0; d < y.rank; ++d) {
    if (p.perm[d] < 0 || p.perm[d] >= x.rank || y.dims[d] != x.dims[p.perm[d]]) {
      return TFN_KERNEL_BAD_SHAPE;
    }
    strides[d] = in_strides[p.perm[d]];  // output dim d walks input dim perm[d]
  }
  return CopyMapped(x, y, [&](int64_t i) { return OffsetAt(i, y, strides); });
}

TFN_KERNEL(tfn_ref_concat) {
  const int axis = static_cast<const AxisParams*>(params)->axis;
  const TfnTensor& y = outputs[0];
  if (axis < 0 || axis >= y.rank) return TFN_KERNEL_BAD_SHAPE;
  int64_t total = 0;
  for (int k = 0; k < num_inputs; ++k) {
    if (inputs[k].rank != y.rank) return TFN_KERNEL_BAD_SHAPE;
    total += inputs[k].dims[axis];
  }
  if (total != y.dims[axis]) return TFN_KERNEL_BAD_SHAPE;
  const int64_t outer = DimProduct(y, 0, axis), inner = DimProduct(y, axis + 1, y.rank);
  return DispatchStorage(y.dtype, [&](auto tag) {
    using T = decltype(tag);
    T* out = DataOf<T>(y);
    for (int64_t o = 0; o < outer; ++o) {
      for (int k = 0; k < num_inputs; ++k) {
        const int64_t chunk = inputs[k].dims[axis] * inner;
        const T* in = DataOf<T>(inputs[k]) + o * chunk;
        for (int64_t i = 0; i < chunk; ++i) *out++ = in[i];
      }
    }
    return TFN_KERNEL_OK;
  });
}

TFN_KERNEL(tfn_ref_split) {
  const int axis = static_cast<const AxisParams*>(params)->axis;
  const TfnTensor& x = inputs[0];
  if (axis < 0 || axis >= x.rank) return TFN_KERNEL_BAD_SHAPE;
  int64_t total = 0;
  for (int k = 0; k < num_outputs; ++k) {
    if (outputs[k].rank != x.rank) return TFN_KERNEL_BAD_SHAPE;
    total += outputs[k].dims[axis];
  }
  if (total != x.dims[axis]) return TFN_KERNEL_BAD_SHAPE;
  const int64_t outer = DimProduct(x, 0, axis), inner = DimProduct(x, axis + 1, x.rank);
  return DispatchStorage(x.dtype, [&](auto tag) {
    using T = decltype(tag);
    const T* in = DataOf<T>(x);
    for (int64_t o = 0; o < outer; ++o) {
      for (int k = 0; k < num_outputs; ++k) {
        const int64_t chunk = outputs[k].dims[axis] * inner;
        T* out = DataOf<T>(outputs[k]) + o * chunk;
        for (int64_t i = 0; i < chunk; ++i) out[i] = *in++;
      }
    }
    return TFN_KERNEL_OK;
  });
}

int32_t ResolveSliceView(SliceParams p, const TfnTensor* inputs, int32_t num_inputs,
                         const TfnTensor& y, int64_t* base, int64_t* strides) {
  const TfnTensor& x = inputs[0];
  if (x.rank != y.rank) return TFN_KERNEL_BAD_SHAPE;
  for (int k = 1; k < num_inputs && k < 4; ++k) {
    const TfnTensor& v = inputs[k];
    int64_t* dst = k == 1 ? p.begin : k == 2 ? p.end : p.strides;
    if (NumElementsOf(v) != x.rank) return TFN_KERNEL_BAD_SHAPE;
    for (int d = 0; d < x.rank; ++d) {
      dst[d] = v.dtype == static_cast<int32_t>(DType::kInt32) ? DataOf<int32_t>(v)[d]
                                                              : DataOf<int64_t>(v)[d];
    }
  }
  if (num_inputs == 3) {
    for (int d = 0; d < x.rank; ++d) p.strides[d] = 1;
  }
  for (int d = 0; d < x.rank; ++d) {
    if (p.strides[d] == 0 || p.strides[d] == INT64_MIN) return TFN_KERNEL_BAD_SHAPE;
  }
  int64_t in_strides[TFN_KERNEL_MAX_RANK];
  StridesOf(x, in_strides);
  *base = 0;
  for (int d = 0; d < x.rank; ++d) {
    int64_t first, length;
    ResolveSlice(x.dims[d], p.begin[d], p.end[d], p.strides[d], &first, &length);
    if (length != y.dims[d]) return TFN_KERNEL_BAD_SHAPE;
    if (length > 0) *base += first * in_strides[d];
    // Only a dim of 2 or more steps: then |stride| < dims[d], so the product
    // is below x's element count (a huge stride over one element overflowed).
    strides[d] = length > 1 ? in_strides[d] * p.strides[d] : 0;
  }
  return TFN_KERNEL_OK;
}

TFN_KERNEL(tfn_ref_slice) {
  int64_t base = 0, strides[TFN_KERNEL_MAX_RANK];
  const int32_t status = ResolveSliceView(*static_cast<const SliceParams*>(params), inputs,
                                          num_inputs, outputs[0], &base, strides);
  if (status != TFN_KERNEL_OK) return status;
  return CopyMapped(inputs[0], outputs[0],
                    [&](int64_t i) { return base + OffsetAt(i, outputs[0], strides); });
}

// out[o, j, i] = params[o, indices[j], i] with o over the dims before the
// axis, j over the indices, i over the dims after the axis.
TFN_KERNEL(tfn_ref_gather) {
  const int axis = static_cast<const AxisParams*>(params)->axis;
  const TfnTensor& x = inputs[0];
  const TfnTensor& idx = inputs[1];
  const TfnTensor& y = outputs[0];
  if (axis < 0 || axis >= x.rank) return TFN_KERNEL_BAD_SHAPE;
  const int64_t outer = DimProduct(x, 0, axis), n = x.dims[axis];
  const int64_t inner = DimProduct(x, axis + 1, x.rank), count = NumElementsOf(idx);
  if (NumElementsOf(y) != outer * count * inner) return TFN_KERNEL_BAD_SHAPE;
  const int32_t status = CheckGatherIndices(idx, n);
  if (status != TFN_KERNEL_OK) return status;
  return CopyMapped(x, y, [&](int64_t e) {
    const int64_t i = e % inner, j = (e / inner) % count, o = e / (inner * count);
    return (o * n + GatherIndexAt(idx, j, n)) * inner + i;
  });
}

int32_t CheckGatherIndices(const TfnTensor& idx, int64_t n) {
  if (idx.dtype != static_cast<int32_t>(DType::kInt32) &&
      idx.dtype != static_cast<int32_t>(DType::kInt64)) {
    return TFN_KERNEL_UNSUPPORTED;
  }
  const int64_t count = NumElementsOf(idx);
  for (int64_t j = 0; j < count; ++j) {
    const int64_t v = GatherIndexAt(idx, j, n);
    if (v < 0 || v >= n) return TFN_KERNEL_INDEX_OUT_OF_RANGE;
  }
  return TFN_KERNEL_OK;
}

TFN_KERNEL(tfn_ref_pad) {
  const auto& p = *static_cast<const PadParams*>(params);
  const TfnTensor& x = inputs[0];
  const TfnTensor& y = outputs[0];
  if (x.rank != y.rank || x.rank > 8) return TFN_KERNEL_BAD_SHAPE;
  int64_t pads[16];
  for (int i = 0; i < 2 * x.rank; ++i) {
    if (!p.pads_from_input) {
      pads[i] = p.pads[i];
    } else if (num_inputs < 2 || NumElementsOf(inputs[1]) != 2 * x.rank) {
      return TFN_KERNEL_BAD_SHAPE;
    } else {
      pads[i] = inputs[1].dtype == static_cast<int32_t>(DType::kInt32)
                    ? DataOf<int32_t>(inputs[1])[i]
                    : DataOf<int64_t>(inputs[1])[i];
    }
  }
  for (int d = 0; d < x.rank; ++d) {
    if (y.dims[d] != x.dims[d] + pads[2 * d] + pads[2 * d + 1]) return TFN_KERNEL_BAD_SHAPE;
    if (p.mode != 0 && x.dims[d] == 0 && y.dims[d] != 0) return TFN_KERNEL_BAD_SHAPE;
  }
  int64_t in_strides[TFN_KERNEL_MAX_RANK];
  StridesOf(x, in_strides);
  const int64_t n = NumElementsOf(y);
  return DispatchStorage(x.dtype, [&](auto tag) {
    using T = decltype(tag);
    T fill;  // the fill value's bits in x's dtype
    if (num_inputs > 2) {
      fill = DataOf<T>(inputs[2])[0];
    } else {
      uint64_t bits = 0;  // room for any dtype; its first sizeof(T) bytes are the value
      StoreWide(static_cast<DType>(x.dtype), &bits, 0, WideOfDouble(p.constant_value));
      __builtin_memcpy(&fill, &bits, sizeof(T));
    }
    const T* xs = DataOf<T>(x);
    T* ys = DataOf<T>(y);
    for (int64_t e = 0; e < n; ++e) {
      int64_t rest = e, offset = 0;
      bool inside = true;
      for (int d = y.rank - 1; d >= 0; --d) {
        int64_t c = rest % y.dims[d] - pads[2 * d];  // coordinate in x, maybe outside
        rest /= y.dims[d];
        const int64_t size = x.dims[d];
        if (c < 0 || c >= size) {
          if (p.mode == 0) inside = false;
          c = p.mode == 1 ? ReflectIndex(c, size) : c < 0 ? 0 : size - 1;
        }
        offset += c * in_strides[d];
      }
      ys[e] = inside ? xs[offset] : fill;
    }
    return TFN_KERNEL_OK;
  });
}

TFN_KERNEL(tfn_ref_broadcast_to) {
  const TfnTensor& y = outputs[0];
  if (inputs[0].rank > y.rank) return TFN_KERNEL_BAD_SHAPE;
  int64_t strides[TFN_KERNEL_MAX_RANK];
  BroadcastStrides(inputs[0], y.rank, strides);
  return CopyMapped(inputs[0], y, [&](int64_t i) { return OffsetAt(i, y, strides); });
}

TFN_KERNEL(tfn_ref_tile) {
  const TfnTensor& x = inputs[0];
  const TfnTensor& y = outputs[0];
  if (x.rank != y.rank) return TFN_KERNEL_BAD_SHAPE;
  for (int d = 0; d < x.rank; ++d) {
    if (x.dims[d] == 0 ? y.dims[d] != 0 : y.dims[d] % x.dims[d] != 0) return TFN_KERNEL_BAD_SHAPE;
  }
  int64_t in_strides[TFN_KERNEL_MAX_RANK];
  StridesOf(x, in_strides);
  return CopyMapped(x, y, [&](int64_t e) {
    int64_t offset = 0;
    for (int d = y.rank - 1; d >= 0; --d) {
      offset += (e % y.dims[d]) % x.dims[d] * in_strides[d];
      e /= y.dims[d];
    }
    return offset;
  });
}

TFN_KERNEL(tfn_ref_shape) {
  if (NumElementsOf(outputs[0]) != inputs[0].rank) return TFN_KERNEL_BAD_SHAPE;
  for (int d = 0; d < inputs[0].rank; ++d) DataOf<int64_t>(outputs[0])[d] = inputs[0].dims[d];
  return TFN_KERNEL_OK;
}

TFN_KERNEL(tfn_ref_size) {
  if (NumElementsOf(outputs[0]) != 1) return TFN_KERNEL_BAD_SHAPE;
  DataOf<int64_t>(outputs[0])[0] = NumElementsOf(inputs[0]);
  return TFN_KERNEL_OK;
}

}  // namespace tfn::kernels
