// Implementation of conv dead-tap elimination.
#include "ir/passes/conv_dead_taps.h"

#include <cstring>
#include <vector>

#include "ir/rewriter.h"

namespace tfn::ir {
namespace {

// The live taps [lo, hi] of one axis and its new pads; false when nothing
// changes or the rewrite does not apply.
struct AxisPlan {
  int64_t lo = 0, hi = 0, pad_begin = 0, pad_end = 0, dilation = 1;
};

// Overflow-checked: the attributes come from imported files.
bool PlanAxis(int64_t size, int64_t out, int64_t k, int64_t stride, int64_t dilation,
              int64_t pad_begin, int64_t pad_end, AxisPlan* plan) {
  if (out <= 0 || k <= 1 || stride <= 0 || dilation <= 0 || pad_begin < 0 || pad_end < 0)
    return false;
  int64_t lo = -1, hi = -1, span = 0;
  if (__builtin_mul_overflow(out - 1, stride, &span)) return false;
  for (int64_t t = 0; t < k; ++t) {
    int64_t first = 0, last = 0;  // rows read by output 0 and by the last output
    if (__builtin_mul_overflow(t, dilation, &first) ||
        __builtin_sub_overflow(first, pad_begin, &first) ||
        __builtin_add_overflow(first, span, &last)) {
      return false;
    }
    if (last < 0 || first >= size) continue;  // padding only
    if (lo < 0) lo = t;
    hi = t;
  }
  if (lo < 0 || (lo == 0 && hi == k - 1)) return false;
  // lo * dilation and (k - 1 - hi) * dilation are at most (k - 1) * dilation,
  // which the loop computed without overflow.
  plan->lo = lo;
  plan->hi = hi;
  plan->pad_begin = pad_begin - lo * dilation;
  plan->pad_end = pad_end - (k - 1 - hi) * dilation;
  plan->dilation = hi == lo ? 1 : dilation;
  return plan->pad_begin >= 0 && plan->pad_end >= 0;
}

// f[h0:h0+nh, w0:w0+nw, ...] of a [KH, KW, I, O] filter.
ConstTensor SliceFilter(const ConstTensor& f, int64_t h0, int64_t nh, int64_t w0, int64_t nw) {
  const int64_t kw = f.shape[1], inner = f.shape[2] * f.shape[3];
  const int64_t bytes = inner * DTypeSize(f.dtype);
  void* data = nullptr;
  ConstTensor r = ConstTensor::Allocate(f.dtype, Shape{nh, nw, f.shape[2], f.shape[3]}, &data);
  const char* src = static_cast<const char*>(f.data);
  for (int64_t h = 0; h < nh; ++h) {
    for (int64_t w = 0; w < nw; ++w) {
      std::memcpy(static_cast<char*>(data) + (h * nw + w) * bytes,
                  src + ((h0 + h) * kw + (w0 + w)) * bytes, static_cast<size_t>(bytes));
    }
  }
  return r;
}

absl::StatusOr<ValueRef> Drop(Graph& g, const Node& n, const std::vector<ValueRef>& in) {
  if (n.op != OpId::kConv2D || n.outputs.size() != 1) return ValueRef{};
  const ConstTensor* f = g.ConstantValue(in[1]);
  const TensorType& x = g.type(in[0]);
  const TensorType& y = n.outputs[0];
  if (!f || f->shape.rank() != 4 || x.shape.rank() != 4 || y.shape.rank() != 4) return ValueRef{};
  for (int d : {1, 2}) {
    if (!x.shape[d].is_static() || !y.shape[d].is_static()) return ValueRef{};
  }
  const std::string padding = n.attrs.GetString("padding", "VALID");
  if (padding != "VALID" && padding != "EXPLICIT") return ValueRef{};
  std::vector<int64_t> pads = n.attrs.GetInts("pads");
  if (padding == "VALID" || pads.size() != 4) pads = {0, 0, 0, 0};
  std::vector<int64_t> strides = n.attrs.GetInts("strides");
  std::vector<int64_t> dilations = n.attrs.GetInts("dilations");
  if (strides.size() != 2) strides = {1, 1};
  if (dilations.size() != 2) dilations = {1, 1};
  AxisPlan axis[2];
  bool changed = false;
  for (int a = 0; a < 2; ++a) {
    const int64_t k = f->shape[a];
    axis[a] = {0, k - 1, pads[2 * a], pads[2 * a + 1], dilations[a]};
    AxisPlan p;
    if (PlanAxis(x.shape[1 + a].value(), y.shape[1 + a].value(), k, strides[a], dilations[a],
                 pads[2 * a], pads[2 * a + 1], &p)) {
      axis[a] = p;
      changed = true;
    }
  }
  if (!changed) return ValueRef{};
  ConstTensor sliced = SliceFilter(*f, axis[0].lo, axis[0].hi - axis[0].lo + 1, axis[1].lo,
                                   axis[1].hi - axis[1].lo + 1);
  Attrs attrs = n.attrs;
  attrs.Set("padding", AttrValue::String("EXPLICIT"));
  attrs.Set("pads", AttrValue::Ints(
                        {axis[0].pad_begin, axis[0].pad_end, axis[1].pad_begin, axis[1].pad_end}));
  attrs.Set("dilations", AttrValue::Ints({axis[0].dilation, axis[1].dilation}));
  std::vector<ValueRef> inputs = in;  // copies: AddConstant may move the node list
  inputs[1] = g.AddConstant(std::move(sliced));
  absl::StatusOr<ValueRef> out = g.Add(OpId::kConv2D, inputs, attrs);
  if (out.ok() && g.type(*out) != y) {
    return absl::InternalError("conv_dead_taps changed a conv2d's output type");
  }
  return out;
}

}  // namespace

absl::StatusOr<bool> DropDeadConvTaps(Graph& graph) {
  return RewriteNodes(graph, DropDeadConvTaps,
                      [](Rewriter& rw, const Node& n) -> absl::StatusOr<ValueRef> {
                        if (n.op != OpId::kConv2D) return ValueRef{};
                        return Drop(rw.dst(), n, rw.MapAll(n.inputs));
                      });
}

}  // namespace tfn::ir
