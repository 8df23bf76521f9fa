// Implementation of LowerToModule.
#include "tracer/lower.h"

#include <map>

namespace tfn::detail {
namespace {

class Lowering {
 public:
  Lowering(runtime::Module* module, kernels::Variant variant, std::vector<std::string>* var_names)
      : module_(module), variant_(variant), var_names_(var_names) {}

  // Appends the program for `g` (and, after it, its subgraphs'); returns its index.
  absl::StatusOr<int> Lower(const ir::Graph& g, const std::string& name) {
    int index = static_cast<int>(module_->programs.size());
    module_->programs.emplace_back();
    runtime::Program p;
    p.name = name;
    std::vector<std::vector<int32_t>> ids(g.num_nodes());
    auto new_value = [&](const ir::TensorType& t) {
      p.values.push_back(runtime::ValueInfo{t.dtype, ToStaticShape(t.shape)});
      return static_cast<int32_t>(p.values.size() - 1);
    };
    for (int i = 0; i < g.num_nodes(); ++i) {
      const ir::Node& n = g.node(i);
      for (const ir::TensorType& t : n.outputs) ids[i].push_back(new_value(t));
      if (n.op == OpId::kParameter) {
        p.params.push_back(ids[i][0]);
        continue;
      }
      if (n.op == OpId::kConstant) {
        p.constants.emplace_back(ids[i][0], *n.attrs.GetTensor("value"));
        continue;
      }
      std::vector<int32_t> in;
      for (ir::ValueRef v : n.inputs) in.push_back(ids[v.node][v.port]);
      runtime::Instr instr;
      Status s = runtime::MakeInstr(p, n.op, in, ids[i], n.attrs, variant_, &instr);
      if (!s.ok()) return ir::ToAbsl(s);
      instr.fusion_group = n.fusion_group;
      for (size_t k = 0; k < n.subgraphs.size(); ++k) {
        absl::StatusOr<int> sub = Lower(n.subgraphs[k], name + "/" + OpName(n.op) + std::to_string(i) +
                                                            (k == 0 ? (n.op == OpId::kCond ? "/then" : "/cond")
                                                                    : (n.op == OpId::kCond ? "/else" : "/body")));
        if (!sub.ok()) return sub.status();
        instr.subprograms.push_back(*sub);
      }
      if (n.op == OpId::kVarRead || n.op == OpId::kVarAssign || n.op == OpId::kVarAssignAdd) {
        instr.variable = VariableIndex(n);
      }
      p.instrs.push_back(std::move(instr));
    }
    for (ir::ValueRef r : g.results()) p.results.push_back(ids[r.node][r.port]);
    module_->programs[index] = std::move(p);
    return index;
  }

 private:
  int VariableIndex(const ir::Node& n) {
    std::string name = n.attrs.GetString("name");
    auto it = index_.find(name);
    if (it != index_.end()) {
      runtime::VariableInfo& info = module_->variables[it->second];
      if (n.op == OpId::kVarRead) {
        std::vector<int64_t> s = n.attrs.GetInts("shape");
        info.dtype = n.attrs.GetType("dtype");
        info.shape = Shape(s.begin(), s.end());
      }
      return it->second;
    }
    runtime::VariableInfo info;
    info.name = name;
    if (n.op == OpId::kVarRead) {
      std::vector<int64_t> s = n.attrs.GetInts("shape");
      info.dtype = n.attrs.GetType("dtype");
      info.shape = Shape(s.begin(), s.end());
    }
    module_->variables.push_back(info);
    var_names_->push_back(name);
    int idx = static_cast<int>(module_->variables.size() - 1);
    index_[name] = idx;
    return idx;
  }

  runtime::Module* module_;
  kernels::Variant variant_;
  std::vector<std::string>* var_names_;
  std::map<std::string, int> index_;
};

}  // namespace

absl::StatusOr<LoweredModule> LowerToModule(const ir::Graph& graph, const std::string& name,
                                            kernels::Variant variant) {
  LoweredModule out;
  out.module = std::make_shared<runtime::Module>();
  Lowering lowering(out.module.get(), variant, &out.variable_names);
  absl::StatusOr<int> root = lowering.Lower(graph, name);
  if (!root.ok()) return root.status();
  Status s = runtime::ValidateModule(*out.module);
  if (!s.ok()) return ir::ToAbsl(s);
  return out;
}

}  // namespace tfn::detail
