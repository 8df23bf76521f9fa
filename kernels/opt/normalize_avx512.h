// AVX-512 float32 rows for normalize.cc's softmax, log_softmax and
// layer_norm: the same arithmetic as its generic rows, in explicit vectors
// (normalize_avx512.cc says why). Reentrant; rows [begin, end) of a
// row-major [rows, cols] tensor, y may be x.
#pragma once

#include <cstdint>

namespace tfn::kernels::opt {

// Softmax (log: log_softmax) of rows [begin, end); false (nothing written)
// when the CPU or the instruction-set cap has no AVX-512.
bool SoftmaxRowsAvx512(const float* x, float* y, int64_t cols, int64_t begin, int64_t end,
                       bool log);

// layer_norm of rows [begin, end) over `cols` elements with per-element
// scale and bias; false as above.
bool LayerNormRowsAvx512(const float* x, const float* scale, const float* bias, float* y,
                         int64_t cols, double epsilon, int64_t begin, int64_t end);

}  // namespace tfn::kernels::opt
