// Implementation of tfn-run --jit (see run_jit.h).
#include "tools/run_jit.h"

#include <utility>
#include <vector>

#include "exporter/bundle_reader.h"

namespace tfn::tools {

Result<std::unique_ptr<aot::JitLibrary>> UseJit(const std::string& bundle_path,
                                                const std::string& signature,
                                                const JitOptions& options,
                                                runtime::Session& session) {
  // The runtime has no graphs (it holds programs); the exporter's reader
  // rebuilds them through the checked IR builder, as tfn-aot does.
  absl::StatusOr<exporter::ImportedBundle> bundle = exporter::ReadBundleFile(bundle_path);
  if (!bundle.ok()) {
    return InvalidArgument("--jit: reading the graphs of '" + bundle_path +
                           "': " + std::string(bundle.status().message()));
  }
  std::vector<aot::SignatureToCompile> chosen;
  for (const exporter::SignatureToExport& s : bundle->signatures) {
    if (s.name == signature) chosen.push_back(aot::SignatureToCompile{s.name, s.graph});
  }
  if (chosen.empty()) return NotFound("--jit: the bundle has no signature '" + signature + "'");
  aot::CompileOptions compile;
  compile.name = "tfn_run_jit";
  compile.reference_kernels = options.reference_kernels;
  compile.fast_math = options.fast_math;
  // Variables are embedded as constants: ImportedBundle::bytes owns what
  // their values point into, and the JIT copies them into its module.
  for (const exporter::VariableToExport& v : bundle->variables) {
    compile.variables[v.name] = v.value;
  }
  absl::StatusOr<std::unique_ptr<aot::JitLibrary>> lib = aot::JitCompile(chosen, compile);
  if (!lib.ok()) {
    return FailedPrecondition("--jit cannot compile signature '" + signature +
                              "': " + std::string(lib.status().message()) +
                              " (run without --jit to use the interpreter)");
  }
  const TfnAotSignature* compiled = (*lib)->signature(signature);
  if (!compiled) return Internal("--jit: the JIT lost signature '" + signature + "'");
  Status s = session.UseCompiled(signature, compiled);
  if (!s.ok()) return s;
  return std::move(*lib);
}

}  // namespace tfn::tools
