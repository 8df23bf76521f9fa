// The optimized float32 fused_matmul (core/rules/rules_fused.h):
// act(a . b + bias + residual) as one GEMM (gemm.h) over a's rows flattened
// to [M, K], with the epilogue applied to each tile of the output right after
// its last K block (epilogue.h). A prepacked b (packed_n > 0, made ahead of
// time by ir/passes/prepack_weights) goes to GemmPrepacked, so nothing of b
// is packed per call; a plain b to Gemm (packed per call, or read in place
// by the skinny path for M <= 4). A prepacked bfloat16 b (made by
// prepack_weights from a bfloat16 weight whose matmul reads a rounded to
// bfloat16) goes to the bf16 GEMM (bf16_gemm.h). Results are identical for
// any thread count.
#include <algorithm>

#include "core/dtype.h"
#include "kernels/opt/bf16_gemm.h"
#include "kernels/opt/gemm.h"
#include "kernels/ref/ref_kernels.h"
#include "kernels/ref/tensor_util.h"

namespace tfn::kernels {
namespace {

struct Dims {
  int64_t M = 0, N = 0, K = 0;
};

bool Decode(const FusedMatMulParams& p, const TfnTensor* in, int32_t num_inputs,
            const TfnTensor& out, Dims* d) {
  const TfnTensor& a = in[0];
  const TfnTensor& b = in[1];
  if (a.rank < 2 || out.rank != a.rank || num_inputs < 2 + p.has_bias + p.has_residual) {
    return false;
  }
  d->K = a.dims[a.rank - 1];
  d->N = out.dims[out.rank - 1];
  d->M = 1;
  for (int i = 0; i + 1 < a.rank; ++i) {
    if (out.dims[i] != a.dims[i]) return false;
    d->M *= a.dims[i];
  }
  if (b.dtype == static_cast<int32_t>(DType::kBFloat16)) {  // prepacked only (select.cc)
    if (p.packed_n <= 0 || b.rank != 3 ||
        b.dims[0] != (d->N + kBf16PanelWidth - 1) / kBf16PanelWidth ||
        b.dims[1] != (d->K + 1) / 2 || b.dims[2] != kBf16PanelRowElems || d->N != p.packed_n) {
      return false;
    }
  } else if (p.packed_n > 0) {
    if (b.rank != 3 || b.dims[0] != (d->N + kGemmPanelWidth - 1) / kGemmPanelWidth ||
        b.dims[1] != d->K || b.dims[2] != kGemmPanelWidth || d->N != p.packed_n) {
      return false;
    }
  } else if (b.rank != 2 || b.dims[p.transpose_b ? 1 : 0] != d->K ||
             b.dims[p.transpose_b ? 0 : 1] != d->N) {
    return false;
  }
  if (p.has_bias && NumElementsOf(in[2]) != d->N) return false;
  if (p.has_residual && NumElementsOf(in[2 + p.has_bias]) != d->M * d->N) return false;
  return true;
}

}  // namespace

TFN_SCRATCH(tfn_opt_fused_matmul_scratch) {
  const auto& p = *static_cast<const FusedMatMulParams*>(params);
  Dims d;
  if (num_outputs != 1 || !Decode(p, inputs, num_inputs, outputs[0], &d)) return 0;
  // Enough for up to kGemmMaxThreads threads (the thread count is not known here).
  if (inputs[1].dtype == static_cast<int32_t>(DType::kBFloat16)) {
    return Bf16GemmScratchBytes(d.M, d.N, d.K, kBf16GemmMaxThreads);
  }
  return p.packed_n > 0 ? GemmPrepackedScratchBytes(d.M, d.N, d.K, kGemmMaxThreads)
                        : GemmScratchBytes(d.M, d.N, d.K, kGemmMaxThreads);
}

TFN_KERNEL(tfn_opt_fused_matmul) {
  const auto& p = *static_cast<const FusedMatMulParams*>(params);
  const int32_t f32 = static_cast<int32_t>(DType::kFloat32);
  if (num_outputs != 1) return TFN_KERNEL_BAD_SHAPE;
  const bool bf16 = inputs[1].dtype == static_cast<int32_t>(DType::kBFloat16);
  for (int i = 0; i < num_inputs; ++i) {
    if (inputs[i].dtype != f32 && !(i == 1 && bf16)) return TFN_KERNEL_UNSUPPORTED;
  }
  if (outputs[0].dtype != f32) return TFN_KERNEL_UNSUPPORTED;
  Dims d;
  if (!Decode(p, inputs, num_inputs, outputs[0], &d)) return TFN_KERNEL_BAD_SHAPE;
  GemmEpilogue ep;
  ep.bias = p.has_bias ? DataOf<float>(inputs[2]) : nullptr;
  ep.residual = p.has_residual ? DataOf<float>(inputs[2 + p.has_bias]) : nullptr;
  ep.ldr = d.N;
  ep.act = p.activation;
  ep.lo = p.clip_min;
  ep.hi = p.clip_max;
  ep.alpha = p.act_alpha;
  ep.beta = p.act_beta;
  const float* a = DataOf<float>(inputs[0]);
  const float* b = DataOf<float>(inputs[1]);
  float* c = DataOf<float>(outputs[0]);
  void* scratch = ctx ? ctx->scratch : nullptr;
  const int64_t bytes = ctx ? ctx->scratch_bytes : 0;
  if (bf16) {
    return Bf16Gemm(d.M, d.N, d.K, a, d.K, DataOf<uint16_t>(inputs[1]), c, d.N, &ep, scratch, bytes,
                    ctx);
  }
  if (p.packed_n > 0) {
    return GemmPrepacked(d.M, d.N, d.K, a, d.K, false, b, c, d.N, false, scratch, bytes, ctx, &ep);
  }
  const int64_t ldb = p.transpose_b ? d.K : d.N;
  return Gemm(d.M, d.N, d.K, a, d.K, false, b, ldb, p.transpose_b != 0, c, d.N, false, scratch,
              bytes, ctx, &ep);
}

}  // namespace tfn::kernels
