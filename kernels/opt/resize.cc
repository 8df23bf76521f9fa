// The optimized resize (tfn_opt_resize; params ResizeParams as the
// reference's): float32, nearest, linear and cubic, every coordinate
// transformation but tf_crop_and_resize (its extrapolation is not a product
// of per-axis taps; select.cc leaves it to the reference), any rank and
// layout.
//
// The reference walks every output element through every axis' coordinate
// transformation. Here the taps of each axis are computed once per call, by
// the reference's own code (ref/resize_taps.h), as input offsets and float
// weights in the kernel's scratch. The output is then a list of rows:
//   - the trailing axes the resize leaves alone (same size, one tap of
//     weight 1 at the same coordinate, e.g. C of NHWC) form a contiguous run
//     of L elements, the same in input and output;
//   - the last axis before the run that is resized is the row's column axis;
//   - the axes before it are the row's outer axes: their taps multiply into
//     a few (input offset, weight) pairs per row, 2 for bilinear over NCHW's H.
// Each output element is sum_r w_r * sum_t w_t * x[off_r + off_t + l]: four
// loads for bilinear, one for nearest (an exact copy), sixteen for bicubic;
// with L > 1 the innermost loop runs along the run, contiguous in both
// tensors, 16 floats at a time summed over the taps in a register (compiled
// for SSE2, AVX2 and AVX-512, simd.h). With L == 1 (NCHW's W is the column
// axis) rows are separable instead: each input row is interpolated along
// the columns once into a small cache, and an output row blends the cached
// rows its outer taps name (RunRowCached). Sums are in float (the reference
// sums in double: results differ by rounding only). Rows are split over
// ctx's threads.
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "kernels/opt/simd.h"
#include "kernels/ref/ref_kernels.h"
#include "kernels/ref/resize_taps.h"
#include "kernels/ref/tensor_util.h"

