// Internal interface of the quantized linear kernels (qlinear.cc,
// qlinear_depthwise.cc): the per-call requantization state, laid out in the
// kernel's scratch memory. Not public.
#pragma once

#include <cstdint>

#include "kernels/kernel_abi.h"
#include "kernels/opt/qgemm.h"
#include "kernels/params.h"
#include "kernels/ref/qlinear.h"

namespace tfn::kernels::qlinear_internal {

struct Requant {
  // kind, bias, per-channel multipliers (scale, stride 1), zero point and
  // bounds; data and ldc are set per GEMM.
  QGemmOutput out;
  int32_t x_zp = 0;      // per tensor
  const int32_t* x_zps;  // 1 entry, or one per row (matmul_integer)
  bool x_zp_per_row = false;
  const int32_t* w_zp;  // 1 entry (stride 0) or one per channel
  int64_t w_zp_stride = 0;
};

// Scratch bytes of a Requant for `channels` output channels (or rows of a,
// whichever is more).
int64_t RequantScratchBytes(int64_t channels);

// Fills rq from the node's operands, its arrays at *scratch (advanced past
// them). TFN_KERNEL_BAD_SHAPE when a scale or zero point count fits neither
// one value nor `channels`.
int32_t MakeRequant(const QLinearParams& p, const QLinearOperands& q, const TfnTensor& y,
                    int64_t channels, unsigned char** scratch, Requant* rq);

// Rows [begin, end) (n * OH + oh) of a depthwise conv: what
// qlinear_depthwise.cc's loops and the AVX-512 kernel read.
struct DepthwiseRows {
  const Requant* rq;
  const uint8_t* x;  // NHWC input bytes
  const int32_t* w;  // [KH * KW][C]: filter - zero point
  int64_t H, W, C, KH, KW, OH, OW, pt, pl, sh, sw, dh, dw;
  int32_t x_zp;    // with 128 added for an int8 input
  int32_t x_flip;  // 0x80 for an int8 input (compared as uint8 + 128), else 0
  void* y;
  int64_t begin, end;
};
void DepthwiseRowsAvx512(const DepthwiseRows& job);  // qlinear_depthwise_avx512.cc

// Depthwise qlinear_conv2d / conv2d_integer (one input and one output
// channel per group), all images.
int64_t DepthwiseScratchBytes(int64_t KH, int64_t KW, int64_t C);
int32_t RunDepthwise(const QLinearParams& p, const QLinearOperands& q, const Requant& rq, int64_t H,
                     int64_t W, int64_t C, int64_t KH, int64_t KW, int64_t OH, int64_t OW,
                     int64_t pt, int64_t pl, int64_t batch, unsigned char* scratch, TfnTensor& y,
                     const TfnKernelContext* ctx);

}  // namespace tfn::kernels::qlinear_internal
