// Compile(): target machine, IR generation, linking the kernels' bitcode,
// the O3 pipeline, and object/assembly/IR emission.
#include <cstdlib>
#include <mutex>
#include <set>
#include <utility>

#include "aot/aot.h"
#include "aot/codegen_internal.h"
#include "aot/compiler_internal.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/PassTimingInfo.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Linker/Linker.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/StandardInstrumentations.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/SubtargetFeature.h"
#include "llvm/Transforms/IPO/Internalize.h"

namespace tfn::aot {

std::string CIdentifier(const std::string& name) {
  // Keywords of C and C++ get a trailing underscore ("class" -> "class_").
  static const std::set<std::string> kKeywords = {
      "alignas", "alignof",   "and",    "asm",      "auto",      "bool",     "break",    "case",
      "catch",   "char",      "class",  "const",    "constexpr", "continue", "default",  "delete",
      "do",      "double",    "else",   "enum",     "explicit",  "export",   "extern",   "false",
      "float",   "for",       "friend", "goto",     "if",        "inline",   "int",      "long",
      "mutable", "namespace", "new",    "noexcept", "not",       "nullptr",  "operator", "or",
      "private", "protected", "public", "register", "restrict",  "return",   "short",    "signed",
      "sizeof",  "static",    "struct", "switch",   "template",  "this",     "throw",    "true",
      "try",     "typedef",   "typeid", "typename", "union",     "unsigned", "using",    "virtual",
      "void",    "volatile",  "while",  "xor"};
  std::string out;
  for (char c : name) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0]))) out = "_" + out;
  if (kKeywords.count(out)) out += "_";
  return out;
}

void InitializeLlvm() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeAllTargetInfos();
    llvm::InitializeAllTargets();
    llvm::InitializeAllTargetMCs();
    llvm::InitializeAllAsmPrinters();
    // A debugging aid: LLVM's own options from the environment, e.g.
    // TFN_LLVM_ARGS='-time-passes' to see where compile time goes.
    // Only when it is set: parsing fails (and exits) on an unknown option.
    if (std::getenv("TFN_LLVM_ARGS")) {
      const char* argv0 = "tfn";
      llvm::cl::ParseCommandLineOptions(1, &argv0, "", nullptr, "TFN_LLVM_ARGS");
    }
  });
}

absl::StatusOr<std::unique_ptr<llvm::TargetMachine>> MakeTargetMachine(const TargetSpec& spec) {
  InitializeLlvm();
  bool host = spec.triple.empty();
  std::string triple = host ? llvm::sys::getProcessTriple() : llvm::Triple::normalize(spec.triple);
  std::string error;
  const llvm::Target* target = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target) {
    return absl::InvalidArgumentError("unknown target '" + spec.triple + "' (" + error +
                                      "); use e.g. x86_64-linux-gnu or aarch64-linux-gnu");
  }
  std::string cpu = spec.cpu.empty() ? "generic" : spec.cpu;
  llvm::SubtargetFeatures features;
  if (cpu == "native") {
    if (!host &&
        llvm::Triple(triple).getArch() != llvm::Triple(llvm::sys::getProcessTriple()).getArch()) {
      cpu = "generic";  // "native" means the host's CPU; for another architecture, its generic one
    } else {
      cpu = llvm::sys::getHostCPUName().str();
      for (const auto& f : llvm::sys::getHostCPUFeatures())
        features.AddFeature(f.getKey(), f.getValue());
    }
  }
  if (!spec.features.empty()) {
    size_t pos = 0;
    while (pos <= spec.features.size()) {
      size_t comma = spec.features.find(',', pos);
      std::string f =
          spec.features.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
      if (!f.empty()) features.AddFeature(f);
      if (comma == std::string::npos) break;
      pos = comma + 1;
    }
  }
  llvm::TargetOptions options;
  std::unique_ptr<llvm::TargetMachine> tm(
      target->createTargetMachine(triple, cpu, features.getString(), options, llvm::Reloc::PIC_,
                                  std::nullopt, llvm::CodeGenOptLevel::Aggressive));
  if (!tm) return absl::InternalError("cannot create a target machine for " + triple);
  if (!tm->getMCSubtargetInfo()->isCPUStringValid(cpu)) {
    return absl::InvalidArgumentError("unknown CPU '" + spec.cpu + "' for " + triple +
                                      " (try native, generic, x86-64-v2, x86-64-v3, x86-64-v4)");
  }
  return tm;
}

