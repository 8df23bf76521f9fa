// Session::Run on one Bundle from several threads at once (label tsan: the
// ThreadSanitizer stage, scripts/stages/tsan.sh): one session shared by
// threads running several signatures, among them one that updates a
// variable; sessions of their own over one bundle sharing one pool; and the
// C API (by name, and with a method handle per thread). Results must equal
// those of single-threaded runs, and every variable update must count
// exactly once.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "runtime/thread_pool.h"
#include "tfn/runtime.h"
#include "tfn/tfn.h"
#include "tfn/tfn_runtime.h"

namespace tfn {
namespace {

constexpr int kThreads = 4;
constexpr int kRunsPerThread = 12;

// Signatures of different kinds: a dense layer (GEMM and a reduction split
// across the pool), an elementwise chain (fused tiles), and a counter
// variable that `bump` adds to and `peek` reads.
std::string Bytes() {
  static Variable counter(constant(0.f), "counter");
  static Variable w(random_uniform({64, 48}, 7, -1, 1), "w");
  auto dense = function([](Tensor x) { return softmax(relu(matmul(x, w.value())) + 0.25); });
  auto chain = function([](Tensor x) { return tanh(x * 1.5 + 0.5) * sigmoid(x) - x / 3.0; });
  auto bump = function([](Tensor d) {
    counter.assign_add(d);
    return counter.value();
  });
  auto peek = function([]() { return counter.value(); });
  return serialize(
      {{"dense", dense.get_concrete_function(TensorSpec({kDynamic, 64}, DType::kFloat32))},
       {"chain", chain.get_concrete_function(TensorSpec({kDynamic, 1000}, DType::kFloat32))},
       {"bump", bump.get_concrete_function(TensorSpec({}, DType::kFloat32))},
       {"peek", peek.get_concrete_function()}});
}

std::shared_ptr<const runtime::Bundle> Load(const std::string& bytes) {
  auto owned = std::make_shared<std::string>(bytes);
  auto b = runtime::Bundle::FromMemory(owned->data(), owned->size(), owned);
  EXPECT_TRUE(b.ok()) << b.status().ToString();
  return b.ok() ? *b : nullptr;
}

bool Same(const std::vector<ConstTensor>& got, const std::vector<ConstTensor>& want) {
  if (got.size() != want.size()) return false;
  for (size_t i = 0; i < got.size(); ++i) {
    if (!got[i].BytesEqual(want[i])) return false;
  }
  return true;
}

struct Case {
  std::string signature;
  std::vector<ConstTensor> inputs;
  std::vector<ConstTensor> want;
};

// Inputs of every stateless signature at a few batch sizes (each a plan of
// its own, so threads also race to make and cache plans), with the outputs
// of a single-threaded session.
std::vector<Case> Cases(const std::shared_ptr<const runtime::Bundle>& bundle) {
  runtime::Session serial(bundle, runtime::SessionOptions{1, nullptr});
  std::vector<Case> cases;
  for (int64_t batch : {1, 3, 40}) {
    cases.push_back({"dense", {random_uniform({batch, 64}, 11 + batch, -1, 1).value()}, {}});
    cases.push_back({"chain", {random_uniform({batch, 1000}, 17 + batch, -3, 3).value()}, {}});
  }
  for (Case& c : cases) {
    auto out = serial.Run(c.signature, c.inputs);
    EXPECT_TRUE(out.ok()) << out.status().ToString();
    if (out.ok()) c.want = *out;
  }
  return cases;
}

// Runs the cases from kThreads threads on `session_of(thread)`; each thread
// also bumps the counter once per round. Returns the number of bad results.
template <class SessionOf>
int RunFromThreads(const std::vector<Case>& cases, SessionOf session_of) {
  std::atomic<int> bad{0};
  std::atomic<bool> go{false};
  std::vector<std::thread> threads;
  ConstTensor one = constant(1.f).value();
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      while (!go.load()) std::this_thread::yield();
      const runtime::Session& session = session_of(t);
      for (int r = 0; r < kRunsPerThread; ++r) {
        const Case& c = cases[static_cast<size_t>(t + r) % cases.size()];
        auto got = session.Run(c.signature, c.inputs);
        if (!got.ok() || !Same(*got, c.want)) bad.fetch_add(1);
        if (!session.Run("bump", {one}).ok()) bad.fetch_add(1);
      }
    });
  }
  go = true;
  for (std::thread& t : threads) t.join();
  return bad.load();
}

float Counter(const runtime::Session& s) {
  auto out = s.Run("peek", std::vector<ConstTensor>{});
  return out.ok() ? (*out)[0].as<float>()[0] : -1.f;
}

TEST(SessionThreads, OneSessionManyThreads) {
  auto bundle = Load(Bytes());
  ASSERT_NE(bundle, nullptr);
  std::vector<Case> cases = Cases(bundle);
  runtime::Session session(bundle, runtime::SessionOptions{2, nullptr});
  EXPECT_EQ(RunFromThreads(cases, [&](int) -> const runtime::Session& { return session; }), 0);
  // assign_add is atomic per variable: no update is lost.
  EXPECT_EQ(Counter(session), static_cast<float>(kThreads * kRunsPerThread));
}