namespace tfn::kernels {

TFN_KERNEL(tfn_ref_resize);  // ref/resize.cc: what this kernel does not cover

namespace {

using namespace resize;  // NOLINT: the reference's modes and taps

constexpr int kMaxRowTaps = 64;  // outer tap products per row; more: the reference runs
constexpr int64_t kMinChunkElements = 16384;

struct AxisTable {  // one output coordinate of one axis
  int64_t offset[4];
  float weight[4];
  int32_t n;
};

// Scratch for the tables: one entry per output coordinate of each axis.
// None for an empty output (its other dims may be anything, INT64_MAX
// included); a sum that overflows asks for INT64_MAX bytes, which the run's
// memory limit or the allocation refuses with an error.
int64_t TableBytes(const TfnTensor& y) {
  int64_t entries = 0, bytes = 0;
  for (int d = 0; d < y.rank; ++d) {
    if (y.dims[d] == 0) return 0;
  }
  for (int d = 0; d < y.rank; ++d) {
    if (y.dims[d] < 0 || __builtin_add_overflow(entries, y.dims[d], &entries)) return INT64_MAX;
  }
  if (__builtin_mul_overflow(entries, static_cast<int64_t>(sizeof(AxisTable)), &bytes))
    return INT64_MAX;
  return bytes;
}

struct Job {
  const float* x;
  float* y;
  int outer;  // outer axes: 0 .. outer-1
  int64_t out_dims[TFN_KERNEL_MAX_RANK];
  const AxisTable* table[TFN_KERNEL_MAX_RANK];  // per axis, indexed by output coordinate
  int64_t cols;                                 // output length of the column axis
  int64_t run;                                  // L
  int64_t row_begin = 0, row_end = 0;           // the rows one call runs
};

typedef float V16 __attribute__((vector_size(64)));
constexpr int kMaxTaps = kMaxRowTaps * 4;  // row taps x a column's taps

// out[l] = sum_t w[t] * src[t][l] for l < run (run >= 16 here): whole
// 16-float vectors, two at a time (two independent chains of multiply-adds:
// one chain waits on each add, and a 21-channel segmentation head has just
// two vectors per pixel), the last ending at run (it may overlap the one
// before, which it rewrites with the same values). The taps are summed in
// the same order for every l, in a register: one store per element, where
// accumulating into the output read and wrote it once per tap.
TFN_OPT_INLINE void SumTapsVec(const float* const* src, const float* w, int nt, int64_t run,
                               float* out) {
  for (int64_t l = 0; l < run; l += 32) {
    const int64_t l0 = std::min(l, run - 16), l1 = std::min(l + 16, run - 16);
    V16 acc0 = {}, acc1 = {}, v0, v1;
    for (int t = 0; t < nt; ++t) {
      std::memcpy(&v0, src[t] + l0, sizeof(v0));
      std::memcpy(&v1, src[t] + l1, sizeof(v1));
      acc0 += w[t] * v0;
      acc1 += w[t] * v1;
    }
    std::memcpy(out + l0, &acc0, sizeof(acc0));
    std::memcpy(out + l1, &acc1, sizeof(acc1));
  }
}

// With run == 1 (the column axis is the last one: W of NCHW) an output row is
// sum_r ws[r] * h_r, where h_r[c] = sum_k w_ck * x[offs[r] + o_ck] is input
// row offs[r] interpolated along the columns. Consecutive output rows read
// the same input rows (each of them for 8 output rows of an 8x upsample), so
// the h rows are kept, keyed by offs[r]: the gathers run about once per
// input row, and each output row is a contiguous multiply-add of n h rows.
// Per element over the gathers of every tap: a segmentation head's NCHW
// 28x28 -> 224x224 resize ran 5x slower than the same resize over NHWC.
constexpr int kCachedRows = 4;            // bicubic's 4 row taps
constexpr int64_t kMaxCachedCols = 1024;  // RowCache: 32 KiB on the stack

struct RowCache {
  int64_t off[kCachedRows];
  int64_t used[kCachedRows];  // the output row that last read the slot
  alignas(64) float h[kCachedRows][kMaxCachedCols];
  // Linear's columns (1 or 2 taps each) as arrays, so that the loop that
  // fills an h row vectorizes (gathers); a 1-tap column has w1 = 0.
  bool two_taps;
  int32_t o0[kMaxCachedCols], o1[kMaxCachedCols];
  float w0[kMaxCachedCols], w1[kMaxCachedCols];
  // The tap products of the outer axes before the last one, for `plane`.
  int64_t plane;
  int plane_taps;
  int64_t plane_off[kCachedRows];
  float plane_w[kCachedRows];
};

TFN_OPT_INLINE void InitRowCache(const Job& j, RowCache& cache) {
  for (int s = 0; s < kCachedRows; ++s) cache.off[s] = cache.used[s] = -1;
  cache.plane = -1;
  const AxisTable* cols = j.table[j.outer];
  cache.two_taps = true;
  for (int64_t c = 0; c < j.cols && cache.two_taps; ++c) {
    const AxisTable& t = cols[c];
    const int64_t last = t.n == 2 ? t.offset[1] : t.offset[0];
    cache.two_taps = (t.n == 1 || t.n == 2) && t.offset[0] <= INT32_MAX && last <= INT32_MAX;
    cache.o0[c] = static_cast<int32_t>(t.offset[0]);
    cache.w0[c] = t.weight[0];
    cache.o1[c] = static_cast<int32_t>(last);
    cache.w1[c] = t.n == 2 ? t.weight[1] : 0.0f;
  }
}

// h row of input offset `off` for output row `row`, computed into a slot no
// other tap of this row uses when it is not cached.
TFN_OPT_INLINE const float* CachedRow(const Job& j, RowCache& cache, int64_t off, int64_t row) {
  int victim = 0;
  for (int s = 0; s < kCachedRows; ++s) {
    if (cache.off[s] == off) {
      cache.used[s] = row;
      return cache.h[s];
    }
    if (cache.used[s] < cache.used[victim]) victim = s;
  }
  cache.off[victim] = off;
  cache.used[victim] = row;
  float* h = cache.h[victim];
  const float* src = j.x + off;
  if (cache.two_taps) {  // the same sums as below; a missing second tap adds nothing
    for (int64_t c = 0; c < j.cols; ++c) {
      const float s = cache.w0[c] * src[cache.o0[c]];
      h[c] = opt::SelectBits(cache.w1[c] != 0.0f, s + cache.w1[c] * src[cache.o1[c]], s);
    }
    return h;
  }
  const AxisTable* cols = j.table[j.outer];
  for (int64_t c = 0; c < j.cols; ++c) {
    const AxisTable& t = cols[c];
    float s = 0;  // no taps (a coordinate outside the input with exclude_outside): 0
    if (t.n > 0) {
      s = t.weight[0] * src[t.offset[0]];  // one tap of weight 1: an exact copy
      for (int k = 1; k < t.n; ++k) s += t.weight[k] * src[t.offset[k]];
    }
    h[c] = s;
  }
  return h;
}

// One output row: the outer axes' tap products, then the column loop.
TFN_OPT_INLINE void RunRow(const Job& j, int64_t row) {
  int64_t offs[kMaxRowTaps];
  float ws[kMaxRowTaps];
  int n = 1;
  offs[0] = 0;
  ws[0] = 1;
  for (int64_t rest = row, d = j.outer - 1; d >= 0; --d) {
    const AxisTable& t = j.table[d][rest % j.out_dims[d]];
    rest /= j.out_dims[d];
    const int m = n;
    for (int k = t.n - 1; k >= 0; --k) {  // k = 0 last: it overwrites the products in place
      for (int r = 0; r < m; ++r) {
        offs[k * m + r] = offs[r] + t.offset[k];
        ws[k * m + r] = ws[r] * t.weight[k];
      }
    }
    n = m * t.n;
  }
  float* out = j.y + row * j.cols * j.run;
  const AxisTable* cols = j.table[j.outer];
  if (j.run == 1) {
    for (int64_t c = 0; c < j.cols; ++c) {
      const AxisTable& t = cols[c];
      if (n == 1 && t.n == 1) {  // nearest, or an integer coordinate: a copy
        out[c] = j.x[offs[0] + t.offset[0]];
        continue;
      }
      float acc = 0;
      for (int r = 0; r < n; ++r) {
        const float* src = j.x + offs[r];
        float s = 0;
        for (int k = 0; k < t.n; ++k) s += t.weight[k] * src[t.offset[k]];
        acc += ws[r] * s;
      }
      out[c] = acc;
    }
    return;
  }
  const float* src[kMaxTaps];
  float w[kMaxTaps];
  for (int64_t c = 0; c < j.cols; ++c, out += j.run) {
    const AxisTable& t = cols[c];
    if (n == 1 && t.n == 1) {
      std::memcpy(out, j.x + offs[0] + t.offset[0], static_cast<size_t>(j.run) * sizeof(float));
      continue;
    }
    int nt = 0;
    for (int r = 0; r < n; ++r) {
      for (int k = 0; k < t.n; ++k, ++nt) {
        w[nt] = ws[r] * t.weight[k];
        src[nt] = j.x + offs[r] + t.offset[k];
      }
    }
    if (j.run >= 16) {
      SumTapsVec(src, w, nt, j.run, out);
      continue;
    }
    for (int64_t l = 0; l < j.run; ++l) {
      float acc = 0;
      for (int k = 0; k < nt; ++k) acc += w[k] * src[k][l];
      out[l] = acc;
    }
  }
}

// RunRow for run == 1 through the cache of h rows. The tap products of the
// outer axes before the last one (N and C of NCHW) are the same for the
// H rows of a plane: they are computed once per plane.
TFN_OPT_INLINE void RunRowCached(const Job& j, int64_t row, RowCache& cache) {
  const int64_t rows_in_plane = j.out_dims[j.outer - 1];
  const int64_t plane = row / rows_in_plane;
  if (plane != cache.plane) {
    cache.plane = plane;
    cache.plane_taps = 1;
    cache.plane_off[0] = 0;
    cache.plane_w[0] = 1;
    for (int64_t rest = plane, d = j.outer - 2; d >= 0; --d) {
      const AxisTable& t = j.table[d][rest % j.out_dims[d]];
      rest /= j.out_dims[d];
      const int m = cache.plane_taps;
      if (m * t.n > kCachedRows) {
        cache.plane_taps = kCachedRows + 1;  // too many: RunRow
        break;
      }
      for (int k = t.n - 1; k >= 0; --k) {
        for (int r = 0; r < m; ++r) {
          cache.plane_off[k * m + r] = cache.plane_off[r] + t.offset[k];
          cache.plane_w[k * m + r] = cache.plane_w[r] * t.weight[k];
        }
      }
      cache.plane_taps = m * t.n;
    }
  }
  const AxisTable& t = j.table[j.outer - 1][row % rows_in_plane];
  const int n = cache.plane_taps * t.n;
  if (n < 1 || n > kCachedRows) {
    RunRow(j, row);
    return;
  }
  const float* h[kCachedRows];
  float ws[kCachedRows];
  for (int p = 0; p < cache.plane_taps; ++p) {
    for (int k = 0; k < t.n; ++k) {
      h[p * t.n + k] = CachedRow(j, cache, cache.plane_off[p] + t.offset[k], row);
      ws[p * t.n + k] = cache.plane_w[p] * t.weight[k];
    }
  }
  float* out = j.y + row * j.cols;
  for (int64_t c = 0; c < j.cols; ++c) out[c] = ws[0] * h[0][c];
  for (int r = 1; r < n; ++r) {
    const float* hr = h[r];
    const float w = ws[r];
    for (int64_t c = 0; c < j.cols; ++c) out[c] += w * hr[c];
  }
}

TFN_OPT_INLINE void RunRowsBody(const Job& j) {
  if (j.run == 1 && j.outer >= 1 && j.cols <= kMaxCachedCols) {
    RowCache cache;
    InitRowCache(j, cache);
    for (int64_t row = j.row_begin; row < j.row_end; ++row) RunRowCached(j, row, cache);
    return;
  }
  for (int64_t row = j.row_begin; row < j.row_end; ++row) RunRow(j, row);
}

TFN_OPT_MULTIVERSION(RunRowsIsa, Job, RunRowsBody)

void RunRows(void* arg, int64_t begin, int64_t end) {
  Job part = *static_cast<const Job*>(arg);
  part.row_begin = begin;
  part.row_end = end;
  RunRowsIsa(part);
}

}  // namespace

TFN_SCRATCH(tfn_opt_resize_scratch) { return TableBytes(outputs[0]); }

TFN_KERNEL(tfn_opt_resize) {
  const auto& p = *static_cast<const ResizeParams*>(params);
  const TfnTensor& x = inputs[0];
  const TfnTensor& y = outputs[0];
  const int rank = x.rank;
  if (x.dtype != static_cast<int32_t>(DType::kFloat32) || p.coord == resize::kCropResize) {
    return tfn_ref_resize(params, inputs, num_inputs, outputs, num_outputs, ctx);
  }
  if (y.rank != rank || rank < 1 || rank > TFN_KERNEL_MAX_RANK) return TFN_KERNEL_BAD_SHAPE;
  double scale[TFN_KERNEL_MAX_RANK], start[TFN_KERNEL_MAX_RANK], end[TFN_KERNEL_MAX_RANK];
  if (!resize::AxisScales(inputs, num_inputs, x, y, scale, start, end)) return TFN_KERNEL_BAD_SHAPE;
  const int64_t total = NumElementsOf(y);
  if (total == 0) return TFN_KERNEL_OK;
  for (int d = 0; d < rank; ++d) {
    if (x.dims[d] == 0) return TFN_KERNEL_BAD_SHAPE;
  }
  if (ctx->scratch_bytes < TableBytes(y)) return TFN_KERNEL_SCRATCH_TOO_SMALL;

  // The taps of every axis, and which axes the resize leaves alone.
  int64_t in_strides[TFN_KERNEL_MAX_RANK];
  StridesOf(x, in_strides);
  Job job;
  job.x = DataOf<float>(x);
  job.y = DataOf<float>(y);
  bool identity[TFN_KERNEL_MAX_RANK];
  AxisTable* next = static_cast<AxisTable*>(ctx->scratch);
  for (int d = 0; d < rank; ++d) {
    job.out_dims[d] = y.dims[d];
    job.table[d] = next;
    identity[d] = y.dims[d] == x.dims[d];
    for (int64_t c = 0; c < y.dims[d]; ++c, ++next) {
      resize::AxisTaps taps;
      resize::Taps(p,
                   resize::SourceCoord(p.coord, static_cast<double>(c), x.dims[d], scale[d],
                                       start[d], end[d]),
                   x.dims[d], &taps);
      next->n = taps.n;
      for (int k = 0; k < taps.n; ++k) {
        next->offset[k] = taps.index[k] * in_strides[d];
        next->weight[k] = static_cast<float>(taps.weight[k]);
      }
      identity[d] = identity[d] && taps.n == 1 && taps.index[0] == c && taps.weight[0] == 1;
    }
  }
  int col = rank;
  job.run = 1;
  while (col > 0 && identity[col - 1]) job.run *= y.dims[--col];
  if (col == 0) {  // nothing resized
    std::memcpy(job.y, job.x, static_cast<size_t>(total) * sizeof(float));
    return TFN_KERNEL_OK;
  }
  --col;
  job.outer = col;
  job.cols = y.dims[col];
  int64_t row_taps = 1;
  for (int d = 0; d < col; ++d) {
    int most = 0;
    for (int64_t c = 0; c < y.dims[d]; ++c) most = std::max<int>(most, job.table[d][c].n);
    row_taps *= most;
    if (row_taps > kMaxRowTaps)
      return tfn_ref_resize(params, inputs, num_inputs, outputs, num_outputs, ctx);
  }
  const int64_t rows = total / (job.cols * job.run);
  const int64_t min_rows = std::max<int64_t>(1, kMinChunkElements / (job.cols * job.run));
  if (ctx->parallel_for && ctx->num_threads > 1 && rows > min_rows) {
    ctx->parallel_for(ctx->pool, rows, min_rows, RunRows, &job);
  } else {
    RunRows(&job, 0, rows);
  }
  return TFN_KERNEL_OK;
}

}  // namespace tfn::kernels
