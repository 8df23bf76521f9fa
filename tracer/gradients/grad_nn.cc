// Gradient rules of conv2d, conv2d_transpose, max_pool2d and avg_pool2d
// (NHWC). conv2d's input gradient is conv2d_transpose with the same filter
// (and conv2d_transpose's a conv2d); the filter gradient is a convolution of
// the input by dy with batch and channels swapped (stride and dilation trade
// places), per group. Pools go window offset by window
// offset: each offset's strided view of the padded input gets its share of
// dy (max: the first maximum of each window, as TensorFlow and PyTorch;
// avg: dy over the window's divisor), put back by slice's adjoint. Spatial
// dims must be known when the function is traced (batch may be dynamic).
#include <limits>
#include <string>

#include "tracer/gradients/registry.h"
#include "tracer/ops.h"

namespace tfn::detail {
namespace {

using Grads = std::vector<Tensor>;

std::vector<int64_t> PairOr(const Attrs& attrs, const char* name, int64_t fallback) {
  std::vector<int64_t> v = attrs.GetInts(name);
  return v.empty() ? std::vector<int64_t>{fallback, fallback} : v;
}

// The window geometry of one recorded conv or pool: explicit pads resolved
// as the kernels resolve them (kernels/ref/conv.cc).
struct Window {
  int64_t in[2], out[2], k[2], stride[2], dilation[2];
  int64_t pad_before[2], pad_after[2];
  int64_t extent(int i) const { return (k[i] - 1) * dilation[i] + 1; }
};

Window Resolve(const RecordedOp& op, const Shape& x, const Shape& y, int64_t kh, int64_t kw) {
  Window w{};
  const std::vector<int64_t> s = PairOr(op.attrs, "strides", 1),
                             d = PairOr(op.attrs, "dilations", 1);
  const std::string padding = op.attrs.GetString("padding", "VALID");
  const std::vector<int64_t> pads = op.attrs.GetInts("pads");
  w.k[0] = kh;
  w.k[1] = kw;
  for (int i = 0; i < 2; ++i) {
    w.in[i] = x[1 + i];
    w.out[i] = y[1 + i];
    if (w.in[i] == kDynamic || w.out[i] == kDynamic) {
      NoRuleFor(op.op, "spatial dims known only at run time");
    }
    w.stride[i] = s[static_cast<size_t>(i)];
    w.dilation[i] = d[static_cast<size_t>(i)];
    if (padding == "EXPLICIT") {
      w.pad_before[i] = pads[static_cast<size_t>(2 * i)];
      w.pad_after[i] = pads[static_cast<size_t>(2 * i + 1)];
    } else if (padding == "SAME") {
      const int64_t total =
          std::max<int64_t>((w.out[i] - 1) * w.stride[i] + w.extent(i) - w.in[i], 0);
      w.pad_before[i] = total / 2;
      w.pad_after[i] = total - total / 2;
    }
  }
  return w;
}

// ---- conv2d: input [N, H, W, C], filter [KH, KW, C / groups, O] ----
Tensor FilterGradOneGroup(const Tensor& x, const Tensor& dy, const Window& w) {
  // out[c, kh, kw, o] = sum_{n,i,j} x[n, i*s + kh*d - pad, j*s + kw*d - pad, c] * dy[n, i, j, o]
  Conv2DOptions o;
  o.strides = {w.dilation[0], w.dilation[1]};
  o.dilations = {w.stride[0], w.stride[1]};
  o.padding = "EXPLICIT";
  o.pads = {w.pad_before[0], w.pad_after[0], w.pad_before[1], w.pad_after[1]};
  Tensor g = conv2d(transpose(x, {3, 1, 2, 0}), transpose(dy, {1, 2, 0, 3}), o);
  // Rows past the filter (left over when the stride does not divide the
  // padded input) come out too; keep the filter's.
  g = slice(g, {0, 0, 0, 0}, {kSliceEnd, w.k[0], w.k[1], kSliceEnd});
  return transpose(g, {1, 2, 0, 3});
}

// The filter gradient of conv2d(input, f) for its output gradient dy: per
// group, the groups' filters side by side along the output channels.
Tensor FilterGrad(const Tensor& input, const Tensor& dy, const Window& w, int64_t groups) {
  if (groups == 1) return FilterGradOneGroup(input, dy, w);
  std::vector<Tensor> inputs = split(input, groups, 3), dys = split(dy, groups, 3), parts;
  for (size_t i = 0; i < inputs.size(); ++i)
    parts.push_back(FilterGradOneGroup(inputs[i], dys[i], w));
  return concat(parts, 3);
}

Grads Conv2DGrad(const RecordedOp& op, const Grads& dys) {
  const Tensor &x = op.inputs[0], &f = op.inputs[1], &dy = dys[0];
  const Shape fs = f.shape();
  const Window w = Resolve(op, x.shape(), op.outputs[0].shape(), fs[0], fs[1]);
  const int64_t groups = op.attrs.GetInt("groups", 1);
  Grads g(op.inputs.size());

  Conv2DTransposeOptions t;
  t.strides = {w.stride[0], w.stride[1]};
  t.dilations = {w.dilation[0], w.dilation[1]};
  t.pads = {w.pad_before[0], w.pad_after[0], w.pad_before[1], w.pad_after[1]};
  t.groups = groups;
  t.output_padding.resize(2);
  for (int i = 0; i < 2; ++i) {
    const int64_t full =
        (w.out[i] - 1) * w.stride[i] + w.extent(i) - w.pad_before[i] - w.pad_after[i];
    t.output_padding[static_cast<size_t>(i)] = w.in[i] - full;
  }
  g[0] = conv2d_transpose(dy, f, t);

  g[1] = FilterGrad(x, dy, w, groups);
  if (op.inputs.size() > 2 && op.inputs[2].defined()) {
    g[2] = ReshapeLike(reduce_sum(dy, {0, 1, 2}), op.inputs[2]);
  }
  return g;
}

// conv2d_transpose(x, f) is the adjoint of conv2d(., f) from its output's
// space to x's: its input gradient is that convolution of dy, its filter
// gradient the convolution's filter gradient with dy as the input and x as
// the output gradient. Output rows past the bottom/right pads (from
// output_padding) depend on no input: they are cropped first.
Grads Conv2DTransposeGrad(const RecordedOp& op, const Grads& dys) {
  const Tensor &x = op.inputs[0], &f = op.inputs[1];
  const Shape xs = x.shape(), ys = op.outputs[0].shape(), fs = f.shape();
  const std::vector<int64_t> s = PairOr(op.attrs, "strides", 1),
                             d = PairOr(op.attrs, "dilations", 1);
  std::vector<int64_t> pads = op.attrs.GetInts("pads");
  if (pads.empty()) pads = {0, 0, 0, 0};
  const int64_t groups = op.attrs.GetInt("groups", 1);
  Window w{};
  std::vector<int64_t> crop_end = {kSliceEnd, kSliceEnd, kSliceEnd, kSliceEnd};
  for (int i = 0; i < 2; ++i) {
    if (xs[1 + i] == kDynamic || ys[1 + i] == kDynamic) {
      NoRuleFor(op.op, "spatial dims known only at run time");
    }
    w.in[i] = ys[1 + i];  // the convolution's input: dy
    w.out[i] = xs[1 + i];
    w.k[i] = fs[i];
    w.stride[i] = s[static_cast<size_t>(i)];
    w.dilation[i] = d[static_cast<size_t>(i)];
    w.pad_before[i] = pads[static_cast<size_t>(2 * i)];
    // The bottom/right pad that makes the convolution's output x's size.
    const int64_t after = (w.out[i] - 1) * w.stride[i] + w.extent(i) - w.in[i] - w.pad_before[i];
    if (after < 0) {  // rows no input reaches (output_padding past the pad): cropped
      w.in[i] += after;
      crop_end[static_cast<size_t>(1 + i)] = w.in[i];
    }
    w.pad_after[i] = std::max<int64_t>(after, 0);
  }
  Tensor dy = dys[0];
  if (crop_end[1] != kSliceEnd || crop_end[2] != kSliceEnd) dy = slice(dy, {0, 0, 0, 0}, crop_end);
  Conv2DOptions o;
  o.strides = s;
  o.dilations = d;
  o.padding = "EXPLICIT";
  o.pads = {w.pad_before[0], w.pad_after[0], w.pad_before[1], w.pad_after[1]};
  o.groups = groups;
  Grads g(op.inputs.size());
  g[0] = conv2d(dy, f, o);
  g[1] = FilterGrad(dy, x, w, groups);
  if (op.inputs.size() > 2 && op.inputs[2].defined()) {
    g[2] = ReshapeLike(reduce_sum(dys[0], {0, 1, 2}), op.inputs[2]);
  }
  return g;
}

// ---- pools ----
struct PoolWindows {
  Window w;
  Tensor padded;  // x padded by the pads and the ceil_mode overhang
  std::vector<std::pair<int64_t, int64_t>> pads;
  // The strided view of `padded` that window offset (a, b) reads.
  std::vector<int64_t> Begin(int64_t a, int64_t b) const {
    return {0, a * w.dilation[0], b * w.dilation[1], 0};
  }
  std::vector<int64_t> End(int64_t a, int64_t b) const {
    return {kSliceEnd, a * w.dilation[0] + (w.out[0] - 1) * w.stride[0] + 1,
            b * w.dilation[1] + (w.out[1] - 1) * w.stride[1] + 1, kSliceEnd};
  }
  std::vector<int64_t> Strides() const { return {1, w.stride[0], w.stride[1], 1}; }
};

PoolWindows Windows(const RecordedOp& op, double pad_value) {
  const Tensor& x = op.inputs[0];
  const std::vector<int64_t> ksize = PairOr(op.attrs, "ksize", 1);
  PoolWindows p;
  p.w = Resolve(op, x.shape(), op.outputs[0].shape(), ksize[0], ksize[1]);
  p.pads.assign(4, {0, 0});
  for (int i = 0; i < 2; ++i) {
    const int64_t need = (p.w.out[i] - 1) * p.w.stride[i] + p.w.extent(i);
    const int64_t overhang = need - (p.w.in[i] + p.w.pad_before[i] + p.w.pad_after[i]);
    p.pads[static_cast<size_t>(1 + i)] = {p.w.pad_before[i],
                                          p.w.pad_after[i] + std::max<int64_t>(overhang, 0)};
  }
  p.padded = pad(x, p.pads, "constant", pad_value);
  return p;
}

// The part of the padded input's gradient that is x's.
Tensor Unpad(const Tensor& g, const PoolWindows& p) {
  return slice(g, {0, p.pads[1].first, p.pads[2].first, 0},
               {kSliceEnd, p.pads[1].first + p.w.in[0], p.pads[2].first + p.w.in[1], kSliceEnd});
}

Grads MaxPoolGrad(const RecordedOp& op, const Grads& dys) {
  const Tensor& y = op.outputs[0];
  const PoolWindows p = Windows(op, -std::numeric_limits<double>::infinity());
  const Tensor zero = ScalarLikeOf(dys[0], 0);
  Tensor taken = zeros_like(y) != zeros_like(y);  // all false
  Tensor g;
  for (int64_t a = 0; a < p.w.k[0]; ++a) {
    for (int64_t b = 0; b < p.w.k[1]; ++b) {
      const Tensor view = slice(p.padded, p.Begin(a, b), p.End(a, b), p.Strides());
      const Tensor hit = logical_and(equal(view, y), logical_not(taken));
      taken = logical_or(taken, hit);
      const Tensor part =
          SliceAdjoint(where(hit, dys[0], zero), p.padded, p.Begin(a, b), p.End(a, b), p.Strides());
      g = g.defined() ? g + part : part;
    }
  }
  return {Unpad(g, p)};
}

Grads AvgPoolGrad(const RecordedOp& op, const Grads& dys) {
  const Tensor& x = op.inputs[0];
  const PoolWindows p = Windows(op, 0);
  // Each window's divisor: the cells it counts (pads only with
  // count_include_pad; never the ceil_mode overhang).
  const bool include_pad = op.attrs.GetInt("count_include_pad") != 0;
  std::vector<std::pair<int64_t, int64_t>> counted = p.pads;
  Tensor mask = ones_like(x);
  if (include_pad) {
    for (int i = 1; i <= 2; ++i) {
      counted[static_cast<size_t>(i)] = {p.w.pad_before[i - 1], p.w.pad_after[i - 1]};
    }
    mask = pad(mask, counted, "constant", 1);
    std::vector<std::pair<int64_t, int64_t>> rest(4, {0, 0});
    for (int i = 1; i <= 2; ++i) {
      rest[static_cast<size_t>(i)] = {
          0, p.pads[static_cast<size_t>(i)].second - counted[static_cast<size_t>(i)].second};
    }
    mask = pad(mask, rest);
  } else {
    mask = pad(mask, p.pads);
  }
  Tensor divisor;
  for (int64_t a = 0; a < p.w.k[0]; ++a) {
    for (int64_t b = 0; b < p.w.k[1]; ++b) {
      const Tensor v = slice(mask, p.Begin(a, b), p.End(a, b), p.Strides());
      divisor = divisor.defined() ? divisor + v : v;
    }
  }
  const Tensor share = dys[0] / divisor;
  Tensor g;
  for (int64_t a = 0; a < p.w.k[0]; ++a) {
    for (int64_t b = 0; b < p.w.k[1]; ++b) {
      const Tensor part = SliceAdjoint(share, p.padded, p.Begin(a, b), p.End(a, b), p.Strides());
      g = g.defined() ? g + part : part;
    }
  }
  return {Unpad(g, p)};
}

}  // namespace

void RegisterNnGrads(GradTable& table) {
  SetRule(table, OpId::kConv2D, Conv2DGrad);
  SetRule(table, OpId::kConv2DTranspose, Conv2DTransposeGrad);
  SetRule(table, OpId::kMaxPool2D, MaxPoolGrad);
  SetRule(table, OpId::kAvgPool2D, AvgPoolGrad);
}

}  // namespace tfn::detail
