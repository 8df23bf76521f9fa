// Session: variable state plus the executor for one use of a bundle.
#include "loader/compiled.h"
#include "loader/executor.h"
#include "loader/runtime.h"
#include "loader/thread_pool.h"

#include <unistd.h>

#include <chrono>

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
    int threads = options.num_threads >= 1 ? options.num_threads : rt::AvailableCores();
    if (threads > 1) pool_ = std::make_shared<rt::ThreadPool>(threads);
  }
  executor_ = std::make_unique<rt::Executor>(bundle_->module(), pool_);
  // Variables start on the bundle's bytes (mapped, or decompressed once at
  // load) and get their own copy at their first assignment.
  for (const rt::VariableInfo& v : bundle_->module()->variables) {
    variables_.push_back(rt::VariableSlot::Borrow(v.initial_value));
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

Result<std::vector<Tensor>> Session::Run(const std::string& signature,
                                         const std::vector<Tensor>& inputs,
                                         const RunOptions& options) const {
  Result<size_t> index = SignatureIndex(signature);
  if (!index.ok()) return index.status();
  const SignatureInfo& sig = bundle_->signatures()[*index];
  if (inputs.size() != sig.inputs.size()) {
    return InvalidArgument("signature '" + signature + "' takes " +
                           std::to_string(sig.inputs.size()) + " inputs, got " +
                           std::to_string(inputs.size()));
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    const TensorInfo& want = sig.inputs[i];
    if (inputs[i].dtype != want.dtype || !ShapeMatches(want.shape, inputs[i].shape)) {
      return InvalidArgument("signature '" + signature + "': input '" + want.name + "' expects " +
                             DTypeName(want.dtype) + ShapeToString(want.shape) + ", got " +
                             TypeToString(static_cast<int>(inputs[i].dtype), inputs[i].shape));
    }
    if (!inputs[i].data && inputs[i].num_elements() > 0) {
      return InvalidArgument("signature '" + signature + "': input '" + want.name +
                             "' has no data");
    }
  }
  auto compiled = compiled_.find(signature);
  if (compiled != compiled_.end()) {
    TfnAotRunOptions threads{};
    threads.struct_size = sizeof threads;
    threads.num_threads = 1;
    if (pool_ && pool_->num_threads() > 1) {
      threads.num_threads = pool_->num_threads();
      threads.parallel_for = &rt::ThreadPool::ParallelForFn;
      threads.pool = pool_.get();
    }
    Result<std::vector<Tensor>> out = RunCompiled(*compiled->second, inputs, &threads);
    if (!out.ok()) return out.status().WithContext("signature '" + signature + "'");
    return out;
  }
  std::vector<Tensor> outputs;
  rt::RunOptions run_options;
  run_options.print = options.print;
  run_options.max_while_iterations = options.max_while_iterations;
  run_options.max_run_bytes = options.max_run_bytes;
  if (options.deadline_ms > 0) {
    run_options.deadline_ms = options.deadline_ms;
    run_options.deadline =
        std::chrono::steady_clock::now() + std::chrono::milliseconds(options.deadline_ms);
  }
  Status s = executor_->Run(bundle_->program_of(*index), inputs.data(),
                            static_cast<int>(inputs.size()), slots_.data(), &outputs, run_options);
  if (!s.ok()) return s.WithContext("signature '" + signature + "'");
  return outputs;
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
  return Run(signature, ordered, options);
}

Result<int64_t> Session::ArenaBytes(const std::string& signature,
                                    const std::vector<Shape>& input_shapes) const {
  Result<size_t> index = SignatureIndex(signature);
  if (!index.ok()) return index.status();
  return executor_->ArenaBytes(bundle_->program_of(*index), input_shapes);
}

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
  compiled_[signature] = compiled;
  return Status::Ok();
}

Result<Tensor> Session::ReadVariable(const std::string& name) const {
  const std::vector<rt::VariableInfo>& vars = bundle_->module()->variables;
  for (size_t i = 0; i < vars.size(); ++i) {
    if (vars[i].name == name) return variables_[i]->Read();
  }
  return NotFound("the bundle has no variable '" + name + "'");
}

std::vector<std::string> Session::VariableNames() const {
  std::vector<std::string> names;
  for (const rt::VariableInfo& v : bundle_->module()->variables) names.push_back(v.name);
  return names;
}

}  // namespace tfn::runtime
