// Tracer benchmark (issue 3, "Performance"): what tfn::function costs on top
// of the work it runs.
//
//  1. Cache-hit overhead: a one-op function (relu) called on a tiny tensor
//     (f32[4]) whose graph is already cached, against the same eager op
//     (tfn::relu on the same tensor) as the baseline. The difference is the
//     price of the cache lookup (key from dtype and shape), of running a
//     graph through the executor instead of one kernel, and of wrapping the
//     outputs. Target: under 1 us (TensorFlow's tf.function pays tens of us).
//     ConcreteFunction::operator() is measured too: the same call without the
//     cache key, which splits the overhead into lookup and execution; and
//     the relu kernel alone, called through the kernel ABI, which shows what
//     the eager op itself costs beyond its kernel.
//  2. Tracing cost per op: get_concrete_function on a fresh Function of N
//     ops (so every iteration traces), with the optimization pipeline and
//     without it, divided by N.
//  3. Graph replay vs eager: a chain of 50 small elementwise ops (f32[16]
//     and f32[1024]) run op by op eagerly, and as one cached graph. In
//     TensorFlow graphs win here by ~3-5x because eager dispatch dominates.
//
// Every case runs on one thread (the executor's pool is not involved for
// tensors this small). After the run, the ratios and differences are printed
// (bench_ratio.h). Results and the command: bench/RESULTS.md, "Tracer".
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "bench/bench_ratio.h"
#include "core/op_def.h"
#include "kernels/kernels.h"
#include "tfn/tfn.h"

