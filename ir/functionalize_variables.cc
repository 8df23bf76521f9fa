// FunctionalizeVariables: rebuilds the graph in node order, replacing each
// variable op by dataflow on the variable's current value.
#include "ir/functionalize_variables.h"

#include <cctype>
#include <map>

namespace tfn::ir {
namespace {

bool IsVariableOp(OpId op) {
  return op == OpId::kVarRead || op == OpId::kVarAssign || op == OpId::kVarAssignAdd;
}

bool UsesVariables(const Graph& g) {
  for (const Node& n : g.nodes()) {
    if (IsVariableOp(n.op)) return true;
    for (const Graph& sub : n.subgraphs) {
      if (UsesVariables(sub)) return true;
    }
  }
  return false;
}

}  // namespace

std::string StateName(const std::string& variable) {
  std::string out = "var_";
  for (char c : variable) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return out;
}

absl::StatusOr<FunctionalizedGraph> FunctionalizeVariables(const Graph& g) {
  FunctionalizedGraph out;
  out.graph = g.NewSubgraph();  // shares g's symbols, so dims keep their names
  Graph& dst = out.graph;
  std::vector<std::vector<ValueRef>> map(g.num_nodes());
  for (size_t i = 0; i < g.params().size(); ++i) {
    ValueRef p = g.param(static_cast<int>(i));
    map[p.node] = {dst.AddParameter(g.type(p), g.param_names()[i])};
  }
  std::map<std::string, int> index;  // variable name -> position in out.variables
  std::vector<ValueRef> current;     // per variable: its value at this point
  std::vector<bool> written;
  auto variable = [&](const Node& n) -> absl::StatusOr<int> {
    std::string name = n.attrs.GetString("name");
    auto it = index.find(name);
    if (it != index.end()) return it->second;
    int i = static_cast<int>(out.variables.size());
    index[name] = i;
    out.variables.push_back(name);
    // A first use that assigns gives the variable's type by its value.
    TensorType type = n.op == OpId::kVarRead ? n.outputs[0] : g.type(n.inputs[0]);
    current.push_back(dst.AddParameter(type, StateName(name)));
    written.push_back(false);
    return i;
  };
  for (int id = 0; id < g.num_nodes(); ++id) {
    const Node& n = g.node(id);
    if (n.op == OpId::kParameter) continue;
    for (const Graph& sub : n.subgraphs) {
      if (UsesVariables(sub)) {
        return absl::UnimplementedError(
            "compiling a function whose cond/while_loop bodies use Variables is not supported yet; "
            "read the "
            "variable outside the control flow and pass the value in");
      }
    }
    std::vector<ValueRef> inputs;
    for (ValueRef in : n.inputs) inputs.push_back(map[in.node][in.port]);
    if (IsVariableOp(n.op)) {
      absl::StatusOr<int> v = variable(n);
      if (!v.ok()) return v.status();
      if (n.op == OpId::kVarRead) {
        map[id] = {current[*v]};
      } else if (n.op == OpId::kVarAssign) {
        current[*v] = inputs[0];
        written[*v] = true;
      } else {
        absl::StatusOr<ValueRef> sum = dst.Add(OpId::kAdd, {current[*v], inputs[0]});
        if (!sum.ok()) return sum.status();
        current[*v] = *sum;
        written[*v] = true;
      }
      continue;
    }
    if (n.op == OpId::kConstant) {
      map[id] = {dst.AddConstant(*g.ConstantValue(ValueRef{id, 0}))};
      continue;
    }
    absl::StatusOr<std::vector<ValueRef>> added = dst.AddNode(n.op, inputs, n.attrs, n.subgraphs);
    if (!added.ok()) return added.status();
    map[id] = *added;
  }
  std::vector<ValueRef> results;
  std::vector<std::string> names = g.result_names();
  for (ValueRef r : g.results()) results.push_back(map[r.node][r.port]);
  names.resize(results.size());
  for (size_t i = 0; i < written.size(); ++i) {
    if (!written[i]) continue;
    results.push_back(current[i]);
    names.push_back(StateName(out.variables[i]));
    out.assigned.push_back(static_cast<int>(i));
  }
  dst.SetResults(results, names);
  return out;
}

}  // namespace tfn::ir
