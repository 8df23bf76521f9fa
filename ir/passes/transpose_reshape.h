// The shape algebra of moving a reshape above a transpose, for transpose
// sinking (transpose_sinking.cc):
//
//   reshape(transpose(a, p), R)  ==  transpose(reshape(transpose(a, q), A2), p2)
//
// The reshape groups the dims of the view (transpose(a, p)) into runs whose
// products equal runs of R's dims. Each run of view dims comes from a set of
// a's axes; when those are adjacent in a and in the view's order, the run is
// reshaped on `a` directly. Otherwise, when each run's axes are still a
// contiguous range of a's axes, q reorders the axes inside runs into view
// order (a channel shuffle of NHWC data seen as NCHW: the one transpose that
// really moves data); runs whose axes interleave in `a` are refused (the
// transpose of `a` would move whole runs, besides the one that sinks: the
// head merge of attention). q is empty when `a` needs no transpose. A2 is R's dims in the
// order of a's runs, and p2 orders them back as R. Unit dims carry no data:
// a's are dropped, R's are kept next to the R dim before them.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace tfn::ir {

struct ReshapeAboveTranspose {
  std::vector<int64_t> q;   // perm of a's axes; empty: none needed
  std::vector<int64_t> a2;  // the reshape's target on (transposed) a
  std::vector<int64_t> p2;  // perm of a2's dims giving R; empty: identity
};

// a: a's static shape; p: the transpose's full perm; r: the reshape's static
// target (same element count, every dim > 0). Nullopt when no grouping
// exists (a dim of R straddles view dims without dividing them), runs
// interleave in `a`, or an input is malformed.
std::optional<ReshapeAboveTranspose> MoveReshapeAboveTranspose(const std::vector<int64_t>& a,
                                                               const std::vector<int64_t>& p,
                                                               const std::vector<int64_t>& r);

}  // namespace tfn::ir
