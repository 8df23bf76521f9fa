// Reference kernels of the reductions (reduce_sum/mean/max/min/prod; the axes
// an attribute or an int tensor read at run time) and of argmax/argmin. Each
// output element loops over its reduced index space in row-major order, so
// "first occurrence" is well defined.
//
// Semantics: floats accumulate sums and products in double (the oracle should
// be the accurate answer); integers accumulate in their own type with
// wrapping arithmetic. Integer mean truncates the (wrapped) sum divided by the
// count. max/min propagate NaN (as NumPy's max and tfn's maximum do). Empty
// reductions give the identity: sum 0, prod 1, max -inf / the lowest int,
// min +inf / the highest int, mean NaN for floats and 0 for ints. argmax and
// argmin return the first index of the extreme value, and a NaN counts as the
// extreme, so the first NaN wins (NumPy's rule); with select_last_index the
// last index of the extreme value (the last NaN when there is one).
#include <cmath>
#include <limits>
#include <type_traits>

#include "kernels/ref/ref_kernels.h"
#include "kernels/ref/scalar_ops.h"
#include "kernels/ref/tensor_util.h"

namespace tfn::kernels {
namespace {

// The input's dims split into kept ones (they index the output, in order)
// and reduced ones, each with its input stride.
struct ReduceGeometry {
  int n_kept = 0, n_reduced = 0;
  int64_t kept_dims[TFN_KERNEL_MAX_RANK], kept_strides[TFN_KERNEL_MAX_RANK];
  int64_t reduced_dims[TFN_KERNEL_MAX_RANK], reduced_strides[TFN_KERNEL_MAX_RANK];
  int64_t kept_count = 1, reduced_count = 1;
};

ReduceGeometry MakeGeometry(const TfnTensor& x, uint32_t axes_mask) {
  ReduceGeometry g;
  int64_t strides[TFN_KERNEL_MAX_RANK];
  StridesOf(x, strides);
  for (int d = 0; d < x.rank; ++d) {
    if (axes_mask & (1u << d)) {
      g.reduced_dims[g.n_reduced] = x.dims[d];
      g.reduced_strides[g.n_reduced++] = strides[d];
      g.reduced_count *= x.dims[d];
    } else {
      g.kept_dims[g.n_kept] = x.dims[d];
      g.kept_strides[g.n_kept++] = strides[d];
      g.kept_count *= x.dims[d];
    }
  }
  return g;
}

// Input offset of linear index `i` over `n` dims with the given sizes and strides.
int64_t SubOffset(int64_t i, int n, const int64_t* dims, const int64_t* strides) {
  int64_t off = 0;
  for (int d = n - 1; d >= 0; --d) {
    off += (i % dims[d]) * strides[d];
    i /= dims[d];
  }
  return off;
}

template <class T>
T ReduceOne(OpId op, const T* x, const ReduceGeometry& g, int64_t base) {
  using Wide = std::conditional_t<kIsFloat<T>, double, typename WrapType<T>::type>;
  const int64_t n = g.reduced_count;
  auto at = [&](int64_t r) {
    return x[base + SubOffset(r, g.n_reduced, g.reduced_dims, g.reduced_strides)];
  };
  switch (op) {
    case OpId::kReduceSum:
    case OpId::kReduceMean: {
      Wide sum = 0;
      for (int64_t r = 0; r < n; ++r) sum += static_cast<Wide>(at(r));
      if (op == OpId::kReduceSum) return static_cast<T>(sum);
      if constexpr (kIsFloat<T>) {
        if (n == 0) return std::numeric_limits<T>::quiet_NaN();
        return static_cast<T>(sum / static_cast<double>(n));
      } else {
        if (n == 0) return 0;
        return static_cast<T>(static_cast<int64_t>(static_cast<T>(sum)) / n);
      }
    }
    case OpId::kReduceProd: {
      Wide prod = 1;
      for (int64_t r = 0; r < n; ++r) prod *= static_cast<Wide>(at(r));
      return static_cast<T>(prod);
    }
    case OpId::kReduceMax:
    case OpId::kReduceMin: {
      const bool is_max = op == OpId::kReduceMax;
      T best;
      if constexpr (kIsFloat<T>) {
        best = is_max ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::infinity();
      } else {
        best = is_max ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max();
      }
      for (int64_t r = 0; r < n; ++r) {
        T v = at(r);
        if constexpr (kIsFloat<T>) {
          if (std::isnan(v)) return v;
        }
        if (is_max ? v > best : v < best) best = v;
      }
      return best;
    }
    default:
      return 0;
  }
}

// The mask of axes given as an int tensor at run time (empty: every axis).
int32_t AxesMaskOf(const TfnTensor& axes, int rank, uint32_t* mask) {
  const int64_t n = NumElementsOf(axes);
  *mask = n == 0 ? (1u << rank) - 1 : 0;
  for (int64_t k = 0; k < n; ++k) {
    int64_t a = axes.dtype == static_cast<int32_t>(DType::kInt32) ? DataOf<int32_t>(axes)[k]
                                                                  : DataOf<int64_t>(axes)[k];
    if (a < -rank || a >= rank) return TFN_KERNEL_INDEX_OUT_OF_RANGE;
    *mask |= 1u << (a < 0 ? a + rank : a);
  }
  return TFN_KERNEL_OK;
}

}  // namespace

TFN_KERNEL(tfn_ref_reduce) {
  const auto& p = *static_cast<const ReduceParams*>(params);
  const OpId op = static_cast<OpId>(p.op);
  uint32_t mask = p.axes_mask;
  if (num_inputs > 1) {  // axes read at run time
    int32_t code = AxesMaskOf(inputs[1], inputs[0].rank, &mask);
    if (code != TFN_KERNEL_OK) return code;
  }
  const ReduceGeometry g = MakeGeometry(inputs[0], mask);
  if (NumElementsOf(outputs[0]) != g.kept_count) return TFN_KERNEL_BAD_SHAPE;
  return DispatchDType(inputs[0].dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, bool>) {
      return TFN_KERNEL_UNSUPPORTED;
    } else {
      const T* x = DataOf<T>(inputs[0]);
      T* y = DataOf<T>(outputs[0]);
      for (int64_t o = 0; o < g.kept_count; ++o) {
        y[o] = ReduceOne<T>(op, x, g, SubOffset(o, g.n_kept, g.kept_dims, g.kept_strides));
      }
      return TFN_KERNEL_OK;
    }
  });
}

