// Reference kernels of the shape-manipulation ops: reshape, expand_dims and
// squeeze (a plain copy: the layout is row-major either way), transpose,
// concat, split, slice, gather, pad, broadcast_to, tile, shape and size.
// Every dtype, bool included. Most are "output element i comes from input
// offset f(i)" loops; output shapes come from the shape rules (the caller
// sets them), and a kernel whose shapes disagree with its params reports
// TFN_KERNEL_BAD_SHAPE rather than reading out of bounds.
#include <string>
#include <vector>

#include "kernels/ref/ref_kernels.h"
#include "kernels/ref/scalar_ops.h"
#include "kernels/ref/tensor_util.h"

namespace tfn::kernels {
namespace {

// y[i] = x[offset(i)] for every element of y.
template <class OffsetFn>
int32_t CopyMapped(const TfnTensor& x, const TfnTensor& y, OffsetFn&& offset) {
  const int64_t n = NumElementsOf(y);
  return DispatchDType(x.dtype, [&](auto tag) {
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
  return DispatchDType(y.dtype, [&](auto tag) {
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
  return DispatchDType(x.dtype, [&](auto tag) {
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

// begin, end and strides are the params or, with inputs 1-3 (read at run
// time; strides optional), the inputs.
TFN_KERNEL(tfn_ref_slice) {
  SliceParams p = *static_cast<const SliceParams*>(params);
  const TfnTensor& x = inputs[0];
  const TfnTensor& y = outputs[0];
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
  int64_t in_strides[TFN_KERNEL_MAX_RANK], strides[TFN_KERNEL_MAX_RANK];
  StridesOf(x, in_strides);
  int64_t base = 0;
  for (int d = 0; d < x.rank; ++d) {
    int64_t first, length;
    ResolveSlice(x.dims[d], p.begin[d], p.end[d], p.strides[d], &first, &length);
    if (length != y.dims[d]) return TFN_KERNEL_BAD_SHAPE;
    if (length > 0) base += first * in_strides[d];
    strides[d] = in_strides[d] * p.strides[d];
  }
  return CopyMapped(x, y, [&](int64_t i) { return base + OffsetAt(i, y, strides); });
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
  // Negative indices wrap once; anything else outside [0, n) is an error,
  // checked before any output is written.
  auto index_at = [&](int64_t j) -> int64_t {
    int64_t v = idx.dtype == static_cast<int32_t>(DType::kInt32)
                    ? static_cast<int64_t>(DataOf<int32_t>(idx)[j])
                    : DataOf<int64_t>(idx)[j];
    return v < 0 ? v + n : v;
  };
  if (idx.dtype != static_cast<int32_t>(DType::kInt32) &&
      idx.dtype != static_cast<int32_t>(DType::kInt64)) {
    return TFN_KERNEL_UNSUPPORTED;
  }
  for (int64_t j = 0; j < count; ++j) {
    int64_t v = index_at(j);
    if (v < 0 || v >= n) return TFN_KERNEL_INDEX_OUT_OF_RANGE;
  }
  return CopyMapped(x, y, [&](int64_t e) {
    const int64_t i = e % inner, j = (e / inner) % count, o = e / (inner * count);
    return (o * n + index_at(j)) * inner + i;
  });
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
      pads[i] = inputs[1].dtype == static_cast<int32_t>(DType::kInt32) ? DataOf<int32_t>(inputs[1])[i]
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
  return DispatchDType(x.dtype, [&](auto tag) {
    using T = decltype(tag);
    const T fill = num_inputs > 2 ? DataOf<T>(inputs[2])[0] : CastValue<T, double>(p.constant_value);
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

namespace {

Status AxisError(const NodeSignature& node, int64_t axis, int rank) {
  return InvalidArgument(std::string(OpName(node.op)) + ": axis " + std::to_string(axis) +
                         " is out of range for rank " + std::to_string(rank));
}

Status PrepareTranspose(const NodeSignature& node, KernelPlan* plan) {
  const int rank = node.in_ranks[0];
  std::vector<int64_t> perm = node.attrs->GetInts("perm");
  if (perm.empty()) {
    for (int i = rank - 1; i >= 0; --i) perm.push_back(i);
  }
  auto* p = plan->As<TransposeParams>();
  bool seen[TFN_KERNEL_MAX_RANK] = {};
  bool ok = static_cast<int>(perm.size()) == rank && rank <= TFN_KERNEL_MAX_RANK;
  for (int i = 0; ok && i < rank; ++i) {
    ok = NormalizeAxis(perm[i], rank, &p->perm[i]) && !seen[p->perm[i]];
    if (ok) seen[p->perm[i]] = true;
  }
  if (!ok) return InvalidArgument("transpose: perm is not a permutation of the input's dims");
  return Status::Ok();
}

Status PrepareSlice(const NodeSignature& node, KernelPlan* plan) {
  const size_t rank = static_cast<size_t>(node.in_ranks[0]);
  if (node.num_inputs > 1) {  // read at run time (the shape rule checks the values)
    plan->As<SliceParams>();
    return Status::Ok();
  }
  std::vector<int64_t> begin = node.attrs->GetInts("begin"), end = node.attrs->GetInts("end");
  std::vector<int64_t> strides = node.attrs->GetInts("strides");
  if (strides.empty()) strides.assign(rank, 1);
  if (begin.size() != rank || end.size() != rank || strides.size() != rank) {
    return InvalidArgument("slice: begin, end and strides need one entry per dim");
  }
  auto* p = plan->As<SliceParams>();
  for (size_t i = 0; i < rank; ++i) {
    // 0 has no meaning; INT64_MIN cannot be negated.
    if (strides[i] == 0 || strides[i] == std::numeric_limits<int64_t>::min()) {
      return InvalidArgument("slice: stride " + std::to_string(strides[i]) + " is not allowed");
    }
    p->begin[i] = begin[i];
    p->end[i] = end[i];
    p->strides[i] = strides[i];
  }
  return Status::Ok();
}

Status PreparePad(const NodeSignature& node, KernelPlan* plan) {
  const int rank = node.in_ranks[0];
  std::vector<int64_t> pads = node.attrs->GetInts("paddings");
  std::string mode = node.attrs->GetString("mode");
  auto* p = plan->As<PadParams>();
  p->mode = mode == "constant" ? 0 : mode == "reflect" ? 1 : mode == "edge" ? 2 : -1;
  if (p->mode < 0)
    return InvalidArgument("pad: mode '" + mode + "' is not one of constant, reflect, edge");
  p->pads_from_input = node.num_inputs > 1;
  if (p->pads_from_input) {
    p->constant_value = node.attrs->GetFloat("constant_value");
    return Status::Ok();  // the shape rule has checked the values
  }
  if (pads.size() != 2 * static_cast<size_t>(rank)) {
    return InvalidArgument("pad: paddings need 2 entries (before, after) per dim");
  }
  for (size_t i = 0; i < pads.size(); ++i) {
    if (pads[i] < 0) return InvalidArgument("pad: paddings must be >= 0");
    p->pads[i] = pads[i];
  }
  p->constant_value = node.attrs->GetFloat("constant_value");
  return Status::Ok();
}

}  // namespace

Status PrepareShapeOp(const NodeSignature& node, KernelPlan* plan) {
  const int rank = node.in_ranks[0];
  Status s;
  switch (node.op) {
    case OpId::kReshape:
    case OpId::kExpandDims:
    case OpId::kSqueeze:
      plan->fn = tfn_ref_copy;
      plan->symbol = "tfn_ref_copy";
      break;
    case OpId::kTranspose:
      s = PrepareTranspose(node, plan);
      plan->fn = tfn_ref_transpose;
      plan->symbol = "tfn_ref_transpose";
      break;
    case OpId::kConcat:
    case OpId::kSplit:
    case OpId::kGather: {
      const int64_t axis = node.attrs->GetInt("axis");
      if (!NormalizeAxis(axis, rank, &plan->As<AxisParams>()->axis)) {
        return AxisError(node, axis, rank);
      }
      if (node.op == OpId::kConcat) {
        plan->fn = tfn_ref_concat;
        plan->symbol = "tfn_ref_concat";
      } else if (node.op == OpId::kSplit) {
        plan->fn = tfn_ref_split;
        plan->symbol = "tfn_ref_split";
      } else {
        plan->fn = tfn_ref_gather;
        plan->symbol = "tfn_ref_gather";
      }
      break;
    }
    case OpId::kSlice:
      s = PrepareSlice(node, plan);
      plan->fn = tfn_ref_slice;
      plan->symbol = "tfn_ref_slice";
      break;
    case OpId::kPad:
      s = PreparePad(node, plan);
      plan->fn = tfn_ref_pad;
      plan->symbol = "tfn_ref_pad";
      break;
    case OpId::kBroadcastTo:
      plan->fn = tfn_ref_broadcast_to;
      plan->symbol = "tfn_ref_broadcast_to";
      break;
    case OpId::kTile:
      plan->fn = tfn_ref_tile;
      plan->symbol = "tfn_ref_tile";
      break;
    case OpId::kShape:
      plan->fn = tfn_ref_shape;
      plan->symbol = "tfn_ref_shape";
      break;
    case OpId::kSize:
      plan->fn = tfn_ref_size;
      plan->symbol = "tfn_ref_size";
      break;
    default:
      return Internal(std::string(OpName(node.op)) + " is not a shape op");
  }
  return s;
}

}  // namespace tfn::kernels
