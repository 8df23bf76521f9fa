// Implementation of transpose sinking.
#include "ir/passes/transpose_sinking.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "ir/passes/transpose_reshape.h"
#include "ir/rewriter.h"

namespace tfn::ir {
namespace {

// The perm of a transpose node, in full (empty means reversed).
std::vector<int64_t> PermOf(const Node& t, int rank) {
  std::vector<int64_t> p = t.attrs.GetInts("perm");
  if (p.empty()) {
    for (int i = rank - 1; i >= 0; --i) p.push_back(i);
  }
  for (int64_t& e : p) e = e < 0 ? e + rank : e;
  return p;
}

bool AllUnitDims(const SymShape& s) {
  for (const SymDim& d : s) {
    if (!d.is_static() || d.value() != 1) return false;
  }
  return true;
}

// The dims of s when all are static, else nullopt.
std::optional<std::vector<int64_t>> StaticDims(const SymShape& s) {
  std::vector<int64_t> dims;
  for (const SymDim& d : s) {
    if (!d.is_static()) return std::nullopt;
    dims.push_back(d.value());
  }
  return dims;
}

// c (rank <= `rank`, aligned on the right) as a rank-`rank` tensor permuted
// by q: result.shape[k] = padded.shape[q[k]].
ConstTensor Permute(const ConstTensor& c, int rank, const std::vector<int64_t>& q) {
  Shape padded;
  for (int i = c.shape.rank(); i < rank; ++i) padded.push_back(1);
  for (int64_t d : c.shape) padded.push_back(d);
  Shape out;
  int64_t in_strides[kMaxRank], s = 1;
  for (int i = rank - 1; i >= 0; --i) {
    in_strides[i] = s;
    s *= padded[i];
  }
  for (int k = 0; k < rank; ++k) out.push_back(padded[static_cast<int>(q[k])]);
  void* data = nullptr;
  ConstTensor r = ConstTensor::Allocate(c.dtype, out, &data);
  const int64_t n = NumElements(out), size = DTypeSize(c.dtype);
  for (int64_t i = 0; i < n; ++i) {
    int64_t rest = i, off = 0;
    for (int k = rank - 1; k >= 0; --k) {
      off += (rest % out[k]) * in_strides[q[k]];
      rest /= out[k];
    }
    std::memcpy(static_cast<char*>(data) + i * size, c.as<char>() + off * size,
                static_cast<size_t>(size));
  }
  return r;
}

class Sinker {
 public:
  explicit Sinker(const Graph& src) : src_(src), rw_(src), uses_(src.num_nodes()) {
    // Uses by transposes do not count: transpose(transpose(x)) composes into
    // one transpose (or none) in algebraic_simplify, so a transpose whose other
    // users are transposes can move without adding one.
    for (const Node& n : src.nodes()) {
      if (n.op == OpId::kTranspose) {
        transposed_.insert({n.inputs[0], PermOf(n, n.outputs[0].shape.rank())});
        continue;
      }
      for (ValueRef v : n.inputs) Count(v);
    }
    for (ValueRef v : src.results()) Count(v);
    // A value whose every use sinks (or is a transpose) may feed several
    // sinking nodes: each takes the untransposed value, and the transpose
    // left without users goes (dead_node_elimination). A use as a result, or
    // by any other node, keeps the single-use rule.
    std::vector<std::vector<uint8_t>> blocked(src.num_nodes());
    auto block = [&](ValueRef v) {
      if (static_cast<int>(blocked[v.node].size()) <= v.port) blocked[v.node].resize(v.port + 1, 0);
      blocked[v.node][v.port] = 1;
    };
    // A concat's operands are smaller than its output, but the one transpose
    // below it moves as much data as those of its operands together (a
    // DenseNet block: the growing concat feeds both the next layer's
    // batchnorm and the next concat; blocked, the whole block stayed NCHW
    // with a transpose before and after every convolution).
    for (const Node& n : src.nodes()) {
      if (n.op == OpId::kTranspose) continue;
      const bool sinks = (SinkableKind(n) || IsPerTensorQdq(src, n)) &&
                         (!IsAttrReshape(n) || ReshapeMayMove(src, n));
      const bool any_shape = IsReduce(n) || IsAttrPad(n) || IsAttrReshape(n) || IsAttrSlice(n) ||
                             n.op == OpId::kConcat;
      for (ValueRef v : n.inputs) {
        const bool same_shape = n.outputs.size() == 1 && src.type(v).shape == n.outputs[0].shape;
        if (!sinks || (!same_shape && !any_shape)) block(v);
      }
    }
    for (ValueRef v : src.results()) block(v);
    blocked_ = std::move(blocked);
  }

