// AVX-512 float32 rows for normalize.cc's softmax, log_softmax and
// layer_norm: the same arithmetic as its generic rows, in explicit vectors
// (normalize_avx512.cc says why). Reentrant; rows [begin, end) of a
// row-major [rows, cols] tensor, y may be x.
#pragma once

#include <cmath>
#include <cstdint>

namespace tfn::kernels::opt {

// layer_norm's mean and 1 / sqrt(var + epsilon) from the row's sums shifted
// by its first element x0 (t1 = sum(x - x0), t2 = sum((x - x0)^2)), shared
// by these rows and normalize.cc's generic ones.
struct LayerNormStats {
  double mean, inv_std;
};
inline LayerNormStats StatsOfShiftedSums(double t1, double t2, int64_t n, double x0,
                                         double epsilon) {
  const double dn = static_cast<double>(n);
  double var = (t2 - t1 * (t1 / dn)) / dn;
  var = var < 0 ? 0 : var;
  return {x0 + t1 / dn, 1.0 / std::sqrt(var + epsilon)};
}

// Softmax (log: log_softmax) of rows [begin, end); false (nothing written)
// when the CPU or the instruction-set cap has no AVX-512.
bool SoftmaxRowsAvx512(const float* x, float* y, int64_t cols, int64_t begin, int64_t end,
                       bool log);

// layer_norm of rows [begin, end) over `cols` elements with per-element
// scale and bias; false as above.
bool LayerNormRowsAvx512(const float* x, const float* scale, const float* bias, float* y,
                         int64_t cols, double epsilon, int64_t begin, int64_t end);

}  // namespace tfn::kernels::opt