absl::StatusOr<std::string> DescribeTarget(const TargetSpec& target) {
  absl::StatusOr<std::unique_ptr<llvm::TargetMachine>> tm = MakeTargetMachine(target);
  if (!tm.ok()) return tm.status();
  return (*tm)->getTargetTriple().str() + " cpu=" + (*tm)->getTargetCPU().str();
}

namespace {

// The kernels' bitcode that matches the target's instruction set.
absl::StatusOr<std::unique_ptr<llvm::Module>> LoadKernels(llvm::LLVMContext& ctx,
                                                          llvm::TargetMachine& tm) {
  const llvm::Triple& t = tm.getTargetTriple();
  std::string variant;
  if (t.getArch() == llvm::Triple::x86_64) {
    const llvm::MCSubtargetInfo* sti = tm.getMCSubtargetInfo();
    variant = sti->checkFeatures("+avx512f,+avx512vl,+avx512bw,+avx512dq") ? "x86_64_v4"
              : sti->checkFeatures("+avx2,+fma")                           ? "x86_64_v3"
                                                                           : "x86_64_v2";
  } else if (t.getArch() == llvm::Triple::aarch64) {
    variant = "aarch64";
  } else {
    return absl::UnimplementedError("no kernels for the architecture " + t.getArchName().str() +
                                    " (tfn ships x86_64 and aarch64)");
  }
  std::string_view bytes = KernelBitcode(variant);
  if (bytes.empty()) {
    return absl::UnimplementedError(
        "this tfn was built without the " + variant +
        " kernel bitcode (for aarch64, install g++-aarch64-linux-gnu and rebuild)");
  }
  auto buffer = llvm::MemoryBuffer::getMemBuffer(llvm::StringRef(bytes.data(), bytes.size()),
                                                 "kernels", false);
  // Lazily: the linker (LinkOnlyNeeded) materializes only the kernels the
  // generated code calls, instead of parsing every function body.
  llvm::Expected<std::unique_ptr<llvm::Module>> m =
      llvm::getOwningLazyBitcodeModule(std::move(buffer), ctx);
  if (!m) return absl::InternalError("kernel bitcode: " + llvm::toString(m.takeError()));
  return std::move(*m);
}

}  // namespace

absl::StatusOr<std::unique_ptr<llvm::Module>> BuildModule(
    llvm::LLVMContext& ctx, llvm::TargetMachine& tm,
    const std::vector<SignatureToCompile>& signatures, const CompileOptions& options,
    std::vector<std::string>* exported) {
  auto module = std::make_unique<llvm::Module>(options.name, ctx);
  module->setTargetTriple(tm.getTargetTriple().str());
  module->setDataLayout(tm.createDataLayout());
  std::vector<CodegenSignature> sigs;
  std::set<std::string> names;
  for (const SignatureToCompile& s : signatures) {
    CodegenSignature c;
    c.name = s.name;
    c.symbol = CIdentifier(options.name) + "_" + CIdentifier(s.name);
    c.graph = &s.graph;
    if (!names.insert(c.symbol).second)
      return absl::InvalidArgumentError("two signatures map to " + c.symbol);
    sigs.push_back(c);
  }
  CodegenOptions co;
  co.variables = options.variables;
  co.object_name = CIdentifier(options.name);
  if (options.external_weights) co.external_weights = &*options.external_weights;
  co.fast_math = options.fast_math;
  co.variant =
      options.reference_kernels ? kernels::Variant::kReference : kernels::Variant::kOptimized;
  absl::StatusOr<std::vector<std::string>> ex = EmitSignatures(*module, sigs, co);
  if (!ex.ok()) return ex.status();
  *exported = *ex;
  std::string problems;
  llvm::raw_string_ostream os(problems);
  if (llvm::verifyModule(*module, &os))
    return absl::InternalError("generated IR is invalid: " + problems);

  absl::StatusOr<std::unique_ptr<llvm::Module>> kernels = LoadKernels(ctx, tm);
  if (!kernels.ok()) return kernels.status();
  (*kernels)->setTargetTriple(module->getTargetTriple());
  (*kernels)->setDataLayout(module->getDataLayout());
  if (llvm::Linker::linkModules(*module, std::move(*kernels),
                                llvm::Linker::Flags::LinkOnlyNeeded)) {
    return absl::InternalError("linking the kernel bitcode failed");
  }
  // The int8 GEMM's VNNI kernel is chosen by the target's features, not by
  // the bitcode's level (kernels/opt/qgemm_internal.h): its flag becomes a
  // constant here, and the kernels the target cannot run fold away.
  // So is the bf16 GEMM's vdpbf16ps kernel (kernels/opt/bf16_gemm_internal.h).
  const bool x86 = tm.getTargetTriple().getArch() == llvm::Triple::x86_64;
  const std::pair<const char*, const char*> flags[] = {
      {"tfn_aot_target_has_vnni", "+avx512vnni,+avx512bw"},
      {"tfn_aot_target_has_bf16", "+avx512bf16,+avx512bw"}};
  for (const auto& [name, features] : flags) {
    if (llvm::GlobalVariable* flag = module->getNamedGlobal(name)) {
      const bool has = x86 && tm.getMCSubtargetInfo()->checkFeatures(features);
      flag->setInitializer(llvm::ConstantInt::get(flag->getValueType(), has ? 1 : 0));
      flag->setConstant(true);
    }
  }
  // The scalar entry points are marked `used` so that clang keeps them in the
  // bitcode; in a module that list would keep all ~160 of them alive through
  // O3 and code generation. What the code calls stays; the rest goes.
  if (llvm::GlobalVariable* used = module->getNamedGlobal("llvm.compiler.used"))
    used->eraseFromParent();
  // Every function gets the target's CPU and features, so kernels inline into
  // generated code and use exactly the chosen instruction set (the inliner
  // refuses a callee whose target-cpu/features differ from the caller's);
  // wide vectors where the target has them (LLVM prefers 256-bit vectors on
  // some AVX-512 CPUs unless told otherwise).
  std::string cpu = tm.getTargetCPU().str(), features = tm.getTargetFeatureString().str();
  // (Asking an AArch64 subtarget about an x86 feature prints a warning.)
  bool wide = tm.getTargetTriple().getArch() == llvm::Triple::x86_64 &&
              tm.getMCSubtargetInfo()->checkFeatures("+avx512f");
  for (llvm::Function& f : *module) {
    if (f.isDeclaration()) continue;
    f.removeFnAttr("target-cpu");
    f.removeFnAttr("target-features");
    f.removeFnAttr("tune-cpu");
    f.addFnAttr("target-cpu", cpu);
    if (!features.empty()) f.addFnAttr("target-features", features);
    if (wide) f.addFnAttr("prefer-vector-width", "512");
  }
  std::set<std::string> keep(exported->begin(), exported->end());
  llvm::internalizeModule(
      *module, [&](const llvm::GlobalValue& gv) { return keep.count(gv.getName().str()) > 0; });
  return module;
}

