// float32 <-> float16 / bfloat16 casts with AVX-512 (F16C's conversions in
// 512-bit form, and bfloat16 rounding in integer lanes): the casts an
// imported float16 model spends its extra time in, since the importer
// computes its ops in float32 between casts. Bit-identical to the
// reference conversions (core/half.h).
#pragma once

#include <cstdint>

#include "core/dtype.h"

namespace tfn::kernels::opt {

// Converts elements [begin, end) of x (dtype from) into y (dtype to) and
// returns true when the pair is one this handles on this CPU; false (nothing
// written) otherwise. bfloat16_truncate: drop the low bits (ONNX's Cast).
bool CastHalfRange(DType from, DType to, const void* x, void* y, int64_t begin, int64_t end,
                   bool bfloat16_truncate);

}  // namespace tfn::kernels::opt
