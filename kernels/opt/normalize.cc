// Optimized softmax, log_softmax (over the last axis) and layer_norm (over
// the trailing dims), row by row, rows split over the pool (chunks of at
// least 8K elements; each row is computed by one thread, so results do not
// depend on the thread count).
//
// softmax: pass 1 the row maximum (NaN propagates), pass 2 e = exp(x - max)
// with vm::Exp, stored, and summed in double lanes, pass 3 y = e * (1/sum)
// computed in double and rounded once. log_softmax: the same sum without the
// store, then y = (x - max) - log(sum) in double, the reference's formula.
// A row with NaN, +inf, or only -inf gives NaN, as the reference.
// Error vs the reference (which works in double): float32 softmax within
// 4 ulp or (2.4e-7 + 6e-8 |x - max|) relative, the rounding of the float
// argument of exp; log_softmax within that much absolute (normalize_test.cc).
//
// layer_norm: one pass of shifted sums in double (s1 = sum(x - x0), s2 =
// sum((x - x0)^2); var = (s2 - s1^2/n)/n), then y = (x - mean) * inv_std *
// scale + bias in double, rounded once: float32 within 1 ulp of the
// reference for data whose spread is not tiny next to |x0 - mean|.
//
// On a CPU with AVX-512 the float32 rows run normalize_avx512.cc's explicit
// vectors (the same arithmetic, except that softmax terms below 1.7e-38 are
// 0 there); the generic rows here serve the others.
#include <cmath>
#include <limits>

#include "kernels/opt/normalize_avx512.h"
#include "kernels/opt/reduce_util.h"
#include "kernels/opt/simd.h"
#include "kernels/opt/vec_math.h"
#include "kernels/ref/ref_kernels.h"
#include "kernels/ref/scalar_ops.h"

