// Reference kernels of the ops whose output shape depends on x's values:
// non_zero (ONNX's NonZero) and unique (ONNX's Unique). The caller sizes the
// outputs with the shape rules (core/rules/rules_indexing.h), which count
// with the same comparisons; a kernel whose count disagrees with its output
// shapes reports TFN_KERNEL_BAD_SHAPE instead of writing out of bounds.
//
// unique's items are x's elements (axis -1) or its slices along the axis,
// compared lexicographically; NaN sorts after every number and equals NaN.
// sorted=1 lists the distinct items in ascending order, sorted=0 in the order
// of their first occurrence. Scratch: four int64 per item.
#include <algorithm>
#include <cmath>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/ref/ref_kernels.h"
#include "kernels/ref/scalar_ops.h"
#include "kernels/ref/tensor_util.h"

namespace tfn::kernels {
namespace {

template <class T>
int Compare3(T a, T b) {
  if constexpr (kIsFloat<T>) {
    const bool na = std::isnan(a), nb = std::isnan(b);
    if (na || nb) return na == nb ? 0 : na ? 1 : -1;
  }
  return a < b ? -1 : b < a ? 1 : 0;
}

// Items of unique: `items` slices of outer x inner elements.
struct Layout {
  int64_t items, outer, inner;
};

bool UniqueLayout(const UniqueParams& p, const TfnTensor& x, Layout* l) {
  if (p.axis >= x.rank) return false;
  l->items = NumElementsOf(x);
  l->outer = l->inner = 1;
  if (p.axis >= 0) {
    l->items = x.dims[p.axis];
    for (int d = 0; d < p.axis; ++d) l->outer *= x.dims[d];
    for (int d = p.axis + 1; d < x.rank; ++d) l->inner *= x.dims[d];
  }
  return true;
}

// Compares items a and b of unique's x (-1, 0, 1). It is the only part of
// unique that depends on the dtype: the sorts, the grouping and the copies
// run once for every dtype, so std::sort is instantiated twice, not ten
// times (bench/RESULTS.md, "Runtime size"); the indirect call per
// comparison is small next to the item's loop.
using ItemCompare = int (*)(const void* x, const Layout& l, int64_t a, int64_t b);

template <class T>
int CompareItems(const void* x, const Layout& l, int64_t a, int64_t b) {
  const T* xs = static_cast<const T*>(x);
  for (int64_t o = 0; o < l.outer; ++o) {
    for (int64_t i = 0; i < l.inner; ++i) {
      const int r =
          Compare3(xs[(o * l.items + a) * l.inner + i], xs[(o * l.items + b) * l.inner + i]);
      if (r != 0) return r;
    }
  }
  return 0;
}

// The comparison for `dtype` and its element size; null for other dtypes.
ItemCompare ItemCompareFor(int32_t dtype, int64_t* bytes) {
  ItemCompare compare = nullptr;
  DispatchDType(dtype, [&](auto tag) {
    using T = decltype(tag);
    compare = CompareItems<T>;
    *bytes = sizeof(T);
    return TFN_KERNEL_OK;
  });
  return compare;
}

}  // namespace

// out[d, k] = coordinate d of the k-th nonzero element of x (row-major order).
TFN_KERNEL(tfn_ref_non_zero) {
  const TfnTensor& x = inputs[0];
  const TfnTensor& y = outputs[0];
  if (y.rank != 2 || y.dims[0] != x.rank || y.dtype != static_cast<int32_t>(DType::kInt64)) {
    return TFN_KERNEL_BAD_SHAPE;
  }
  const int64_t n = NumElementsOf(x), count = y.dims[1];
  int64_t* out = DataOf<int64_t>(y);
  return DispatchDType(x.dtype, [&](auto tag) {
    using T = decltype(tag);
    const T* xs = DataOf<T>(x);
    int64_t found = 0;
    for (int64_t e = 0; e < n; ++e) found += xs[e] != T(0);
    if (found != count) return TFN_KERNEL_BAD_SHAPE;
    int64_t k = 0;
    for (int64_t e = 0; e < n; ++e) {
      if (xs[e] == T(0)) continue;
      for (int64_t d = x.rank - 1, rest = e; d >= 0; --d) {
        out[d * count + k] = rest % x.dims[d];
        rest /= x.dims[d];
      }
      ++k;
    }
    return TFN_KERNEL_OK;
  });
}

TFN_SCRATCH(tfn_ref_unique_scratch) {
  Layout l;
  if (!UniqueLayout(*static_cast<const UniqueParams*>(params), inputs[0], &l)) return 0;
  return 4 * l.items * static_cast<int64_t>(sizeof(int64_t));
}

// outputs: y (the distinct items), indices (first occurrence of each),
// inverse_indices (for each item of x, its position in y), counts.
TFN_KERNEL(tfn_ref_unique) {
  const auto& p = *static_cast<const UniqueParams*>(params);
  const TfnTensor& x = inputs[0];
  Layout l;
  if (!UniqueLayout(p, x, &l) || num_outputs != 4) return TFN_KERNEL_BAD_SHAPE;
  const TfnTensor& y = outputs[0];
  for (int o = 1; o < 4; ++o) {
    if (outputs[o].rank != 1 || outputs[o].dtype != static_cast<int32_t>(DType::kInt64)) {
      return TFN_KERNEL_BAD_SHAPE;
    }
  }
  const int64_t u = outputs[1].dims[0];
  if (outputs[2].dims[0] != l.items || outputs[3].dims[0] != u ||
      NumElementsOf(y) != u * l.outer * l.inner) {
    return TFN_KERNEL_BAD_SHAPE;
  }
  if (l.items == 0) return TFN_KERNEL_OK;
  if (!ctx || ctx->scratch_bytes < 4 * l.items * static_cast<int64_t>(sizeof(int64_t))) {
    return TFN_KERNEL_SCRATCH_TOO_SMALL;
  }
  int64_t* order = static_cast<int64_t*>(ctx->scratch);  // items sorted by value
  int64_t* group = order + l.items;                      // item -> group (sorted rank)
  int64_t* first = group + l.items;                      // group -> first occurrence
  int64_t* pos = first + l.items;                        // group -> position in y
  int64_t* indices = DataOf<int64_t>(outputs[1]);
  int64_t* inverse = DataOf<int64_t>(outputs[2]);
  int64_t* counts = DataOf<int64_t>(outputs[3]);
  int64_t bytes = 0;  // of one element
  const ItemCompare compare = ItemCompareFor(x.dtype, &bytes);
  if (!compare) return TFN_KERNEL_UNSUPPORTED;
  for (int64_t j = 0; j < l.items; ++j) order[j] = j;
  // Ties by index: equal items stay in index order, so a group's first entry
  // is its first occurrence.
  std::sort(order, order + l.items, [&](int64_t a, int64_t b) {
    const int r = compare(x.data, l, a, b);
    return r != 0 ? r < 0 : a < b;
  });
  int64_t groups = 0;
  for (int64_t k = 0; k < l.items; ++k) {
    if (k == 0 || compare(x.data, l, order[k - 1], order[k]) != 0) first[groups++] = order[k];
    group[order[k]] = groups - 1;
  }
  if (groups != u) return TFN_KERNEL_BAD_SHAPE;
  // Positions in y: the sorted rank, or the rank of the first occurrence.
  for (int64_t g = 0; g < u; ++g) order[g] = g;
  if (!p.sorted)
    std::sort(order, order + u, [&](int64_t a, int64_t b) { return first[a] < first[b]; });
  for (int64_t k = 0; k < u; ++k) pos[order[k]] = k;
  const auto* xs = static_cast<const unsigned char*>(x.data);
  auto* ys = static_cast<unsigned char*>(y.data);
  const int64_t run = l.inner * bytes;  // an item's contiguous part
  for (int64_t g = 0; g < u; ++g) {
    indices[pos[g]] = first[g];
    counts[pos[g]] = 0;
    for (int64_t o = 0; o < l.outer; ++o) {
      std::copy_n(xs + (o * l.items + first[g]) * run, run, ys + (o * u + pos[g]) * run);
    }
  }
  for (int64_t j = 0; j < l.items; ++j) {
    inverse[j] = pos[group[j]];
    ++counts[pos[group[j]]];
  }
  return TFN_KERNEL_OK;
}

Status PrepareDataDependent(const NodeSignature& node, KernelPlan* plan) {
  switch (node.op) {
    case OpId::kNonZero:
      plan->fn = tfn_ref_non_zero;
      plan->symbol = "tfn_ref_non_zero";
      return Status::Ok();
    case OpId::kUnique: {
      auto* p = plan->As<UniqueParams>();
      // CheckNode: x is there, axis is empty or one axis within x's rank.
      std::vector<int64_t> axes = node.attrs->GetInts("axis");
      TFN_DCHECK(node.num_inputs == 1 && axes.size() <= 1);
      p->axis = -1;
      if (axes.size() == 1) {
        const bool axis_ok = NormalizeAxis(axes[0], node.in_ranks[0], &p->axis);
        TFN_DCHECK(axis_ok);
        (void)axis_ok;
      }
      p->sorted = node.attrs->GetInt("sorted") != 0;
      plan->fn = tfn_ref_unique;
      plan->symbol = "tfn_ref_unique";
      plan->scratch = tfn_ref_unique_scratch;
      plan->scratch_symbol = "tfn_ref_unique_scratch";
      return Status::Ok();
    }
    default:
      return Internal(std::string(OpName(node.op)) + " is not a data-dependent op");
  }
}

}  // namespace tfn::kernels
