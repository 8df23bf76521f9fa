// Tests of the runtime's thread pool (loops of every size and chunking,
// nested and concurrent callers, workers that sleep and wake) and of what
// runs on it: sessions with num_threads, Session::Run from many threads at
// once, the C API's session options, and fused elementwise chains (tiles
// against the unfused kernels, bit for bit, and against the reference
// kernels; arena savings; broadcasting, dtypes, dynamic dims).
#include "runtime/thread_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "runtime/executor.h"
#include "tfn/runtime.h"
#include "tfn/tfn.h"
#include "tfn/tfn_runtime.h"

namespace tfn {
namespace {

using runtime::ThreadPool;

// Counts how often each element of [0, n) is visited and the chunk sizes.
struct Coverage {
  std::vector<std::atomic<int>> hits;
  std::atomic<int64_t> smallest{INT64_MAX};
  std::atomic<int> chunks{0};
  explicit Coverage(int64_t n) : hits(static_cast<size_t>(n)) {}
  static void Fn(void* arg, int64_t begin, int64_t end) {
    auto* c = static_cast<Coverage*>(arg);
    for (int64_t i = begin; i < end; ++i) c->hits[i].fetch_add(1);
    int64_t len = end - begin, cur = c->smallest.load();
    while (len < cur && !c->smallest.compare_exchange_weak(cur, len)) {
    }
    c->chunks.fetch_add(1);
  }
};

TEST(ThreadPool, EveryElementOnceInChunksOfAtLeastMinChunk) {
  for (int threads : {1, 2, 3, 5}) {
    ThreadPool pool(threads);
    EXPECT_EQ(pool.num_threads(), threads);
    for (int64_t n :
         {int64_t{1}, int64_t{2}, int64_t{7}, int64_t{100}, int64_t{1000}, int64_t{12345}}) {
      for (int64_t min_chunk : {int64_t{0}, int64_t{1}, int64_t{3}, int64_t{64}, int64_t{5000}}) {
        Coverage c(n);
        pool.ParallelFor(n, min_chunk, Coverage::Fn, &c);
        for (int64_t i = 0; i < n; ++i)
          ASSERT_EQ(c.hits[i].load(), 1) << threads << " " << n << " " << min_chunk;
        if (n >= min_chunk) {
          EXPECT_GE(c.smallest.load(), std::max<int64_t>(1, min_chunk));
        }
        EXPECT_LE(c.chunks.load(), threads * ThreadPool::kChunksPerThread);
      }
    }
    Coverage none(1);
    pool.ParallelFor(0, 1, Coverage::Fn, &none);
    EXPECT_EQ(none.chunks.load(), 0);
  }
}

TEST(ThreadPool, DefaultIsTheAvailableCores) {
  ThreadPool pool(0);
  EXPECT_EQ(pool.num_threads(), runtime::AvailableCores());
  EXPECT_GE(runtime::AvailableCores(), 1);
}

TEST(ThreadPool, UsesTheWorkers) {
  ThreadPool pool(2);
  // Chunks that wait for each other can only finish on two threads.
  std::atomic<int> arrived{0};
  std::mutex mu;
  std::set<std::thread::id> ids;
  auto fn = [](void* arg, int64_t, int64_t) {
    auto& a = *static_cast<
        std::pair<std::atomic<int>*, std::pair<std::mutex*, std::set<std::thread::id>*>>*>(arg);
    a.first->fetch_add(1);
    auto start = std::chrono::steady_clock::now();
    while (a.first->load() < 2 &&
           std::chrono::steady_clock::now() - start < std::chrono::seconds(10)) {
      std::this_thread::yield();
    }
    std::lock_guard<std::mutex> lock(*a.second.first);
    a.second.second->insert(std::this_thread::get_id());
  };
  auto arg = std::make_pair(&arrived, std::make_pair(&mu, &ids));
  pool.ParallelFor(2, 1, fn, &arg);
  EXPECT_EQ(arrived.load(), 2);
  EXPECT_EQ(ids.size(), 2u);
}

// Chunks that wait for each other: each thread runs exactly one, and it is
// the one of its own share (the caller the first, the worker the second),
// so kernels that split a tensor alike find their own part in their cache.
TEST(ThreadPool, EachThreadStartsWithItsOwnShare) {
  ThreadPool pool(2);
  struct Arg {
    std::atomic<int> arrived{0};
    std::thread::id ran[2];
  } arg;
  auto fn = [](void* p, int64_t begin, int64_t) {
    auto& a = *static_cast<Arg*>(p);
    a.ran[begin] = std::this_thread::get_id();
    a.arrived.fetch_add(1);
    auto start = std::chrono::steady_clock::now();
    while (a.arrived.load() < 2 &&
           std::chrono::steady_clock::now() - start < std::chrono::seconds(10)) {
      std::this_thread::yield();
    }
  };
  pool.ParallelFor(2, 1, fn, &arg);
  EXPECT_EQ(arg.ran[0], std::this_thread::get_id());
  EXPECT_NE(arg.ran[1], std::this_thread::get_id());
}

TEST(ThreadPool, NestedLoopsRunSeriallyOnTheirThread) {
  ThreadPool pool(3);
  struct State {
    ThreadPool* pool;
    std::atomic<int> inner_ok{0}, inner_total{0};
  } st;
  st.pool = &pool;
  pool.ParallelFor(
      64, 1,
      [](void* arg, int64_t b, int64_t e) {
        auto* s = static_cast<State*>(arg);
        EXPECT_TRUE(ThreadPool::InParallelRegion());
        for (int64_t i = b; i < e; ++i) {
          std::thread::id me = std::this_thread::get_id();
          struct Inner {
            std::thread::id me;
            std::atomic<int>* ok;
            std::atomic<int>* total;
          } in{me, &s->inner_ok, &s->inner_total};
          s->pool->ParallelFor(
              100, 1,
              [](void* a, int64_t ib, int64_t ie) {
                auto* x = static_cast<Inner*>(a);
                x->total->fetch_add(static_cast<int>(ie - ib));
                if (std::this_thread::get_id() == x->me)
                  x->ok->fetch_add(static_cast<int>(ie - ib));
              },
              &in);
        }
      },
      &st);
  EXPECT_EQ(st.inner_total.load(), 64 * 100);
  EXPECT_EQ(st.inner_ok.load(), 64 * 100);
  EXPECT_FALSE(ThreadPool::InParallelRegion());
}

void SumFn(void* arg, int64_t b, int64_t e) {
  int64_t s = 0;
  for (int64_t i = b; i < e; ++i) s += i;
  static_cast<std::atomic<int64_t>*>(arg)->fetch_add(s);
}

TEST(ThreadPool, ConcurrentCallersAndManySmallLoops) {
  ThreadPool pool(2);
  std::vector<std::thread> callers;
  std::atomic<int> bad{0};
  for (int t = 0; t < 6; ++t) {
    callers.emplace_back([&pool, &bad, t] {
      for (int r = 0; r < 3000; ++r) {
        int64_t n = 1 + (r * 7 + t) % 200;
        std::atomic<int64_t> sum{0};
        pool.ParallelFor(n, 1, SumFn, &sum);
        if (sum.load() != n * (n - 1) / 2) bad.fetch_add(1);
      }
    });
  }
  for (std::thread& c : callers) c.join();
  EXPECT_EQ(bad.load(), 0);
}

TEST(ThreadPool, WorkersSleepAndWake) {
  ThreadPool pool(3);
  for (int r = 0; r < 20; ++r) {
    std::atomic<int64_t> sum{0};
    pool.ParallelFor(10000, 10, SumFn, &sum);
    EXPECT_EQ(sum.load(), int64_t{10000} * 9999 / 2);
    // Long enough for the workers to stop spinning and block.
    std::this_thread::sleep_for(std::chrono::microseconds(r % 2 ? 2000 : 10));
  }
}

TEST(ThreadPool, FillsKernelContexts) {
  TfnKernelContext ctx{};
  ThreadPool one(1);
  one.Fill(&ctx);
  EXPECT_EQ(ctx.parallel_for, nullptr);
  EXPECT_EQ(ctx.num_threads, 1);
  ThreadPool two(2);
  two.Fill(&ctx);
  ASSERT_NE(ctx.parallel_for, nullptr);
  EXPECT_EQ(ctx.pool, &two);
  EXPECT_EQ(ctx.num_threads, 2);
  std::atomic<int64_t> sum{0};
  ctx.parallel_for(ctx.pool, 1000, 1, SumFn, &sum);
  EXPECT_EQ(sum.load(), 999 * 1000 / 2);
}

// ---------------------------------------------------------------- sessions

std::shared_ptr<const runtime::Bundle> Load(const std::string& bytes, bool reference = false) {
  auto owned = std::make_shared<std::string>(bytes);
  runtime::LoadOptions o;
  o.reference_kernels = reference;
  auto b = runtime::Bundle::FromMemory(owned->data(), owned->size(), owned, o);
  EXPECT_TRUE(b.ok()) << b.status().ToString();
  return *b;
}

::testing::AssertionResult Same(const ConstTensor& got, const ConstTensor& want) {
  if (got.dtype != want.dtype || got.shape != want.shape) {
    return ::testing::AssertionFailure()
           << TypeToString(static_cast<int>(got.dtype), got.shape) << " vs "
           << TypeToString(static_cast<int>(want.dtype), want.shape);
  }
  if (std::memcmp(got.data, want.data, static_cast<size_t>(got.byte_size())) != 0) {
    for (int64_t i = 0; i < got.num_elements(); ++i) {
      if (got.ElementAsDouble(i) != want.ElementAsDouble(i)) {
        return ::testing::AssertionFailure() << "element " << i << ": " << got.ElementAsDouble(i)
                                             << " vs " << want.ElementAsDouble(i);
      }
    }
  }
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult Close(const ConstTensor& got, const ConstTensor& want, double tol) {
  if (got.dtype != want.dtype || got.shape != want.shape)
    return ::testing::AssertionFailure() << "type";
  for (int64_t i = 0; i < got.num_elements(); ++i) {
    double g = got.ElementAsDouble(i), w = want.ElementAsDouble(i);
    if (!(std::fabs(g - w) <= tol * (1 + std::fabs(w)))) {
      return ::testing::AssertionFailure() << "element " << i << ": " << g << " vs " << w;
    }
  }
  return ::testing::AssertionSuccess();
}

// The optimized kernels with fusion switched off: the module as loaded, run
// instruction by instruction.
std::vector<ConstTensor> Unfused(const runtime::Bundle& bundle, const std::string& sig,
                                 const std::vector<ConstTensor>& in) {
  auto module = std::make_shared<runtime::Module>(*bundle.module());
  module->fuse_elementwise = false;
  runtime::Executor ex(module);
  std::vector<ConstTensor> out;
  size_t index = 0;
  for (size_t i = 0; i < bundle.signatures().size(); ++i) {
    if (bundle.signatures()[i].name == sig) index = i;
  }
  Status s =
      ex.Run(bundle.program_of(index), in.data(), static_cast<int>(in.size()), nullptr, &out);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return out;
}

// A bundle of elementwise chains of several kinds.
std::string ChainBundle() {
  // tanh(x*1.5+0.5)*sigmoid(x) - x/3 (issue 5's chain).
  auto chain = function([](Tensor x) { return tanh(x * 1.5 + 0.5) * sigmoid(x) - x / 3.0; });
  // A bias row, a [H, W] block and a scalar broadcast along the last dims;
  // an intermediate returned and one read by a non-elementwise op between
  // chain members; a column [N, 1] (not a tile operand).
  auto bias = function([](Tensor x, Tensor b, Tensor hw, Tensor col) {
    Tensor y = relu(x + b) * 2.0;
    Tensor z = y - hw;
    Tensor s = reduce_sum(y, {3});
    Tensor w = exp(-abs(z)) + 1.0;
    Tensor c = w * col;
    return std::make_tuple(w, c, s, z);
  });
  // dtypes: compare -> where, casts to int and back.
  auto types = function([](Tensor x, Tensor y) {
    Tensor m = (x > y) | (x * y > 0.25);
    Tensor i = cast(x * 100.0, DType::kInt32);
    Tensor j = cast(i / 3 + i, DType::kFloat32);
    return where(m, j, y - x) + maximum(x, y);
  });
  FunctionOptions o;
  return serialize(
      {{"chain", chain.get_concrete_function(TensorSpec({kDynamic, 1000}, DType::kFloat32))},
       {"bias", bias.get_concrete_function(TensorSpec({4, 8, 32, 64}, DType::kFloat32),
                                           TensorSpec({64}, DType::kFloat32),
                                           TensorSpec({32, 64}, DType::kFloat32),
                                           TensorSpec({4, 8, 32, 1}, DType::kFloat32))},
       {"types", types.get_concrete_function(TensorSpec({96, 512}, DType::kFloat32),
                                             TensorSpec({512}, DType::kFloat32))}});
}

std::vector<ConstTensor> Inputs(const std::string& sig, int64_t batch) {
  std::vector<Tensor> t;
  if (sig == "chain") t = {random_uniform({batch, 1000}, 1, -3, 3)};
  if (sig == "bias") {
    t = {random_uniform({4, 8, 32, 64}, 2, -1, 1), random_uniform({64}, 3, -1, 1),
         random_uniform({32, 64}, 4, -1, 1), random_uniform({4, 8, 32, 1}, 5, -1, 1)};
  }
  if (sig == "types") t = {random_uniform({96, 512}, 6, -1, 1), random_uniform({512}, 7, -1, 1)};
  std::vector<ConstTensor> out;
  for (const Tensor& x : t) out.push_back(x.value());
  return out;
}

TEST(FusedChains, TilesGiveTheUnfusedKernelsResultsAtAnyThreadCount) {
  std::string bytes = ChainBundle();
  auto bundle = Load(bytes);
  auto reference = Load(bytes, true);
  runtime::Session ref(reference, runtime::SessionOptions{1, nullptr});
  for (int threads : {1, 2, 3}) {
    runtime::SessionOptions o;
    o.num_threads = threads;
    runtime::Session session(bundle, o);
    EXPECT_EQ(session.num_threads(), threads);
    for (const char* sig : {"chain", "bias", "types"}) {
      for (int64_t batch : {1, 9, 64, 100}) {
        if (std::string(sig) != "chain" && batch != 1) continue;
        SCOPED_TRACE(std::string(sig) + " threads " + std::to_string(threads) + " batch " +
                     std::to_string(batch));
        std::vector<ConstTensor> in = Inputs(sig, batch);
        auto got = session.Run(sig, in);
        ASSERT_TRUE(got.ok()) << got.status().ToString();
        std::vector<ConstTensor> want = Unfused(*bundle, sig, in);
        auto oracle = ref.Run(sig, in);
        ASSERT_TRUE(oracle.ok());
        ASSERT_EQ(got->size(), want.size());
        for (size_t k = 0; k < want.size(); ++k) {
          EXPECT_TRUE(Same((*got)[k], want[k])) << "output " << k;
          EXPECT_TRUE(Close((*got)[k], (*oracle)[k], 1e-5)) << "output " << k;
        }
      }
    }
  }
}

TEST(FusedChains, IntermediatesGetNoArenaBuffers) {
  auto bundle = Load(ChainBundle());
  runtime::Session session(bundle, runtime::SessionOptions{1, nullptr});
  // 7 ops over [256, 1000] floats: only the result (and tile buffers) need memory.
  auto fused = session.ArenaBytes("chain", {Shape{256, 1000}});
  ASSERT_TRUE(fused.ok());
  const int64_t tensor = 256 * 1000 * 4;
  EXPECT_LE(*fused, tensor + 256 * 1024) << "only the result and tile buffers";
  // Too small to tile: op by op, as before.
  auto small = session.ArenaBytes("chain", {Shape{2, 1000}});
  ASSERT_TRUE(small.ok());
  EXPECT_GE(*small, 2 * 2 * 1000 * 4);
}

TEST(FusedChains, ManyThreadsRunOneSessionAtOnce) {
  std::string bytes = ChainBundle();
  auto bundle = Load(bytes);
  runtime::SessionOptions o;
  o.num_threads = 2;
  runtime::Session session(bundle, o);
  std::vector<std::string> sigs = {"chain", "bias", "types"};
  std::vector<std::vector<ConstTensor>> inputs, want;
  for (const std::string& s : sigs) {
    inputs.push_back(Inputs(s, 37));
    want.push_back(Unfused(*bundle, s, inputs.back()));
  }
  std::atomic<int> bad{0};
  std::vector<std::thread> callers;
  for (int t = 0; t < 6; ++t) {
    callers.emplace_back([&, t] {
      for (int r = 0; r < 15; ++r) {
        size_t k = static_cast<size_t>(t + r) % sigs.size();
        auto got = session.Run(sigs[k], inputs[k]);
        if (!got.ok() || got->size() != want[k].size()) {
          bad.fetch_add(1);
          continue;
        }
        for (size_t i = 0; i < got->size(); ++i) {
          if (!Same((*got)[i], want[k][i])) bad.fetch_add(1);
        }
      }
    });
  }
  for (std::thread& c : callers) c.join();
  EXPECT_EQ(bad.load(), 0);
}

TEST(Session, MatmulAndReductionsAgreeAcrossThreadCounts) {
  auto f = function(
      [](Tensor x, Tensor w) { return softmax(relu(matmul(x, w)) + reduce_sum(x, {1}, true)); });
  std::string bytes = serialize(
      {{"serving_default", f.get_concrete_function(TensorSpec({kDynamic, 512}, DType::kFloat32),
                                                   TensorSpec({512, 384}, DType::kFloat32))}});
  auto bundle = Load(bytes);
  std::vector<ConstTensor> in = {random_uniform({200, 512}, 1, -1, 1).value(),
                                 random_uniform({512, 384}, 2, -1, 1).value()};
  runtime::Session one(bundle, runtime::SessionOptions{1, nullptr});
  auto want = one.Run("serving_default", in);
  ASSERT_TRUE(want.ok());
  for (int threads : {2, 4}) {
    runtime::Session many(bundle, runtime::SessionOptions{threads, nullptr});
    auto got = many.Run("serving_default", in);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_TRUE(Same((*got)[0], (*want)[0])) << threads << " threads";
  }
  // A pool shared by two sessions.
  auto shared = std::make_shared<ThreadPool>(2);
  runtime::SessionOptions so;
  so.thread_pool = shared;
  runtime::Session a(bundle, so), b(bundle, so);
  EXPECT_EQ(a.num_threads(), 2);
  auto ga = a.Run("serving_default", in);
  auto gb = b.Run("serving_default", in);
  ASSERT_TRUE(ga.ok() && gb.ok());
  EXPECT_TRUE(Same((*ga)[0], (*want)[0]));
  EXPECT_TRUE(Same((*gb)[0], (*want)[0]));
}

TEST(CApi, SessionOptionsSetTheThreadCount) {
  auto f = function([](Tensor x) { return x * 2.0; });
  std::string bytes =
      serialize({{"serving_default", f.get_concrete_function(TensorSpec({4}, DType::kFloat32))}});
  TfnRtBundle* bundle = nullptr;
  char error[256];
  ASSERT_EQ(tfn_rt_bundle_from_memory(bytes.data(), bytes.size(), &bundle, error, sizeof error),
            TFN_RT_OK)
      << error;
  TfnRtSessionOptions o = tfn_rt_session_options_default();
  EXPECT_EQ(o.struct_size, sizeof o);
  EXPECT_EQ(o.num_threads, 0);
  o.num_threads = 2;
  TfnRtSession* session = nullptr;
  ASSERT_EQ(tfn_rt_session_create_with_options(bundle, &o, &session, error, sizeof error),
            TFN_RT_OK)
      << error;
  EXPECT_EQ(tfn_rt_session_num_threads(session), 2);
  float x[4] = {1, 2, 3, 4};
  TfnRtTensor in{};
  in.dtype = TFN_RT_FLOAT32;
  in.rank = 1;
  in.dims[0] = 4;
  in.data = x;
  TfnRtOutputs* out = nullptr;
  ASSERT_EQ(tfn_rt_session_run(session, "serving_default", &in, 1, &out, error, sizeof error),
            TFN_RT_OK)
      << error;
  EXPECT_EQ(static_cast<const float*>(tfn_rt_outputs_get(out, 0)->data)[3], 8.f);
  tfn_rt_outputs_free(out);
  tfn_rt_session_free(session);
  // Defaults: the available cores; 1: no threads; bad values are errors.
  ASSERT_EQ(tfn_rt_session_create_with_options(bundle, nullptr, &session, error, sizeof error),
            TFN_RT_OK);
  EXPECT_EQ(tfn_rt_session_num_threads(session), runtime::AvailableCores());
  tfn_rt_session_free(session);
  o.num_threads = 1;
  ASSERT_EQ(tfn_rt_session_create_with_options(bundle, &o, &session, error, sizeof error),
            TFN_RT_OK);
  EXPECT_EQ(tfn_rt_session_num_threads(session), 1);
  tfn_rt_session_free(session);
  o.num_threads = -1;
  EXPECT_EQ(tfn_rt_session_create_with_options(bundle, &o, &session, error, sizeof error),
            TFN_RT_INVALID_ARGUMENT);
  EXPECT_NE(std::string(error).find("num_threads"), std::string::npos);
  o = tfn_rt_session_options_default();
  o.struct_size = 2;
  EXPECT_EQ(tfn_rt_session_create_with_options(bundle, &o, &session, error, sizeof error),
            TFN_RT_INVALID_ARGUMENT);
  EXPECT_EQ(tfn_rt_session_num_threads(nullptr), 0);
  tfn_rt_bundle_free(bundle);
}

}  // namespace
}  // namespace tfn