namespace tfn::kernels::opt {
namespace {

struct RowsJob {
  const void* x;
  const void* scale;  // layer_norm
  const void* bias;   // layer_norm
  void* y;
  int64_t cols;
  double epsilon;  // layer_norm
  bool log;        // log_softmax
  int64_t begin, end;
};

// The row maximum, NaN when the row has one: lane maxima `v > m ? v : m`
// (maxps) and a NaN count, loops GCC vectorizes in the AVX-512 clone
// (ReduceContiguous<ExtremeOp>'s first-NaN select stays scalar there: the
// runtime's softmax ran at a third of the AOT object's speed). Lanes merge
// pairwise, as ReduceContiguous does.
template <class T>
TFN_OPT_INLINE T RowMax(const T* x, int64_t n) {
  T mx[kLanes];
  int32_t nan[kLanes] = {};
  for (int j = 0; j < kLanes; ++j) mx[j] = -std::numeric_limits<T>::infinity();
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (int j = 0; j < kLanes; ++j) {
      const T v = x[i + j];
      mx[j] = v > mx[j] ? v : mx[j];
      nan[j] |= v != v;
    }
  }
  for (int w = kLanes / 2; w >= 1; w /= 2) {
    for (int j = 0; j < w; ++j) {
      mx[j] = mx[j + w] > mx[j] ? mx[j + w] : mx[j];
      nan[j] |= nan[j + w];
    }
  }
  T m = mx[0];
  int32_t any_nan = nan[0];
  for (; i < n; ++i) {
    m = x[i] > m ? x[i] : m;
    any_nan |= x[i] != x[i];
  }
  return any_nan ? std::numeric_limits<T>::quiet_NaN() : m;
}

template <class T>
TFN_OPT_INLINE void SoftmaxRow(const T* x, T* y, int64_t n, bool log) {
  const T m = RowMax(x, n);
  double acc[kLanes] = {};
  int64_t i = 0;
  if (log) {
    for (; i + kLanes <= n; i += kLanes) {
      for (int j = 0; j < kLanes; ++j) acc[j] += static_cast<double>(vm::Exp(x[i + j] - m));
    }
  } else {
    for (; i + kLanes <= n; i += kLanes) {
      for (int j = 0; j < kLanes; ++j) {
        const T e = vm::Exp(x[i + j] - m);
        y[i + j] = e;
        acc[j] += static_cast<double>(e);
      }
    }
  }
  for (int w = kLanes / 2; w >= 1; w /= 2) {
    for (int j = 0; j < w; ++j) acc[j] += acc[j + w];
  }
  double sum = acc[0];
  for (; i < n; ++i) {
    const T e = vm::Exp(x[i] - m);
    if (!log) y[i] = e;
    sum += static_cast<double>(e);
  }
  if (log) {
    const double lse = std::log(sum), md = static_cast<double>(m);
    for (int64_t k = 0; k < n; ++k) {
      y[k] = static_cast<T>((static_cast<double>(x[k]) - md) - lse);
    }
  } else {
    const double inv = 1.0 / sum;
    for (int64_t k = 0; k < n; ++k) y[k] = static_cast<T>(static_cast<double>(y[k]) * inv);
  }
}

template <class T>
TFN_OPT_INLINE void SoftmaxBody(const RowsJob& job) {
  const T* x = static_cast<const T*>(job.x);
  T* y = static_cast<T*>(job.y);
  for (int64_t r = job.begin; r < job.end; ++r) {
    SoftmaxRow(x + r * job.cols, y + r * job.cols, job.cols, job.log);
  }
}

template <class T>
TFN_OPT_INLINE void LayerNormRow(const T* x, const T* scale, const T* bias, T* y, int64_t n,
                                 double epsilon) {
  const double x0 = static_cast<double>(x[0]);
  double s1[kLanes] = {}, s2[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (int j = 0; j < kLanes; ++j) {
      const double d = static_cast<double>(x[i + j]) - x0;
      s1[j] += d;
      s2[j] += d * d;
    }
  }
  for (int w = kLanes / 2; w >= 1; w /= 2) {
    for (int j = 0; j < w; ++j) {
      s1[j] += s1[j + w];
      s2[j] += s2[j + w];
    }
  }
  double t1 = s1[0], t2 = s2[0];
  for (; i < n; ++i) {
    const double d = static_cast<double>(x[i]) - x0;
    t1 += d;
    t2 += d * d;
  }
  const LayerNormStats stats = StatsOfShiftedSums(t1, t2, n, x0, epsilon);
  const double mean = stats.mean, inv_std = stats.inv_std;
  for (int64_t k = 0; k < n; ++k) {
    y[k] = static_cast<T>((static_cast<double>(x[k]) - mean) * inv_std *
                              static_cast<double>(scale[k]) +
                          static_cast<double>(bias[k]));
  }
}

template <class T>
TFN_OPT_INLINE void LayerNormBody(const RowsJob& job) {
  const T* x = static_cast<const T*>(job.x);
  const T* scale = static_cast<const T*>(job.scale);
  const T* bias = static_cast<const T*>(job.bias);
  T* y = static_cast<T*>(job.y);
  for (int64_t r = job.begin; r < job.end; ++r) {
    LayerNormRow(x + r * job.cols, scale, bias, y + r * job.cols, job.cols, job.epsilon);
  }
}

TFN_OPT_MULTIVERSION(SoftmaxRowsF32, RowsJob, SoftmaxBody<float>)
TFN_OPT_MULTIVERSION(LayerNormRowsF32, RowsJob, LayerNormBody<float>)

// The explicit AVX-512 rows where the CPU has them (normalize_avx512.h).
void SoftmaxF32(const RowsJob& j) {
  if (!SoftmaxRowsAvx512(static_cast<const float*>(j.x), static_cast<float*>(j.y), j.cols, j.begin,
                         j.end, j.log)) {
    SoftmaxRowsF32(j);
  }
}
void LayerNormF32(const RowsJob& j) {
  if (!LayerNormRowsAvx512(static_cast<const float*>(j.x), static_cast<const float*>(j.scale),
                           static_cast<const float*>(j.bias), static_cast<float*>(j.y), j.cols,
                           j.epsilon, j.begin, j.end)) {
    LayerNormRowsF32(j);
  }
}
TFN_OPT_BASELINE(SoftmaxF64, RowsJob, SoftmaxBody<double>)
TFN_OPT_BASELINE(LayerNormF64, RowsJob, LayerNormBody<double>)

// Elements per parallel chunk. Softmax and layer_norm cost ~1 ns per element
// (exp, sums in double), several times an elementwise op, so a quarter of
// kMinParallelChunk is still ~8 µs of work per chunk, far above a hand-off:
// with kMinParallelChunk (and its +1 row) the transformer's attention
// softmax [4,128,128] and layer_norm [128,256] ran on one thread.
constexpr int64_t kMinRowsChunkElements = kMinParallelChunk / 4;

// Runs fn(job part) over rows [0, rows) in parallel chunks of whole rows,
// >= kMinRowsChunkElements elements each.
template <class Fn>
void ForRows(const TfnKernelContext* ctx, RowsJob job, int64_t rows, Fn fn) {
  auto run = [&](int64_t begin, int64_t end) {
    RowsJob part = job;
    part.begin = begin;
    part.end = end;
    fn(part);
  };
  const int64_t cols = job.cols > 0 ? job.cols : 1;
  ParallelFor(ctx, rows, (kMinRowsChunkElements + cols - 1) / cols, run);
}

}  // namespace
}  // namespace tfn::kernels::opt

