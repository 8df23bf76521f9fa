// The gradient rule of resize. Resize is linear in x and separable: along
// each resized axis, y = W x with W [out, in] the interpolation weights of
// the op's mode and coordinate transformation. The rule finds W by resizing
// an identity along that axis with the op itself (so it holds for nearest,
// linear and cubic and every coordinate mode, exactly as the kernel
// computes them), then multiplies dy by W^T axis by axis. Sizes and scales
// must be known when the step is traced (the front end's resize gives them
// as constants); regions of interest (tf_crop_and_resize) have no rule.
#include <numeric>
#include <string>

#include "tracer/gradients/registry.h"
#include "tracer/ops.h"
#include "tracer/trace_context.h"

namespace tfn::detail {
namespace {

using Grads = std::vector<Tensor>;

std::vector<double> Values(const Tensor& t) {
  if (t.is_symbolic()) NoRuleFor(OpId::kResize, "sizes or scales computed at run time");
  std::vector<double> v;
  for (int64_t i = 0; i < t.num_elements(); ++i) v.push_back(t.value().ElementAsDouble(i));
  return v;
}

// W [out, in]: the weights resize gives axis `a` of an input of rank `rank`.
Tensor Weights(const RecordedOp& op, DType dtype, int rank, int a, int64_t in, int64_t out,
               double scale, bool has_scales) {
  const int b = a == 0 ? 1 : 0;  // the basis vectors go along another axis
  std::vector<double> eye(static_cast<size_t>(in * in), 0.0);
  for (int64_t i = 0; i < in; ++i) eye[static_cast<size_t>(i * in + i)] = 1;
  Shape shape;
  std::vector<int64_t> sizes;
  std::vector<double> scales;
  for (int d = 0; d < rank; ++d) {
    shape.push_back(d == a || d == b ? in : 1);
    sizes.push_back(d == a ? out : d == b ? in : 1);
    scales.push_back(d == a ? scale : 1);
  }
  // eye[i][j] with i along min(a, b), j along max(a, b): symmetric, either way.
  std::vector<Tensor> inputs = {cast(constant(eye, shape), dtype), constant(sizes)};
  if (has_scales) inputs.push_back(cast(constant(scales), op.inputs[2].dtype()));
  Tensor w = Apply1(OpId::kResize, inputs, op.attrs);  // [.., out at a, .., in at b, ..]
  w = reshape(w, a < b ? std::vector<int64_t>{out, in} : std::vector<int64_t>{in, out});
  return a < b ? w : transpose(w);
}

Grads ResizeGrad(const RecordedOp& op, const Grads& dys) {
  const Tensor& x = op.inputs[0];
  if (!IsFloating(x.dtype())) return {Tensor()};
  if (op.inputs.size() > 3 && op.inputs[3].defined())
    NoRuleFor(OpId::kResize, "a region of interest");
  const Shape xs = x.shape();
  const int rank = xs.rank();
  if (rank < 2) NoRuleFor(OpId::kResize, "rank 1");
  const std::vector<double> sizes = Values(op.inputs[1]);
  const bool has_scales = op.inputs.size() > 2 && op.inputs[2].defined();
  const std::vector<double> scales = has_scales ? Values(op.inputs[2]) : std::vector<double>{};
  Tensor g = dys[0];
  for (int a = 0; a < rank; ++a) {
    const int64_t out = static_cast<int64_t>(sizes[static_cast<size_t>(a)]);
    const double scale = has_scales ? scales[static_cast<size_t>(a)] : 1;
    if (out == xs[a] && scale == 1) continue;
    if (xs[a] == kDynamic) NoRuleFor(OpId::kResize, "a resized dim known only at run time");
    const Tensor w = Weights(op, x.dtype(), rank, a, xs[a], out, scale, has_scales);
    // dy with axis a last, times W (contracting out), axis a back in place.
    std::vector<int64_t> perm(static_cast<size_t>(rank));
    std::iota(perm.begin(), perm.end(), 0);
    perm.erase(perm.begin() + a);
    perm.push_back(a);
    Tensor t = transpose(g, perm);
    std::vector<int64_t> back;
    int unknown = 0;
    for (int i = 0; i + 1 < rank; ++i) {
      const int64_t d = t.shape()[i];
      back.push_back(d == kDynamic ? -1 : d);
      unknown += d == kDynamic;
    }
    if (unknown > 1) NoRuleFor(OpId::kResize, "several dims known only at run time");
    back.push_back(xs[a]);
    t = reshape(matmul(reshape(t, {-1, out}), w), back);
    g = transpose(t, InversePermutation(perm));
  }
  return {g, Tensor(), Tensor(), Tensor()};
}

}  // namespace

void RegisterResizeGrads(GradTable& table) { SetRule(table, OpId::kResize, ResizeGrad); }

}  // namespace tfn::detail
