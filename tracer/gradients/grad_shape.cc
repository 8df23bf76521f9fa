// Gradient rules of the data-movement ops: each moves the gradient back to
// where its input's elements came from. reshape-likes reshape back,
// transpose inverts its permutation, concat splits and split concatenates,
// slice pads (interleaving zeros for strides), pad slices, broadcast_to and
// tile sum, and the gathers scatter-add into zeros.
#include <algorithm>
#include <numeric>

#include "tracer/gradients/registry.h"
#include "tracer/ops.h"
#include "tracer/trace_context.h"

namespace tfn::detail {
namespace {

using Grads = std::vector<Tensor>;

int Axis(const RecordedOp& op, int64_t axis, int rank) {
  int a = 0;
  if (!NormalizeAxis(axis, rank, &a)) {
    throw Error(StatusCode::kInvalidArgument, std::string(OpName(op.op)) + ": bad axis");
  }
  return a;
}

Grads ReshapeGrad(const RecordedOp& op, const Grads& dys) {
  Grads g(op.inputs.size());
  g[0] = ReshapeLike(dys[0], op.inputs[0]);
  return g;
}

Grads TransposeGrad(const RecordedOp& op, const Grads& dys) {
  std::vector<int64_t> perm = op.attrs.GetInts("perm");
  if (perm.empty()) {
    for (int i = op.inputs[0].rank() - 1; i >= 0; --i) perm.push_back(i);
  }
  return {transpose(dys[0], InversePermutation(perm))};
}

Grads ConcatGrad(const RecordedOp& op, const Grads& dys) {
  const int axis = Axis(op, op.attrs.GetInt("axis"), op.inputs[0].rank());
  std::vector<int64_t> sizes;
  bool known = true;
  for (const Tensor& x : op.inputs) {
    sizes.push_back(x.shape()[axis]);
    known &= sizes.back() != kDynamic;
  }
  Grads parts;
  if (known) {
    parts = split(dys[0], sizes, axis);
  } else {  // the sizes at run time: each input's dim `axis`
    std::vector<Tensor> dims;
    for (const Tensor& x : op.inputs) {
      dims.push_back(slice(shape(x), {axis}, {axis + 1}));
    }
    parts = ApplyOp(OpId::kSplit, {dys[0], concat(dims, 0)},
                    {{"axis", AttrValue::Int(axis)},
                     {"num_splits", AttrValue::Int(static_cast<int64_t>(op.inputs.size()))}});
  }
  for (size_t i = 0; i < parts.size(); ++i) parts[i] = ReshapeLike(parts[i], op.inputs[i]);
  return parts;
}

Grads SplitGrad(const RecordedOp& op, const Grads& dys) {
  const int axis = Axis(op, op.attrs.GetInt("axis"), op.inputs[0].rank());
  Grads g(op.inputs.size());
  g[0] = ReshapeLike(concat(dys, axis), op.inputs[0]);
  return g;
}

// Python's slice of a dim of n: the first index taken and how many.
void SliceDim(int64_t n, int64_t begin, int64_t end, int64_t step, int64_t* first, int64_t* count) {
  auto clamp = [&](int64_t v, int64_t lo, int64_t hi) { return std::min(std::max(v, lo), hi); };
  if (begin < 0) begin += n;
  if (end < 0) end += n;
  if (step > 0) {
    begin = clamp(begin, 0, n);
    end = clamp(end, 0, n);
    *count = end > begin ? (end - begin + step - 1) / step : 0;
  } else {
    begin = clamp(begin, -1, n - 1);
    end = clamp(end, -1, n - 1);
    *count = begin > end ? (begin - end - step - 1) / -step : 0;
  }
  *first = begin;
}

}  // namespace

// The slice's gradient is dy put back where the slice took it from, zeros
// elsewhere: reversed for negative strides, zeros interleaved for strides
// over 1, then padded to the input's extent.
Tensor SliceAdjoint(const Tensor& dy, const Tensor& x, const std::vector<int64_t>& begin,
                    const std::vector<int64_t>& end, const std::vector<int64_t>& strides) {
  const OpId op = OpId::kSlice;
  const Shape xs = x.shape();
  const int rank = xs.rank();
  Tensor g = dy;
  std::vector<std::pair<int64_t, int64_t>> paddings(static_cast<size_t>(rank), {0, 0});
  std::vector<int64_t> crop_end(static_cast<size_t>(rank), kSliceEnd);
  bool crop = false;
  for (int d = 0; d < rank; ++d) {
    const size_t i = static_cast<size_t>(d);
    const int64_t b = i < begin.size() ? begin[i] : 0;
    const int64_t e = i < end.size() ? end[i] : kSliceEnd;
    int64_t step = i < strides.size() ? strides[i] : 1;
    if (b == 0 && e >= kSliceEnd && step == 1) continue;  // the whole dim
    const int64_t n = xs[d];
    if (n == kDynamic) NoRuleFor(op, "a sliced dim whose size is known only at run time");
    int64_t first = 0, count = 0;
    SliceDim(n, b, e, step, &first, &count);
    if (count == 0) return zeros_like(x);
    if (step < 0) {  // reverse dy along d; then it is a positive-stride slice
      std::vector<int64_t> rb(static_cast<size_t>(rank), 0),
          re(static_cast<size_t>(rank), kSliceEnd), rs(static_cast<size_t>(rank), 1);
      rb[i] = kSliceEnd;
      re[i] = -kSliceEnd;
      rs[i] = -1;
      g = slice(g, rb, re, rs);
      first += (count - 1) * step;
      step = -step;
    }
    int64_t extent = count;
    if (step > 1) {  // interleave step-1 zeros after each element
      Shape gs = g.shape();
      std::vector<int64_t> merged(gs.begin(), gs.end());
      int unknown = 0;
      for (int64_t& v : merged) {
        if (v == kDynamic) v = -1, ++unknown;  // reshape infers it (one at most)
      }
      if (unknown > 1) {
        NoRuleFor(op, "a strided slice of a tensor with several dims known only at run time");
      }
      g = expand_dims(g, d + 1);
      std::vector<std::pair<int64_t, int64_t>> inner(static_cast<size_t>(rank + 1), {0, 0});
      inner[i + 1] = {0, step - 1};
      g = pad(g, inner);
      merged[i] = count * step;
      g = reshape(g, merged);
      extent = count * step;
    }
    const int64_t after = n - first - extent;
    paddings[i] = {first, std::max<int64_t>(after, 0)};
    if (after < 0) {
      crop = true;
      crop_end[i] = first + extent + after;
    }
  }
  g = pad(g, paddings);
  if (crop) g = slice(g, std::vector<int64_t>(static_cast<size_t>(rank), 0), crop_end);
  return g;
}

namespace {

Grads SliceGrad(const RecordedOp& op, const Grads& dys) {
  if (op.inputs.size() > 1) NoRuleFor(op.op, "bounds computed at run time");
  return {SliceAdjoint(dys[0], op.inputs[0], op.attrs.GetInts("begin"), op.attrs.GetInts("end"),
                       op.attrs.GetInts("strides"))};
}

Grads PadGrad(const RecordedOp& op, const Grads& dys) {
  if (op.attrs.GetString("mode", "constant") != "constant") {
    NoRuleFor(op.op, "mode '" + op.attrs.GetString("mode") + "' (only 'constant')");
  }
  if (op.inputs.size() > 1 && op.inputs[1].defined())
    NoRuleFor(op.op, "paddings computed at run time");
  const std::vector<int64_t> p = op.attrs.GetInts("paddings");
  const int rank = op.inputs[0].rank();
  std::vector<int64_t> begin(static_cast<size_t>(rank)), end(static_cast<size_t>(rank));
  for (size_t d = 0; d < static_cast<size_t>(rank); ++d) {
    begin[d] = p[2 * d];
    end[d] = p[2 * d + 1] > 0 ? -p[2 * d + 1] : kSliceEnd;
  }
  Grads g(op.inputs.size());
  g[0] = ReshapeLike(slice(dys[0], begin, end), op.inputs[0]);
  return g;
}

Grads BroadcastToGrad(const RecordedOp& op, const Grads& dys) {
  Grads g(op.inputs.size());
  g[0] = SumToShapeOf(dys[0], op.inputs[0]);
  return g;
}

// tile: dy viewed as [m0, n0, m1, n1, ...] summed over the multiples.
Grads TileGrad(const RecordedOp& op, const Grads& dys) {
  if (op.inputs.size() > 1 && op.inputs[1].defined())
    NoRuleFor(op.op, "multiples computed at run time");
  const Shape xs = op.inputs[0].shape();
  const std::vector<int64_t> m = op.attrs.GetInts("multiples");
  std::vector<int64_t> split_dims, axes;
  for (int d = 0; d < xs.rank(); ++d) {
    if (xs[d] == kDynamic) NoRuleFor(op.op, "an input with dims known only at run time");
    axes.push_back(static_cast<int64_t>(split_dims.size()));
    split_dims.push_back(m[static_cast<size_t>(d)]);
    split_dims.push_back(xs[d]);
  }
  Grads g(op.inputs.size());
  g[0] = axes.empty() ? dys[0] : reduce_sum(reshape(dys[0], split_dims), axes);
  return g;
}

// gather along `axis`: move the gathered dim to the front, scatter-add the
// rows of dy into zeros there, and move it back.
Grads GatherGrad(const RecordedOp& op, const Grads& dys) {
  const Tensor& params = op.inputs[0];
  const Tensor& indices = op.inputs[1];
  const int p = params.rank(), q = indices.rank();
  const int axis = Axis(op, op.attrs.GetInt("axis"), p);
  std::vector<int64_t> params_perm = {axis}, dy_perm;
  for (int i = 0; i < p; ++i) {
    if (i != axis) params_perm.push_back(i);
  }
  for (int i = axis; i < axis + q; ++i) dy_perm.push_back(i);
  for (int i = 0; i < axis; ++i) dy_perm.push_back(i);
  for (int i = axis + q; i < p - 1 + q; ++i) dy_perm.push_back(i);
  const bool moved = axis != 0;
  const Tensor base = zeros_like(moved ? transpose(params, params_perm) : params);
  const Tensor dy = moved && q > 0 ? transpose(dys[0], dy_perm) : dys[0];
  Tensor g = scatter_nd(base, expand_dims(indices, -1), dy, "add");
  if (moved) g = transpose(g, InversePermutation(params_perm));
  return {g, Tensor()};
}

Grads GatherElementsGrad(const RecordedOp& op, const Grads& dys) {
  return {scatter_elements(zeros_like(op.inputs[0]), op.inputs[1], dys[0], op.attrs.GetInt("axis"),
                           "add"),
          Tensor()};
}

Grads GatherNDGrad(const RecordedOp& op, const Grads& dys) {
  if (op.attrs.GetInt("batch_dims") != 0) NoRuleFor(op.op, "batch_dims > 0");
  return {scatter_nd(zeros_like(op.inputs[0]), op.inputs[1], dys[0], "add"), Tensor()};
}

// top_k's values came from x at its indices; the indices get no gradient.
Grads TopKGrad(const RecordedOp& op, const Grads& dys) {
  Grads g(op.inputs.size());
  g[0] = scatter_elements(zeros_like(op.inputs[0]), op.outputs[1], dys[0],
                          op.attrs.GetInt("axis", -1), "add");
  return g;
}

// unique: each item of x became the value at its inverse index and gets
// that value's gradient divided by its count. Without repeated items that
// is the derivative; items that are equal move their value together (a
// value duplicated before unique), and then their shares add up to it.
// The other outputs are integers.
Grads UniqueGrad(const RecordedOp& op, const Grads& dys) {
  const Tensor& x = op.inputs[0];
  const Tensor& inverse = op.outputs[2];
  const std::vector<int64_t> axis = op.attrs.GetInts("axis");
  Tensor counts = cast(op.outputs[3], dys[0].dtype());
  if (axis.empty()) return {ReshapeLike(gather(dys[0] / counts, inverse, 0), x)};
  const int a = Axis(op, axis[0], x.rank());
  std::vector<int64_t> along(static_cast<size_t>(x.rank()), 1);
  along[static_cast<size_t>(a)] = -1;
  return {gather(dys[0] / reshape(counts, along), inverse, a)};
}

}  // namespace

void RegisterShapeGrads(GradTable& table) {
  SetRule(table, OpId::kReshape, ReshapeGrad);
  SetRule(table, OpId::kExpandDims, ReshapeGrad);
  SetRule(table, OpId::kSqueeze, ReshapeGrad);
  SetRule(table, OpId::kTranspose, TransposeGrad);
  SetRule(table, OpId::kConcat, ConcatGrad);
  SetRule(table, OpId::kSplit, SplitGrad);
  SetRule(table, OpId::kSlice, SliceGrad);
  SetRule(table, OpId::kPad, PadGrad);
  SetRule(table, OpId::kBroadcastTo, BroadcastToGrad);
  SetRule(table, OpId::kTile, TileGrad);
  SetRule(table, OpId::kGather, GatherGrad);
  SetRule(table, OpId::kGatherElements, GatherElementsGrad);
  SetRule(table, OpId::kGatherND, GatherNDGrad);
  SetRule(table, OpId::kTopK, TopKGrad);
  SetRule(table, OpId::kUnique, UniqueGrad);
}

}  // namespace tfn::detail