  // Rewrites node i if it can; false when it must be copied as it is.
  absl::StatusOr<bool> TrySink(int i) {
    const Node& n = src_.node(i);
    if (n.op == OpId::kResize) return TrySinkResize(i);
    if (IsReduce(n)) return TrySinkReduce(i);
    if (IsAttrPad(n)) return TrySinkPad(i);
    if (IsAttrReshape(n)) return TrySinkReshape(i);
    if (IsAttrSlice(n)) return TrySinkSlice(i);
    const bool concat = n.op == OpId::kConcat;
    if ((!n.def().has(kElementwise) && !concat && !IsPerTensorQdq(src_, n)) ||
        n.def().has(kStateful) || n.outputs.size() != 1 || n.inputs.empty()) {
      return false;
    }
    Graph& g = rw_.dst();
    const int rank = n.outputs[0].shape.rank();
    std::vector<ValueRef> in = rw_.MapAll(n.inputs);
    std::vector<int64_t> perm;
    bool full = false;
    for (size_t k = 0; k < in.size(); ++k) {
      const Node& p = g.node(in[k].node);
      if (p.op != OpId::kTranspose || !Movable(n.inputs[k])) continue;
      std::vector<int64_t> pk = PermOf(p, rank);
      if (!perm.empty() && pk != perm) return false;
      if (g.type(in[k]).shape.rank() != rank) return false;
      full |= g.type(in[k]).shape == n.outputs[0].shape;
      perm = pk;
    }
    // Broadcasting is fine when one transposed operand already has the
    // output's shape: the transpose after the op moves no more data than the
    // one it replaces (a squeeze-excitation scale [1,C,1,1] times [1,C,H,W]).
    if (perm.empty() || (!concat && !full)) return false;
    std::vector<int64_t> inverse(rank);
    for (int k = 0; k < rank; ++k) inverse[static_cast<size_t>(perm[k])] = k;
    // Each operand: 0 the transposed value moves up, 1 a constant to permute,
    // 2 a value that broadcasts the same in either layout, 3 a value the graph
    // already transposes by the inverse perm (a residual connection: the new
    // transpose is a duplicate that cse merges).
    std::vector<int> kind(in.size());
    for (size_t k = 0; k < in.size(); ++k) {
      const TensorType& t = g.type(in[k]);
      if (g.node(in[k].node).op == OpId::kTranspose && Movable(n.inputs[k]) &&
          PermOf(g.node(in[k].node), rank) == perm) {
        kind[k] = 0;
      } else if (t.shape.rank() <= rank && AllUnitDims(t.shape) && !concat) {
        kind[k] = 2;
      } else if (g.ConstantValue(in[k]) && t.shape.rank() <= rank) {
        kind[k] = 1;
      } else if (t.shape.rank() == rank && transposed_.count({n.inputs[k], inverse})) {
        kind[k] = 3;
      } else {
        return false;
      }
    }
    std::vector<ValueRef> moved;
    for (size_t k = 0; k < in.size(); ++k) {
      if (kind[k] == 0) {
        moved.push_back(g.node(in[k].node).inputs[0]);
      } else if (kind[k] == 1) {
        moved.push_back(g.AddConstant(Permute(*g.ConstantValue(in[k]), rank, inverse)));
      } else if (kind[k] == 3) {
        absl::StatusOr<ValueRef> t =
            g.Add(OpId::kTranspose, {in[k]}, {{"perm", AttrValue::Ints(inverse)}});
        if (!t.ok()) return t.status();
        moved.push_back(*t);
      } else {
        moved.push_back(in[k]);
      }
    }
    Attrs attrs = n.attrs;
    if (concat) {
      int64_t axis = attrs.GetInt("axis");
      attrs.Set("axis", AttrValue::Int(perm[static_cast<size_t>(axis < 0 ? axis + rank : axis)]));
    }
    return ReplaceWithTransposed(i, n.op, moved, attrs, perm);
  }