void Optimize(llvm::Module& m, llvm::TargetMachine& tm) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PipelineTuningOptions pto;
  pto.LoopVectorization = true;
  pto.SLPVectorization = true;  // off by default outside clang
  // The standard instrumentation makes LLVM's debugging options (TFN_LLVM_ARGS:
  // -time-passes, -print-after=...) work for this pipeline too.
  llvm::PassInstrumentationCallbacks pic;
  llvm::StandardInstrumentations si(m.getContext(), /*DebugLogging=*/false);
  si.registerCallbacks(pic, &mam);
  llvm::PassBuilder pb(&tm, pto, std::nullopt, &pic);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::ModulePassManager mpm = pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
  mpm.run(m, mam);
}

absl::StatusOr<std::string> Compile(const std::vector<SignatureToCompile>& signatures,
                                    const CompileOptions& options, Emit emit) {
  if (signatures.empty()) return absl::InvalidArgumentError("nothing to compile: no signatures");
  absl::StatusOr<std::unique_ptr<llvm::TargetMachine>> tm = MakeTargetMachine(options.target);
  if (!tm.ok()) return tm.status();
  llvm::LLVMContext ctx;
  std::vector<std::string> exported;
  absl::StatusOr<std::unique_ptr<llvm::Module>> m =
      BuildModule(ctx, **tm, signatures, options, &exported);
  if (!m.ok()) return m.status();
  Optimize(**m, **tm);
  std::string out;
  llvm::raw_string_ostream os(out);
  if (emit == Emit::kLlvmIr) {
    (*m)->print(os, nullptr);
    os.flush();
    return out;
  }
  llvm::SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream bos(buffer);
  llvm::legacy::PassManager pm;
  auto type = emit == Emit::kObject ? llvm::CodeGenFileType::ObjectFile
                                    : llvm::CodeGenFileType::AssemblyFile;
  if ((*tm)->addPassesToEmitFile(pm, bos, nullptr, type)) {
    return absl::InternalError("the target cannot emit this file type");
  }
  pm.run(**m);
  if (llvm::TimePassesIsEnabled) llvm::reportAndResetTimings();  // code generation's, now
  return std::string(buffer.begin(), buffer.end());
}

}  // namespace tfn::aot
