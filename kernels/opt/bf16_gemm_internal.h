// Internal interface between the bf16 GEMM driver (bf16_gemm.cc) and its
// AVX512-BF16 microkernel (bf16_gemm_avx512.cc). Not public.
//
// Layouts, the same for every ISA:
//   A: kBMr rows of bfloat16, row r at a + r * lda (elements), depth k at
//      + k; rows hold 2 * k2 values (a zero after an odd K);
//   B: one panel of core/packed_layout.h's bfloat16 layout: the pair row g
//      at b + g * kBf16PanelRowElems, column j's two depths at + 2j.
#pragma once

#include <cstdint>

#include "core/packed_layout.h"

namespace tfn::kernels::bf16_gemm_internal {

inline constexpr int kBMr = 12;
inline constexpr int kBNr = kBf16PanelWidth;

// c[r * kBNr + j] = sum over the k2 depth pairs of A row r times B panel
// column j, for rows r < `rows` (1..kBMr) and columns j < 16 (`half`) or
// < kBNr (float32 sums of exact products: per pair, the odd depth's product
// is added first, as vdpbf16ps does). A tile of fewer rows or columns does
// less work: a single-row or narrow GEMM is not 12 x 32 tiles of padding.
using Bf16KernelFn = void (*)(int64_t k2, const uint16_t* a, int64_t lda, const uint16_t* b,
                              float* c, int rows, bool half);

// Portable C++; AVX512-BF16 (vdpbf16ps); AVX-512F without BF16, each bfloat16
// widened to float32 (a shift or a mask) and multiplied-added by FMA: the
// same rounding as vdpbf16ps (the products are exact), at float32's rate.
void Bf16KernelPortable(int64_t k2, const uint16_t* a, int64_t lda, const uint16_t* b, float* c,
                        int rows, bool half);
#if defined(__x86_64__)
void Bf16KernelAvx512Bf16(int64_t k2, const uint16_t* a, int64_t lda, const uint16_t* b, float* c,
                          int rows, bool half);
void Bf16KernelAvx512F(int64_t k2, const uint16_t* a, int64_t lda, const uint16_t* b, float* c,
                       int rows, bool half);
#endif

}  // namespace tfn::kernels::bf16_gemm_internal

#if defined(TFN_AOT_BITCODE)
// 1 when the AOT target has AVX512-BF16: defined by aot/compiler.cc in every
// module it links the kernels into (a constant LLVM folds, as for VNNI).
extern "C" const int32_t tfn_aot_target_has_bf16;
#endif

namespace tfn::kernels::bf16_gemm_internal {}  // namespace tfn::kernels::bf16_gemm_internal