TEST(SessionThreads, SessionsOfTheirOwnOverOneBundleAndOnePool) {
  auto bundle = Load(Bytes());
  ASSERT_NE(bundle, nullptr);
  std::vector<Case> cases = Cases(bundle);
  runtime::SessionOptions shared;
  shared.thread_pool = std::make_shared<runtime::ThreadPool>(2);
  std::vector<std::unique_ptr<runtime::Session>> sessions;
  for (int t = 0; t < kThreads; ++t)
    sessions.push_back(std::make_unique<runtime::Session>(bundle, shared));
  EXPECT_EQ(RunFromThreads(cases, [&](int t) -> const runtime::Session& { return *sessions[t]; }),
            0);
  // Each session has its own counter; the bundle's stays 0.
  for (const auto& s : sessions) EXPECT_EQ(Counter(*s), static_cast<float>(kRunsPerThread));
  EXPECT_EQ(Counter(runtime::Session(bundle, runtime::SessionOptions{1, nullptr})), 0.f);
}

// The "chain" signature through the C API on a 2-thread session, with its
// result for one input computed once; Hammer runs `body` on kThreads threads
// and counts the runs whose result differs.
struct CApiChain {
  TfnRtBundle* bundle = nullptr;
  TfnRtSession* session = nullptr;
  std::vector<float> x = std::vector<float>(3 * 1000);
  TfnRtTensor in{};
  TfnRtOutputs* first = nullptr;
  const TfnRtTensor* want = nullptr;
  std::string bytes = Bytes();

  CApiChain() {
    char error[256];
    EXPECT_EQ(tfn_rt_bundle_from_memory(bytes.data(), bytes.size(), &bundle, error, sizeof error),
              TFN_RT_OK)
        << error;
    TfnRtSessionOptions o = tfn_rt_session_options_default();
    o.num_threads = 2;
    EXPECT_EQ(tfn_rt_session_create_with_options(bundle, &o, &session, error, sizeof error),
              TFN_RT_OK)
        << error;
    for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 13) * 0.25f - 1.5f;
    in.dtype = TFN_RT_FLOAT32;
    in.rank = 2;
    in.dims[0] = 3;
    in.dims[1] = 1000;
    in.data = x.data();
    EXPECT_EQ(tfn_rt_session_run(session, "chain", &in, 1, &first, error, sizeof error), TFN_RT_OK)
        << error;
    want = first ? tfn_rt_outputs_get(first, 0) : nullptr;
  }
  ~CApiChain() {
    tfn_rt_outputs_free(first);
    tfn_rt_session_free(session);
    tfn_rt_bundle_free(bundle);
  }
  bool Same(const void* data) const {
    return std::memcmp(data, want->data, x.size() * sizeof(float)) == 0;
  }
  // Runs body(&bad) on kThreads threads at once; returns the count of bad runs.
  int Hammer(const std::function<void(std::atomic<int>*)>& body) const {
    std::atomic<int> bad{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) threads.emplace_back([&] { body(&bad); });
    for (std::thread& t : threads) t.join();
    return bad.load();
  }
};

TEST(SessionThreads, CApiRunsFromManyThreads) {
  CApiChain c;
  ASSERT_NE(c.want, nullptr);
  EXPECT_EQ(c.Hammer([&](std::atomic<int>* bad) {
    for (int r = 0; r < kRunsPerThread; ++r) {
      TfnRtOutputs* out = nullptr;
      char e[256];
      if (tfn_rt_session_run(c.session, "chain", &c.in, 1, &out, e, sizeof e) != TFN_RT_OK) {
        bad->fetch_add(1);
        continue;
      }
      if (!c.Same(tfn_rt_outputs_get(out, 0)->data)) bad->fetch_add(1);
      tfn_rt_outputs_free(out);
    }
  }),
            0);
}

// C method handles: one per thread (a handle runs on one thread at a time),
// each writing into its own buffers, all on one session.
TEST(SessionThreads, CApiMethodHandlesOnePerThread) {
  CApiChain c;
  ASSERT_NE(c.want, nullptr);
  EXPECT_EQ(c.Hammer([&](std::atomic<int>* bad) {
    char e[256];
    TfnRtMethod* method = nullptr;
    if (tfn_rt_session_method(c.session, "chain", &method, e, sizeof e) != TFN_RT_OK) {
      bad->fetch_add(1);
      return;
    }
    std::vector<float> y(c.x.size());
    TfnRtTensor out = *c.want;
    out.data = y.data();
    for (int r = 0; r < kRunsPerThread; ++r) {
      std::fill(y.begin(), y.end(), -1.f);
      if (tfn_rt_method_run_into(method, &c.in, 1, &out, 1, e, sizeof e) != TFN_RT_OK ||
          !c.Same(y.data()))
        bad->fetch_add(1);
    }
    tfn_rt_method_free(method);
  }),
            0);
}

}  // namespace
}  // namespace tfn
