// The packed weight layouts that a pass writes and the kernels read: one
// definition, included by ir/passes/prepack_weights.cc (which packs
// constant weights at optimization time), kernels/opt (GEMM, conv and
// Winograd, which read them) and whatever else must agree with them. A
// change here changes what the kernels expect of every prepacked constant:
// bundles store packed weights, so it needs a new op or attribute, not an
// edit of this number.
#pragma once

namespace tfn {

// Columns of a packed GEMM B panel. A [K, N] matrix is cut into ceil(N/32)
// column panels; panel p holds columns [32p, 32p+32) as K rows of 32 floats
// (row k at float offset p*K*32 + k*32, column j of the panel at + j),
// columns past N zero. Independent of the ISA, so one packing serves every
// microkernel (32 = two AVX-512 or four AVX2 vectors).
inline constexpr int kGemmPanelWidth = 32;

// The packed int8 B of the quantized GEMM (kernels/opt/qgemm.h) and of
// qlinear_conv2d / qlinear_matmul's prepacked weights (attributes
// packed_filter / packed_b, core/rules/rules_quant.h). A [K, N] matrix of
// int8 (uint8 weights have their sign bit flipped: w ^ 0x80 = w - 128) is
// cut into ceil(N/32) panels of kInt8PanelWidth columns. A panel is
// ceil(K/4) + 1 rows of kInt8PanelRowBytes bytes: row g holds, for column j
// of the panel, depth bytes 4g .. 4g+3 at byte 4j (zeros past K and N); the
// last row holds the 32 columns' sums of their K bytes as int32 in the
// target's byte order. As a tensor (one matrix per conv group): int8
// [groups, panels, ceil(K/4) + 1, 128].
inline constexpr int kInt8PanelWidth = 32;
inline constexpr int kInt8PanelRowBytes = 4 * kInt8PanelWidth;

// The packed bfloat16 B of the bf16 GEMM (kernels/opt/bf16_gemm.h) and of a
// fused_matmul's prepacked bfloat16 weights (packed_n with a bfloat16 b,
// core/rules/rules_fused.h). A [K, N] matrix is cut into ceil(N/32) panels
// of kBf16PanelWidth columns; a panel is ceil(K/2) rows of
// kBf16PanelRowElems bfloat16 values: row g holds, for column j of the
// panel, depth 2g at element 2j and depth 2g+1 at 2j+1 (the pairs
// vdpbf16ps multiplies), zeros past K and N. As a tensor: bfloat16
// [ceil(N/32), ceil(K/2), 64].
inline constexpr int kBf16PanelWidth = 32;
inline constexpr int kBf16PanelRowElems = 2 * kBf16PanelWidth;

// The element offset of b(k, j) in those panels, for k2 = ceil(K/2) pair rows.
inline constexpr long long Bf16PackedOffset(long long k2, long long k, long long j) {
  return ((j / kBf16PanelWidth) * k2 + k / 2) * kBf16PanelRowElems + 2 * (j % kBf16PanelWidth) +
         k % 2;
}

}  // namespace tfn
