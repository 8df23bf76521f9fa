// Reference kernels of the element and tuple indexing ops, with ONNX's
// semantics: gather_elements, scatter_elements (GatherElements,
// ScatterElements), gather_nd (GatherND with batch_dims) and scatter_nd
// (ScatterND). Every dtype, bool included; indices are int32 or int64.
//
// Indices are untrusted: a negative index wraps once (-1 is the last), and
// any index still outside the indexed dim fails with
// TFN_KERNEL_INDEX_OUT_OF_RANGE before the kernel writes anything. Scatters
// copy data to the output, then apply the updates in their row-major order
// (so with duplicate indices and reduction none, the last update wins).
#include <string>
#include <type_traits>

#include "kernels/ref/ref_kernels.h"
#include "kernels/ref/scalar_ops.h"
#include "kernels/ref/tensor_util.h"

namespace tfn::kernels {
namespace {

constexpr int32_t kI32 = static_cast<int32_t>(DType::kInt32);
constexpr int32_t kI64 = static_cast<int32_t>(DType::kInt64);

int64_t IndexAt(const TfnTensor& idx, int64_t i) {
  return idx.dtype == kI32 ? static_cast<int64_t>(DataOf<int32_t>(idx)[i])
                           : DataOf<int64_t>(idx)[i];
}

// The index wrapped into [0, n), or -1 when it is outside [-n, n).
int64_t Wrap(int64_t v, int64_t n) {
  if (v < -n || v >= n) return -1;
  return v < 0 ? v + n : v;
}

// Combines a scatter update u into the current value a.
template <class T>
T Reduce(int32_t reduction, T a, T u) {
  if constexpr (std::is_same_v<T, bool>) {
    switch (reduction) {
      case 1:  // add and max are "or" on bools, mul and min "and"
      case 3:
        return a || u;
      case 2:
      case 4:
        return a && u;
      default:
        return u;
    }
  } else {
    switch (reduction) {
      case 1:
        return ApplyArith<T>(OpId::kAdd, a, u);
      case 2:
        return ApplyArith<T>(OpId::kMul, a, u);
      case 3:
        return ApplyArith<T>(OpId::kMaximum, a, u);
      case 4:
        return ApplyArith<T>(OpId::kMinimum, a, u);
      default:
        return u;
    }
  }
}

// For element e of `shape` (row-major), the offset in data with the
// coordinate along `axis` replaced by `index`.
int64_t ElementOffset(int64_t e, const TfnTensor& shape, const int64_t* data_strides, int axis,
                      int64_t index) {
  int64_t offset = 0;
  for (int d = shape.rank - 1; d >= 0; --d) {
    const int64_t c = e % shape.dims[d];
    e /= shape.dims[d];
    offset += (d == axis ? index : c) * data_strides[d];
  }
  return offset;
}

// Checks the index tensor of an *_elements op against data: same rank, no
// larger than data except along the axis, every index inside the axis.
int32_t CheckElementIndices(const TfnTensor& data, const TfnTensor& idx, int axis) {
  if (idx.dtype != kI32 && idx.dtype != kI64) return TFN_KERNEL_UNSUPPORTED;
  if (axis < 0 || axis >= data.rank || idx.rank != data.rank) return TFN_KERNEL_BAD_SHAPE;
  for (int d = 0; d < data.rank; ++d) {
    if (d != axis && idx.dims[d] > data.dims[d]) return TFN_KERNEL_BAD_SHAPE;
  }
  const int64_t n = NumElementsOf(idx);
  for (int64_t i = 0; i < n; ++i) {
    if (Wrap(IndexAt(idx, i), data.dims[axis]) < 0) return TFN_KERNEL_INDEX_OUT_OF_RANGE;
  }
  return TFN_KERNEL_OK;
}

// Index tuples of *_nd ops: indices [..., m]; tuple t addresses the data
// offset sum_k wrap(indices[t, k]) * strides[first + k]. Fills nothing; checks
// every tuple.
int32_t CheckTuples(const TfnTensor& data, const TfnTensor& idx, int first, int m) {
  if (idx.dtype != kI32 && idx.dtype != kI64) return TFN_KERNEL_UNSUPPORTED;
  if (idx.rank < 1 || m != idx.dims[idx.rank - 1] || first + m > data.rank) {
    return TFN_KERNEL_BAD_SHAPE;
  }
  const int64_t n = NumElementsOf(idx);
  for (int64_t i = 0; i < n; ++i) {
    if (Wrap(IndexAt(idx, i), data.dims[first + i % m]) < 0) return TFN_KERNEL_INDEX_OUT_OF_RANGE;
  }
  return TFN_KERNEL_OK;
}

int64_t TupleOffset(const TfnTensor& data, const TfnTensor& idx, const int64_t* strides, int first,
                    int m, int64_t tuple) {
  int64_t offset = 0;
  for (int k = 0; k < m; ++k) {
    offset += Wrap(IndexAt(idx, tuple * m + k), data.dims[first + k]) * strides[first + k];
  }
  return offset;
}

int64_t DimProduct(const TfnTensor& t, int begin, int end) {
  int64_t p = 1;
  for (int d = begin; d < end; ++d) p *= t.dims[d];
  return p;
}

}  // namespace

// out[e] = data[coords of e with coordinate `axis` = indices[e]].
TFN_KERNEL(tfn_ref_gather_elements) {
  const int axis = static_cast<const GatherScatterParams*>(params)->axis;
  const TfnTensor& data = inputs[0];
  const TfnTensor& idx = inputs[1];
  const TfnTensor& y = outputs[0];
  if (int32_t code = CheckElementIndices(data, idx, axis)) return code;
  if (y.rank != idx.rank) return TFN_KERNEL_BAD_SHAPE;
  for (int d = 0; d < y.rank; ++d) {
    if (y.dims[d] != idx.dims[d]) return TFN_KERNEL_BAD_SHAPE;
  }
  int64_t strides[TFN_KERNEL_MAX_RANK];
  StridesOf(data, strides);
  const int64_t n = NumElementsOf(y), size = data.dims[axis];
  return DispatchStorage(data.dtype, [&](auto tag) {
    using T = decltype(tag);
    const T* xs = DataOf<T>(data);
    T* ys = DataOf<T>(y);
    for (int64_t e = 0; e < n; ++e) {
      ys[e] = xs[ElementOffset(e, idx, strides, axis, Wrap(IndexAt(idx, e), size))];
    }
    return TFN_KERNEL_OK;
  });
}

// out = data; then out[coords of e with `axis` = indices[e]] op= updates[e].
TFN_KERNEL(tfn_ref_scatter_elements) {
  const auto& p = *static_cast<const GatherScatterParams*>(params);
  const TfnTensor& data = inputs[0];
  const TfnTensor& idx = inputs[1];
  const TfnTensor& upd = inputs[2];
  const TfnTensor& y = outputs[0];
  if (int32_t code = CheckElementIndices(data, idx, p.axis)) return code;
  if (upd.rank != idx.rank || y.rank != data.rank || upd.dtype != data.dtype) {
    return TFN_KERNEL_BAD_SHAPE;
  }
  for (int d = 0; d < data.rank; ++d) {
    if (upd.dims[d] != idx.dims[d] || y.dims[d] != data.dims[d]) return TFN_KERNEL_BAD_SHAPE;
  }
  int64_t strides[TFN_KERNEL_MAX_RANK];
  StridesOf(data, strides);
  const int64_t total = NumElementsOf(data), n = NumElementsOf(idx), size = data.dims[p.axis];
  return DispatchDType(data.dtype, [&](auto tag) {
    using T = decltype(tag);
    const T* xs = DataOf<T>(data);
    const T* us = DataOf<T>(upd);
    T* ys = DataOf<T>(y);
    for (int64_t i = 0; i < total; ++i) ys[i] = xs[i];
    for (int64_t e = 0; e < n; ++e) {
      T& target = ys[ElementOffset(e, idx, strides, p.axis, Wrap(IndexAt(idx, e), size))];
      target = Reduce<T>(p.reduction, target, us[e]);
    }
    return TFN_KERNEL_OK;
  });
}

// data [B..., D...], indices [B..., I..., m]: out[b, i, rest] =
// data[b, indices[b, i, 0..m), rest], where B are the batch_dims shared dims.
TFN_KERNEL(tfn_ref_gather_nd) {
  const int b = static_cast<const GatherScatterParams*>(params)->batch_dims;
  const TfnTensor& data = inputs[0];
  const TfnTensor& idx = inputs[1];
  const TfnTensor& y = outputs[0];
  if (b < 0 || b >= idx.rank || b >= data.rank) return TFN_KERNEL_BAD_SHAPE;
  const int m = static_cast<int>(idx.dims[idx.rank - 1]);
  if (int32_t code = CheckTuples(data, idx, b, m)) return code;
  for (int d = 0; d < b; ++d) {
    if (idx.dims[d] != data.dims[d]) return TFN_KERNEL_BAD_SHAPE;
  }
  int64_t strides[TFN_KERNEL_MAX_RANK];
  StridesOf(data, strides);
  const int64_t batches = DimProduct(data, 0, b), batch_size = DimProduct(data, b, data.rank);
  const int64_t tuples = DimProduct(idx, b, idx.rank - 1);  // per batch
  const int64_t slice = DimProduct(data, b + m, data.rank);
  if (NumElementsOf(y) != batches * tuples * slice) return TFN_KERNEL_BAD_SHAPE;
  return DispatchStorage(data.dtype, [&](auto tag) {
    using T = decltype(tag);
    const T* xs = DataOf<T>(data);
    T* ys = DataOf<T>(y);
    for (int64_t bi = 0; bi < batches; ++bi) {
      for (int64_t t = 0; t < tuples; ++t) {
        const T* src =
            xs + bi * batch_size + TupleOffset(data, idx, strides, b, m, bi * tuples + t);
        for (int64_t s = 0; s < slice; ++s) *ys++ = src[s];
      }
    }
    return TFN_KERNEL_OK;
  });
}

// out = data; then for each tuple t of indices [..., m]:
// out[indices[t], rest] op= updates[t, rest].
TFN_KERNEL(tfn_ref_scatter_nd) {
  const int32_t reduction = static_cast<const GatherScatterParams*>(params)->reduction;
  const TfnTensor& data = inputs[0];
  const TfnTensor& idx = inputs[1];
  const TfnTensor& upd = inputs[2];
  const TfnTensor& y = outputs[0];
  if (idx.rank < 1) return TFN_KERNEL_BAD_SHAPE;
  const int m = static_cast<int>(idx.dims[idx.rank - 1]);
  if (int32_t code = CheckTuples(data, idx, 0, m)) return code;
  const int64_t total = NumElementsOf(data), tuples = DimProduct(idx, 0, idx.rank - 1);
  const int64_t slice = DimProduct(data, m, data.rank);
  if (upd.dtype != data.dtype || NumElementsOf(upd) != tuples * slice ||
      NumElementsOf(y) != total) {
    return TFN_KERNEL_BAD_SHAPE;
  }
  int64_t strides[TFN_KERNEL_MAX_RANK];
  StridesOf(data, strides);
  // In place when the output is data's buffer (a loop updating its own
  // loop variable: the runtime's while_loop binds it so).
  const int64_t copied = y.data == data.data ? 0 : total;
  return DispatchDType(data.dtype, [&](auto tag) {
    using T = decltype(tag);
    const T* xs = DataOf<T>(data);
    const T* us = DataOf<T>(upd);
    T* ys = DataOf<T>(y);
    for (int64_t i = 0; i < copied; ++i) ys[i] = xs[i];
    for (int64_t t = 0; t < tuples; ++t) {
      T* dst = ys + TupleOffset(data, idx, strides, 0, m, t);
      for (int64_t s = 0; s < slice; ++s) dst[s] = Reduce<T>(reduction, dst[s], us[t * slice + s]);
    }
    return TFN_KERNEL_OK;
  });
}

// The node has passed CheckNode: params and indices (and updates) are there,
// axis and batch_dims are within their ranks.
Status PrepareGatherScatter(const NodeSignature& node, KernelPlan* plan) {
  TFN_DCHECK(node.num_inputs >= 2);
  const std::string name = OpName(node.op);
  auto* p = plan->As<GatherScatterParams>();
  const std::string reduction = node.attrs->GetString("reduction");
  if (node.op == OpId::kScatterElements || node.op == OpId::kScatterND) {
    p->reduction = reduction == "none"  ? 0
                   : reduction == "add" ? 1
                   : reduction == "mul" ? 2
                   : reduction == "max" ? 3
                   : reduction == "min" ? 4
                                        : -1;
    if (p->reduction < 0) {
      return InvalidArgument(name + ": reduction '" + reduction +
                             "' is not one of none, add, mul, max, min");
    }
  }
  switch (node.op) {
    case OpId::kGatherElements:
    case OpId::kScatterElements: {
      const bool axis_ok = NormalizeAxis(node.attrs->GetInt("axis"), node.in_ranks[0], &p->axis);
      TFN_DCHECK(axis_ok);
      (void)axis_ok;
      plan->fn =
          node.op == OpId::kGatherElements ? tfn_ref_gather_elements : tfn_ref_scatter_elements;
      plan->symbol =
          node.op == OpId::kGatherElements ? "tfn_ref_gather_elements" : "tfn_ref_scatter_elements";
      return Status::Ok();
    }
    case OpId::kGatherND: {
      const int64_t b = node.attrs->GetInt("batch_dims");
      TFN_DCHECK(b >= 0 && b < node.in_ranks[0] && b < node.in_ranks[1]);
      p->batch_dims = static_cast<int32_t>(b);
      plan->fn = tfn_ref_gather_nd;
      plan->symbol = "tfn_ref_gather_nd";
      return Status::Ok();
    }
    case OpId::kScatterND:
      plan->fn = tfn_ref_scatter_nd;
      plan->symbol = "tfn_ref_scatter_nd";
      return Status::Ok();
    default:
      return Internal(name + " is not a gather/scatter op");
  }
}

}  // namespace tfn::kernels
