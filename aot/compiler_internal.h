// Internal to aot/: pieces of compilation shared by Compile (compiler.cc)
// and JitCompile (jit.cc). Includes LLVM headers.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "aot/aot.h"
#include "llvm/IR/Module.h"
#include "llvm/Target/TargetMachine.h"

namespace tfn::aot {

void InitializeLlvm();
absl::StatusOr<std::unique_ptr<llvm::TargetMachine>> MakeTargetMachine(const TargetSpec& spec);
// Generated code linked with the kernels' bitcode, target attributes set,
// everything but `exported` internalized; not yet optimized.
absl::StatusOr<std::unique_ptr<llvm::Module>> BuildModule(llvm::LLVMContext& ctx, llvm::TargetMachine& tm,
                                                          const std::vector<SignatureToCompile>& signatures,
                                                          const CompileOptions& options,
                                                          std::vector<std::string>* exported);
void Optimize(llvm::Module& m, llvm::TargetMachine& tm);
// The kernels compiled to bitcode at build time for an instruction-set
// variant ("x86_64_v2", "x86_64_v3", "x86_64_v4", "aarch64"); empty when
// that variant was not built.
std::string_view KernelBitcode(const std::string& variant);

}  // namespace tfn::aot