  // resize(transpose(a, p), sizes, scales, roi) -> transpose(resize(a, ...'), p):
  // resize is per axis, so its constant per-axis inputs are permuted instead.
  absl::StatusOr<bool> TrySinkResize(int i) {
    const Node& n = src_.node(i);
    Graph& g = rw_.dst();
    std::vector<ValueRef> in = rw_.MapAll(n.inputs);
    const int rank = n.outputs[0].shape.rank();
    if (g.node(in[0].node).op != OpId::kTranspose || UsesOf(n.inputs[0]) != 1) return false;
    // Below an upsample the transpose would move more data; that pays only
    // when it goes on to meet another transpose (an upsample between two
    // convolutions), not when it stays (a segmentation head's last resize
    // to the NCHW result: transposing 224x224x21 after it cost as much as
    // the resize, 28x28x21 before it almost nothing).
    if (NumElements(n.outputs[0].shape) > NumElements(src_.type(n.inputs[0]).shape) &&
        !ReachesTranspose(i)) {
      return false;
    }
    const std::vector<int64_t> perm = PermOf(g.node(in[0].node), rank);
    std::vector<ConstTensor> permuted;
    for (size_t k = 1; k < in.size(); ++k) {
      const ConstTensor* c = g.ConstantValue(in[k]);
      if (!c || c->shape.rank() != 1 || c->num_elements() % rank != 0) return false;
      // Per axis j of a: entry perm-inverse(j) of the transposed value's, in
      // each block of `rank` entries (roi has starts, then ends).
      void* data = nullptr;
      ConstTensor r = ConstTensor::Allocate(c->dtype, c->shape, &data);
      const int64_t size = DTypeSize(c->dtype);
      for (int64_t e = 0; e < c->num_elements(); ++e) {
        const int64_t block = e / rank * rank, axis = perm[static_cast<size_t>(e % rank)];
        std::memcpy(static_cast<char*>(data) + (block + axis) * size, c->as<char>() + e * size,
                    static_cast<size_t>(size));
      }
      permuted.push_back(r);
    }
    std::vector<ValueRef> moved = {g.node(in[0].node).inputs[0]};
    for (const ConstTensor& c : permuted) moved.push_back(g.AddConstant(c));
    return ReplaceWithTransposed(i, n.op, moved, n.attrs, perm);
  }

  // reduce(transpose(a, p), axes) -> transpose(reduce(a, p[axes]), q). With
  // kept dims the output has the input's rank and q = p (a global average
  // pool over an NCHW view of an NHWC value). Without, q orders the dims
  // left by reducing `a` as the transposed view orders them, and is often
  // the identity: mean over H and W of an NCHW view of NHWC leaves [N, C] in
  // either layout (x.mean([2, 3]) in ShuffleNet, MnasNet, ...), so no
  // transpose is left at all.
  absl::StatusOr<bool> TrySinkReduce(int i) {
    const Node& n = src_.node(i);
    Graph& g = rw_.dst();
    ValueRef in;
    std::vector<int64_t> perm;
    if (!MovableTransposeInput(n, &in, &perm)) return false;
    const int rank = static_cast<int>(perm.size());
    std::vector<uint8_t> reduced(static_cast<size_t>(rank), 0);  // by axis of the view
    for (int64_t a : n.attrs.GetInts("axes")) {
      if (a < -rank || a >= rank) return false;  // Verify reports it
      reduced[static_cast<size_t>(a < 0 ? a + rank : a)] = 1;
    }
    std::vector<int64_t> axes;  // of `a`
    for (int k = 0; k < rank; ++k) {
      if (reduced[static_cast<size_t>(k)]) axes.push_back(perm[static_cast<size_t>(k)]);
    }
    std::sort(axes.begin(), axes.end());
    std::vector<int64_t> q = perm;
    if (n.attrs.GetInt("keepdims") == 0) {
      if (axes.empty()) return false;  // no axes: every dim (a scalar), or none
      // Output dim j is the view's j-th kept axis, i.e. a's axis perm[k];
      // reducing `a` leaves its kept axes in increasing order.
      q.clear();
      for (int k = 0; k < rank; ++k) {
        if (reduced[static_cast<size_t>(k)]) continue;
        const int64_t src = perm[static_cast<size_t>(k)];
        int64_t position = 0;
        for (int64_t m = 0; m < src; ++m)
          position += !std::binary_search(axes.begin(), axes.end(), m);
        q.push_back(position);
      }
    }
    Attrs attrs = n.attrs;
    attrs.Set("axes", AttrValue::Ints(axes));
    absl::StatusOr<ValueRef> y = g.Add(n.op, {g.node(in.node).inputs[0]}, attrs);
    if (!y.ok()) return y.status();
    bool identity = true;
    for (size_t j = 0; j < q.size(); ++j) identity &= q[j] == static_cast<int64_t>(j);
    if (identity) {
      rw_.Replace(ValueRef{i, 0}, *y);
      return true;
    }
    absl::StatusOr<ValueRef> t = g.Add(OpId::kTranspose, {*y}, {{"perm", AttrValue::Ints(q)}});
    if (!t.ok()) return t.status();
    rw_.Replace(ValueRef{i, 0}, *t);
    return true;
  }

