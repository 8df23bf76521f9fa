// Fused epilogues of the GEMM and convolution kernels (fused_matmul,
// fused_conv2d): after a tile of the output has its final sum, and while it
// is still in L1,
//
//   y(i, j) = act(y(i, j) + bias[j] + residual(i, j))
//
// each term optional, evaluated left to right in float (so it rounds like
// the unfused ops: add, add, then the activation). Activations are the
// FusedActivation values of kernels/params.h; relu and clip are exact and
// pass NaN like the reference ops; sigmoid, tanh and gelu use vec_math.h
// (accuracy stated there).
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

  bool empty() const { return !bias && !residual && act == kActNone; }
  // Whether the activation needs the vector math (not done in registers by
  // the conv microkernels).
  bool transcendental() const { return act >= kActSigmoid; }
};

// Applies `ep` to the tile c[r * ldc + j], r in [0, rows), j in [0, cols),
// whose top-left element is y(i0, j0).
void ApplyEpilogue(const GemmEpilogue& ep, float* c, int64_t ldc, int64_t i0, int64_t j0,
                   int64_t rows, int64_t cols);

// Only the activation of `ep` (bias and residual already added).
void ApplyActivation(const GemmEpilogue& ep, float* c, int64_t ldc, int64_t rows, int64_t cols);

}  // namespace tfn::kernels
