// Optimized reductions (tfn_opt_reduce): reduce_sum/mean/max/min/prod over a
// contiguous range of axes, i.e. the input viewed as [outer, n, inner] with
// the n axis reduced (other axis sets go to the reference kernel: statically
// in SelectOptimized, or here when the axes are an input read at run time). inner == 1 is a row
// reduction (lane-parallel, reduce_util.h; the all-axes case splits the row into fixed chunks whose
// partial results are merged in order); inner > 1 reduces columns, blocks of up to kCols
// accumulators updated one input row at a time.
//
// Semantics are the reference's (ref/reduce.cc): float sums and products
// accumulate in double, integers wrap, max/min propagate NaN, empty
// reductions give the identity. Only the order of float additions differs:
// float32 results are within 1 ulp of the reference, float64 within
// 2 n 2^-53 sum|x| (see reduce_test.cc); integers and max/min are exact.
#include <limits>

#include "kernels/opt/reduce_util.h"
#include "kernels/opt/simd.h"
#include "kernels/ref/ref_kernels.h"
#include "kernels/ref/scalar_ops.h"

namespace tfn::kernels::opt {
namespace {

constexpr int64_t kCols = 256;     // accumulators of a column block
constexpr int64_t kChunk = 65536;  // all-axes reduction: elements per partial result

struct ReduceJob {
  OpId op;
  const void* x;
  void* y;
  int64_t outer, n, inner;
  int64_t begin, end;  // rows (inner == 1), column blocks, or chunks (Partial*)
  double* partials;    // chunk results of an all-axes sum/mean/prod (as double)
  int64_t chunk;
};

template <class T, class Op>
TFN_OPT_INLINE T Finish(OpId op, typename Op::Acc acc, int64_t n) {
  if (op == OpId::kReduceMean) {
    if constexpr (kIsFloat<T>) {
      if (n == 0) return std::numeric_limits<T>::quiet_NaN();
      return static_cast<T>(acc / static_cast<double>(n));
    } else {
      if (n == 0) return 0;
      return static_cast<T>(static_cast<int64_t>(static_cast<T>(acc)) / n);
    }
  }
  return static_cast<T>(acc);
}

template <class T, class Op>
TFN_OPT_INLINE void RunOp(const ReduceJob& job) {
  using Acc = typename Op::Acc;
  const T* x = static_cast<const T*>(job.x);
  T* y = static_cast<T*>(job.y);
  const int64_t n = job.n, inner = job.inner;
  // Chunks [begin, end) of one long row, or rows of the last axis: one
  // call site, so the vectorized contiguous reduction is compiled once.
  // Rows of `step` elements, then (chunks only) the shorter last chunk as a
  // second pass: the length is fixed within a pass, which keeps short rows
  // as fast as with a loop of their own.
  const bool partial = job.partials != nullptr;
  if (partial || inner == 1) {
    const int64_t step = partial ? job.chunk : n;
    const int64_t full = partial ? n / step : job.end;  // rows of length step
    for (int pass = 0; pass < 2; ++pass) {
      const int64_t first = pass == 0 ? job.begin : (full > job.begin ? full : job.begin);
      const int64_t last = pass == 0 ? (full < job.end ? full : job.end) : job.end;
      const int64_t len = pass == 0 ? step : n - full * step;
      for (int64_t i = first; i < last; ++i) {
        const Acc r = ReduceContiguous<Op>(x + i * step, len);
        if (partial) {
          job.partials[i] = static_cast<double>(r);
        } else {
          y[i] = Finish<T, Op>(job.op, r, n);
        }
      }
    }
    return;
  }
  const int64_t blocks = (inner + kCols - 1) / kCols;
  Acc acc[kCols];
  for (int64_t u = job.begin; u < job.end; ++u) {
    const int64_t o = u / blocks, c0 = (u % blocks) * kCols;
    const int64_t w = inner - c0 < kCols ? inner - c0 : kCols;
    for (int64_t j = 0; j < w; ++j) acc[j] = Op::Init();
    const T* base = x + o * n * inner + c0;
    for (int64_t r = 0; r < n; ++r) AccumulateRow<Op>(acc, base + r * inner, w);
    for (int64_t j = 0; j < w; ++j) y[o * inner + c0 + j] = Finish<T, Op>(job.op, acc[j], n);
  }
}

template <class T>
TFN_OPT_INLINE void ReduceBody(const ReduceJob& job) {
  switch (job.op) {
    case OpId::kReduceSum:
    case OpId::kReduceMean:
      return RunOp<T, SumOp<T>>(job);
    case OpId::kReduceProd:
      return RunOp<T, ProdOp<T>>(job);
    case OpId::kReduceMax:
      return RunOp<T, ExtremeOp<T, true>>(job);
    case OpId::kReduceMin:
      return RunOp<T, ExtremeOp<T, false>>(job);
    default:
      return;
  }
}

TFN_OPT_MULTIVERSION(ReduceF32, ReduceJob, ReduceBody<float>)
TFN_OPT_BASELINE(ReduceF64, ReduceJob, ReduceBody<double>)
TFN_OPT_BASELINE(ReduceI32, ReduceJob, ReduceBody<int32_t>)
TFN_OPT_BASELINE(ReduceI64, ReduceJob, ReduceBody<int64_t>)

template <class T>
void RunReduce(const ReduceJob& job) {
  if constexpr (std::is_same_v<T, float>) ReduceF32(job);
  if constexpr (std::is_same_v<T, double>) ReduceF64(job);
  if constexpr (std::is_same_v<T, int32_t>) ReduceI32(job);
  if constexpr (std::is_same_v<T, int64_t>) ReduceI64(job);
}

// One long row reduced to one value: fixed chunks (their size depends only
// on n), partial results in parallel, merged in order.
template <class T>
void ReduceAll(ReduceJob job, const TfnKernelContext* ctx) {
  double partials[256];
  const bool exact = !kIsFloat<T> || job.op == OpId::kReduceMax || job.op == OpId::kReduceMin;
  if (exact || job.n <= kChunk) {  // order-free ops: plain rows (each thread gets a whole row)
    job.begin = 0;
    job.end = 1;
    return RunReduce<T>(job);
  }
  job.chunk =
      (job.n + 255) / 256 > kChunk ? ((job.n + 255) / 256 + kLanes - 1) / kLanes * kLanes : kChunk;
  const int64_t chunks = (job.n + job.chunk - 1) / job.chunk;
  job.partials = partials;
  auto run = [&job](int64_t begin, int64_t end) {
    ReduceJob part = job;
    part.begin = begin;
    part.end = end;
    RunReduce<T>(part);
  };
  ParallelFor(ctx, chunks, 1, run);
  double acc = job.op == OpId::kReduceProd ? 1.0 : 0.0;
  for (int64_t c = 0; c < chunks; ++c) {
    acc = job.op == OpId::kReduceProd ? acc * partials[c] : acc + partials[c];
  }
  if constexpr (kIsFloat<T>) {
    T* y = static_cast<T*>(job.y);
    y[0] = job.op == OpId::kReduceMean ? static_cast<T>(acc / static_cast<double>(job.n))
                                       : static_cast<T>(acc);
  }
}

}  // namespace
}  // namespace tfn::kernels::opt

