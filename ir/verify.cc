// The IR verifier: references, parameters, attributes, types, subgraphs.
#include "ir/verify.h"
#include "ir/fresh_dim.h"

#include <cstdlib>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/node_check.h"
#include "ir/passes/fuse_elementwise.h"

namespace tfn::ir {
namespace {

// True when `inferred` equals `stored`, allowing dims that inference had to
// invent afresh (data-dependent dims, cond branches that disagree).
bool SameType(const TensorType& stored, const TensorType& inferred) {
  if (stored.dtype != inferred.dtype || stored.shape.rank() != inferred.shape.rank()) return false;
  for (int d = 0; d < stored.shape.rank(); ++d) {
    if (stored.shape[d] == inferred.shape[d]) continue;
    std::string name = inferred.shape[d].symbol_name();
    bool fresh = IsFreshDimName(name);
    if (!fresh) return false;
  }
  return true;
}

// The op table's structural check (core/node_check.h), the one the runtime's
// loader runs on bundles: counts, dtypes, ranks and rank-dependent attributes.
Status CheckStructure(const Graph& g, const Node& n) {
  std::vector<DType> in_types, out_types;
  std::vector<int> in_ranks, out_ranks;
  for (ValueRef v : n.inputs) {
    in_types.push_back(g.type(v).dtype);
    in_ranks.push_back(g.type(v).shape.rank());
  }
  for (const TensorType& t : n.outputs) {
    out_types.push_back(t.dtype);
    out_ranks.push_back(t.shape.rank());
  }
  return CheckNode({n.op, &n.attrs, static_cast<int>(in_types.size()), in_types.data(),
                    in_ranks.data(), static_cast<int>(out_types.size()), out_types.data(),
                    out_ranks.data()});
}

absl::Status NodeError(int i, const Node& n, const std::string& what) {
  return absl::InternalError("verify: node %" + std::to_string(i) + " (" + n.def().name +
                             "): " + what);
}

}  // namespace

absl::Status Verify(const Graph& g) {
  int param_count = 0;
  // Per fusion group: its first member (a map: ids come from files too).
  std::unordered_map<int, int> first_of_group;
  for (int i = 0; i < g.num_nodes(); ++i) {
    const Node& n = g.node(i);
    if (n.fusion_group >= 0) {
      if (!IsFusible(g, n)) return NodeError(i, n, "is in a fusion group but is not fusible");
      const int first = first_of_group.emplace(n.fusion_group, i).first->second;
      if (g.node(first).outputs[0].shape != n.outputs[0].shape) {
        return NodeError(i, n,
                         "fusion group " + std::to_string(n.fusion_group) + " holds shapes " +
                             g.node(first).outputs[0].ToString() + " and " +
                             n.outputs[0].ToString());
      }
    } else if (n.fusion_group != -1) {
      return NodeError(i, n, "fusion group " + std::to_string(n.fusion_group) + " is not >= -1");
    }
    for (size_t k = 0; k < n.inputs.size(); ++k) {
      ValueRef v = n.inputs[k];
      if (v.node < 0 || v.node >= i || v.port < 0 ||
          v.port >= static_cast<int>(g.node(v.node).outputs.size())) {
        return NodeError(i, n,
                         "input " + std::to_string(k) + " does not refer to an earlier value");
      }
    }
    if (n.op == OpId::kParameter) {
      int64_t index = n.attrs.GetInt("index", -1);
      if (index != param_count || param_count >= static_cast<int>(g.params().size()) ||
          g.params()[param_count] != i) {
        return NodeError(i, n,
                         "parameter index " + std::to_string(index) +
                             " does not match its position in the parameter list");
      }
      ++param_count;
      if (n.outputs.size() != 1 || !n.inputs.empty()) return NodeError(i, n, "malformed parameter");
      continue;
    }
    Attrs normalized = n.attrs;
    Status ns = NormalizeAttrs(n.def(), &normalized);
    if (!ns.ok()) return NodeError(i, n, ns.message());
    if (!(normalized == n.attrs)) return NodeError(i, n, "attributes are not normalized");
    Status cs = CheckStructure(g, n);
    if (!cs.ok()) return NodeError(i, n, cs.message());
    absl::StatusOr<std::vector<TensorType>> types =
        n.def().has(kControlFlow) ? InferControlFlowTypes(g, n.op, n.inputs, n.subgraphs)
                                  : InferNodeTypes(g, n.op, n.inputs, n.attrs);
    if (!types.ok()) return NodeError(i, n, std::string(types.status().message()));
    if (types->size() != n.outputs.size()) return NodeError(i, n, "wrong number of outputs");
    for (size_t k = 0; k < n.outputs.size(); ++k) {
      if (!SameType(n.outputs[k], (*types)[k])) {
        return NodeError(i, n,
                         "output " + std::to_string(k) + " is typed " + n.outputs[k].ToString() +
                             " but infers as " + (*types)[k].ToString());
      }
    }
    for (const Graph& sub : n.subgraphs) {
      absl::Status st = Verify(sub);
      if (!st.ok())
        return absl::InternalError("in a subgraph of node %" + std::to_string(i) + ": " +
                                   std::string(st.message()));
    }
  }
  if (param_count != static_cast<int>(g.params().size())) {
    return absl::InternalError("verify: the parameter list names nodes that are not parameters");
  }
  for (size_t k = 0; k < g.results().size(); ++k) {
    ValueRef v = g.results()[k];
    if (v.node < 0 || v.node >= g.num_nodes() || v.port < 0 ||
        v.port >= static_cast<int>(g.node(v.node).outputs.size())) {
      return absl::InternalError("verify: result " + std::to_string(k) + " is not a value");
    }
  }
  if (g.result_names().size() != g.results().size()) {
    return absl::InternalError("verify: result names and results differ in count");
  }
  return absl::OkStatus();
}

}  // namespace tfn::ir
