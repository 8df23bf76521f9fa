// Optimized argmax/argmin (tfn_opt_argreduce) over any axis of the input
// viewed as [outer, n, inner]. The result is exactly the reference's: the
// first index of the extreme value, a NaN counting as the extreme (the first
// NaN wins, NumPy's rule), or with select_last the last index (the last NaN).
//
// inner == 1 (the last axis): a lane-parallel max/min with NaN propagation
// (reduce_util.h) finds the extreme value, then a blocked search finds its
// first (last) occurrence: a vectorized "any equal" per block of 64, then a
// scalar scan inside the one block that has it. inner > 1: a block of columns
// keeps the best value and index per column, updated one input row at a
// time, the update written as selects so it vectorizes.
#include "kernels/opt/reduce_util.h"
#include "kernels/opt/simd.h"
#include "kernels/ref/ref_kernels.h"
#include "kernels/ref/scalar_ops.h"

namespace tfn::kernels::opt {
namespace {

constexpr int64_t kArgCols = 256;
constexpr int64_t kSearchBlock = 64;

struct ArgJob {
  bool is_max;
  bool last;  // select_last: ties and NaNs resolve to the last index
  const void* x;
  int64_t* y;
  int64_t n, inner;
  int64_t begin, end;  // rows (inner == 1) or (outer, column block) units
};

// First (or last) i with x[i] == v, or with x[i] NaN when v is NaN (x holds such an i).
template <class T>
TFN_OPT_INLINE int64_t Find(const T* x, int64_t n, T v, bool last) {
  const bool nan = v != v;
  const int64_t blocks = (n + kSearchBlock - 1) / kSearchBlock;
  for (int64_t k = 0; k < blocks; ++k) {
    const int64_t b = (last ? blocks - 1 - k : k) * kSearchBlock;
    const int64_t w = n - b < kSearchBlock ? n - b : kSearchBlock;
    int hit = 0;
    for (int64_t j = 0; j < w; ++j) hit |= (x[b + j] == v) | (nan & (x[b + j] != x[b + j]));
    if (hit) {
      for (int64_t t = 0; t < w; ++t) {
        const int64_t j = last ? w - 1 - t : t;
        if ((x[b + j] == v) | (nan & (x[b + j] != x[b + j]))) return b + j;
      }
    }
  }
  return 0;  // not reached
}

template <class T, bool kMax>
TFN_OPT_INLINE void ArgRows(const ArgJob& job) {
  const T* x = static_cast<const T*>(job.x);
  for (int64_t o = job.begin; o < job.end; ++o) {
    const T* row = x + o * job.n;
    job.y[o] = Find(row, job.n, ReduceContiguous<ExtremeOp<T, kMax>>(row, job.n), job.last);
  }
}

template <class T, bool kMax>
TFN_OPT_INLINE void ArgColumns(const ArgJob& job) {
  const T* x = static_cast<const T*>(job.x);
  const int64_t n = job.n, inner = job.inner, blocks = (inner + kArgCols - 1) / kArgCols;
  T best[kArgCols];
  int64_t at[kArgCols];
  const bool last = job.last;
  for (int64_t u = job.begin; u < job.end; ++u) {
    const int64_t o = u / blocks, c0 = (u % blocks) * kArgCols;
    const int64_t w = inner - c0 < kArgCols ? inner - c0 : kArgCols;
    const T* base = x + o * n * inner + c0;
    for (int64_t j = 0; j < w; ++j) {
      best[j] = base[j];
      at[j] = 0;
    }
    for (int64_t r = 1; r < n; ++r) {
      const T* row = base + r * inner;
      for (int64_t j = 0; j < w; ++j) {
        const T v = row[j], b = best[j];
        // More extreme, or equal with select_last (both false once b is NaN);
        // a NaN replaces a number, and a NaN only with select_last.
        bool take = (kMax ? v > b : v < b) | (last & (v == b));
        if constexpr (kIsFloat<T>) take = take | ((v != v) & ((b == b) | last));
        best[j] = SelectBits(take, v, b);
        at[j] = SelectBits(take, r, at[j]);
      }
    }
    for (int64_t j = 0; j < w; ++j) job.y[o * inner + c0 + j] = at[j];
  }
}

template <class T>
TFN_OPT_INLINE void ArgBody(const ArgJob& job) {
  if (job.inner == 1) {
    return job.is_max ? ArgRows<T, true>(job) : ArgRows<T, false>(job);
  }
  return job.is_max ? ArgColumns<T, true>(job) : ArgColumns<T, false>(job);
}

// Argmax/argmin are not where models spend their time: no AVX-512 copy.
TFN_OPT_MULTIVERSION_AVX2(ArgF32, ArgJob, ArgBody<float>)
TFN_OPT_BASELINE(ArgF64, ArgJob, ArgBody<double>)
TFN_OPT_BASELINE(ArgI32, ArgJob, ArgBody<int32_t>)
TFN_OPT_BASELINE(ArgI64, ArgJob, ArgBody<int64_t>)

}  // namespace
}  // namespace tfn::kernels::opt

namespace tfn::kernels {

TFN_KERNEL(tfn_opt_argreduce) {
  const auto& p = *static_cast<const ArgReduceParams*>(params);
  const TfnTensor& x = inputs[0];
  if (p.axis < 0 || p.axis >= x.rank) return TFN_KERNEL_BAD_SHAPE;
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < p.axis; ++d) outer *= x.dims[d];
  for (int d = p.axis + 1; d < x.rank; ++d) inner *= x.dims[d];
  const int64_t n = x.dims[p.axis];
  if (NumElementsOf(outputs[0]) != outer * inner) return TFN_KERNEL_BAD_SHAPE;
  if (outer * inner == 0) return TFN_KERNEL_OK;
  if (n == 0) return TFN_KERNEL_BAD_SHAPE;  // no element to point at
  opt::ArgJob job{
      p.is_max != 0, p.select_last != 0, x.data, DataOf<int64_t>(outputs[0]), n, inner, 0, 0};
  const int64_t units = inner == 1 ? outer : outer * ((inner + opt::kArgCols - 1) / opt::kArgCols);
  const int64_t per_unit = n * (inner < opt::kArgCols ? inner : opt::kArgCols);
  return DispatchDType(x.dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, bool>) {
      return TFN_KERNEL_UNSUPPORTED;
    } else {
      auto run = [&job](int64_t begin, int64_t end) {
        opt::ArgJob part = job;
        part.begin = begin;
        part.end = end;
        if constexpr (std::is_same_v<T, float>) opt::ArgF32(part);
        if constexpr (std::is_same_v<T, double>) opt::ArgF64(part);
        if constexpr (std::is_same_v<T, int32_t>) opt::ArgI32(part);
        if constexpr (std::is_same_v<T, int64_t>) opt::ArgI64(part);
      };
      ParallelFor(ctx, units, opt::kMinParallelChunk / per_unit + 1, run);
      return TFN_KERNEL_OK;
    }
  });
}

}  // namespace tfn::kernels