namespace tfn::kernels {

TFN_KERNEL(tfn_ref_reduce);  // ref/reduce.cc: axis sets that are not one run

TFN_KERNEL(tfn_opt_reduce) {
  const auto& p = *static_cast<const ReduceParams*>(params);
  const TfnTensor& x = inputs[0];
  uint32_t mask = p.axes_mask;
  if (num_inputs > 1) {  // axes given as an int tensor at run time (empty: all)
    const TfnTensor& axes = inputs[1];
    const int64_t k = NumElementsOf(axes);
    mask = k == 0 ? (1u << x.rank) - 1 : 0;
    for (int64_t i = 0; i < k; ++i) {
      const int64_t a = axes.dtype == static_cast<int32_t>(DType::kInt32)
                            ? DataOf<int32_t>(axes)[i]
                            : DataOf<int64_t>(axes)[i];
      if (a < -x.rank || a >= x.rank) return TFN_KERNEL_INDEX_OUT_OF_RANGE;
      mask |= 1u << (a < 0 ? a + x.rank : a);
    }
  }
  // [outer, n, inner]: the reduced axes must be one contiguous run.
  int lo = x.rank, hi = -1;
  for (int d = 0; d < x.rank; ++d) {
    if (mask & (1u << d)) {
      lo = d < lo ? d : lo;
      hi = d;
    }
  }
  opt::ReduceJob job{static_cast<OpId>(p.op), x.data, outputs[0].data, 1, 1, 1, 0, 0, nullptr, 0};
  for (int d = 0; d < x.rank; ++d) {
    if (hi >= 0 && d >= lo && d <= hi) {
      if (!(mask & (1u << d))) {
        return tfn_ref_reduce(params, inputs, num_inputs, outputs, num_outputs, ctx);
      }
      job.n *= x.dims[d];
    } else if (hi >= 0 && d > hi) {
      job.inner *= x.dims[d];
    } else {
      job.outer *= x.dims[d];
    }
  }
  if (NumElementsOf(outputs[0]) != job.outer * job.inner) return TFN_KERNEL_BAD_SHAPE;
  if (job.outer * job.inner == 0) return TFN_KERNEL_OK;
  return DispatchDType(x.dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, bool>) {
      return TFN_KERNEL_UNSUPPORTED;
    } else {
      if (job.outer == 1 && job.inner == 1) {
        opt::ReduceAll<T>(job, ctx);
        return TFN_KERNEL_OK;
      }
      const int64_t units =
          job.inner == 1 ? job.outer : job.outer * ((job.inner + opt::kCols - 1) / opt::kCols);
      const int64_t per_unit = job.n * (job.inner < opt::kCols ? job.inner : opt::kCols);
      const int64_t min_units = per_unit > 0 ? opt::kMinParallelChunk / per_unit + 1 : units;
      auto run = [&job](int64_t begin, int64_t end) {
        opt::ReduceJob part = job;
        part.begin = begin;
        part.end = end;
        opt::RunReduce<T>(part);
      };
      ParallelFor(ctx, units, min_units, run);
      return TFN_KERNEL_OK;
    }
  });
}

}  // namespace tfn::kernels
