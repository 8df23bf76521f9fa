// Implementation of pad folding (pad_folding.h).
#include "ir/passes/pad_folding.h"

#include <string>
#include <vector>

#include "ir/rewriter.h"

namespace tfn::ir {
namespace {

// The [top, bottom, left, right] zero padding of an NHWC pad node, if it is one.
bool SpatialZeroPad(const Node& pad, std::vector<int64_t>* hw) {
  if (pad.op != OpId::kPad || pad.inputs.size() != 1 || pad.outputs.size() != 1 ||
      pad.outputs[0].shape.rank() != 4 || pad.attrs.GetString("mode", "constant") != "constant" ||
      pad.attrs.GetFloat("constant_value") != 0.0) {
    return false;
  }
  const std::vector<int64_t> p = pad.attrs.GetInts("paddings");
  if (p.size() != 8 || p[0] != 0 || p[1] != 0 || p[6] != 0 || p[7] != 0) return false;
  for (int64_t v : p) {
    if (v < 0) return false;
  }
  *hw = {p[2], p[3], p[4], p[5]};
  return true;
}

// The op's explicit [top, bottom, left, right] pads (zeros for VALID), or false.
bool OwnPads(const Node& n, std::vector<int64_t>* pads) {
  const std::string padding = n.attrs.GetString("padding", "VALID");
  if (padding == "VALID") {
    *pads = {0, 0, 0, 0};
    return true;
  }
  if (padding != "EXPLICIT") return false;
  *pads = n.attrs.GetInts("pads");
  if (pads->empty()) *pads = {0, 0, 0, 0};
  return pads->size() == 4;
}

absl::StatusOr<ValueRef> Fold(Graph& g, const Node& n, const std::vector<ValueRef>& in) {
  const bool conv = n.op == OpId::kConv2D, pool = n.op == OpId::kAvgPool2D;
  if ((!conv && !pool) || in.empty() || n.outputs.size() != 1) return ValueRef{};
  const Node& pad = g.node(in[0].node);
  std::vector<int64_t> extra, pads;
  if (!SpatialZeroPad(pad, &extra) || !OwnPads(n, &pads)) return ValueRef{};
  Attrs attrs = n.attrs;
  if (pool) {
    if (n.attrs.GetInt("ceil_mode") != 0) return ValueRef{};
    const bool counted = n.attrs.GetInt("count_include_pad") != 0;
    for (int64_t v : pads) {
      if (v != 0 && !counted) return ValueRef{};  // uncounted own padding: different divisors
    }
    attrs.Set("count_include_pad", AttrValue::Int(1));
  }
  for (int k = 0; k < 4; ++k) pads[k] += extra[k];
  attrs.Set("padding", AttrValue::String("EXPLICIT"));
  attrs.Set("pads", AttrValue::Ints(pads));
  std::vector<ValueRef> inputs = in;
  inputs[0] = pad.inputs[0];
  const TensorType want = n.outputs[0];
  absl::StatusOr<ValueRef> out = g.Add(n.op, inputs, attrs);
  // A dynamic size may come out as another expression: then keep the pad
  // (the node added here is dead).
  if (out.ok() && g.type(*out) != want) return ValueRef{};
  return out;
}

}  // namespace

absl::StatusOr<bool> FoldPads(Graph& graph) {
  return RewriteNodes(graph, FoldPads, [](Rewriter& rw, const Node& n) -> absl::StatusOr<ValueRef> {
    if (n.op != OpId::kConv2D && n.op != OpId::kAvgPool2D) return ValueRef{};
    return Fold(rw.dst(), n, rw.MapAll(n.inputs));
  });
}

}  // namespace tfn::ir
