// Fused epilogues of the GEMM and convolution kernels (fused_matmul,
// fused_conv2d): after a tile of the output has its final sum, and while it
// is still in L1,
//
//   y(i, j) = act(y(i, j) + bias[j] + residual(i, j))
//
// each term optional, evaluated left to right in float (so it rounds like
// the unfused ops: add, add, then the activation). Activations are the
// FusedActivation values of kernels/params.h; relu, clip, hard_sigmoid and
// hard_swish are exact (rounded like their ops) and pass NaN like the
// reference ops; sigmoid, tanh, gelu and silu use vec_math.h (accuracy
// stated there).
//
// Reentrant, no allocation, no globals: usable in AOT bitcode.
#pragma once

#include <cstdint>

#include "kernels/params.h"

namespace tfn::kernels {

struct GemmEpilogue {
  // bias[j] for global column j, or null.
  const float* bias = nullptr;
  // residual[i * ldr + j] for global row i and column j, or null.
  const float* residual = nullptr;
  int64_t ldr = 0;
  int32_t act = kActNone;
  float lo = -__builtin_inff(), hi = __builtin_inff();  // clip bounds
  float alpha = 0, beta = 0;                            // hard_sigmoid's

  bool empty() const { return !bias && !residual && act == kActNone; }
  // Whether the activation runs as a pass over finished rows (ApplyActivation):
  // all but none, relu and clip, which the microkernels do in registers.
  bool needs_row_pass() const { return act >= kActSigmoid; }
};

// Applies `ep` to the tile c[r * ldc + j], r in [0, rows), j in [0, cols),
// whose top-left element is y(i0, j0).
void ApplyEpilogue(const GemmEpilogue& ep, float* c, int64_t ldc, int64_t i0, int64_t j0,
                   int64_t rows, int64_t cols);

// Only the activation of `ep` (bias and residual already added).
void ApplyActivation(const GemmEpilogue& ep, float* c, int64_t ldc, int64_t rows, int64_t cols);

}  // namespace tfn::kernels
