// Pad folding: an explicit zero pad of the spatial dims in front of a
// convolution or an average pool becomes the op's own padding, so the padded
// copy is never made.
//
//   conv2d(pad(x, [0,0, t,b, l,r, 0,0]), f, pads=p)  ->  conv2d(x, f, pads=p + [t,b,l,r])
//   avg_pool2d(pad(x, ...), pads=0)  ->  avg_pool2d(x, pads=[t,b,l,r], count_include_pad=1)
//
// PyTorch exports avg_pool2d(count_include_pad=True) with padding, and
// nn.ZeroPad2d / asymmetric "same" padding before a conv, as Pad + op; after
// transpose_sinking the pad is on the NHWC value the op reads. The pad must
// be the attribute form, mode "constant" with value 0, rank 4, non-negative,
// and pad only H and W; the conv's padding VALID or EXPLICIT; the pool's
// padding VALID or EXPLICIT with ceil_mode 0, and zero pads unless it counts
// them already (count_include_pad=1: the two paddings then add up). Results
// are unchanged: the padded zeros are the op's padding zeros, and a counted
// pool divides by the whole window either way. The pad stays while other
// nodes use it (dead_node_elimination drops it otherwise). Recurses into
// subgraphs.
#pragma once

#include "absl/status/statusor.h"
#include "ir/graph.h"

namespace tfn::ir {

// Returns true when the graph changed.
absl::StatusOr<bool> FoldPads(Graph& graph);

}  // namespace tfn::ir