TFN_KERNEL(tfn_ref_argreduce) {
  const auto& p = *static_cast<const ArgReduceParams*>(params);
  const TfnTensor& x = inputs[0];
  if (p.axis < 0 || p.axis >= x.rank) return TFN_KERNEL_BAD_SHAPE;
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < p.axis; ++d) outer *= x.dims[d];
  for (int d = p.axis + 1; d < x.rank; ++d) inner *= x.dims[d];
  const int64_t n = x.dims[p.axis];
  if (NumElementsOf(outputs[0]) != outer * inner) return TFN_KERNEL_BAD_SHAPE;
  if (n == 0 && outer * inner > 0) return TFN_KERNEL_BAD_SHAPE;  // no element to point at
  int64_t* y = DataOf<int64_t>(outputs[0]);
  return DispatchDType(x.dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, bool>) {
      return TFN_KERNEL_UNSUPPORTED;
    } else {
      const T* xs = DataOf<T>(x);
      for (int64_t o = 0; o < outer; ++o) {
        for (int64_t i = 0; i < inner; ++i) {
          const T* row = xs + o * n * inner + i;
          int64_t best_at = 0;
          T best = row[0];
          bool nan = false;  // a NaN was seen: only a later NaN (select_last) replaces it
          if constexpr (kIsFloat<T>) nan = std::isnan(best);
          for (int64_t t = 1; t < n && !(nan && !p.select_last); ++t) {
            T v = row[t * inner];
            if constexpr (kIsFloat<T>) {
              if (std::isnan(v)) {
                best_at = t;
                nan = true;
                continue;
              }
            }
            if (nan) continue;
            bool better = p.is_max ? v > best : v < best;
            if (better || (p.select_last && v == best)) {
              best = v;
              best_at = t;
            }
          }
          y[o * inner + i] = best_at;
        }
      }
      return TFN_KERNEL_OK;
    }
  });
}

// The node has passed CheckNode: x is there and every axis is within its rank.
Status PrepareReduce(const NodeSignature& node, KernelPlan* plan) {
  TFN_DCHECK(node.num_inputs >= 1);
  const int rank = node.in_ranks[0];
  if (node.op == OpId::kArgMax || node.op == OpId::kArgMin) {
    auto* p = plan->As<ArgReduceParams>();
    p->is_max = node.op == OpId::kArgMax;
    p->select_last = node.attrs->GetInt("select_last_index") != 0;
    const bool axis_ok = NormalizeAxis(node.attrs->GetInt("axis"), rank, &p->axis);
    TFN_DCHECK(axis_ok);
    (void)axis_ok;
    plan->fn = tfn_ref_argreduce;
    plan->symbol = "tfn_ref_argreduce";
    return Status::Ok();
  }
  auto* p = plan->As<ReduceParams>();
  p->op = static_cast<int32_t>(node.op);
  p->axes_mask = 0;  // with axes as input 1: computed by the kernel
  std::vector<int64_t> axes = node.attrs->GetInts("axes");
  if (axes.empty() && node.num_inputs == 1)
    p->axes_mask = rank >= 32 ? ~0u : (1u << rank) - 1;  // empty: all axes
  for (int64_t a : axes) {
    int n = 0;
    const bool axis_ok = NormalizeAxis(a, rank, &n);
    TFN_DCHECK(axis_ok);
    if (axis_ok) p->axes_mask |= 1u << n;
  }
  plan->fn = tfn_ref_reduce;
  plan->symbol = "tfn_ref_reduce";
  return Status::Ok();
}

}  // namespace tfn::kernels
