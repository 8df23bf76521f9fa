// The conformance cases: small functions over every op family, each traced
// with static input shapes and (where its ops allow) with a dynamic leading
// dim, plus the built-in example models. Each is traced twice: through the
// pass pipeline (what the interpreter, the JIT and a linked AOT object run)
// and without it (what the reference kernels run: the oracle, so that a
// wrong rewrite in a pass shows as a difference). Cases that compiled code
// cannot run are run by the oracle and the interpreter only (Case::compiled).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "tfn/tfn.h"

namespace tfn::conformance {

struct Case {
  std::string name;  // also the bundle signature name
  // Traces the function on input specs (the caller picks static or dynamic),
  // through the pass pipeline or, with optimize false, as written.
  std::function<ConcreteFunction(const std::vector<TensorSpec>&, bool optimize)> trace;
  std::vector<TensorSpec> specs;  // static shapes
  bool dynamic = true;            // also traced with a dynamic batch dim
  // Which inputs share that batch dim (their dim 0); the first by default.
  std::vector<int> batched_inputs = {0};
  double rtol = 1e-5, atol = 1e-6;
  // Input values for given concrete shapes.
  std::function<std::vector<Tensor>(const std::vector<TensorSpec>&)> inputs;
  // Run by the JIT and the AOT object too. False for the ops compiled code
  // refuses (data-dependent output shapes, variable updates): the case is
  // then in the interpreter-only bundles (make_bundle.cc), which tfn-aot
  // does not compile, and runs through the oracle and the interpreter alone,
  // every call twice, so that state left by a call must agree as well.
  bool compiled = true;
};

std::vector<Case> AllCases();

// The specs a case is traced with: static, or with dim 0 of the batched inputs dynamic.
std::vector<TensorSpec> SpecsFor(const Case& c, bool dynamic);

// Concrete input shapes for a run: static shapes with dim 0 set to `batch`
// (for the dynamic variant; 0 keeps the static shapes).
std::vector<TensorSpec> ShapesFor(const Case& c, int64_t batch);

// Signature name in the conformance bundle.
inline std::string SignatureName(const Case& c, bool dynamic) {
  return c.name + (dynamic ? "_dyn" : "");
}

}  // namespace tfn::conformance
