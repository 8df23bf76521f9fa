// JitCompile(): the AOT code generator, compiled in process with ORC LLJIT.
#include <map>

#include "aot/compiler_internal.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/ExecutionEngine/Orc/ThreadSafeModule.h"
#include "llvm/TargetParser/Host.h"

namespace tfn::aot {
namespace {

class LlJitLibrary : public JitLibrary {
 public:
  const TfnAotSignature* signature(const std::string& name) const override {
    auto it = signatures_.find(name);
    return it == signatures_.end() ? nullptr : it->second;
  }
  std::unique_ptr<llvm::orc::LLJIT> jit;
  std::map<std::string, const TfnAotSignature*> signatures_;
};

absl::Status FromLlvm(llvm::Error e, const std::string& what) {
  return absl::InternalError(what + ": " + llvm::toString(std::move(e)));
}

}  // namespace

absl::StatusOr<std::unique_ptr<JitLibrary>> JitCompile(
    const std::vector<SignatureToCompile>& signatures, const CompileOptions& options) {
  CompileOptions host = options;
  host.target = TargetSpec();     // in process: the host, native CPU
  host.external_weights.reset();  // the JIT embeds (its weights are in memory anyway)
  absl::StatusOr<std::unique_ptr<llvm::TargetMachine>> tm = MakeTargetMachine(host.target);
  if (!tm.ok()) return tm.status();
  auto ctx = std::make_unique<llvm::LLVMContext>();
  std::vector<std::string> exported;
  absl::StatusOr<std::unique_ptr<llvm::Module>> m =
      BuildModule(*ctx, **tm, signatures, host, &exported);
  if (!m.ok()) return m.status();
  Optimize(**m, **tm);

  llvm::orc::JITTargetMachineBuilder jtmb((*tm)->getTargetTriple());
  jtmb.setCPU((*tm)->getTargetCPU().str());
  jtmb.addFeatures(std::vector<std::string>{(*tm)->getTargetFeatureString().str()});
  jtmb.setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
  jtmb.setRelocationModel(llvm::Reloc::PIC_);
  llvm::Expected<std::unique_ptr<llvm::orc::LLJIT>> jit =
      llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(std::move(jtmb)).create();
  if (!jit) return FromLlvm(jit.takeError(), "creating the JIT");
  auto lib = std::make_unique<LlJitLibrary>();
  lib->jit = std::move(*jit);
  // libc and libm symbols (memcpy, expf, stdout, ...) come from the process.
  auto generator = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
      lib->jit->getDataLayout().getGlobalPrefix());
  if (!generator) return FromLlvm(generator.takeError(), "resolving process symbols");
  lib->jit->getMainJITDylib().addGenerator(std::move(*generator));
  if (llvm::Error e =
          lib->jit->addIRModule(llvm::orc::ThreadSafeModule(std::move(*m), std::move(ctx)))) {
    return FromLlvm(std::move(e), "adding the module to the JIT");
  }
  for (const SignatureToCompile& s : signatures) {
    std::string symbol = CIdentifier(options.name) + "_" + CIdentifier(s.name) + "_signature";
    llvm::Expected<llvm::orc::ExecutorAddr> addr = lib->jit->lookup(symbol);
    if (!addr) return FromLlvm(addr.takeError(), "looking up " + symbol);
    lib->signatures_[s.name] = addr->toPtr<const TfnAotSignature*>();
  }
  return std::unique_ptr<JitLibrary>(std::move(lib));
}

}  // namespace tfn::aot
