// The conformance suite: every case gives the same results through the
// oracle — the reference kernels running the graph as traced, before any
// pass (conformance_unoptimized.tfn) — and through the interpreter with the
// optimized kernels, the JIT, and an AOT object linked into this test, all
// three running the graph the pass pipeline made (conformance.tfn): a wrong
// rewrite in a pass, a wrong optimized kernel and wrong generated code all
// show as a difference. With static and with dynamic dims (make_bundle.cc
// writes both bundles; op_coverage_test.cc checks that every op of the op
// table is in them). Tolerances are per case (rtol 1e-5, atol 1e-6 by
// default; 1e-4 for the example models, whose long float reductions are
// summed in a different order by the optimized kernels). The interpreter,
// the JIT and the AOT object also run on 2 threads, with results equal to
// their 1-thread results bit for bit.
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "aot/aot.h"
#include "conformance_aot.h"
#include "exporter/bundle_reader.h"
#include "loader/compiled.h"
#include "loader/thread_pool.h"
#include "tests/conformance/cases.h"
#include "tfn/runtime.h"

namespace tfn::conformance {
namespace {

struct Backends {
  // reference: the unoptimized bundle; the others run the optimized one.
  std::unique_ptr<runtime::Session> reference, interpreter, interpreter_threads;
  std::shared_ptr<rt::ThreadPool> pool = std::make_shared<rt::ThreadPool>(2);
  TfnAotRunOptions threads{sizeof(TfnAotRunOptions), 2, &rt::ThreadPool::ParallelForFn, pool.get()};
  // The optimized graphs, for the JIT.
  exporter::ImportedBundle bundle;
  std::map<std::string, std::unique_ptr<aot::JitLibrary>> jit;  // compiled on first use
  std::map<std::string, const TfnAotSignature*> aot;

