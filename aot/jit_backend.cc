// jit_compile for tfn::function: installs the LLVM JIT as the tracer's graph
// backend. Link tfn::jit (an object library, so this registration is always
// linked in) to enable FunctionOptions::jit_compile.
#include "aot/aot.h"
#include "ir/functionalize_variables.h"
#include "runtime/compiled.h"
#include "tracer/concrete_impl.h"

namespace tfn::aot {
namespace {

// Runs the compiled, functionalized graph: the variables' current values are
// extra inputs, their new values extra outputs committed after the call.
class JitBackend : public detail::GraphBackend {
 public:
  JitBackend(std::unique_ptr<JitLibrary> lib, const TfnAotSignature* sig, int num_variables,
             std::vector<int> assigned)
      : lib_(std::move(lib)), sig_(sig), num_variables_(num_variables), assigned_(std::move(assigned)) {}

  Status Run(const std::vector<ConstTensor>& inputs, runtime::VariableSlot* const* slots,
             std::vector<ConstTensor>* outputs) const override {
    std::vector<ConstTensor> all = inputs;
    for (int v = 0; v < num_variables_; ++v) all.push_back(slots[v]->Read());
    Result<std::vector<ConstTensor>> out = runtime::RunCompiled(*sig_, all);
    if (!out.ok()) return out.status();
    std::vector<ConstTensor> results = std::move(out).value();
    size_t num_outputs = results.size() - assigned_.size();
    for (size_t i = 0; i < assigned_.size(); ++i) {
      TFN_RETURN_IF_ERROR(slots[assigned_[i]]->Assign(results[num_outputs + i]));
    }
    results.resize(num_outputs);
    *outputs = std::move(results);
    return Status::Ok();
  }

 private:
  std::unique_ptr<JitLibrary> lib_;
  const TfnAotSignature* sig_;
  int num_variables_;
  std::vector<int> assigned_;  // variable index per extra output
};

// Variables are numbered in order of first use, as the tracer's lowering
// numbers the slots it passes to Run.
absl::StatusOr<std::unique_ptr<detail::GraphBackend>> MakeBackend(const ir::Graph& graph, const std::string& name) {
  absl::StatusOr<ir::FunctionalizedGraph> pure = ir::FunctionalizeVariables(graph);
  if (!pure.ok()) return pure.status();
  CompileOptions options;
  options.name = "jit";
  absl::StatusOr<std::unique_ptr<JitLibrary>> lib = JitCompile({SignatureToCompile{name, pure->graph}}, options);
  if (!lib.ok()) return lib.status();
  const TfnAotSignature* sig = (*lib)->signature(name);
  return std::unique_ptr<detail::GraphBackend>(new JitBackend(
      std::move(*lib), sig, static_cast<int>(pure->variables.size()), std::move(pure->assigned)));
}

const bool kRegistered = [] {
  detail::SetJitBackend(MakeBackend);
  return true;
}();

}  // namespace
}  // namespace tfn::aot
