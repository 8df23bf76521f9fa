// Transpose sinking: moves a transpose below the elementwise ops and concats
// that consume it, so that transposes meet (and algebraic_simplify cancels
// them). Imported NCHW models put transpose(x, [0,3,1,2]) after every NHWC
// convolution and transpose(x, [0,2,3,1]) before the next; the batchnorm,
// activations and residual adds between them are elementwise, so after this
// pass the two transposes are adjacent and vanish.
//
//   op(transpose(a, p), c)  ->  transpose(op(a, c'), p)
//   concat(transpose(a, p), transpose(b, p), axis=k) -> transpose(concat(a, b, axis=p[k]), p)
//   resize(transpose(a, p), sizes, ...) -> transpose(resize(a, sizes', ...), p)
//   reduce(transpose(a, p), axes, keepdims=1) -> transpose(reduce(a, p[axes]), p)
//   reduce(transpose(a, p), axes, keepdims=0) -> transpose(reduce(a, p[axes]), q)
//     (q: the kept dims in the view's order; no transpose when q is the identity)
//   pad(transpose(a, p), paddings) -> transpose(pad(a, paddings'), p)   (paddings attribute)
//   slice(transpose(a, p), begin, end) -> transpose(slice(a, begin', end'), p)   (attributes)
//   reshape(transpose(a, p), R) -> transpose(reshape(transpose(a, q), A2), p2)
//     (static shapes; transpose_reshape.h: q is only there when the reshape
//     merges dims that are not contiguous in a, a channel shuffle)
//
// A node is rewritten when every transposed operand uses the same perm and is
// used only by nodes that sink it too and by other transposes (so no
// transpose is duplicated: transposes of a transpose compose into one, and
// one whose every user sank is dead; a use as a graph result, or by any other
// node, keeps it to a single use), one transposed operand has the output's
// shape (others of the same rank may broadcast; a smaller output would make
// the transpose move more data; not for concat, reduce, pad, slice and
// reshape), and every other operand is a constant (c' = c padded to the rank
// and permuted by the inverse perm, computed here), has only unit dims (it broadcasts the same in
// either layout) or is already transposed by the inverse perm elsewhere (a residual input: the
// transpose this adds is a duplicate). resize (per-axis sizes, scales and roi) moves when those are
// constants, which are permuted (an upsample between two convolutions); below an upsample only when
// the transpose can go on to meet another one a few sinkable nodes down (otherwise it would stay
// on the larger tensor, e.g. after a segmentation head's last resize).
// Recurses into subgraphs.
// Needs nothing before it; run algebraic_simplify and cse after it.
#pragma once

#include "absl/status/statusor.h"
#include "ir/graph.h"

namespace tfn::ir {

// Returns true when the graph changed.
absl::StatusOr<bool> SinkTransposes(Graph& graph);

}  // namespace tfn::ir