  // pad(transpose(a, p), paddings) -> transpose(pad(a, paddings'), p): the
  // (before, after) pair of the view's axis k pads a's axis p[k] (any mode:
  // constant, reflect and edge are per axis). Inception's average pools that
  // count the padding are pad + avg_pool2d on an NCHW view of NHWC.
  absl::StatusOr<bool> TrySinkPad(int i) {
    const Node& n = src_.node(i);
    Graph& g = rw_.dst();
    ValueRef in;
    std::vector<int64_t> perm;
    if (!MovableTransposeInput(n, &in, &perm)) return false;
    const int rank = static_cast<int>(perm.size());
    const std::vector<int64_t> pads = n.attrs.GetInts("paddings");
    if (static_cast<int>(pads.size()) != 2 * rank) return false;  // Verify reports it
    std::vector<int64_t> moved(pads.size());
    for (int k = 0; k < rank; ++k) {
      const size_t to = static_cast<size_t>(2 * perm[static_cast<size_t>(k)]);
      moved[to] = pads[static_cast<size_t>(2 * k)];
      moved[to + 1] = pads[static_cast<size_t>(2 * k + 1)];
    }
    Attrs attrs = n.attrs;
    attrs.Set("paddings", AttrValue::Ints(moved));
    return ReplaceWithTransposed(i, n.op, {g.node(in.node).inputs[0]}, attrs, perm);
  }

  // reshape(transpose(a, p), R) -> transpose(reshape(transpose(a, q), A2), p2)
  // (transpose_reshape.h; static shapes): the reshape moves onto `a`, and
  // only where it merges dims not contiguous in `a` (a channel shuffle) does
  // a transpose of `a` stay, the one that moves the data. Nothing is done
  // when nothing would sink (then q is just p again: a flatten of NCHW).
  absl::StatusOr<bool> TrySinkReshape(int i) {
    const Node& n = src_.node(i);
    Graph& g = rw_.dst();
    ValueRef in;
    std::vector<int64_t> perm;
    if (!MovableTransposeInput(n, &in, &perm)) return false;
    const ValueRef a = g.node(in.node).inputs[0];
    const std::optional<std::vector<int64_t>> as = StaticDims(g.type(a).shape);
    const std::optional<std::vector<int64_t>> rs = StaticDims(n.outputs[0].shape);
    if (!as || !rs) return false;
    const std::optional<ReshapeAboveTranspose> m = MoveReshapeAboveTranspose(*as, perm, *rs);
    if (!m || (!m->q.empty() && m->p2.empty())) return false;
    ValueRef x = a;
    if (!m->q.empty()) {
      absl::StatusOr<ValueRef> t = g.Add(OpId::kTranspose, {a}, {{"perm", AttrValue::Ints(m->q)}});
      if (!t.ok()) return t.status();
      x = *t;
    }
    absl::StatusOr<ValueRef> y = g.Add(OpId::kReshape, {x}, {{"shape", AttrValue::Ints(m->a2)}});
    if (!y.ok()) return y.status();
    ValueRef result = *y;
    if (!m->p2.empty()) {
      absl::StatusOr<ValueRef> t =
          g.Add(OpId::kTranspose, {*y}, {{"perm", AttrValue::Ints(m->p2)}});
      if (!t.ok()) return t.status();
      result = *t;
    }
    rw_.Replace(ValueRef{i, 0}, result);
    return true;
  }

