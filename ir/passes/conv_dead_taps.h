// Conv dead taps: drops the filter rows and columns of a conv2d that read
// only padding, whatever the output position.
//
//   conv2d(x, f[KH, KW, ...], dilations=d, pads=p)
//     -> conv2d(x, f[kh0:kh1+1, kw0:kw1+1, ...], pads=p')
//
// Output pixel o of an axis reads input row o * stride - pad_begin + k * d
// for tap k. A tap whose rows fall outside [0, size) for every output pixel
// contributes only zeros: ASPP heads (DeepLab) run 3x3 convs with dilations
// 12, 24 and 36 on 14x14 or 28x28 maps, where most or all of the eight
// outer taps are such, and the conv becomes a smaller one or a 1x1 (which
// the kernels run as a GEMM). The live taps of an axis are one run
// [k0, k1] (a tap's rows move monotonically with k); the new pads are
// pad_begin - k0 * d and pad_end - (K - 1 - k1) * d, so the output size is
// the same, and an axis left with one tap gets dilation 1. Results are
// unchanged (the dropped terms were exact zeros). Needs a constant filter,
// static input height and width, and VALID or EXPLICIT padding; skipped
// when a new pad would be negative or no tap is live. Recurses into
// subgraphs. Run before prepack_weights (it rewrites conv2d, not the fused
// or packed forms); dead_node_elimination removes the old filter.
#pragma once

#include "absl/status/statusor.h"
#include "ir/graph.h"

namespace tfn::ir {

// Returns true when the graph changed.
absl::StatusOr<bool> DropDeadConvTaps(Graph& graph);

}  // namespace tfn::ir
