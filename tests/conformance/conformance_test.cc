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
// their 1-thread results bit for bit. Printed text (tfn::print) is compared
// too: the runtime's through RunOptions::print, compiled code's as written to
// standard output. Each compiled case also runs by name in one Session whose
// signatures all run through the AOT object (Session::UseCompiled): the
// same results, the same text through RunOptions::print, and the same
// errors as the interpreter's session for a missing input, an input of
// another dtype and a run over max_run_bytes. The cases compiled code cannot run (Case::compiled
// false: data-dependent shapes, variable updates) come from the interpreter-only bundles and run
// through the oracle and the interpreter alone, each input twice: every session holds its own
// variables, and each gets the same calls in the same order, so what a call reads back must agree
// too.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "aot/aot.h"
#include "conformance_aot.h"
#include "exporter/bundle_reader.h"
#include "runtime/compiled.h"
#include "runtime/thread_pool.h"
#include "tests/conformance/cases.h"
#include "tfn/runtime.h"

namespace tfn::conformance {
namespace {

// The runtime sessions of one bundle pair.
struct Sessions {
  // reference: the unoptimized bundle; the others run the optimized one.
  std::unique_ptr<runtime::Session> reference, interpreter, interpreter_threads;

  void Load(const char* optimized, const char* unoptimized,
            const std::shared_ptr<runtime::ThreadPool>& pool) {
    for (bool ref : {true, false}) {
      runtime::LoadOptions o;
      o.reference_kernels = ref;
      auto bundle = runtime::Bundle::Load(ref ? unoptimized : optimized, o);
      EXPECT_TRUE(bundle.ok()) << bundle.status().ToString();
      if (!bundle.ok()) continue;
      runtime::SessionOptions one;
      one.num_threads = 1;
      (ref ? reference : interpreter) = std::make_unique<runtime::Session>(*bundle, one);
      if (!ref) {
        runtime::SessionOptions two;
        two.thread_pool = pool;
        interpreter_threads = std::make_unique<runtime::Session>(*bundle, two);
      }
    }
  }
};

struct Backends {
  std::shared_ptr<runtime::ThreadPool> pool = std::make_shared<runtime::ThreadPool>(2);
  TfnAotRunOptions threads{sizeof(TfnAotRunOptions), 2, &runtime::ThreadPool::ParallelForFn, pool.get()};
  // The cases that compiled code runs too, and those it cannot.
  Sessions compiled, interpreter_only;
  // The optimized bundle of the compiled cases in one session whose
  // signatures all run through the AOT object (Session::UseCompiled): it must
  // behave as the interpreter's session does, options and errors included.
  std::unique_ptr<runtime::Session> with_compiled;
  // The optimized graphs of the compiled cases, for the JIT.
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
    out->compiled.Load(TFN_CONFORMANCE_BUNDLE, TFN_CONFORMANCE_UNOPTIMIZED_BUNDLE, out->pool);
    out->interpreter_only.Load(TFN_CONFORMANCE_INTERPRETER_BUNDLE,
                               TFN_CONFORMANCE_INTERPRETER_UNOPTIMIZED_BUNDLE, out->pool);
    auto read = exporter::ReadBundleFile(TFN_CONFORMANCE_BUNDLE);
    EXPECT_TRUE(read.ok()) << read.status();
    if (read.ok()) out->bundle = std::move(*read);
    for (int i = 0; i < conformance_aot_num_signatures; ++i) {
      out->aot[conformance_aot_signatures[i]->name] = conformance_aot_signatures[i];
    }
    auto bundle = runtime::Bundle::Load(TFN_CONFORMANCE_BUNDLE);
    EXPECT_TRUE(bundle.ok()) << bundle.status().ToString();
    if (bundle.ok()) {
      runtime::SessionOptions one;
      one.num_threads = 1;
      out->with_compiled = std::make_unique<runtime::Session>(*bundle, one);
      for (const auto& [name, sig] : out->aot) {
        Status used = out->with_compiled->UseCompiled(name, sig);
        EXPECT_TRUE(used.ok()) << name << ": " << used.ToString();
      }
    }
    return out;
  }();
  return *b;
}

// A run's results and the text it printed.
struct Ran {
  Result<std::vector<ConstTensor>> results;
  std::string printed;
};

// Runs a signature in a session, collecting what it prints.
Ran RunSession(const runtime::Session& session, const std::string& sig,
               const std::vector<ConstTensor>& in) {
  std::string printed;
  runtime::RunOptions o;
  o.print = [&printed](const std::string& text) { printed += text; };
  Result<std::vector<ConstTensor>> results = session.Run(sig, in, o);
  return Ran{std::move(results), std::move(printed)};
}

// Runs compiled code, collecting what it prints (compiled tfn::print writes
// to standard output).
Ran RunCompiledCapturing(const TfnAotSignature& sig, const std::vector<ConstTensor>& in,
                         const TfnAotRunOptions* options = nullptr) {
  ::testing::internal::CaptureStdout();
  Result<std::vector<ConstTensor>> results = runtime::RunCompiled(sig, in, options);
  std::string printed = ::testing::internal::GetCapturedStdout();
  return Ran{std::move(results), std::move(printed)};
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

// Results on 2 threads equal those on 1, bit for bit, and so does the text.
void CheckSame(const std::string& what, const Ran& got, const Ran& one_thread) {
  ASSERT_TRUE(got.results.ok()) << what << ": " << got.results.status().ToString();
  ASSERT_TRUE(one_thread.results.ok()) << what;
  ASSERT_EQ(got.results->size(), one_thread.results->size()) << what;
  for (size_t i = 0; i < got.results->size(); ++i) {
    EXPECT_TRUE((*got.results)[i].BytesEqual((*one_thread.results)[i]))
        << what << ", output " << i << " differs on 2 threads";
  }
  EXPECT_EQ(got.printed, one_thread.printed) << what << ": printed text differs on 2 threads";
}

void Check(const std::string& what, const Ran& got, const Ran& want, const Case& c) {
  ASSERT_TRUE(got.results.ok()) << what << ": " << got.results.status().ToString();
  ASSERT_EQ(got.results->size(), want.results->size()) << what;
  for (size_t i = 0; i < want.results->size(); ++i) {
    EXPECT_TRUE(Close((*got.results)[i], (*want.results)[i], c.rtol, c.atol))
        << what << ", output " << i;
  }
  EXPECT_EQ(got.printed, want.printed) << what << ": printed text";
}

// Bad calls fail alike, interpreted and compiled: a missing input, an input
// of another dtype, and a run over RunOptions::max_run_bytes (the code and
// the message's start: each backend counts its own buffers).
void ExpectSameErrors(const runtime::Session& interpreter, const runtime::Session& compiled,
                      const std::string& sig, const std::vector<ConstTensor>& in) {
  std::vector<std::vector<ConstTensor>> bad;
  if (!in.empty()) {
    bad.push_back(std::vector<ConstTensor>(in.begin(), in.end() - 1));
    std::vector<ConstTensor> other = in;
    DType t = in[0].dtype == DType::kFloat32 ? DType::kInt32 : DType::kFloat32;
    void* zeros = nullptr;
    other[0] = ConstTensor::Allocate(t, in[0].shape, &zeros);
    bad.push_back(other);
  }
  for (const std::vector<ConstTensor>& call : bad) {
    Result<std::vector<ConstTensor>> a = interpreter.Run(sig, call);
    Result<std::vector<ConstTensor>> b = compiled.Run(sig, call);
    ASSERT_FALSE(a.ok());
    ASSERT_FALSE(b.ok());
    EXPECT_EQ(a.status().ToString(), b.status().ToString());
  }
  runtime::RunOptions tight;
  tight.max_run_bytes = 1;
  Result<std::vector<ConstTensor>> a = interpreter.Run(sig, in, tight);
  Result<std::vector<ConstTensor>> b = compiled.Run(sig, in, tight);
  EXPECT_EQ(a.ok(), b.ok()) << "max_run_bytes 1: interpreter "
                            << (a.ok() ? "ran" : a.status().ToString()) << "; compiled "
                            << (b.ok() ? "ran" : b.status().ToString());
  if (!a.ok() && !b.ok()) {
    EXPECT_EQ(a.status().code(), b.status().code());
  }
}

class Conformance : public ::testing::TestWithParam<std::pair<int, bool>> {};

TEST_P(Conformance, AllBackendsAgree) {
  static const std::vector<Case> cases = AllCases();
  const Case& c = cases[GetParam().first];
  bool dynamic = GetParam().second;
  std::string sig = SignatureName(c, dynamic);
  Backends& b = Get();
  const Sessions& s = c.compiled ? b.compiled : b.interpreter_only;
  ASSERT_TRUE(s.reference && s.interpreter && s.interpreter_threads);
  for (int64_t batch : dynamic ? std::vector<int64_t>{1, 5} : std::vector<int64_t>{0}) {
    std::vector<ConstTensor> in;
    for (const Tensor& t : c.inputs(ShapesFor(c, batch))) in.push_back(t.value());
    for (int call = 1; call <= (c.compiled ? 1 : 2); ++call) {
      SCOPED_TRACE(sig + (batch ? " batch " + std::to_string(batch) : "") +
                   (c.compiled ? "" : " call " + std::to_string(call)));
      Ran want = RunSession(*s.reference, sig, in);
      ASSERT_TRUE(want.results.ok()) << want.results.status().ToString();
      Ran interpreted = RunSession(*s.interpreter, sig, in);
      Check("interpreter", interpreted, want, c);
      CheckSame("interpreter", RunSession(*s.interpreter_threads, sig, in), interpreted);
      if (!c.compiled) continue;
      const TfnAotSignature* jit = b.Jit(sig);
      ASSERT_NE(jit, nullptr);
      Ran jitted = RunCompiledCapturing(*jit, in);
      Check("jit", jitted, want, c);
      CheckSame("jit", RunCompiledCapturing(*jit, in, &b.threads), jitted);
      ASSERT_EQ(b.aot.count(sig), 1u);
      Ran linked = RunCompiledCapturing(*b.aot[sig], in);
      Check("aot object", linked, want, c);
      CheckSame("aot object", RunCompiledCapturing(*b.aot[sig], in, &b.threads), linked);
      // The same signature run by name in a session, through the object:
      // results, and text through RunOptions::print, as the interpreter's.
      ASSERT_TRUE(b.with_compiled);
      Ran in_session = RunSession(*b.with_compiled, sig, in);
      Check("session with compiled code", in_session, want, c);
      ExpectSameErrors(*s.interpreter, *b.with_compiled, sig, in);
    }
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
