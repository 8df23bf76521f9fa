// 8-bit integer GEMM with exact int32 accumulation, the core of the quantized
// kernels (qlinear_conv2d, qlinear_matmul, conv2d_integer, matmul_integer):
//
//   acc(i, j) = sum_k (a(i, k) - za(i)) * (b(k, j) - zb(j)) + bias(c)
//
// with a and b int8 or uint8 (each operand either), za per tensor or per row
// of A, zb per tensor or per column of B, all in int32 arithmetic that wraps
// like ONNX Runtime's (no 16-bit intermediate saturates). `c` is the output
// channel: the column j (weights are B: matmul, NHWC conv) or the row i. Then
// per element one of
//
//   int32:     C = acc
//   float:     C = float(acc) * scale(c) + fbias(c)
//   uint8/int8 C = clamp(round_half_even(float(acc) * scale(c)) + zero_point,
//                        qmin, qmax)
//
// The requantization is ONNX Runtime's and TFLite's float form: scale(c) is
// input_scale * weight_scale(c) / output_scale computed by the caller, the
// product is one float32 multiply, rounding is to nearest even; qmin/qmax
// also carry a fused relu or clip (the activation's bounds quantized).
//
// Instruction sets: AVX-512 VNNI (vpdpbusd: u8 x s8 -> s32, four products per
// lane), AVX2 (operands widened to 16 bits, then vpmaddwd: exact) and
// portable C++, chosen at run time by CPUID (kernels/opt/simd.h); all three
// give bit-identical results. A is read in place by rows when it is uint8
// with a depth that is a multiple of 4 (or zero-padded rows) and unit column
// stride, else packed per row tile; B is packed per call into 32-column
// panels (core/packed_layout.h), or given prepacked in that layout.
//
// Memory: no allocation; the caller passes QGemmScratchBytes(...) bytes of
// scratch (any alignment). Threads: with ctx->parallel_for the work splits
// into column blocks (and row ranges when columns are few); every element is
// computed the same way whatever the thread count. Reentrant.
#pragma once

#include <cstdint>

#include "kernels/kernel_abi.h"

namespace tfn::kernels {

// One 8-bit operand: element (r, k) at data[r * rs + k * cs] (for B, r is the
// depth index k and k the column j: b(k, j) = data[k * rs + j * cs]).
struct QOperand {
  const void* data = nullptr;
  int64_t rs = 0, cs = 1;
  bool is_signed = false;  // int8, else uint8
  // Zero point(s): null means 0; zero_point[index * zp_stride] with
  // zp_stride 0 (per tensor) or 1 (per row of A / per column of B).
  const int32_t* zero_point = nullptr;
  int64_t zp_stride = 0;
  // A only: each row's bytes past K up to the next multiple of 4 exist and
  // are 0, so a uint8 A whose K is not a multiple of 4 is still read in
  // place (im2col rows padded by the caller).
  bool zero_padded = false;
  // A only: rows through an indirection table instead of data/rs/cs (an
  // NHWC convolution without an im2col copy): a(i, k) =
  // indirect[i * taps + k / tap_bytes][k % tap_bytes], K = taps * tap_bytes,
  // tap_bytes a multiple of 4. The table has M + kQGemmIndirectPadRows
  // rows: the rows past M (a last partial tile's) point at any readable
  // tap_bytes bytes.
  const uint8_t* const* indirect = nullptr;
  int64_t taps = 0, tap_bytes = 0;
  // B only: prepacked panels (core/packed_layout.h: int8, uint8 weights
  // sign-flipped, with their column sums), read in place instead of
  // data/rs/cs; the zero points are then those of the int8 bytes (a flipped
  // uint8 zero point minus 128).
  const int8_t* packed = nullptr;
};

// Rows past M an indirection table holds (QOperand::indirect).
inline constexpr int kQGemmIndirectPadRows = 11;

enum class QOutKind { kInt32, kFloat, kUint8, kInt8 };

struct QGemmOutput {
  QOutKind kind = QOutKind::kInt32;
  void* data = nullptr;  // c(i, j) at data[i * ldc + j]
  int64_t ldc = 0;
  bool channel_is_row = false;    // bias/scale/fbias indexed by row i (else column j)
  const int32_t* bias = nullptr;  // int32 bias per channel, added to acc; or null
  const float* scale = nullptr;   // kFloat / kUint8 / kInt8: per channel (or scalar)
  int64_t scale_stride = 0;       // 0: one scale for all channels
  const float* fbias = nullptr;   // kFloat only: per channel, or null
  int32_t zero_point = 0;         // kUint8 / kInt8
  int32_t qmin = 0, qmax = 255;   // kUint8 / kInt8: the clamp (the dtype's range or tighter)
};

// The largest thread count a QGemm uses (extra threads are ignored).
inline constexpr int kQGemmMaxThreads = 8;

// Scratch bytes for an M x N x K QGemm on up to `threads` threads.
int64_t QGemmScratchBytes(int64_t M, int64_t N, int64_t K, int threads);

// C = requantize(A[M,K] * B[K,N]) as above. TFN_KERNEL_SCRATCH_TOO_SMALL when
// scratch_bytes < QGemmScratchBytes(M, N, K, 1) (fewer threads run when the
// scratch has too few slots for ctx->num_threads).
int32_t QGemm(int64_t M, int64_t N, int64_t K, const QOperand& a, const QOperand& b,
              const QGemmOutput& out, void* scratch, int64_t scratch_bytes,
              const TfnKernelContext* ctx);

// The microkernel QGemm uses now: "avx512vnni", "avx2" or "portable". The
// choice follows kernels/opt/simd.h (its ISA cap, which tests and benchmarks
// lower to run every path, and VnniKernelsActive).
const char* QGemmKernelName();

}  // namespace tfn::kernels