namespace {

using tfn::DType;
using tfn::Tensor;
using tfn::TensorSpec;

constexpr int kChainOps = 50;

// The chain's inputs: values in [-1, 1) so that every op stays in range
// however long the chain is (no overflow, no denormals to slow a case down).
Tensor Input(int64_t n, uint64_t seed) {
  return tfn::random_uniform({n}, seed, -1.0, 1.0, DType::kFloat32);
}

// N elementwise ops, each one op node: the body cycles through unary and
// binary ops with a second input (not constants, so nothing is folded away
// and no constant nodes are added) and stays bounded.
Tensor Chain(Tensor x, const Tensor& y, int ops) {
  for (int i = 0; i < ops; ++i) {
    switch (i % 5) {
      case 0: x = tfn::tanh(x); break;
      case 1: x = x * y; break;
      case 2: x = tfn::sigmoid(x); break;
      case 3: x = x + y; break;
      default: x = tfn::neg(x); break;
    }
  }
  return x;
}

// --- 1. Cache-hit overhead ---------------------------------------------------

// The kernel alone: the optimized relu kernel planned once and called through
// the kernel ABI on caller memory, as the executor calls it. Not the issue's
// baseline (that is the eager op) but it shows what the eager op itself adds.
void BM_KernelOnly(benchmark::State& state) {
  namespace k = tfn::kernels;
  tfn::Attrs attrs;
  DType in = DType::kFloat32, out = DType::kFloat32;
  int in_rank = 1, out_rank = 1;
  k::NodeSignature node{tfn::OpId::kRelu, &attrs, 1, &in, &in_rank, 1, &out, &out_rank};
  k::KernelPlan plan;
  if (!k::PrepareKernel(node, k::Variant::kOptimized, &plan).ok()) {
    state.SkipWithError("no relu kernel");
    return;
  }
  float x[4] = {-1, 2, -3, 4}, y[4];
  TfnTensor tin = k::MakeTensor(x, DType::kFloat32, {4});
  TfnTensor tout = k::MakeTensor(y, DType::kFloat32, {4});
  TfnKernelContext ctx{};
  ctx.num_threads = 1;
  for (auto _ : state) {
    benchmark::DoNotOptimize(plan.fn(plan.params, &tin, 1, &tout, 1, &ctx));
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_KernelOnly);

void BM_EagerOp(benchmark::State& state) {
  const Tensor x = Input(4, 1);
  for (auto _ : state) {
    Tensor y = tfn::relu(x);
    benchmark::DoNotOptimize(y);
  }
}
BENCHMARK(BM_EagerOp);

void BM_FunctionHit(benchmark::State& state) {
  const Tensor x = Input(4, 1);
  auto f = tfn::function([](Tensor t) { return tfn::relu(t); });
  f(x);  // traces: every timed call is a cache hit
  for (auto _ : state) {
    Tensor y = f(x);
    benchmark::DoNotOptimize(y);
  }
  if (f.tracing_count() != 1) state.SkipWithError("the function retraced");
}
BENCHMARK(BM_FunctionHit);

void BM_ConcreteCall(benchmark::State& state) {
  const Tensor x = Input(4, 1);
  auto f = tfn::function([](Tensor t) { return tfn::relu(t); });
  tfn::ConcreteFunction cf = f.get_concrete_function(TensorSpec({4}, DType::kFloat32));
  const std::vector<Tensor> inputs = {x};
  for (auto _ : state) {
    std::vector<Tensor> y = cf(inputs);
    benchmark::DoNotOptimize(y);
  }
}
BENCHMARK(BM_ConcreteCall);

// --- 2. Tracing cost ---------------------------------------------------------

// range(0) = ops, range(1) = 1 to run the optimization pipeline.
void BM_Trace(benchmark::State& state) {
  const int ops = static_cast<int>(state.range(0));
  tfn::FunctionOptions options;
  options.name = "chain";
  options.optimize = state.range(1) != 0;
  const TensorSpec spec({16}, DType::kFloat32);
  for (auto _ : state) {
    // A new Function each time, so that each iteration traces (and the
    // timing includes making the Function, which is small next to a trace).
    auto f = tfn::function([ops](Tensor x, Tensor y) { return Chain(x, y, ops); }, options);
    tfn::ConcreteFunction cf = f.get_concrete_function(spec, spec);
    benchmark::DoNotOptimize(cf);
  }
  state.counters["ops"] = ops;
  state.SetLabel(options.optimize ? "trace + optimize" : "trace only");
}
BENCHMARK(BM_Trace)->ArgsProduct({{10, 100, 1000}, {0, 1}})->Unit(benchmark::kMicrosecond);

// --- 3. Replay vs eager ------------------------------------------------------

void BM_Chain50Eager(benchmark::State& state) {
  const Tensor x = Input(state.range(0), 1), y = Input(state.range(0), 2);
  for (auto _ : state) {
    Tensor z = Chain(x, y, kChainOps);
    benchmark::DoNotOptimize(z);
  }
}
BENCHMARK(BM_Chain50Eager)->Arg(16)->Arg(1024)->Unit(benchmark::kMicrosecond);

void BM_Chain50Graph(benchmark::State& state) {
  const Tensor x = Input(state.range(0), 1), y = Input(state.range(0), 2);
  auto f = tfn::function([](Tensor a, Tensor b) { return Chain(a, b, kChainOps); });
  f(x, y);  // traces once
  for (auto _ : state) {
    Tensor z = f(x, y);
    benchmark::DoNotOptimize(z);
  }
  if (f.tracing_count() != 1) state.SkipWithError("the function retraced");
}
BENCHMARK(BM_Chain50Graph)->Arg(16)->Arg(1024)->Unit(benchmark::kMicrosecond);

}  // namespace

int main(int argc, char** argv) {
  // BM_Trace makes a Function per iteration on purpose; silence the warning
  // about Functions created in a loop (it would print once per repetition).
  tfn::SetLogger([](tfn::LogLevel, const std::string&) {});
  using tfn::bench::Line;
  std::vector<Line> lines = {
      {Line::kDifference, "cache-hit call overhead beyond the eager op", "BM_FunctionHit", "BM_EagerOp", 1,
       "target < 1 us"},
      {Line::kRatio, "cache-hit call / eager op", "BM_FunctionHit", "BM_EagerOp"},
      {Line::kDifference, "cache-hit call overhead beyond the kernel alone", "BM_FunctionHit", "BM_KernelOnly"},
      {Line::kDifference, "  cache key and lookup (hit - ConcreteFunction call)", "BM_FunctionHit",
       "BM_ConcreteCall"},
      {Line::kDifference, "  graph run (ConcreteFunction call - kernel alone)", "BM_ConcreteCall",
       "BM_KernelOnly"},
      {Line::kDifference, "eager op beyond the kernel alone", "BM_EagerOp", "BM_KernelOnly"},
  };
  for (int ops : {10, 100, 1000}) {
    for (int opt : {0, 1}) {
      std::string name = "BM_Trace/" + std::to_string(ops) + "/" + std::to_string(opt);
      lines.push_back({Line::kPer,
                       std::string("tracing per op, ") + (opt ? "with" : "without") + " optimization, " +
                           std::to_string(ops) + " ops",
                       name, "", static_cast<double>(ops)});
    }
  }
  for (int n : {16, 1024}) {
    const std::string arg = "/" + std::to_string(n);
    lines.push_back({Line::kRatio, "50-op chain f32[" + std::to_string(n) + "]: eager / graph replay",
                     "BM_Chain50Eager" + arg, "BM_Chain50Graph" + arg, 1, "TensorFlow: ~3-5x"});
  }
  return tfn::bench::RunWithRatios(argc, argv, lines);
}