namespace tfn::kernels {

TFN_KERNEL(tfn_opt_softmax) {
  const auto& p = *static_cast<const SoftmaxParams*>(params);
  const TfnTensor& x = inputs[0];
  if (p.axis != x.rank - 1) return TFN_KERNEL_UNSUPPORTED;  // last axis only
  const int64_t cols = x.dims[p.axis];
  const int64_t rows = cols > 0 ? NumElementsOf(x) / cols : 0;
  if (rows == 0) return TFN_KERNEL_OK;
  opt::RowsJob job{x.data, nullptr, nullptr, outputs[0].data, cols, 0.0, p.log != 0, 0, 0};
  if (x.dtype == static_cast<int32_t>(DType::kFloat32)) {
    opt::ForRows(ctx, job, rows, [](const opt::RowsJob& j) { opt::SoftmaxF32(j); });
  } else if (x.dtype == static_cast<int32_t>(DType::kFloat64)) {
    opt::ForRows(ctx, job, rows, [](const opt::RowsJob& j) { opt::SoftmaxF64(j); });
  } else {
    return TFN_KERNEL_UNSUPPORTED;
  }
  return TFN_KERNEL_OK;
}

TFN_KERNEL(tfn_opt_layer_norm) {
  const auto& p = *static_cast<const LayerNormParams*>(params);
  const TfnTensor& x = inputs[0];
  if (p.axis < 0 || p.axis >= x.rank) return TFN_KERNEL_BAD_SHAPE;
  int64_t rows = 1, cols = 1;
  for (int d = 0; d < p.axis; ++d) rows *= x.dims[d];
  for (int d = p.axis; d < x.rank; ++d) cols *= x.dims[d];
  if (NumElementsOf(inputs[1]) != cols || NumElementsOf(inputs[2]) != cols) {
    return TFN_KERNEL_BAD_SHAPE;
  }
  if (rows == 0 || cols == 0) return TFN_KERNEL_OK;
  opt::RowsJob job{
      x.data, inputs[1].data, inputs[2].data, outputs[0].data, cols, p.epsilon, false, 0, 0};
  if (x.dtype == static_cast<int32_t>(DType::kFloat32)) {
    opt::ForRows(ctx, job, rows, [](const opt::RowsJob& j) { opt::LayerNormF32(j); });
  } else if (x.dtype == static_cast<int32_t>(DType::kFloat64)) {
    opt::ForRows(ctx, job, rows, [](const opt::RowsJob& j) { opt::LayerNormF64(j); });
  } else {
    return TFN_KERNEL_UNSUPPORTED;
  }
  return TFN_KERNEL_OK;
}

}  // namespace tfn::kernels
