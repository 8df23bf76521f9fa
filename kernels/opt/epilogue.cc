// The fused epilogue (epilogue.h): plain loops over the rows of a tile,
// compiled for SSE2, AVX2 and AVX-512 (simd.h). Terms first (bias, then
// residual), then the activation, each a pass over the row while it is in L1.
#include "kernels/opt/epilogue.h"

#include "kernels/opt/simd.h"
#include "kernels/opt/vec_math.h"

namespace tfn::kernels {
namespace {

struct EpilogueJob {
  const GemmEpilogue* ep;
  float* c;
  int64_t ldc, i0, j0, rows, cols;
  bool terms;  // add bias and residual
};

template <class F>
TFN_OPT_INLINE void MapRow(float* row, int64_t n, F f) {
  for (int64_t j = 0; j < n; ++j) row[j] = f(row[j]);
}

// max(min(v * alpha + beta, 1), 0) as its ops round it (no contraction:
// the multiply and the add are separate statements, and the AOT bitcode is
// built with -ffp-contract=off); NaN passes, -0 becomes +0 (as maximum(-0, 0)).
TFN_OPT_INLINE float HardSigmoid(float v, float alpha, float beta) {
  float t = v * alpha;
  t = t + beta;
  t = vm::Select(t > 1.0f, 1.0f, t);
  return vm::Select(t <= 0.0f, 0.0f, t);
}

TFN_OPT_INLINE void ActivateRow(const GemmEpilogue& ep, float* row, int64_t n) {
  const float lo = ep.lo, hi = ep.hi, alpha = ep.alpha, beta = ep.beta;
  switch (ep.act) {
    case kActRelu:  // x < 0 ? 0 : x, NaN and -0 pass
      MapRow(row, n, [](float v) { return vm::Select(v < 0.0f, 0.0f, v); });
      break;
    case kActClip:  // maximum(x, lo) then minimum(.., hi): NaN passes
      MapRow(row, n, [lo, hi](float v) {
        v = vm::Select(v < lo, lo, v);
        return vm::Select(v > hi, hi, v);
      });
      break;
    case kActSigmoid:
      MapRow(row, n, [](float v) { return vm::Sigmoid(v); });
      break;
    case kActTanh:
      MapRow(row, n, [](float v) { return vm::Tanh(v); });
      break;
    case kActGelu:
      MapRow(row, n, [](float v) { return vm::GeluErf(v); });
      break;
    case kActGeluTanh:
      MapRow(row, n, [](float v) { return vm::GeluTanh(v); });
      break;
    case kActHardSigmoid:
      MapRow(row, n, [alpha, beta](float v) { return HardSigmoid(v, alpha, beta); });
      break;
    case kActHardSwish:
      MapRow(row, n, [alpha, beta](float v) { return v * HardSigmoid(v, alpha, beta); });
      break;
    case kActSilu:
      MapRow(row, n, [](float v) { return v * vm::Sigmoid(v); });
      break;
    default:
      break;
  }
}

TFN_OPT_INLINE void EpilogueBody(const EpilogueJob& job) {
  const GemmEpilogue& ep = *job.ep;
  for (int64_t r = 0; r < job.rows; ++r) {
    float* row = job.c + r * job.ldc;
    const int64_t n = job.cols;
    if (job.terms && ep.bias) {
      const float* b = ep.bias + job.j0;
      for (int64_t j = 0; j < n; ++j) row[j] += b[j];
    }
    if (job.terms && ep.residual) {
      const float* res = ep.residual + (job.i0 + r) * ep.ldr + job.j0;
      for (int64_t j = 0; j < n; ++j) row[j] += res[j];
    }
    ActivateRow(ep, row, n);
  }
}

TFN_OPT_MULTIVERSION(RunEpilogue, EpilogueJob, EpilogueBody)

}  // namespace

void ApplyEpilogue(const GemmEpilogue& ep, float* c, int64_t ldc, int64_t i0, int64_t j0,
                   int64_t rows, int64_t cols) {
  if (ep.empty() || rows <= 0 || cols <= 0) return;
  RunEpilogue(EpilogueJob{&ep, c, ldc, i0, j0, rows, cols, true});
}

void ApplyActivation(const GemmEpilogue& ep, float* c, int64_t ldc, int64_t rows, int64_t cols) {
  if (ep.act == kActNone || rows <= 0 || cols <= 0) return;
  RunEpilogue(EpilogueJob{&ep, c, ldc, 0, 0, rows, cols, false});
}

}  // namespace tfn::kernels
