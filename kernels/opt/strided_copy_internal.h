// Internal interface between the strided copy (strided_copy.cc) and its
// AVX-512 interleave (strided_copy_avx512.cc). Not public.
#pragma once

#include <cstdint>

namespace tfn::kernels::strided_internal {

// out[j * ni + i] = src[i * si + j] for j < n, i < ni, when ni is 2, 3 or 4
// and the kernel is compiled in (x86-64): then true; else false and nothing
// is written. Call only on a CPU with AVX-512.
bool InterleaveRowsAvx512(const uint32_t* src, int64_t si, int ni, int64_t n, uint32_t* out);

}  // namespace tfn::kernels::strided_internal
