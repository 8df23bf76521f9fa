// ConcreteFunction: running a traced graph (interpreter or JIT) and inlining it.
#include <mutex>

#include "ir/inline.h"
#include "ir/text.h"
#include "tracer/concrete_impl.h"
#include "tracer/logging.h"
#include "tracer/lower.h"
#include "tracer/tape_hooks.h"
#include "tracer/trace_context.h"

namespace tfn {
namespace detail {
namespace {

std::mutex g_jit_mu;
JitFactory& Jit() {
  static JitFactory factory;
  return factory;
}

class InterpreterBackend : public GraphBackend {
 public:
  explicit InterpreterBackend(std::shared_ptr<runtime::Module> module)
      : executor_(std::move(module)) {}
  Status Run(const std::vector<ConstTensor>& inputs, runtime::VariableSlot* const* variables,
             std::vector<ConstTensor>* outputs) const override {
    runtime::RunOptions options;  // in process: no limits (a bundle's run has them)
    options.print = PrintText;
    options.max_while_iterations = 0;
    options.max_run_bytes = 0;
    return executor_.Run(0, inputs.data(), static_cast<int>(inputs.size()), variables, outputs,
                         options);
  }

 private:
  runtime::Executor executor_;
};

}  // namespace

void SetJitBackend(JitFactory factory) {
  std::lock_guard<std::mutex> lock(g_jit_mu);
  Jit() = std::move(factory);
}

bool HasJitBackend() {
  std::lock_guard<std::mutex> lock(g_jit_mu);
  return static_cast<bool>(Jit());
}

absl::Status Finalize(ConcreteImpl* impl, bool jit_compile) {
  absl::StatusOr<LoweredModule> lowered = LowerToModule(impl->graph, impl->name);
  if (!lowered.ok()) return lowered.status();
  // Module variable order decides the slot order.
  std::vector<std::shared_ptr<VariableImpl>> ordered;
  for (const std::string& name : lowered->variable_names) {
    std::shared_ptr<VariableImpl> found;
    for (const auto& v : impl->variables) {
      if (v->name == name) found = v;
    }
    if (!found) return absl::InternalError("variable '" + name + "' was not recorded while tracing");
    ordered.push_back(found);
    impl->slots.push_back(&found->slot);
  }
  impl->variables = std::move(ordered);
  if (jit_compile) {
    JitFactory factory;
    {
      std::lock_guard<std::mutex> lock(g_jit_mu);
      factory = Jit();
    }
    if (!factory) {
      return absl::FailedPreconditionError(
          "jit_compile needs the LLVM JIT: link tfn::jit (tfn_aot) into the program");
    }
    absl::StatusOr<std::unique_ptr<GraphBackend>> jit = factory(impl->graph, impl->name);
    if (!jit.ok()) return jit.status();
    impl->backend = std::move(jit).value();
    return absl::OkStatus();
  }
  impl->backend = std::make_unique<InterpreterBackend>(lowered->module);
  return absl::OkStatus();
}

std::vector<Tensor> ConcreteImpl::Run(const std::vector<Tensor>& inputs) const {
  RefuseUnrecordable(inputs, !variables.empty(), "calling tfn::function '" + name + "'");
  if (inputs.size() != input_specs.size()) {
    throw Error(StatusCode::kInvalidArgument,
                "function '" + name + "' takes " + std::to_string(input_specs.size()) +
                    " tensor inputs " + signature + ", got " + std::to_string(inputs.size()));
  }
  std::vector<ConstTensor> values;
  values.reserve(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Tensor& t = inputs[i];
    if (!t.defined()) {
      throw Error(StatusCode::kInvalidArgument, "function '" + name + "': " + flat_names[i] + " is undefined");
    }
    if (!input_specs[i].Accepts(t.dtype(), t.shape())) {
      throw Error(StatusCode::kInvalidArgument,
                  "function '" + name + "': " + flat_names[i] + " expects " +
                      input_specs[i].ToString() + ", got " + DTypeName(t.dtype()) +
                      ShapeToString(t.shape()));
    }
    values.push_back(t.value());
  }
  std::vector<ConstTensor> outs;
  Status s = backend->Run(values, slots.data(), &outs);
  if (!s.ok()) throw Error(s.code(), "function '" + name + "': " + s.message());
  std::vector<Tensor> result;
  result.reserve(outs.size());
  for (ConstTensor& c : outs) result.push_back(Tensor::FromConst(std::move(c)));
  return result;
}

std::vector<Tensor> ConcreteImpl::Inline(const std::vector<Tensor>& inputs) const {
  RefuseUnrecordable(inputs, !variables.empty(), "calling tfn::function '" + name + "'");
  TraceContext* ctx = TraceContext::Current();
  std::vector<ir::ValueRef> refs;
  for (const Tensor& t : inputs) refs.push_back(ctx->Capture(t));
  // Before inlining, so that a variable name clash leaves the graph as it was.
  for (const auto& v : variables) ctx->UseVariable(v);
  absl::StatusOr<std::vector<ir::ValueRef>> outs = ir::InlineGraph(ctx->graph(), graph, refs);
  if (!outs.ok()) {
    throw Error(StatusCode::kInvalidArgument,
                "inlining function '" + name + "': " + std::string(outs.status().message()));
  }
  std::vector<Tensor> result;
  for (ir::ValueRef v : *outs) result.push_back(ctx->Wrap(v));
  return result;
}

}  // namespace detail

const std::string& ConcreteFunction::name() const { return impl_->name; }
std::string ConcreteFunction::structured_input_signature() const { return impl_->signature; }
const std::vector<TensorSpec>& ConcreteFunction::input_specs() const { return impl_->input_specs; }
const std::vector<TensorSpec>& ConcreteFunction::output_specs() const { return impl_->output_specs; }
const ir::Graph& ConcreteFunction::graph() const { return impl_->graph; }
std::string ConcreteFunction::graph_text() const { return ir::PrintGraph(impl_->graph); }

std::vector<Variable> ConcreteFunction::variables() const {
  std::vector<Variable> out;
  for (const auto& v : impl_->variables) out.push_back(Variable::FromImpl(v));
  return out;
}

std::vector<Tensor> ConcreteFunction::operator()(const std::vector<Tensor>& inputs) const {
  if (!impl_) throw Error(StatusCode::kFailedPrecondition, "calling an undefined ConcreteFunction");
  impl_->calls++;
  if (detail::TraceContext::Current()) return impl_->Inline(inputs);
  return impl_->Run(inputs);
}

}  // namespace tfn
