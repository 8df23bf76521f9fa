// Optimized qlinear_add for the case QDQ graphs have: a, b and y all uint8
// or all int8. A vectorized loop (simd.h's multiversioning) split between
// threads, one pass over the three tensors where the unfused island took
// four (dequantize a, dequantize b, add(+relu), quantize). Its arithmetic is
// ref/qlinear_add.h's, operation for operation, so the results equal the
// reference kernel's (opt/qlinear_add_test.cc); the quantizing step clamps
// before rounding, which equals saturating after it (opt/quantize.cc).
#include <cstdint>

#include "kernels/opt/simd.h"
#include "kernels/ref/qlinear_add.h"
#include "kernels/ref/ref_kernels.h"
#include "kernels/ref/tensor_util.h"

namespace tfn::kernels {
namespace {

struct AddJob {
  const void *a, *b;
  void* y;
  int64_t begin, end;
  QLinearAddScalars k;
};

template <class Q>
TFN_OPT_INLINE void AddBody(const AddJob& j) {
  const Q* a = static_cast<const Q*>(j.a);
  const Q* b = static_cast<const Q*>(j.b);
  Q* y = static_cast<Q*>(j.y);
  // Locals, not j.k's fields: stores through Q* (a char type) may alias
  // anything, and reloading the fields after each store blocks vectorizing.
  const float a_scale = j.k.a_scale, b_scale = j.k.b_scale, y_scale = j.k.y_scale;
  const int32_t a_zero = j.k.a_zero, b_zero = j.k.b_zero, y_zero = j.k.y_zero;
  // relu as a lower bound of the sum: s < 0 -> 0 (NaN passes, as relu's).
  const float floor = j.k.relu ? 0.0f : -__builtin_inff();
  const float lo = static_cast<float>(j.k.y_min - y_zero);
  const float hi = static_cast<float>(j.k.y_max - y_zero);
  constexpr float kRound = 12582912.0f;  // 1.5 * 2^23: rounds half to even below 2^22
  const int64_t end = j.end;
  for (int64_t i = j.begin; i < end; ++i) {
    const float da = static_cast<float>(static_cast<int32_t>(a[i]) - a_zero) * a_scale;
    const float db = static_cast<float>(static_cast<int32_t>(b[i]) - b_zero) * b_scale;
    float s = da + db;
    s = s < floor ? 0.0f : s;
    float f = s / y_scale;
    const bool nan = f != f;
    f = f < hi ? f : hi;
    f = f > lo ? f : lo;
    const int32_t q = static_cast<int32_t>((f + kRound) - kRound) + y_zero;
    y[i] = static_cast<Q>(nan ? 0 : q);
  }
}

TFN_OPT_MULTIVERSION(QLinearAddU8, AddJob, AddBody<uint8_t>)
TFN_OPT_MULTIVERSION(QLinearAddS8, AddJob, AddBody<int8_t>)

}  // namespace

TFN_KERNEL(tfn_ref_qlinear_add);

TFN_KERNEL(tfn_opt_qlinear_add) {
  const TfnTensor& y = outputs[0];
  if (inputs[0].dtype != y.dtype || inputs[3].dtype != y.dtype) {
    return tfn_ref_qlinear_add(params, inputs, num_inputs, outputs, num_outputs, ctx);
  }
  AddJob job{inputs[0].data, inputs[3].data, y.data, 0, 0, {}};
  const bool relu = static_cast<const QLinearAddParams*>(params)->relu != 0;
  if (int32_t code = QLinearAddScalarsOf(inputs, y, relu, &job.k)) return code;
  void (*fn)(const AddJob&) =
      y.dtype == static_cast<int32_t>(DType::kInt8) ? QLinearAddS8 : QLinearAddU8;
  auto part = [&](int64_t begin, int64_t end) {
    AddJob p = job;
    p.begin = begin;
    p.end = end;
    fn(p);
  };
  ParallelFor(ctx, NumElementsOf(y), opt::kMinParallelChunk, part);
  return TFN_KERNEL_OK;
}

}  // namespace tfn::kernels
