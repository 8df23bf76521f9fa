// tfn-run --jit: compiles one signature of a bundle in process with the AOT
// code generator (aot/ JitCompile, ORC LLJIT) and makes a runtime Session run
// it through that code (Session::UseCompiled) instead of the interpreter.
// This is the only file of tfn-run that reaches LLVM; the runtime library
// itself stays free of it.
#pragma once

#include <memory>
#include <string>

#include "aot/aot.h"
#include "core/status.h"
#include "runtime/runtime.h"

namespace tfn::tools {

struct JitOptions {
  bool reference_kernels = false;  // link the reference kernels (the oracle)
  bool fast_math = false;          // aot::CompileOptions::fast_math
};

// Reads the graphs of `bundle_path` (the file `session` was loaded from),
// JIT-compiles `signature` with the bundle's variables embedded, and
// installs it in `session`. The returned library owns the code: keep it
// alive while the session runs. A signature the code generator cannot
// compile (one that updates variables, or whose shapes depend on computed
// data) is an error that says so and suggests the interpreter.
Result<std::unique_ptr<aot::JitLibrary>> UseJit(const std::string& bundle_path,
                                                const std::string& signature,
                                                const JitOptions& options,
                                                runtime::Session& session);

}  // namespace tfn::tools