  // JIT-compiles one signature (each test needs one: compiling all of them in
  // every test process would dominate the suite's time).
  const TfnAotSignature* Jit(const std::string& name) {
    auto it = jit.find(name);
    if (it == jit.end()) {
      std::vector<aot::SignatureToCompile> sigs;
      for (const auto& s : bundle.signatures) {
        if (s.name == name) sigs.push_back(aot::SignatureToCompile{s.name, s.graph});
      }
      aot::CompileOptions co;
      co.name = "conformance_jit";
      for (const auto& v : bundle.variables) co.variables[v.name] = v.value;
      auto lib = aot::JitCompile(sigs, co);
      EXPECT_TRUE(lib.ok()) << lib.status();
      it = jit.emplace(name, lib.ok() ? std::move(*lib) : nullptr).first;
    }
    return it->second ? it->second->signature(name) : nullptr;
  }
};

Backends& Get() {
  static Backends* b = [] {
    auto* out = new Backends;
    for (bool ref : {true, false}) {
      runtime::LoadOptions o;
      o.reference_kernels = ref;
      auto bundle = runtime::Bundle::Load(
          ref ? TFN_CONFORMANCE_UNOPTIMIZED_BUNDLE : TFN_CONFORMANCE_BUNDLE, o);
      EXPECT_TRUE(bundle.ok()) << bundle.status().ToString();
      runtime::SessionOptions one;
      one.num_threads = 1;
      (ref ? out->reference : out->interpreter) = std::make_unique<runtime::Session>(*bundle, one);
      if (!ref) {
        runtime::SessionOptions two;
        two.thread_pool = out->pool;
        out->interpreter_threads = std::make_unique<runtime::Session>(*bundle, two);
      }
    }
    auto read = exporter::ReadBundleFile(TFN_CONFORMANCE_BUNDLE);
    EXPECT_TRUE(read.ok()) << read.status();
    if (read.ok()) out->bundle = std::move(*read);
    for (int i = 0; i < conformance_aot_num_signatures; ++i) {
      out->aot[conformance_aot_signatures[i]->name] = conformance_aot_signatures[i];
    }
    return out;
  }();
  return *b;
}

::testing::AssertionResult Close(const ConstTensor& got, const ConstTensor& want, double rtol,
                                 double atol) {
  if (got.dtype != want.dtype || got.shape != want.shape) {
    return ::testing::AssertionFailure()
           << TypeToString(static_cast<int>(got.dtype), got.shape) << " vs "
           << TypeToString(static_cast<int>(want.dtype), want.shape);
  }
  for (int64_t i = 0; i < got.num_elements(); ++i) {
    double g = got.ElementAsDouble(i), w = want.ElementAsDouble(i);
    if ((std::isnan(g) && std::isnan(w)) || (std::isinf(w) && g == w)) continue;
    if (!(std::fabs(g - w) <= atol + rtol * std::fabs(w))) {
      return ::testing::AssertionFailure() << "element " << i << ": " << g << " vs " << w;
    }
  }
  return ::testing::AssertionSuccess();
}

// Results on 2 threads equal those on 1, bit for bit.
void CheckSame(const std::string& what, const Result<std::vector<ConstTensor>>& got,
               const Result<std::vector<ConstTensor>>& one_thread) {
  ASSERT_TRUE(got.ok()) << what << ": " << got.status().ToString();
  ASSERT_TRUE(one_thread.ok()) << what;
  ASSERT_EQ(got->size(), one_thread->size()) << what;
  for (size_t i = 0; i < got->size(); ++i) {
    EXPECT_TRUE((*got)[i].BytesEqual((*one_thread)[i]))
        << what << ", output " << i << " differs on 2 threads";
  }
}

void Check(const std::string& what, const Result<std::vector<ConstTensor>>& got,
           const std::vector<ConstTensor>& want, const Case& c) {
  ASSERT_TRUE(got.ok()) << what << ": " << got.status().ToString();
  ASSERT_EQ(got->size(), want.size()) << what;
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_TRUE(Close((*got)[i], want[i], c.rtol, c.atol)) << what << ", output " << i;
  }
}

class Conformance : public ::testing::TestWithParam<std::pair<int, bool>> {};

TEST_P(Conformance, AllBackendsAgree) {
  static const std::vector<Case> cases = AllCases();
  const Case& c = cases[GetParam().first];
  bool dynamic = GetParam().second;
  std::string sig = SignatureName(c, dynamic);
  Backends& b = Get();
  for (int64_t batch : dynamic ? std::vector<int64_t>{1, 5} : std::vector<int64_t>{0}) {
    SCOPED_TRACE(sig + (batch ? " batch " + std::to_string(batch) : ""));
    std::vector<ConstTensor> in;
    for (const Tensor& t : c.inputs(ShapesFor(c, batch))) in.push_back(t.value());
    auto want = b.reference->Run(sig, in);
    ASSERT_TRUE(want.ok()) << want.status().ToString();
    auto interpreted = b.interpreter->Run(sig, in);
    Check("interpreter", interpreted, *want, c);
    CheckSame("interpreter", b.interpreter_threads->Run(sig, in), interpreted);
    const TfnAotSignature* jit = b.Jit(sig);
    ASSERT_NE(jit, nullptr);
    auto jitted = runtime::RunCompiled(*jit, in);
    Check("jit", jitted, *want, c);
    CheckSame("jit", runtime::RunCompiled(*jit, in, &b.threads), jitted);
    ASSERT_EQ(b.aot.count(sig), 1u);
    auto linked = runtime::RunCompiled(*b.aot[sig], in);
    Check("aot object", linked, *want, c);
    CheckSame("aot object", runtime::RunCompiled(*b.aot[sig], in, &b.threads), linked);
  }
}

// Every case statically; those whose ops allow it also with a dynamic batch
// dim (a case without a dynamic variant has no test to skip).
std::vector<std::pair<int, bool>> Params() {
  std::vector<std::pair<int, bool>> p;
  const std::vector<Case> cases = AllCases();
  for (int i = 0; i < static_cast<int>(cases.size()); ++i) {
    p.push_back({i, false});
    if (cases[i].dynamic) p.push_back({i, true});
  }
  return p;
}

INSTANTIATE_TEST_SUITE_P(Cases, Conformance, ::testing::ValuesIn(Params()),
                         [](const ::testing::TestParamInfo<std::pair<int, bool>>& info) {
                           static const std::vector<Case> cases = AllCases();
                           return cases[info.param.first].name +
                                  (info.param.second ? "_dynamic" : "_static");
                         });

}  // namespace
}  // namespace tfn::conformance
