// runtime_fusion_bench: the interpreter's elementwise fusion and thread pool
// (issue 7). Issue 5's chain tanh(x*1.5+0.5)*sigmoid(x) - x/3 over 16M
// floats runs through runtime::Executor op by op (fusion off: every op streams a
// 64 MiB intermediate) and as a tiled chain (runtime/fused_chain.h), on 1 and
// 2 threads; plus a trivial call (y = x + 1 on 4 floats) through
// Session::Run, whose cost the pool must not raise.
//
//   BM_Chain/<fuse>/<threads>   counters: GB/s (input + output bytes), arena MiB
//   BM_TrivialRun/<threads>
#include <benchmark/benchmark.h>

#include "runtime/executor.h"
#include "tfn/runtime.h"
#include "tfn/tfn.h"

namespace tfn {
namespace {

std::shared_ptr<const runtime::Bundle> Make(const ConcreteFunction& f) {
  auto bytes = std::make_shared<std::string>(serialize({{"serving_default", f}}));
  auto b = runtime::Bundle::FromMemory(bytes->data(), bytes->size(), bytes);
  if (!b.ok()) std::abort();
  return *b;
}

void BM_Chain(benchmark::State& state) {
  const bool fuse = state.range(0) != 0;
  const int threads = static_cast<int>(state.range(1));
  static auto bundle = Make(function([](Tensor x) { return tanh(x * 1.5 + 0.5) * sigmoid(x) - x / 3.0; })
                                .get_concrete_function(TensorSpec({4096, 4096}, DType::kFloat32)));
  static Tensor x = random_uniform({4096, 4096}, 1, -2, 2);
  auto module = std::make_shared<runtime::Module>(*bundle->module());
  module->fuse_elementwise = fuse;
  runtime::Executor ex(module, threads > 1 ? std::make_shared<runtime::ThreadPool>(threads) : nullptr);
  ConstTensor in = x.value();
  std::vector<ConstTensor> out;
  // Untimed: the plan, the arena's and the outputs' first page faults.
  for (int warm = 0; warm < 2; ++warm) {
    if (!ex.Run(bundle->program_of(0), &in, 1, nullptr, &out).ok()) state.SkipWithError("run failed");
  }
  for (auto _ : state) {
    Status s = ex.Run(bundle->program_of(0), &in, 1, nullptr, &out);
    if (!s.ok()) state.SkipWithError(s.message().c_str());
    benchmark::DoNotOptimize(out.data());
  }
  const double bytes = 2.0 * 4096 * 4096 * 4;
  state.counters["GB/s"] = benchmark::Counter(bytes * static_cast<double>(state.iterations()) / 1e9,
                                              benchmark::Counter::kIsRate);
  state.counters["arena_MiB"] = static_cast<double>(*ex.ArenaBytes(bundle->program_of(0), {Shape{4096, 4096}})) /
                                (1 << 20);
}
BENCHMARK(BM_Chain)->ArgsProduct({{0, 1}, {1, 2}})->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_TrivialRun(benchmark::State& state) {
  static auto bundle = Make(function([](Tensor x) { return x + 1.0; })
                                .get_concrete_function(TensorSpec({4}, DType::kFloat32)));
  runtime::SessionOptions o;
  o.num_threads = static_cast<int>(state.range(0));
  runtime::Session session(bundle, o);
  float data[4] = {1, 2, 3, 4};
  std::vector<runtime::Tensor> in = {runtime::View(DType::kFloat32, Shape{4}, data)};
  for (int warm = 0; warm < 100; ++warm) benchmark::DoNotOptimize(session.Run("serving_default", in));
  for (auto _ : state) {
    auto out = session.Run("serving_default", in);
    benchmark::DoNotOptimize(out);
  }
}
BENCHMARK(BM_TrivialRun)->Arg(1)->Arg(2)->Unit(benchmark::kNanosecond);

}  // namespace
}  // namespace tfn

BENCHMARK_MAIN();
