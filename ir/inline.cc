// Implementation of InlineGraph.
#include "ir/inline.h"

#include <map>
#include <string>

namespace tfn::ir {

absl::StatusOr<std::vector<ValueRef>> InlineGraph(Graph& dst, const Graph& callee,
                                                  const std::vector<ValueRef>& args) {
  if (args.size() != callee.params().size()) {
    return absl::InvalidArgumentError("inline: " + std::to_string(args.size()) +
                                      " arguments for " + std::to_string(callee.params().size()) +
                                      " parameters");
  }
  std::vector<std::vector<ValueRef>> map(callee.num_nodes());
  for (size_t i = 0; i < args.size(); ++i) {
    const TensorType& want = callee.type(callee.param(static_cast<int>(i)));
    const TensorType& got = dst.type(args[i]);
    if (want.dtype != got.dtype || want.shape.rank() != got.shape.rank()) {
      return absl::InvalidArgumentError("inline: argument " + std::to_string(i) + " is " +
                                        got.ToString() + ", the parameter is " + want.ToString());
    }
    map[callee.params()[i]] = {args[i]};
  }
  for (int i = 0; i < callee.num_nodes(); ++i) {
    const Node& n = callee.node(i);
    if (n.op == OpId::kParameter) continue;
    if (n.op == OpId::kConstant) {
      map[i] = {dst.AddConstant(*n.attrs.GetTensor("value"))};
      continue;
    }
    std::vector<ValueRef> inputs;
    for (ValueRef v : n.inputs) inputs.push_back(map[v.node][v.port]);
    absl::StatusOr<std::vector<ValueRef>> outs =
        AddNodeRetyped(dst, n.op, std::move(inputs), n.attrs, n.subgraphs);
    if (!outs.ok()) return outs.status();
    map[i] = *outs;
  }
  std::vector<ValueRef> results;
  for (ValueRef r : callee.results()) results.push_back(map[r.node][r.port]);
  return results;
}

absl::StatusOr<Graph> RetypeGraph(const Graph& g, const std::vector<TensorType>& param_types,
                                  const Graph& counter_source) {
  Graph out = counter_source.NewSubgraph();
  std::vector<ValueRef> args;
  for (size_t i = 0; i < param_types.size(); ++i) {
    args.push_back(out.AddParameter(param_types[i],
                                    i < g.param_names().size() ? g.param_names()[i] : ""));
  }
  absl::StatusOr<std::vector<ValueRef>> results = InlineGraph(out, g, args);
  if (!results.ok()) return results.status();
  out.SetResults(*results, g.result_names());
  return out;
}

absl::StatusOr<std::vector<ValueRef>> AddNodeRetyped(Graph& dst, OpId op,
                                                     std::vector<ValueRef> inputs,
                                                     const Attrs& attrs,
                                                     std::vector<Graph> subgraphs) {
  if (GetOpDef(op).has(kControlFlow)) {
    // cond's subgraphs take the operands after the predicate; while_loop's take all.
    size_t first = op == OpId::kCond ? 1 : 0;
    std::vector<TensorType> types;
    for (size_t i = first; i < inputs.size(); ++i) types.push_back(dst.type(inputs[i]));
    for (Graph& sub : subgraphs) {
      bool same = sub.params().size() == types.size();
      for (size_t i = 0; same && i < types.size(); ++i) {
        same = Fits(sub.type(sub.param(static_cast<int>(i))), types[i], op == OpId::kWhileLoop);
      }
      if (same) continue;
      absl::StatusOr<Graph> retyped = RetypeGraph(sub, types, dst);
      if (!retyped.ok()) return retyped.status();
      sub = std::move(retyped).value();
    }
  }
  return dst.AddNode(op, std::move(inputs), attrs, std::move(subgraphs));
}

}  // namespace tfn::ir
