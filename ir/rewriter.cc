// Implementation of the Rewriter.
#include "ir/rewriter.h"

#include <string>

#include "ir/inline.h"

namespace tfn::ir {

Rewriter::Rewriter(const Graph& src) : src_(src), dst_(src.NewSubgraph()) {
  map_.resize(src.num_nodes());
  for (size_t i = 0; i < src.params().size(); ++i) {
    int node = src.params()[i];
    map_[node] = {dst_.AddParameter(src.node(node).outputs[0], src.param_names()[i])};
  }
}

ValueRef Rewriter::Map(ValueRef old) const {
  if (!old.valid() || old.node >= static_cast<int>(map_.size())) return ValueRef{};
  const std::vector<ValueRef>& outs = map_[old.node];
  return old.port < static_cast<int>(outs.size()) ? outs[old.port] : ValueRef{};
}

std::vector<ValueRef> Rewriter::MapAll(const std::vector<ValueRef>& old) const {
  std::vector<ValueRef> out;
  for (ValueRef v : old) out.push_back(Map(v));
  return out;
}

void Rewriter::Replace(ValueRef old, ValueRef replacement) {
  std::vector<ValueRef>& outs = map_[old.node];
  if (static_cast<int>(outs.size()) <= old.port) outs.resize(old.port + 1);
  outs[old.port] = replacement;
}

absl::Status Rewriter::Copy(int old_node) {
  return CopyWithSubgraphs(old_node, src_.node(old_node).subgraphs);
}

absl::Status Rewriter::CopyWithSubgraphs(int old_node, std::vector<Graph> subgraphs) {
  const Node& n = src_.node(old_node);
  if (n.op == OpId::kParameter) return absl::OkStatus();  // copied by the constructor
  std::vector<ValueRef> inputs = MapAll(n.inputs);
  for (size_t k = 0; k < inputs.size(); ++k) {
    if (!inputs[k].valid()) {
      return absl::InternalError("rewriter: input " + std::to_string(k) + " of %" +
                                 std::to_string(old_node) + " was dropped");
    }
  }
  if (n.op == OpId::kConstant) {
    map_[old_node] = {dst_.AddConstant(*n.attrs.GetTensor("value"))};
    return absl::OkStatus();
  }
  absl::StatusOr<std::vector<ValueRef>> outs =
      AddNodeRetyped(dst_, n.op, std::move(inputs), n.attrs, std::move(subgraphs));
  if (!outs.ok()) return outs.status();
  map_[old_node] = *outs;
  return absl::OkStatus();
}

absl::StatusOr<Graph> Rewriter::Finish() {
  std::vector<ValueRef> results = MapAll(src_.results());
  for (size_t k = 0; k < results.size(); ++k) {
    if (!results[k].valid()) {
      return absl::InternalError("rewriter: result " + std::to_string(k) + " was dropped");
    }
  }
  dst_.SetResults(results, src_.result_names());
  return std::move(dst_);
}

absl::Status Rewriter::CopyWithSubgraphsRewritten(
    int old_node, absl::FunctionRef<absl::StatusOr<bool>(Graph&)> pass, bool* changed) {
  std::vector<Graph> subgraphs = src_.node(old_node).subgraphs;
  for (Graph& sub : subgraphs) {
    absl::StatusOr<bool> c = pass(sub);
    if (!c.ok()) return c.status();
    *changed |= *c;
  }
  return CopyWithSubgraphs(old_node, std::move(subgraphs));
}

absl::StatusOr<bool> Rewriter::FinishPass(Graph& graph, bool changed) {
  if (!changed) return false;
  absl::StatusOr<Graph> out = Finish();
  if (!out.ok()) return out.status();
  graph = std::move(out).value();
  return true;
}

absl::StatusOr<bool> RewriteNodes(
    Graph& graph, absl::FunctionRef<absl::StatusOr<bool>(Graph&)> pass,
    absl::FunctionRef<absl::StatusOr<ValueRef>(Rewriter& rw, const Node& n)> rewrite) {
  bool changed = false;
  Rewriter rw(graph);
  for (int i = 0; i < graph.num_nodes(); ++i) {
    const Node& n = graph.node(i);
    if (!n.subgraphs.empty()) {
      absl::Status st = rw.CopyWithSubgraphsRewritten(i, pass, &changed);
      if (!st.ok()) return st;
      continue;
    }
    absl::StatusOr<ValueRef> replacement = rewrite(rw, n);
    if (!replacement.ok()) return replacement.status();
    if (replacement->valid()) {
      rw.Replace(ValueRef{i, 0}, *replacement);
      changed = true;
      continue;
    }
    absl::Status st = rw.Copy(i);
    if (!st.ok()) return st;
  }
  return rw.FinishPass(graph, changed);
}

}  // namespace tfn::ir
