// NumPy broadcasting geometry for the optimized elementwise kernels (binary,
// where): the output's dims with size-1 dims dropped and adjacent dims merged
// wherever every input is laid out the same across them. Same-shape and
// scalar operands collapse to one dim; a bias row [C] against [N, C] becomes
// dims [N, C] with strides {C, 1} and {0, 1}; a column [N, 1] becomes {1, 0}.
// The innermost dim's stride is then 1 or 0 for every input, so kernels run
// a contiguous (or broadcast-scalar) inner loop per row of the outer dims.
#pragma once

#include <cstdint>

#include "kernels/kernel_abi.h"
#include "kernels/ref/tensor_util.h"

namespace tfn::kernels::opt {

inline constexpr int kMaxBroadcastInputs = 3;

struct BroadcastGeometry {
  int rank = 1;  // >= 1 after coalescing
  int num_inputs = 0;
  int64_t total = 0;  // output elements
  int64_t dims[TFN_KERNEL_MAX_RANK];
  int64_t strides[kMaxBroadcastInputs][TFN_KERNEL_MAX_RANK];  // elements; 0 = broadcast

  int64_t inner() const { return dims[rank - 1]; }
  int64_t inner_stride(int k) const { return strides[k][rank - 1]; }
};

inline BroadcastGeometry MakeBroadcastGeometry(const TfnTensor& out, const TfnTensor* inputs,
                                               int num_inputs) {
  BroadcastGeometry g;
  g.num_inputs = num_inputs;
  g.total = NumElementsOf(out);
  int64_t in_strides[kMaxBroadcastInputs][TFN_KERNEL_MAX_RANK];
  for (int k = 0; k < num_inputs; ++k) BroadcastStrides(inputs[k], out.rank, in_strides[k]);
  int r = 0;
  for (int d = 0; d < out.rank; ++d) {
    if (out.dims[d] == 1) continue;
    bool merge = r > 0;
    for (int k = 0; k < num_inputs && merge; ++k) {
      merge = g.strides[k][r - 1] == in_strides[k][d] * out.dims[d];
    }
    if (merge) {
      g.dims[r - 1] *= out.dims[d];
      for (int k = 0; k < num_inputs; ++k) g.strides[k][r - 1] = in_strides[k][d];
    } else {
      g.dims[r] = out.dims[d];
      for (int k = 0; k < num_inputs; ++k) g.strides[k][r] = in_strides[k][d];
      ++r;
    }
  }
  if (r == 0) {  // every dim is 1 (or rank 0): one element
    g.dims[0] = 1;
    for (int k = 0; k < num_inputs; ++k) g.strides[k][0] = 0;
    r = 1;
  }
  g.rank = r;
  return g;
}

// Walks the rows (index over dims[0, rank-1)) of a geometry, keeping each
// input's element offset of the row start.
struct RowCursor {
  int64_t idx[TFN_KERNEL_MAX_RANK] = {};
  int64_t off[kMaxBroadcastInputs] = {};

  void Seek(const BroadcastGeometry& g, int64_t row) {
    for (int k = 0; k < g.num_inputs; ++k) off[k] = 0;
    for (int d = g.rank - 2; d >= 0; --d) {
      idx[d] = row % g.dims[d];
      row /= g.dims[d];
      for (int k = 0; k < g.num_inputs; ++k) off[k] += idx[d] * g.strides[k][d];
    }
  }
  void Next(const BroadcastGeometry& g) {
    for (int d = g.rank - 2; d >= 0; --d) {
      for (int k = 0; k < g.num_inputs; ++k) off[k] += g.strides[k][d];
      if (++idx[d] < g.dims[d]) return;
      for (int k = 0; k < g.num_inputs; ++k) off[k] -= g.strides[k][d] * g.dims[d];
      idx[d] = 0;
    }
  }
};

// Calls row_fn(offsets, out_pos, col, len) for each row segment of the
// output range [begin, end): the inputs' element offsets of the segment's
// row start, the output index of the segment and its first column.
template <class F>
inline void ForEachRowSegment(const BroadcastGeometry& g, int64_t begin, int64_t end, F&& row_fn) {
  if (begin >= end) return;
  const int64_t inner = g.inner();
  int64_t col = begin % inner;
  RowCursor c;
  c.Seek(g, begin / inner);
  for (int64_t pos = begin; pos < end;) {
    const int64_t len = inner - col < end - pos ? inner - col : end - pos;
    row_fn(c.off, pos, col, len);
    pos += len;
    col = 0;
    if (pos < end) c.Next(g);
  }
}

}  // namespace tfn::kernels::opt
