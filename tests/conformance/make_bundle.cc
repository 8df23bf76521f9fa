// Writes the conformance bundle: every case, static and dynamic, as a
// signature. The build compiles it with tfn-aot into the object the
// conformance test links.  Usage: conformance_make_bundle OUT.tfn
#include <cstdio>
#include <exception>
#include <map>
#include <string>

#include "tests/conformance/cases.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: conformance_make_bundle OUT.tfn\n");
    return 2;
  }
  std::map<std::string, tfn::ConcreteFunction> signatures;
  for (const tfn::conformance::Case& c : tfn::conformance::AllCases()) {
    for (bool dynamic : {false, true}) {
      if (dynamic && !c.dynamic) continue;
      std::string name = tfn::conformance::SignatureName(c, dynamic);
      try {
        signatures[name] = c.trace(tfn::conformance::SpecsFor(c, dynamic));
      } catch (const std::exception& e) {
        std::fprintf(stderr, "conformance_make_bundle: tracing %s: %s\n", name.c_str(), e.what());
        return 1;
      }
    }
  }
  try {
    tfn::save(argv[1], signatures);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "conformance_make_bundle: %s\n", e.what());
    return 1;
  }
  return 0;
}
