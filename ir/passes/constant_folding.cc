// Implementation of constant folding.
#include "ir/passes/constant_folding.h"

#include "ir/inline.h"
#include "ir/rewriter.h"

namespace tfn::ir {
namespace {

bool Foldable(const Node& n, bool fold_dequantize) {
  const OpDef& d = n.def();
  return n.op != OpId::kParameter && n.op != OpId::kConstant && !d.has(kStateful) &&
         !d.has(kControlFlow) && !d.has(kNoKernel) &&
         (fold_dequantize || n.op != OpId::kDequantizeLinear);
}

bool StaticShape(const TensorType& t, Shape* out) {
  *out = Shape();
  for (const SymDim& d : t.shape) {
    if (!d.is_static()) return false;
    out->push_back(d.value());
  }
  return true;
}

}  // namespace

absl::StatusOr<bool> FoldConstants(Graph& graph, const ConstantEvaluator& evaluate,
                                   bool fold_dequantize) {
  bool changed = false;
  Rewriter rw(graph);
  for (int i = 0; i < graph.num_nodes(); ++i) {
    const Node& n = graph.node(i);
    // shape(x) and size(x) of a statically shaped x.
    Shape static_shape;
    if ((n.op == OpId::kShape || n.op == OpId::kSize) &&
        StaticShape(rw.dst().type(rw.Map(n.inputs[0])), &static_shape)) {
      ConstTensor t;
      if (n.op == OpId::kShape) {
        std::vector<int64_t> dims(static_shape.begin(), static_shape.end());
        t = ConstTensor::Copy(DType::kInt64, Shape{static_shape.rank()}, dims.data());
      } else {
        t = ConstTensor::Scalar<int64_t>(NumElements(static_shape));
      }
      rw.Replace(ValueRef{i, 0}, rw.dst().AddConstant(std::move(t)));
      changed = true;
      continue;
    }
    // cond with a constant predicate: inline the branch it takes.
    if (n.op == OpId::kCond) {
      // Inputs are looked up in the new graph, where earlier folds already happened.
      const ConstTensor* pred = rw.dst().ConstantValue(rw.Map(n.inputs[0]));
      if (pred) {
        const Graph& branch = n.subgraphs[pred->ElementAsInt(0) ? 0 : 1];
        std::vector<ValueRef> operands =
            rw.MapAll(std::vector<ValueRef>(n.inputs.begin() + 1, n.inputs.end()));
        absl::StatusOr<std::vector<ValueRef>> outs = InlineGraph(rw.dst(), branch, operands);
        if (!outs.ok()) return outs.status();
        for (size_t p = 0; p < outs->size(); ++p) rw.Replace(ValueRef{i, static_cast<int>(p)}, (*outs)[p]);
        changed = true;
        continue;
      }
    }
    std::vector<Graph> subgraphs = n.subgraphs;
    for (Graph& sub : subgraphs) {
      absl::StatusOr<bool> c = FoldConstants(sub, evaluate, fold_dequantize);
      if (!c.ok()) return c.status();
      changed |= *c;
    }
    bool all_const = Foldable(n, fold_dequantize);
    int64_t in_bytes = 0;
    std::vector<ConstTensor> inputs;
    for (ValueRef v : n.inputs) {
      const ConstTensor* c = rw.dst().ConstantValue(rw.Map(v));
      if (!c) {
        all_const = false;
        break;
      }
      inputs.push_back(*c);
      in_bytes += c->byte_size();
    }
    if (all_const) {
      int64_t out_bytes = 0;
      bool static_out = true;
      for (const TensorType& t : n.outputs) {
        Shape s;
        static_out &= StaticShape(t, &s);
        int64_t count = 0;
        if (static_out && CheckedNumElements(s, &count)) out_bytes += count * DTypeSize(t.dtype);
      }
      if (static_out && FoldsWithin(out_bytes, in_bytes)) {
        absl::StatusOr<std::vector<ConstTensor>> values = evaluate(n.op, n.attrs, inputs);
        // An op that fails on constants (e.g. gather out of range) is left in
        // place so that it reports its error when the graph runs.
        if (values.ok() && values->size() == n.outputs.size()) {
          for (size_t p = 0; p < values->size(); ++p) {
            rw.Replace(ValueRef{i, static_cast<int>(p)}, rw.dst().AddConstant((*values)[p]));
          }
          changed = true;
          continue;
        }
      }
    }
    absl::Status st = rw.CopyWithSubgraphs(i, std::move(subgraphs));
    if (!st.ok()) return st;
  }
  return rw.FinishPass(graph, changed);
}

}  // namespace tfn::ir
