// Implementation of the float graph a signature is quantized from.
#include "quantizer/float_graph.h"

#include <functional>
#include <map>
#include <set>

#include "ir/passes/unlower_fused.h"
#include "ir/rewriter.h"

namespace tfn::quantizer {
namespace {

// Names of the variables assigned anywhere in g (subgraphs too).
void CollectAssigned(const ir::Graph& g, std::set<std::string>* out) {
  for (const ir::Node& n : g.nodes()) {
    if (n.op == OpId::kVarAssign || n.op == OpId::kVarAssignAdd) {
      out->insert(n.attrs.GetString("name"));
    }
    for (const ir::Graph& sub : n.subgraphs) CollectAssigned(sub, out);
  }
}

// Every read of a variable in `frozen` becomes a constant of its value.
absl::StatusOr<bool> Freeze(ir::Graph& graph, const std::map<std::string, ConstTensor>& frozen) {
  std::function<absl::StatusOr<bool>(ir::Graph&)> pass = [&](ir::Graph& g) {
    return ir::RewriteNodes(
        g, pass, [&](ir::Rewriter& rw, const ir::Node& n) -> absl::StatusOr<ir::ValueRef> {
          if (n.op != OpId::kVarRead) return ir::ValueRef{};
          auto it = frozen.find(n.attrs.GetString("name"));
          if (it == frozen.end()) return ir::ValueRef{};
          return rw.dst().AddConstant(it->second);
        });
  };
  return pass(graph);
}

}  // namespace

bool UsesVariable(const ir::Graph& graph, const std::string& name) {
  for (const ir::Node& n : graph.nodes()) {
    const bool var_op =
        n.op == OpId::kVarRead || n.op == OpId::kVarAssign || n.op == OpId::kVarAssignAdd;
    if (var_op && n.attrs.GetString("name") == name) return true;
    for (const ir::Graph& sub : n.subgraphs) {
      if (UsesVariable(sub, name)) return true;
    }
  }
  return false;
}

absl::StatusOr<ir::Graph> PrepareFloatGraph(const exporter::ImportedBundle& bundle,
                                            const std::string& signature) {
  const exporter::SignatureToExport* sig = nullptr;
  std::string names;
  std::set<std::string> assigned;
  for (const exporter::SignatureToExport& s : bundle.signatures) {
    if (s.name == signature) sig = &s;
    names += (names.empty() ? "'" : ", '") + s.name + "'";
    CollectAssigned(s.graph, &assigned);
  }
  if (!sig) {
    return absl::NotFoundError("the bundle has no signature '" + signature + "' (it has " + names +
                               "): pass --signature NAME");
  }
  std::map<std::string, ConstTensor> frozen;
  for (const exporter::VariableToExport& v : bundle.variables) {
    if (!assigned.count(v.name)) frozen[v.name] = v.value;
  }
  ir::Graph graph = sig->graph;
  absl::StatusOr<bool> changed = Freeze(graph, frozen);
  if (changed.ok()) changed = ir::UnlowerFusedOps(graph);
  if (!changed.ok()) return changed.status();
  return graph;
}

}  // namespace tfn::quantizer
