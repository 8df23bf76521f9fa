// Optimized quantize_linear / dequantize_linear for the case models run on
// their activations: float32 <-> int8/uint8 with one scale and zero point
// for the whole tensor. Vectorized loops (simd.h's multiversioning), split
// between threads; results equal the reference kernels' (ref/quantize.cc):
//   quantize:   saturate(round_half_even(x / scale) + zero_point), NaN -> 0
//   dequantize: float(x - zero_point) * scale
// Per-axis scales and other dtypes keep the reference kernels (select.cc).
#include <cstdint>

#include "kernels/opt/simd.h"
#include "kernels/ref/ref_kernels.h"
#include "kernels/ref/tensor_util.h"

namespace tfn::kernels {
namespace {

struct QJob {
  const void* in;
  void* out;
  int64_t begin, end;
  float scale;
  int32_t zero_point, qmin, qmax;
};

template <class Q>
TFN_OPT_INLINE void QuantizeBody(const QJob& j) {
  const auto* x = static_cast<const float*>(j.in);
  Q* y = static_cast<Q*>(j.out);
  // Clamping x / scale to [qmin - zp, qmax - zp] before rounding equals
  // saturating after it (integer bounds); the rounding constant then rounds
  // half to even exactly (|value| < 2^22). `f < hi ? f : hi` sends NaN to
  // hi; the select after it gives NaN the reference's 0.
  const float lo = static_cast<float>(j.qmin - j.zero_point);
  const float hi = static_cast<float>(j.qmax - j.zero_point);
  constexpr float kRound = 12582912.0f;  // 1.5 * 2^23
  // Locals, not j's fields: a store through Q* (a char type) may alias j,
  // and reloading its fields after every store kept the loop scalar (1.2 ns
  // an element instead of 0.1).
  const float scale = j.scale;
  const int32_t zero_point = j.zero_point;
  const int64_t end = j.end;
  for (int64_t i = j.begin; i < end; ++i) {
    float f = x[i] / scale;
    const bool nan = f != f;
    f = f < hi ? f : hi;
    f = f > lo ? f : lo;
    const int32_t q = static_cast<int32_t>((f + kRound) - kRound) + zero_point;
    y[i] = static_cast<Q>(nan ? 0 : q);
  }
}

template <class Q>
TFN_OPT_INLINE void DequantizeBody(const QJob& j) {
  const Q* x = static_cast<const Q*>(j.in);
  auto* y = static_cast<float*>(j.out);
  for (int64_t i = j.begin; i < j.end; ++i) {
    y[i] = static_cast<float>(static_cast<int32_t>(x[i]) - j.zero_point) * j.scale;
  }
}

TFN_OPT_MULTIVERSION(QuantizeU8, QJob, QuantizeBody<uint8_t>)
TFN_OPT_MULTIVERSION(QuantizeS8, QJob, QuantizeBody<int8_t>)
TFN_OPT_MULTIVERSION(DequantizeU8, QJob, DequantizeBody<uint8_t>)
TFN_OPT_MULTIVERSION(DequantizeS8, QJob, DequantizeBody<int8_t>)

}  // namespace

TFN_KERNEL(tfn_ref_quantize_linear);
TFN_KERNEL(tfn_ref_dequantize_linear);

namespace {

int32_t Run(const void* params, const TfnTensor* inputs, int32_t num_inputs, TfnTensor* outputs,
            int32_t num_outputs, const TfnKernelContext* ctx, bool quantize) {
  const TfnTensor& q = quantize ? outputs[0] : inputs[0];
  const bool is_signed = q.dtype == static_cast<int32_t>(DType::kInt8);
  if (NumElementsOf(inputs[1]) != 1 || (num_inputs > 2 && NumElementsOf(inputs[2]) != 1)) {
    // Per-axis scales (weights no island took): the reference kernel.
    return (quantize ? tfn_ref_quantize_linear : tfn_ref_dequantize_linear)(
        params, inputs, num_inputs, outputs, num_outputs, ctx);
  }
  QJob job{inputs[0].data,
           outputs[0].data,
           0,
           0,
           *static_cast<const float*>(inputs[1].data),
           0,
           is_signed ? -128 : 0,
           is_signed ? 127 : 255};
  if (num_inputs > 2) {
    job.zero_point = is_signed ? *static_cast<const int8_t*>(inputs[2].data)
                               : *static_cast<const uint8_t*>(inputs[2].data);
  }
  void (*fn)(const QJob&) =
      quantize ? (is_signed ? QuantizeS8 : QuantizeU8) : (is_signed ? DequantizeS8 : DequantizeU8);
  auto part = [&](int64_t b, int64_t e) {
    QJob p = job;
    p.begin = b;
    p.end = e;
    fn(p);
  };
  ParallelFor(ctx, NumElementsOf(outputs[0]), opt::kMinParallelChunk, part);
  return TFN_KERNEL_OK;
}

}  // namespace

TFN_KERNEL(tfn_opt_quantize_linear) {
  return Run(params, inputs, num_inputs, outputs, num_outputs, ctx, true);
}
TFN_KERNEL(tfn_opt_dequantize_linear) {
  return Run(params, inputs, num_inputs, outputs, num_outputs, ctx, false);
}

}  // namespace tfn::kernels
