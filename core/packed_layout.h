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

}  // namespace tfn