  // slice(transpose(a, p), begin, end, strides) -> transpose(slice(a, ...'), p):
  // the view's axis k is a's axis p[k], so its bounds move there (ShuffleNet's
  // split of the shuffled channels in halves).
  absl::StatusOr<bool> TrySinkSlice(int i) {
    const Node& n = src_.node(i);
    Graph& g = rw_.dst();
    ValueRef in;
    std::vector<int64_t> perm;
    if (!MovableTransposeInput(n, &in, &perm)) return false;
    const size_t rank = perm.size();
    Attrs attrs = n.attrs;
    for (const char* name : {"begin", "end", "strides"}) {
      const std::vector<int64_t> v = n.attrs.GetInts(name);
      if (v.empty() && std::strcmp(name, "strides") == 0) continue;
      if (v.size() != rank) return false;  // Verify reports it
      std::vector<int64_t> moved(rank);
      for (size_t k = 0; k < rank; ++k) moved[static_cast<size_t>(perm[k])] = v[k];
      attrs.Set(name, AttrValue::Ints(moved));
    }
    return ReplaceWithTransposed(i, n.op, {g.node(in.node).inputs[0]}, attrs, perm);
  }

  Rewriter& rw() { return rw_; }

 private:
  // Replaces node i by transpose(op(inputs, attrs), perm), built in the new graph.
  absl::StatusOr<bool> ReplaceWithTransposed(int i, OpId op, const std::vector<ValueRef>& inputs,
                                             const Attrs& attrs, const std::vector<int64_t>& perm) {
    Graph& g = rw_.dst();
    absl::StatusOr<ValueRef> y = g.Add(op, inputs, attrs);
    if (!y.ok()) return y.status();
    absl::StatusOr<ValueRef> t = g.Add(OpId::kTranspose, {*y}, {{"perm", AttrValue::Ints(perm)}});
    if (!t.ok()) return t.status();
    rw_.Replace(ValueRef{i, 0}, *t);
    return true;
  }

