// Single-precision GEMM for the optimized kernels (matmul today, conv later):
//
//   C[M,N] = A[M,K] * B[K,N]        (accumulate = false)
//   C[M,N] += A[M,K] * B[K,N]       (accumulate = true)
//
// in the BLIS/GotoBLAS style: B is packed into column panels that stay in L2,
// A into row micro-panels that stay in L1, and a register-blocked microkernel
// (AVX-512 14x32, AVX2+FMA 6x16 or portable 4x16, picked at run time) computes
// each tile. Edge tiles are exact (no out-of-bounds reads or writes).
//
// Operands are row-major with arbitrary row strides (ld*, in elements):
//   trans_a == false: a(i,k) = A[i*lda + k]    trans_a == true: a(i,k) = A[k*lda + i]
//   trans_b == false: b(k,j) = B[k*ldb + j]    trans_b == true: b(k,j) = B[j*ldb + k]
//   c(i,j) = C[i*ldc + j]
// K == 0 gives C = 0 (or leaves C unchanged when accumulating).
//
// Memory: the functions never allocate. The caller passes scratch memory of at
// least GemmScratchBytes(...) bytes (any alignment; the GEMM aligns inside it).
//
// Threads: with ctx->parallel_for and ctx->num_threads > 1, a GEMM splits C
// into up to `threads` disjoint blocks (columns, or rows when N is narrow),
// each with its own slice of the scratch memory. Every element of C is
// computed by the same sequence of operations whatever the thread count, so
// results are bitwise identical for 1 and more threads (and between the packed
// and the prepacked-B entry points). They may differ between ISAs (rounding).
//
// All functions are reentrant; calls may run concurrently when their C and
// scratch memory differ. GemmForceIsa is the exception (a process-wide test
// switch, see below).
#pragma once

#include <cstdint>

#include "core/packed_layout.h"
#include "kernels/kernel_abi.h"
#include "kernels/opt/epilogue.h"

namespace tfn::kernels {

// The largest thread count a single GEMM uses (extra threads are ignored).
inline constexpr int kGemmMaxThreads = 8;

// Scratch bytes for Gemm with these sizes and up to `threads` threads.
int64_t GemmScratchBytes(int64_t M, int64_t N, int64_t K, int threads);

// C (+)= op(A) * op(B); see the top of this file for the layout conventions.
// Returns TFN_KERNEL_SCRATCH_TOO_SMALL when scratch_bytes is below
// GemmScratchBytes(M, N, K, 1); with less than the amount for
// ctx->num_threads threads it runs on as many threads as the scratch allows.
// `ep` (epilogue.h; with accumulate == false): bias, residual and activation
// applied to each tile of C right after its last K block, while it is in L1
// (row and column indices of the epilogue are those of C).
int32_t Gemm(int64_t M, int64_t N, int64_t K, const float* A, int64_t lda, bool trans_a,
             const float* B, int64_t ldb, bool trans_b, float* C, int64_t ldc, bool accumulate,
             void* scratch, int64_t scratch_bytes, const TfnKernelContext* ctx,
             const GemmEpilogue* ep = nullptr);

// ---- Prepacked B: pack a constant B (e.g. weights known at load time) once,
// then run many GEMMs against it without packing it again.
//
// Packed layout: core/packed_layout.h (kGemmPanelWidth, shared with the
// prepacking pass). The buffer must be 4-byte aligned (64-byte alignment is
// faster).
using tfn::kGemmPanelWidth;

int64_t GemmPackedBBytes(int64_t K, int64_t N);

// Packs op(B) (K x N, see trans_b above) into `packed` (GemmPackedBBytes bytes).
void GemmPackB(int64_t K, int64_t N, const float* B, int64_t ldb, bool trans_b, float* packed);

int64_t GemmPrepackedScratchBytes(int64_t M, int64_t N, int64_t K, int threads);

// C (+)= op(A) * packed_b, where packed_b came from GemmPackB(K, N, ...).
int32_t GemmPrepacked(int64_t M, int64_t N, int64_t K, const float* A, int64_t lda, bool trans_a,
                      const float* packed_b, float* C, int64_t ldc, bool accumulate, void* scratch,
                      int64_t scratch_bytes, const TfnKernelContext* ctx,
                      const GemmEpilogue* ep = nullptr);

// ---- Instruction set selection. kAuto picks the best one the CPU supports
// (AVX-512F, then AVX2+FMA, then portable C++). Forcing an ISA is for tests and
// benchmarks: it changes a process-wide setting, so do not call it while GEMMs
// run on other threads. Forcing an unsupported ISA falls back to kAuto's
// choice. The ISA never changes scratch sizes or the prepacked layout.
enum class GemmIsa { kAuto = 0, kPortable = 1, kAvx2 = 2, kAvx512 = 3 };

bool GemmIsaSupported(GemmIsa isa);  // kAuto and kPortable: always true
void GemmForceIsa(GemmIsa isa);
GemmIsa GemmActiveIsa();  // the ISA GEMMs use now (never kAuto)
const char* GemmIsaName(GemmIsa isa);

}  // namespace tfn::kernels
