// Session: variable state plus the executor for one use of a bundle.
#include "runtime/compiled.h"
#include "runtime/executor.h"
#include "runtime/runtime.h"
#include "runtime/thread_pool.h"

#include <unistd.h>

namespace tfn::runtime {

int64_t DefaultMaxRunBytes() {
  static const int64_t bytes = [] {
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page <= 0) return int64_t{16} << 30;
    return static_cast<int64_t>(pages) / 2 * page;
  }();
  return bytes;
}

Session::Session(std::shared_ptr<const Bundle> bundle, const SessionOptions& options)
    : bundle_(std::move(bundle)), pool_(options.thread_pool) {
  if (!pool_) {
    int threads = options.num_threads >= 1 ? options.num_threads : runtime::AvailableCores();
    if (threads > 1) pool_ = std::make_shared<runtime::ThreadPool>(threads);
  }
  executor_ = std::make_unique<runtime::Executor>(bundle_->module(), pool_);
  compiled_.assign(bundle_->signatures().size(), nullptr);
  // Variables start on the bundle's bytes (mapped, or decompressed once at
  // load) and get their own copy at their first assignment.
  for (const runtime::VariableInfo& v : bundle_->module()->variables) {
    variables_.push_back(runtime::VariableSlot::Borrow(v.initial_value));
    slots_.push_back(variables_.back().get());
  }
}

Session::~Session() = default;

int Session::num_threads() const { return pool_ ? pool_->num_threads() : 1; }

Result<size_t> Session::SignatureIndex(const std::string& name) const {
  const std::vector<SignatureInfo>& sigs = bundle_->signatures();
  for (size_t i = 0; i < sigs.size(); ++i) {
    if (sigs[i].name == name) return i;
  }
  std::string known;
  for (const SignatureInfo& s : sigs) known += (known.empty() ? "" : ", ") + s.name;
  return NotFound("the bundle has no signature '" + name + "'; it has: " + known);
}

Result<Method> Session::method(const std::string& signature) const {
  Result<size_t> index = SignatureIndex(signature);
  if (!index.ok()) return index.status();
  return Method(this, *index);
}

Result<std::vector<Tensor>> Session::Run(const std::string& signature,
                                         const std::vector<Tensor>& inputs,
                                         const RunOptions& options) const {
  Result<size_t> index = SignatureIndex(signature);
  if (!index.ok()) return index.status();
  return Method(this, *index).Run(inputs, options);
}

Result<std::vector<Tensor>> Session::Run(const std::string& signature,
                                         const std::map<std::string, Tensor>& inputs,
                                         const RunOptions& options) const {
  Result<size_t> index = SignatureIndex(signature);
  if (!index.ok()) return index.status();
  const SignatureInfo& sig = bundle_->signatures()[*index];
  std::vector<Tensor> ordered;
  for (const TensorInfo& in : sig.inputs) {
    auto it = inputs.find(in.name);
    if (it == inputs.end()) {
      return InvalidArgument("signature '" + signature + "' needs input '" + in.name + "' (" +
                             DTypeName(in.dtype) + ShapeToString(in.shape) + ")");
    }
    ordered.push_back(it->second);
  }
  if (inputs.size() != sig.inputs.size()) {
    for (const auto& [name, t] : inputs) {
      bool known = false;
      for (const TensorInfo& in : sig.inputs) known |= in.name == name;
      if (!known)
        return InvalidArgument("signature '" + signature + "' has no input '" + name + "'");
    }
  }
  return Method(this, *index).Run(ordered, options);
}

Result<int64_t> Session::ArenaBytes(const std::string& signature,
                                    const std::vector<Shape>& input_shapes) const {
  Result<Method> m = method(signature);
  if (!m.ok()) return m.status();
  return m->ArenaBytes(input_shapes);
}

namespace {

// Variables program `p` (with its subprograms) reads that some program of
// the module assigns.
std::string ReadsAssignedVariable(const runtime::Module& module, int program) {
  std::vector<uint8_t> assigned(module.variables.size(), 0);
  for (const runtime::Program& p : module.programs) {
    for (const runtime::Instr& in : p.instrs) {
      if ((in.op == OpId::kVarAssign || in.op == OpId::kVarAssignAdd) && in.variable >= 0)
        assigned[in.variable] = 1;
    }
  }
  std::vector<int> todo = {program};
  while (!todo.empty()) {
    const runtime::Program& p = module.programs[todo.back()];
    todo.pop_back();
    for (const runtime::Instr& in : p.instrs) {
      if (in.op == OpId::kVarRead && in.variable >= 0 && assigned[in.variable])
        return module.variables[in.variable].name;
      for (int32_t sub : in.subprograms) todo.push_back(sub);
    }
  }
  return "";
}

}  // namespace

Status Session::UseCompiled(const std::string& signature, const TfnAotSignature* compiled) {
  Result<size_t> index = SignatureIndex(signature);
  if (!index.ok()) return index.status();
  if (!compiled)
    return InvalidArgument("UseCompiled: no compiled signature given for '" + signature + "'");
  const SignatureInfo& sig = bundle_->signatures()[*index];
  bool fits = compiled->num_inputs == static_cast<int32_t>(sig.inputs.size()) &&
              compiled->num_outputs == static_cast<int32_t>(sig.outputs.size());
  for (size_t i = 0; fits && i < sig.inputs.size(); ++i) {
    fits = compiled->inputs[i].dtype == static_cast<int32_t>(sig.inputs[i].dtype) &&
           compiled->inputs[i].rank == sig.inputs[i].shape.rank();
  }
  for (size_t i = 0; fits && i < sig.outputs.size(); ++i) {
    fits = compiled->outputs[i].dtype == static_cast<int32_t>(sig.outputs[i].dtype) &&
           compiled->outputs[i].rank == sig.outputs[i].shape.rank();
  }
  if (!fits) {
    return InvalidArgument("UseCompiled: compiled signature '" +
                           std::string(compiled->name ? compiled->name : "?") +
                           "' does not take and return what signature '" + signature + "' does");
  }
  std::string var = ReadsAssignedVariable(*bundle_->module(), bundle_->program_of(*index));
  if (!var.empty()) {
    return FailedPrecondition("UseCompiled: signature '" + signature + "' reads variable '" + var +
                              "', which the bundle's signatures assign; compiled code holds the "
                              "values it was compiled with, so its results would not follow the "
                              "session's state: run this signature interpreted");
  }
  compiled_[*index] = compiled;
  run_compiled_ = &RunCompiled;
  return Status::Ok();
}

Result<Tensor> Session::ReadVariable(const std::string& name) const {
  const std::vector<runtime::VariableInfo>& vars = bundle_->module()->variables;
  for (size_t i = 0; i < vars.size(); ++i) {
    if (vars[i].name == name) return variables_[i]->Read();
  }
  return NotFound("the bundle has no variable '" + name + "'");
}

std::vector<std::string> Session::VariableNames() const {
  std::vector<std::string> names;
  for (const runtime::VariableInfo& v : bundle_->module()->variables) names.push_back(v.name);
  return names;
}

}  // namespace tfn::runtime
