// jit_compile for tfn::function: installs the LLVM JIT as the tracer's graph
// backend. Link tfn::jit (an object library, so this registration is always
// linked in) to enable FunctionOptions::jit_compile.
#include "aot/aot.h"
#include "loader/compiled.h"
#include "tracer/concrete_impl.h"

namespace tfn::aot {
namespace {

class JitBackend : public detail::GraphBackend {
 public:
  JitBackend(std::unique_ptr<JitLibrary> lib, const TfnAotSignature* sig) : lib_(std::move(lib)), sig_(sig) {}
  Status Run(const std::vector<ConstTensor>& inputs, rt::VariableSlot* const*,
             std::vector<ConstTensor>* outputs) const override {
    Result<std::vector<ConstTensor>> out = runtime::RunCompiled(*sig_, inputs);
    if (!out.ok()) return out.status();
    *outputs = std::move(out).value();
    return Status::Ok();
  }

 private:
  std::unique_ptr<JitLibrary> lib_;
  const TfnAotSignature* sig_;
};

absl::StatusOr<std::unique_ptr<detail::GraphBackend>> MakeBackend(const ir::Graph& graph, const std::string& name) {
  for (const ir::Node& n : graph.nodes()) {
    if (n.op == OpId::kVarRead || n.op == OpId::kVarAssign || n.op == OpId::kVarAssignAdd) {
      return absl::UnimplementedError("jit_compile does not support functions that use Variables yet "
                                      "(variables change between calls; the JIT embeds constants): turn jit_compile off");
    }
  }
  CompileOptions options;
  options.name = "jit";
  absl::StatusOr<std::unique_ptr<JitLibrary>> lib = JitCompile({SignatureToCompile{name, graph}}, options);
  if (!lib.ok()) return lib.status();
  const TfnAotSignature* sig = (*lib)->signature(name);
  return std::unique_ptr<detail::GraphBackend>(new JitBackend(std::move(*lib), sig));
}

const bool kRegistered = [] {
  detail::SetJitBackend(MakeBackend);
  return true;
}();

}  // namespace
}  // namespace tfn::aot
