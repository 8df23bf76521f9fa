// Writes the conformance bundles: every case, static and dynamic, as a
// signature, traced once through the pass pipeline (OPTIMIZED.tfn: the build
// compiles it with tfn-aot into the object the conformance test links, and
// the interpreter and the JIT run it) and once without it (UNOPTIMIZED.tfn:
// the graphs as traced, which the reference kernels run as the oracle). The
// cases compiled code cannot run (Case::compiled false) go to a second pair,
// INTERPRETER.tfn and INTERPRETER_UNOPTIMIZED.tfn, which tfn-aot never sees.
// Usage: conformance_make_bundle OPTIMIZED.tfn UNOPTIMIZED.tfn INTERPRETER.tfn
//            INTERPRETER_UNOPTIMIZED.tfn
#include <cstdio>
#include <exception>
#include <map>
#include <string>

#include "tests/conformance/cases.h"

namespace {

// Traces the cases with Case::compiled == `compiled` and saves the bundle;
// false (after a message) on error.
bool Write(const char* path, bool optimize, bool compiled) {
  std::map<std::string, tfn::ConcreteFunction> signatures;
  for (const tfn::conformance::Case& c : tfn::conformance::AllCases()) {
    if (c.compiled != compiled) continue;
    for (bool dynamic : {false, true}) {
      if (dynamic && !c.dynamic) continue;
      std::string name = tfn::conformance::SignatureName(c, dynamic);
      try {
        signatures[name] = c.trace(tfn::conformance::SpecsFor(c, dynamic), optimize);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "conformance_make_bundle: tracing %s%s: %s\n", name.c_str(),
                     optimize ? "" : " (unoptimized)", e.what());
        return false;
      }
    }
  }
  try {
    tfn::save(path, signatures);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "conformance_make_bundle: %s: %s\n", path, e.what());
    return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr,
                 "usage: conformance_make_bundle OPTIMIZED.tfn UNOPTIMIZED.tfn INTERPRETER.tfn "
                 "INTERPRETER_UNOPTIMIZED.tfn\n");
    return 2;
  }
  for (bool compiled : {true, false}) {
    const char* const* paths = argv + (compiled ? 1 : 3);
    if (!Write(paths[0], /*optimize=*/true, compiled) ||
        !Write(paths[1], /*optimize=*/false, compiled)) {
      return 1;
    }
  }
  return 0;
}
