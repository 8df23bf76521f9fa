// Weight prepacking: the constant b of a fused_matmul and the constant
// filter of a fused_conv2d are replaced by constants already in the GEMM's
// packed-panel layout (kernels/opt/gemm.h: column panels of 32, row k of
// panel p at float (p * K + k) * 32, zeros past N), so the kernels never
// pack weights at run time, and the bundle and AOT objects carry them
// packed. The layout is the same for every instruction set.
//
//   fused_matmul(a, b[K,N])    -> fused_matmul(a, packed[ceil(N/32), K, 32]) {packed_n=N}
//   fused_conv2d(x, f[KH,KW,Cg,Cout]) ->
//       fused_conv2d(x, packed[G, ceil(Cout/G/32), KH, KW, Cg, 32]) {packed_out_channels=Cout}
//
// 3x3 stride-1 ungrouped filters with at least 16 input and output channels
// are packed for Winograd F(2x2, 3x3) instead: winograd=1 and, per position
// xi of the 4x4 transformed tile, U = G g G^T as a [Cin, Cout] matrix in the
// panel layout: [16, ceil(Cout/32), Cin, 32] (computed here in double).
// Weights stored narrow, cast(float16 or bfloat16 constant) to float32
// (tfn-quantize's --fp16-weights and --bf16), are packed in their own dtype
// with the cast kept after the packed constant (the runtime widens cast
// constants once, at load), and never as Winograd (its transform computes).
// A bfloat16 b whose fused_matmul reads cast(cast(x -> bfloat16) -> float32)
// is packed for the bf16 GEMM instead and the matmul reads x (the kernel
// rounds it): [ceil(N/32), ceil(K/2), 64] bfloat16 {packed_n=N}
// (core/packed_layout.h). Depthwise filters (one input and one output channel per
// group) stay as they are (their kernel reads HWIO), and so do grouped
// filters with 2, 4 or 8 channels in and out per group and a multiple of 16
// channels (the direct grouped kernel reads HWIO) or whose panels would be
// mostly padding (packed more than twice the size plus 64 KiB).
//
// The 8-bit weights of qlinear_conv2d (HWIO filter, but not depthwise) and
// qlinear_matmul ([K, N] b) become the int8 panels of core/packed_layout.h
// (uint8 sign-flipped, each panel with its columns' sums), one matrix per
// group: [G, ceil(Cout/G/32), ceil(K/4) + 1, 128] {packed_filter=[KH,KW,Cg,Cout]},
// [1, ceil(N/32), ceil(K/4) + 1, 128] {packed_b=[K,N]}. Run it after fuse_epilogue (which
// makes the fused ops); dead_node_elimination removes the unpacked constants. Recurses into
// subgraphs.
#pragma once

#include "absl/status/statusor.h"
#include "ir/graph.h"

namespace tfn::ir {

// Returns true when the graph changed.
absl::StatusOr<bool> PrepackWeights(Graph& graph);

}  // namespace tfn::ir
