// An AOT object (examples/aot_app's mlp, compiled by tfn-aot at build time
// and linked in) run on several threads: through <tfn/aot_thread_pool.h>
// (what apps use) and through the runtime's pool (Session::UseCompiled),
// with several callers sharing one pool at once. Label tsan: also run under
// ThreadSanitizer (scripts/stages/tsan.sh), which sees the pools' own
// synchronization (the object's code itself is not instrumented). Results
// equal the single-threaded object's, which agree with the interpreter.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <thread>
#include <vector>

#include "runtime/compiled.h"
#include "mlp.h"
#include "tfn/aot_thread_pool.h"
#include "tfn/runtime.h"

namespace tfn {
namespace {

constexpr int kCallers = 3;

ConstTensor Input(int64_t batch) {
  void* data = nullptr;
  ConstTensor x = ConstTensor::Allocate(DType::kFloat32, Shape{batch, 784}, &data);
  float* p = static_cast<float*>(data);
  for (int64_t i = 0; i < batch * 784; ++i) p[i] = static_cast<float>((i * 37) % 101) / 50.f - 1.f;
  return x;
}

TEST(AotThreads, TheHeaderPoolFromSeveralCallers) {
  const TfnAotSignature& sig = mlp_serving_default_signature;
  std::vector<ConstTensor> in = {Input(64)};
  auto serial = runtime::RunCompiled(sig, in);
  ASSERT_TRUE(serial.ok()) << serial.status().ToString();
  // The object agrees with the interpreter on the same bundle.
  auto bundle = runtime::Bundle::Load(TFN_MLP_BUNDLE);
  ASSERT_TRUE(bundle.ok()) << bundle.status().ToString();
  runtime::Session session(*bundle, runtime::SessionOptions{1, nullptr});
  auto interpreted = session.Run("serving_default", in);
  ASSERT_TRUE(interpreted.ok()) << interpreted.status().ToString();
  const float* a = (*serial)[0].as<float>();
  const float* b = (*interpreted)[0].as<float>();
  // The conformance suite's tolerance for compiled models (tools/README.md, --jit).
  for (int64_t i = 0; i < (*serial)[0].num_elements(); ++i)
    ASSERT_NEAR(a[i], b[i], 1e-4 * std::fabs(b[i]) + 1e-6) << i;

  TfnAotThreadPool* pool = tfn_aot_thread_pool_create(2);
  ASSERT_NE(pool, nullptr);
  TfnAotRunOptions threads = tfn_aot_thread_pool_run_options(pool);
  std::atomic<int> bad{0};
  std::vector<std::thread> callers;
  for (int c = 0; c < kCallers; ++c) {
    callers.emplace_back([&] {
      for (int r = 0; r < 8; ++r) {
        auto got = runtime::RunCompiled(sig, in, &threads);
        if (!got.ok() || !(*got)[0].BytesEqual((*serial)[0])) bad.fetch_add(1);
      }
    });
  }
  for (std::thread& t : callers) t.join();
  tfn_aot_thread_pool_destroy(pool);
  EXPECT_EQ(bad.load(), 0);
}

TEST(AotThreads, TheGeneratedEntryPointOnThePool) {
  // As an app calls it: the generated C function with its own buffers.
  const int64_t batch = 16;
  ConstTensor x = Input(batch);
  std::vector<float> want(static_cast<size_t>(batch) * 10), got(want.size());
  int64_t dims[1] = {batch};
  int64_t scratch_bytes = mlp_serving_default_signature.scratch_bytes(dims);
  ASSERT_GE(scratch_bytes, 0);
  std::shared_ptr<void> scratch = AllocateAligned(static_cast<size_t>(scratch_bytes) + 64);
  ASSERT_EQ(
      mlp_serving_default_with_options(x.as<float>(), batch, want.data(), scratch.get(), nullptr),
      0);
  TfnAotThreadPool* pool = tfn_aot_thread_pool_create(3);
  TfnAotRunOptions threads = tfn_aot_thread_pool_run_options(pool);
  for (int r = 0; r < 5; ++r) {
    ASSERT_EQ(
        mlp_serving_default_with_options(x.as<float>(), batch, got.data(), scratch.get(), &threads),
        0);
    EXPECT_EQ(got, want);
  }
  tfn_aot_thread_pool_destroy(pool);
}

TEST(AotThreads, UseCompiledOnTheSessionPoolFromSeveralCallers) {
  auto bundle = runtime::Bundle::Load(TFN_MLP_BUNDLE);
  ASSERT_TRUE(bundle.ok()) << bundle.status().ToString();
  std::vector<ConstTensor> in = {Input(48)};
  auto want = runtime::RunCompiled(mlp_serving_default_signature, in);
  ASSERT_TRUE(want.ok());
  runtime::Session session(*bundle, runtime::SessionOptions{2, nullptr});
  // UseCompiled is not thread-safe with Run: set it before the callers start.
  ASSERT_TRUE(session.UseCompiled("serving_default", &mlp_serving_default_signature).ok());
  std::atomic<int> bad{0};
  std::vector<std::thread> callers;
  for (int c = 0; c < kCallers; ++c) {
    callers.emplace_back([&] {
      for (int r = 0; r < 8; ++r) {
        auto got = session.Run("serving_default", in);
        if (!got.ok() || !(*got)[0].BytesEqual((*want)[0])) bad.fetch_add(1);
      }
    });
  }
  for (std::thread& t : callers) t.join();
  EXPECT_EQ(bad.load(), 0);
}

}  // namespace
}  // namespace tfn