  // quantize_linear / dequantize_linear with one scale and zero point for
  // the whole tensor are elementwise: a transpose moves below them (so the
  // layout transposes between int8 ops cancel across the Q/DQ pairs).
  static bool IsPerTensorQdq(const Graph& g, const Node& n) {
    if (n.op != OpId::kQuantizeLinear && n.op != OpId::kDequantizeLinear) return false;
    for (size_t k = 1; k < n.inputs.size(); ++k) {
      if (!AllUnitDims(g.type(n.inputs[k]).shape)) return false;
    }
    return true;
  }
  // Whether a transpose moved below node i could, sinking further through
  // the ops this pass sinks through, meet a transpose (where the two compose,
  // usually into none). Looks a few nodes down, visiting at most
  // kLookAheadNodes nodes (a wide fan-out stays cheap).
  bool ReachesTranspose(int i) const {
    constexpr int kLookAheadDepth = 6, kLookAheadNodes = 64;
    std::vector<std::pair<int, int>> stack = {{i, 0}};  // (node, depth)
    std::set<int> seen = {i};
    while (!stack.empty()) {
      const auto [at, depth] = stack.back();
      stack.pop_back();
      for (int u = at + 1; u < src_.num_nodes(); ++u) {  // users come later
        const Node& user = src_.node(u);
        bool uses = false;
        for (ValueRef v : user.inputs) uses |= v.node == at;
        if (!uses || seen.count(u)) continue;
        if (user.op == OpId::kTranspose) return true;
        if (!SinkableKind(user) || depth + 1 >= kLookAheadDepth) continue;
        if (static_cast<int>(seen.size()) >= kLookAheadNodes) return false;
        seen.insert(u);
        stack.push_back({u, depth + 1});
      }
    }
    return false;
  }
  // The element count of a static shape; -1 when a dim is dynamic.
  static int64_t NumElements(const SymShape& s) {
    const std::optional<std::vector<int64_t>> dims = StaticDims(s);
    if (!dims) return -1;
    int64_t n = 1;
    for (int64_t d : *dims) n *= d;
    return n;
  }
  // Elementwise ops, concat and resize move a transpose below them;
  // reductions over constant axes and pads with constant paddings too.
  static bool SinkableKind(const Node& n) {
    if (n.def().has(kStateful) || n.outputs.size() != 1) return false;
    return n.def().has(kElementwise) || n.op == OpId::kConcat || n.op == OpId::kResize ||
           IsReduce(n) || IsAttrPad(n) || IsAttrReshape(n) || IsAttrSlice(n);
  }
  // Whether TrySinkReshape may move a transpose below reshape n: static
  // shapes, and when its input is a transpose already, a form that sinks.
  static bool ReshapeMayMove(const Graph& src, const Node& n) {
    const std::optional<std::vector<int64_t>> rs = StaticDims(n.outputs[0].shape);
    if (!rs || !StaticDims(src.type(n.inputs[0]).shape)) return false;
    const Node& t = src.node(n.inputs[0].node);
    if (t.op != OpId::kTranspose) return true;  // it may become one during the pass
    const std::optional<std::vector<int64_t>> as = StaticDims(src.type(t.inputs[0]).shape);
    if (!as) return false;
    const std::optional<ReshapeAboveTranspose> m =
        MoveReshapeAboveTranspose(*as, PermOf(t, static_cast<int>(as->size())), *rs);
    return m && !(!m->q.empty() && m->p2.empty());
  }
  // A reshape to its "shape" attribute (no run-time shape, no dim expressions).
  static bool IsAttrReshape(const Node& n) {
    return n.op == OpId::kReshape && n.inputs.size() == 1 && n.attrs.GetInt("copy_zero") == 0 &&
           n.attrs.GetString("dims").empty();
  }
  // A slice with its bounds as attributes.
  static bool IsAttrSlice(const Node& n) {
    return n.op == OpId::kSlice && n.inputs.size() == 1 && n.attrs.GetString("dims").empty();
  }
  // A pad whose paddings are the attribute (not a run-time input).
  static bool IsAttrPad(const Node& n) { return n.op == OpId::kPad && n.inputs.size() == 1; }
  static bool IsReduce(const Node& n) {
    const bool reduce = n.op == OpId::kReduceSum || n.op == OpId::kReduceMean ||
                        n.op == OpId::kReduceMax || n.op == OpId::kReduceMin ||
                        n.op == OpId::kReduceProd;
    return reduce && n.inputs.size() == 1;
  }
  // Whether n's input 0 is a transpose (in the new graph: *in, its perm
  // *perm) that may move below n.
  bool MovableTransposeInput(const Node& n, ValueRef* in, std::vector<int64_t>* perm) {
    *in = rw_.Map(n.inputs[0]);
    const Graph& g = rw_.dst();
    if (g.node(in->node).op != OpId::kTranspose || !Movable(n.inputs[0])) return false;
    *perm = PermOf(g.node(in->node), g.type(*in).shape.rank());
    return true;
  }
  // May the transpose producing v move below one of its users?
  bool Movable(ValueRef v) const {
    if (UsesOf(v) == 1) return true;
    return !(v.port < static_cast<int>(blocked_[v.node].size()) && blocked_[v.node][v.port]);
  }

  void Count(ValueRef v) {
    if (static_cast<int>(uses_[v.node].size()) <= v.port) uses_[v.node].resize(v.port + 1, 0);
    ++uses_[v.node][v.port];
  }
  int UsesOf(ValueRef v) const {
    return v.port < static_cast<int>(uses_[v.node].size()) ? uses_[v.node][v.port] : 0;
  }

  const Graph& src_;
  Rewriter rw_;
  std::vector<std::vector<int>> uses_;
  std::vector<std::vector<uint8_t>> blocked_;  // per value: a use that does not sink
  std::set<std::pair<ValueRef, std::vector<int64_t>>> transposed_;  // (value, perm) pairs
};

}  // namespace

absl::StatusOr<bool> SinkTransposes(Graph& graph) {
  bool changed = false;
  Sinker s(graph);
  for (int i = 0; i < graph.num_nodes(); ++i) {
    const Node& n = graph.node(i);
    if (!n.subgraphs.empty()) {
      absl::Status st = s.rw().CopyWithSubgraphsRewritten(i, SinkTransposes, &changed);
      if (!st.ok()) return st;
      continue;
    }
    absl::StatusOr<bool> sunk = s.TrySink(i);
    if (!sunk.ok()) return sunk.status();
    if (*sunk) {
      changed = true;
      continue;
    }
    absl::Status st = s.rw().Copy(i);
    if (!st.ok()) return st;
  }
  return s.rw().FinishPass(graph, changed);
}

}  // namespace tfn::ir
