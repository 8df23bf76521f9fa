// tfn::function called from many threads at once (label tsan: also run
// under ThreadSanitizer, scripts/stages/tsan.sh): threads that hit cached
// traces while others add new signatures (new shapes, dtypes and static
// values), a bounded cache that evicts while others call, and a Variable
// read by every trace. Each signature is traced exactly once and every
// call returns the value it would return alone.
#include <gtest/gtest.h>

#include <atomic>
#include <functional>
#include <set>
#include <thread>
#include <vector>

#include "tfn/tfn.h"

namespace tfn {
namespace {

constexpr int kThreads = 6;

// Runs body(t) on kThreads threads released at once, so that their calls
// overlap (the point of these tests), and joins them.
void RunTogether(const std::function<void(int)>& body) {
  std::atomic<bool> go{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      while (!go.load()) std::this_thread::yield();
      body(t);
    });
  }
  go = true;
  for (std::thread& t : threads) t.join();
}

TEST(FunctionThreads, NewAndCachedSignaturesFromManyThreads) {
  std::atomic<int> bodies{0};
  auto f = function([&bodies](Tensor x, int64_t k) {
    bodies.fetch_add(1);
    return reduce_sum(x * static_cast<double>(k) + 1.0);
  });
  // Warm: two signatures are cached before the threads start.
  EXPECT_EQ(f(ones({2}), int64_t{1}).item<float>(), 4.f);
  EXPECT_EQ(f(ones({3}), int64_t{1}).item<float>(), 6.f);
  std::atomic<int> bad{0};
  RunTogether([&](int t) {
    for (int r = 0; r < 20; ++r) {
      // Lengths 2..5 and k 1..3: 12 signatures, 10 new ones, each missed
      // by several threads at about the same time.
      int64_t n = 2 + (t + r) % 4, k = 1 + r % 3;
      float got = f(ones({n}), k).item<float>();
      if (got != static_cast<float>(n * (k + 1))) bad.fetch_add(1);
    }
  });
  EXPECT_EQ(bad.load(), 0);
  EXPECT_EQ(f.tracing_count(), 12);
  EXPECT_EQ(bodies.load(), 12);
}

TEST(FunctionThreads, DTypesAndInputSignaturesFromManyThreads) {
  FunctionOptions o;
  o.name = "scale";
  o.input_signature = {TensorSpec({kDynamic}, DType::kFloat32)};
  auto dynamic = function([](Tensor x) { return x * 2.0; }, o);
  auto typed = function([](Tensor x) { return x + x; });
  std::atomic<int> bad{0};
  RunTogether([&](int t) {
    for (int r = 0; r < 15; ++r) {
      int64_t n = 1 + (t * 7 + r) % 9;
      if (dynamic(ones({n})).to_vector<float>() != std::vector<float>(static_cast<size_t>(n), 2.f))
        bad.fetch_add(1);
      // int32, int64, float32, float64: four traces.
      switch ((t + r) % 4) {
        case 0:
          bad += typed(constant(std::vector<int32_t>{1, 2})).to_vector<int32_t>() !=
                 std::vector<int32_t>{2, 4};
          break;
        case 1:
          bad += typed(constant(std::vector<int64_t>{3})).to_vector<int64_t>() !=
                 std::vector<int64_t>{6};
          break;
        case 2:
          bad += typed(constant({1.5f})).to_vector<float>() != std::vector<float>{3.f};
          break;
        case 3:
          bad += typed(constant(std::vector<double>{0.25})).to_vector<double>() !=
                 std::vector<double>{0.5};
          break;
      }
    }
  });
  EXPECT_EQ(bad.load(), 0);
  EXPECT_EQ(dynamic.tracing_count(), 1);  // one graph for every length
  EXPECT_EQ(typed.tracing_count(), 4);
}

TEST(FunctionThreads, EvictionWhileOthersCallAndAVariable) {
  static Variable bias(constant(0.5f), "bias");
  FunctionOptions o;
  o.max_traces = 2;  // fewer than the signatures in use: traces are evicted and retraced
  auto f = function([](Tensor x) { return reduce_sum(x) + bias.value(); }, o);
  std::atomic<int> bad{0};
  RunTogether([&](int t) {
    for (int r = 0; r < 15; ++r) {
      int64_t n = 1 + (t + r) % 5;
      if (f(ones({n})).item<float>() != static_cast<float>(n) + 0.5f) bad.fetch_add(1);
    }
  });
  EXPECT_EQ(bad.load(), 0);
  EXPECT_GE(f.tracing_count(), 5);
}

}  // namespace
}  // namespace tfn
