// Implementation of conv affine folding.
#include "ir/passes/conv_affine_fold.h"

#include <vector>

#include "ir/rewriter.h"

namespace tfn::ir {
namespace {

// The per-channel values of a constant that varies at most along the last
// axis of a rank-4 output with `channels` channels: 1 or `channels` doubles;
// empty when the constant has another shape.
std::vector<double> ChannelValues(const ConstTensor& c, int64_t channels) {
  if (c.shape.rank() > 4 || !IsFloating(c.dtype)) return {};
  for (int i = 0; i + 1 < c.shape.rank(); ++i) {
    if (c.shape[i] != 1) return {};
  }
  const int64_t n = c.num_elements();
  if (n != 1 && n != channels) return {};
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = c.ElementAsDouble(i);
  return v;
}

// A copy of `t` (channels last, `channels` of them) with f(value, channel)
// applied to every element.
template <class F>
ConstTensor MapChannels(const ConstTensor& t, int64_t channels, F f) {
  void* data = nullptr;
  ConstTensor r = ConstTensor::Allocate(t.dtype, t.shape, &data);
  for (int64_t i = 0; i < t.num_elements(); ++i) {
    const double v = f(t.ElementAsDouble(i), i % channels);
    if (t.dtype == DType::kFloat32) {
      static_cast<float*>(data)[i] = static_cast<float>(v);
    } else {
      static_cast<double*>(data)[i] = v;
    }
  }
  return r;
}

std::vector<int> UseCounts(const Graph& g) {
  std::vector<int> uses(g.num_nodes(), 0);
  for (const Node& n : g.nodes()) {
    for (ValueRef v : n.inputs) ++uses[v.node];
  }
  for (ValueRef v : g.results()) ++uses[v.node];
  return uses;
}

// The folded conv for elementwise node n (inputs mapped to `in`), or invalid.
absl::StatusOr<ValueRef> Fold(Graph& g, const Node& n, const std::vector<ValueRef>& in,
                              const std::vector<int>& uses) {
  const bool scale = n.op == OpId::kMul || n.op == OpId::kDiv;
  if (!scale && n.op != OpId::kAdd && n.op != OpId::kSub) return ValueRef{};
  // mul and add commute; div and sub fold only with the conv on the left.
  const bool commutes = n.op == OpId::kMul || n.op == OpId::kAdd;
  for (int side = 0; side < (commutes ? 2 : 1); ++side) {
    const ValueRef conv_v = in[side], c_v = in[1 - side];
    const Node& conv = g.node(conv_v.node);
    if (conv.op != OpId::kConv2D || uses[n.inputs[side].node] != 1) continue;
    if (g.type(conv_v) != n.outputs[0]) continue;  // broadcasting would grow the output
    const ConstTensor* c = g.ConstantValue(c_v);
    const ConstTensor* filter = g.ConstantValue(conv.inputs[1]);
    const ConstTensor* bias = conv.inputs.size() > 2 ? g.ConstantValue(conv.inputs[2]) : nullptr;
    if (!c || !filter || (conv.inputs.size() > 2 && !bias)) continue;
    const int64_t channels = filter->shape[3];
    std::vector<double> k = ChannelValues(*c, channels);
    if (k.empty()) continue;
    auto at = [&k](int64_t ch) { return k[k.size() == 1 ? 0 : static_cast<size_t>(ch)]; };
    ConstTensor new_filter = *filter;
    ConstTensor new_bias;
    if (bias) {
      new_bias = *bias;
    } else {
      void* zeros = nullptr;
      new_bias = ConstTensor::Allocate(filter->dtype, Shape{channels}, &zeros);
    }
    if (n.op == OpId::kMul) {
      new_filter = MapChannels(*filter, channels, [&](double v, int64_t ch) { return v * at(ch); });
      new_bias = MapChannels(new_bias, channels, [&](double v, int64_t ch) { return v * at(ch); });
    } else if (n.op == OpId::kDiv) {
      new_filter = MapChannels(*filter, channels, [&](double v, int64_t ch) { return v / at(ch); });
      new_bias = MapChannels(new_bias, channels, [&](double v, int64_t ch) { return v / at(ch); });
    } else {
      const double sign = n.op == OpId::kAdd ? 1 : -1;
      new_bias =
          MapChannels(new_bias, channels, [&](double v, int64_t ch) { return v + sign * at(ch); });
    }
    // Copies first: adding constants may move the node list under `conv`.
    const ValueRef x = conv.inputs[0];
    const Attrs attrs = conv.attrs;
    const ValueRef f = g.AddConstant(new_filter);
    const ValueRef b = g.AddConstant(new_bias);
    return g.Add(OpId::kConv2D, {x, f, b}, attrs);
  }
  return ValueRef{};
}

}  // namespace

absl::StatusOr<bool> FoldConvAffine(Graph& graph) {
  std::vector<int> uses = UseCounts(graph);
  return RewriteNodes(graph, FoldConvAffine,
                      [&](Rewriter& rw, const Node& n) -> absl::StatusOr<ValueRef> {
                        if (n.inputs.size() != 2 || n.outputs.size() != 1) return ValueRef{};
                        return Fold(rw.dst(), n, rw.MapAll(n.inputs), uses);
                      });
}

}  // namespace tfn::ir
