// The optimized float32 matmul kernel: batched, NumPy-broadcast batch dims,
// transpose_a/transpose_b (core/rules/rules_linalg.h InferMatMul), one GEMM
// (gemm.h) per batch element. Batches of small matrices, and of medium ones
// that the threads divide evenly, run in parallel over the batch (whole
// GEMMs per thread: no sync per GEMM, B packed once, not by every thread);
// larger ones split each GEMM across the threads instead.
// Either way every output element is computed identically (gemm.h).
#include <algorithm>
#include <atomic>

#include "core/dtype.h"
#include "kernels/opt/gemm.h"
#include "kernels/ref/ref_kernels.h"
#include "kernels/ref/tensor_util.h"

namespace tfn::kernels {
namespace {

constexpr int64_t kSmallGemmMacs = int64_t{1} << 18;
// Up to this size a batch that is a multiple of the thread count runs whole
// GEMMs per thread: attention's small per-head GEMMs scale better split
// over the heads than each split across the threads (bench/RESULTS.md,
// "Figures behind kernel choices").
constexpr int64_t kMediumGemmMacs = int64_t{1} << 22;

struct MatMulDims {
  int64_t M = 0, N = 0, K = 0;
  int64_t lda = 0, ldb = 0;
  int64_t batch = 1;  // product of the output's batch dims
  int batch_rank = 0;
  int64_t batch_dims[TFN_KERNEL_MAX_RANK] = {};
  int64_t a_stride[TFN_KERNEL_MAX_RANK] = {};  // element strides per batch dim, 0: broadcast
  int64_t b_stride[TFN_KERNEL_MAX_RANK] = {};
};

// Strides of the batch dims of `t` (rank >= 2) as seen from an output with
// `batch_rank` batch dims: aligned on the right, 0 where broadcast.
bool BatchStrides(const TfnTensor& t, const MatMulDims& d, int64_t* strides) {
  int64_t s = t.dims[t.rank - 1] * t.dims[t.rank - 2];
  for (int i = d.batch_rank - 1; i >= 0; --i) {
    const int j = t.rank - 2 - (d.batch_rank - i);
    if (j < 0) {
      strides[i] = 0;
      continue;
    }
    if (t.dims[j] != 1 && t.dims[j] != d.batch_dims[i]) return false;
    strides[i] = t.dims[j] == 1 ? 0 : s;
    s *= t.dims[j];
  }
  return true;
}

bool Decode(const MatMulParams& p, const TfnTensor* in, const TfnTensor& out, MatMulDims* d) {
  const TfnTensor& a = in[0];
  const TfnTensor& b = in[1];
  if (a.rank < 2 || b.rank < 2 || out.rank != std::max(a.rank, b.rank)) return false;
  d->M = p.transpose_a ? a.dims[a.rank - 1] : a.dims[a.rank - 2];
  d->K = p.transpose_a ? a.dims[a.rank - 2] : a.dims[a.rank - 1];
  const int64_t kb = p.transpose_b ? b.dims[b.rank - 1] : b.dims[b.rank - 2];
  d->N = p.transpose_b ? b.dims[b.rank - 2] : b.dims[b.rank - 1];
  if (kb != d->K || out.dims[out.rank - 2] != d->M || out.dims[out.rank - 1] != d->N) return false;
  d->lda = a.dims[a.rank - 1];
  d->ldb = b.dims[b.rank - 1];
  d->batch_rank = out.rank - 2;
  for (int i = 0; i < d->batch_rank; ++i) {
    d->batch_dims[i] = out.dims[i];
    d->batch *= out.dims[i];
  }
  return BatchStrides(a, *d, d->a_stride) && BatchStrides(b, *d, d->b_stride);
}

// Offsets of batch element `index` in a and b.
void BatchOffsets(const MatMulDims& d, int64_t index, int64_t* a_off, int64_t* b_off) {
  *a_off = *b_off = 0;
  for (int i = d.batch_rank - 1; i >= 0; --i) {
    const int64_t x = index % d.batch_dims[i];
    index /= d.batch_dims[i];
    *a_off += x * d.a_stride[i];
    *b_off += x * d.b_stride[i];
  }
}

int Threads(const TfnKernelContext* ctx) {
  if (!ctx || !ctx->parallel_for) return 1;
  return std::clamp(ctx->num_threads, 1, kGemmMaxThreads);
}

// Whether GEMMs may run whole on one thread each, in parallel over the batch
// (the scratch has a slot per thread for them).
bool BatchSlots(const MatMulDims& d) { return d.batch >= 2 && d.M * d.N * d.K <= kMediumGemmMacs; }

// Whether they do with `threads` threads: small GEMMs always; medium ones
// when every thread gets as many; larger ones split across the threads.
bool ByBatch(const MatMulDims& d, int threads) {
  if (!BatchSlots(d)) return false;
  return d.M * d.N * d.K < kSmallGemmMacs || d.batch % threads == 0;
}

}  // namespace

TFN_SCRATCH(tfn_opt_matmul_scratch) {
  MatMulDims d;
  if (num_inputs != 2 || num_outputs != 1 ||
      !Decode(*static_cast<const MatMulParams*>(params), inputs, outputs[0], &d)) {
    return 0;
  }
  // Enough for up to kGemmMaxThreads threads (the thread count is not known here).
  const int64_t per_gemm = GemmScratchBytes(d.M, d.N, d.K, kGemmMaxThreads);
  const int64_t per_batch =
      BatchSlots(d) ? kGemmMaxThreads * GemmScratchBytes(d.M, d.N, d.K, 1) : 0;
  return std::max(per_gemm, per_batch);
}

TFN_KERNEL(tfn_opt_matmul) {
  if (num_inputs != 2 || num_outputs != 1) return TFN_KERNEL_BAD_SHAPE;
  const int32_t f32 = static_cast<int32_t>(DType::kFloat32);
  if (inputs[0].dtype != f32 || inputs[1].dtype != f32 || outputs[0].dtype != f32) {
    return TFN_KERNEL_UNSUPPORTED;
  }
  const auto& p = *static_cast<const MatMulParams*>(params);
  MatMulDims d;
  if (!Decode(p, inputs, outputs[0], &d)) return TFN_KERNEL_BAD_SHAPE;
  const float* a = DataOf<float>(inputs[0]);
  const float* b = DataOf<float>(inputs[1]);
  float* c = DataOf<float>(outputs[0]);
  const bool ta = p.transpose_a != 0, tb = p.transpose_b != 0;
  void* scratch = ctx ? ctx->scratch : nullptr;
  const int64_t scratch_bytes = ctx ? ctx->scratch_bytes : 0;

  const int threads = Threads(ctx);
  const int64_t slot = GemmScratchBytes(d.M, d.N, d.K, 1);
  if (threads > 1 && ByBatch(d, threads) && slot > 0 && threads * slot <= scratch_bytes) {
    std::atomic<int32_t> status{TFN_KERNEL_OK};
    auto run = [&](int64_t begin, int64_t end) {
      // The chunk's first index names its scratch slot (chunks run concurrently).
      void* mine = static_cast<unsigned char*>(scratch) + begin * slot;
      for (int64_t t = begin; t < end; ++t) {
        for (int64_t i = t; i < d.batch; i += threads) {
          int64_t ao, bo;
          BatchOffsets(d, i, &ao, &bo);
          int32_t s = Gemm(d.M, d.N, d.K, a + ao, d.lda, ta, b + bo, d.ldb, tb, c + i * d.M * d.N,
                           d.N, false, mine, slot, nullptr);
          if (s != TFN_KERNEL_OK) status.store(s);
        }
      }
    };
    ParallelFor(ctx, threads, 1, run);
    return status.load();
  }
  for (int64_t i = 0; i < d.batch; ++i) {
    int64_t ao, bo;
    BatchOffsets(d, i, &ao, &bo);
    int32_t s = Gemm(d.M, d.N, d.K, a + ao, d.lda, ta, b + bo, d.ldb, tb, c + i * d.M * d.N, d.N,
                     false, scratch, scratch_bytes, ctx);
    if (s != TFN_KERNEL_OK) return s;
  }
  return TFN_KERNEL_OK;
}

}  // namespace tfn::kernels
