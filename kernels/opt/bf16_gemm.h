// bfloat16 GEMM with float32 accumulation, the kernel of a fused_matmul whose
// b is bfloat16 (what `tfn-quantize --bf16` makes):
//
//   C[M,N] = epilogue(bf16(A)[M,K] * B[K,N])
//
// A is float32, rounded to bfloat16 (nearest even, as tfn's cast rounds) as
// it is packed; B is bfloat16, prepacked in the panel layout of
// core/packed_layout.h (kBf16PanelWidth). Each product of two bfloat16 values
// is exact in float32; the products are summed in float32. The epilogue is
// the float32 GEMM's (epilogue.h), applied to each finished tile.
//
// Instruction sets: AVX512-BF16 (vdpbf16ps: two products per lane added to a
// float32 accumulator), AVX-512F (the bfloat16 values widened to float32 and
// FMAs: float32's rate) and portable C++ (the same products and sums, in the
// same order per pair), chosen at run time by CPUID (kernels/opt/simd.h);
// AOT objects by their target. They may differ in the rounding of the sums
// and in denormals (vdpbf16ps flushes them to zero); bf16_gemm_test.cc
// states the tolerance against a double-precision sum of the same products.
//
// Memory: no allocation; the caller passes Bf16GemmScratchBytes(...) bytes of
// scratch (any alignment). Threads: with ctx->parallel_for the work splits
// into column blocks and row ranges; every element is computed the same way
// whatever the thread count. Reentrant.
#pragma once

#include <cstdint>

#include "core/packed_layout.h"
#include "kernels/kernel_abi.h"
#include "kernels/opt/epilogue.h"

namespace tfn::kernels {

// The largest thread count a Bf16Gemm uses (extra threads are ignored).
inline constexpr int kBf16GemmMaxThreads = 8;

// Elements (uint16_t) of a packed [K, N] bfloat16 B.
int64_t Bf16PackedBElems(int64_t K, int64_t N);

// Packs b(k, j) = B[k * rs + j * cs] (bfloat16 bits) into `packed`
// (Bf16PackedBElems(K, N) elements).
void Bf16PackB(int64_t K, int64_t N, const uint16_t* B, int64_t rs, int64_t cs, uint16_t* packed);

// Scratch bytes for an M x N x K Bf16Gemm on up to `threads` threads.
int64_t Bf16GemmScratchBytes(int64_t M, int64_t N, int64_t K, int threads);

// C = epilogue(bf16(A) * packed_b): a(i, k) = A[i * lda + k], c(i, j) =
// C[i * ldc + j]; `ep` may be null. TFN_KERNEL_SCRATCH_TOO_SMALL when
// scratch_bytes < Bf16GemmScratchBytes(M, N, K, 1) (fewer threads run when
// the scratch has too few slots for ctx->num_threads).
int32_t Bf16Gemm(int64_t M, int64_t N, int64_t K, const float* A, int64_t lda,
                 const uint16_t* packed_b, float* C, int64_t ldc, const GemmEpilogue* ep,
                 void* scratch, int64_t scratch_bytes, const TfnKernelContext* ctx);

// The microkernel Bf16Gemm uses now: "avx512bf16", "avx512" or "portable"
// (simd.h's ISA cap lowers it, so tests and benchmarks run each).
const char* Bf16GemmKernelName();

// Whether vdpbf16ps may be used where the CPU has it (default true), so
// tests run the AVX-512F kernel on such a CPU too; returns the previous
// setting. A process-wide test switch: not while GEMMs run on other threads.
bool Bf16GemmAllowVdpbf16psForTesting(bool allow);

}  // namespace tfn::kernels
