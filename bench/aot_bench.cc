// AOT benchmark (issue 5, "Acceptance"): code compiled ahead of time by
// tfn-aot, linked into this program, against the runtime's interpreter
// running the same bundles, in the same process.
//
//  1. The example models (examples/models: mlp, cnn, transformer), exported
//     by tfn-export and compiled by tfn_aot_library at build time (see
//     bench/CMakeLists.txt), at batch 1 and 64 (the transformer's batch is
//     its sequence length), on 1 and 2 threads. Both sides run the same
//     bundle with its dynamic batch dim, so neither is specialized for the
//     batch. The AOT side calls the object's TfnAotSignature (the ABI of
//     schema/aot_abi.h) with buffers and scratch allocated once, as an app
//     does; the interpreter side is Session::Run, which also allocates its
//     outputs. Ratio: interpreter time / AOT time per model and batch.
//  2. The elementwise chain tanh(x*1.5+0.5)*sigmoid(x) - x/3 on 16M floats
//     (64 MiB), traced by aot_bench_bundle.cc and compiled by tfn-aot, which
//     should fuse it into one loop that reads x once and writes the result
//     once, against memcpy of the same 64 MiB (the same bytes read and
//     written). Target: within 1.5x of memcpy, like for like: 1 thread
//     against a 1-thread memcpy, and 2 threads against a 2-thread memcpy
//     (which, unlike one core's copy, reaches the machine's memory
//     bandwidth). Also at 64K floats (256 KiB, in L2), where the chain's
//     arithmetic rather than memory bounds it, and through the interpreter
//     for comparison.
//  3. One AOT call of a tiny signature (y = x + 1 on f32[4]): the fixed cost
//     of entering compiled code (dims checks, scratch layout). Target: under
//     100 ns. The interpreter's call of the same signature is the ratio's
//     baseline.
//
// Results and the command: bench/RESULTS.md, "AOT".
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "bench/bench_ratio.h"
#include "bench/example_models.h"
#include "bench/spin_pool.h"
#include "runtime/runtime.h"
#include "schema/aot_abi.h"
#include "tfn/aot_thread_pool.h"

// The linked objects' signatures (tfn-aot names them NAME_SIGNATURE_signature;
// NAME is the tfn_aot_library name). Declared here from the ABI header rather
// than taken from the generated headers: this is how the runtime or any
// program that does not know the signature's types at compile time uses them.
extern "C" {
extern const TfnAotSignature bench_aot_mlp_serving_default_signature;
extern const TfnAotSignature bench_aot_cnn_serving_default_signature;
extern const TfnAotSignature bench_aot_transformer_serving_default_signature;
extern const TfnAotSignature bench_aot_kernels_chain_signature;
extern const TfnAotSignature bench_aot_kernels_fast_chain_signature;
extern const TfnAotSignature bench_aot_kernels_add_one_signature;
}

namespace {

namespace runtime = tfn::runtime;
using tfn::DType;

constexpr int64_t kBig = int64_t{1} << 24;    // 16M floats = 64 MiB
constexpr int64_t kSmall = int64_t{1} << 16;  // 64K floats = 256 KiB

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "aot_bench: %s\n", what.c_str());
  std::exit(1);
}

std::string BundlePath(const std::string& file) {
  return std::string(TFN_BENCH_BUNDLE_DIR) + "/" + file;
}

// A 64-byte aligned block, filled with values in [-1, 1) so every page is
// touched before timing starts.
struct Buffer {
  explicit Buffer(int64_t bytes) {
    size_t n = static_cast<size_t>((bytes + 63) / 64 * 64 + 64);
    p = static_cast<char*>(std::aligned_alloc(64, n));
    float* f = reinterpret_cast<float*>(p);
    uint32_t s = 12345;
    for (size_t i = 0; i < n / 4; ++i) {
      s = s * 1664525u + 1013904223u;
      f[i] = static_cast<float>(s >> 8) / static_cast<float>(1 << 24) * 2.0f - 1.0f;
    }
  }
  ~Buffer() { std::free(p); }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  char* p = nullptr;
};

int64_t ElementBytes(int32_t dtype) {
  switch (static_cast<DType>(dtype)) {
    case DType::kBool:
      return 1;
    case DType::kInt32:
    case DType::kFloat32:
      return 4;
    default:
      return 8;
  }
}

// Everything one AOT call needs for given input shapes, allocated once: the
// dims argument (from the signature's descriptions of its inputs), the
// input, output and scratch buffers, and a thread pool for 2 threads.
class AotCall {
 public:
  AotCall(const TfnAotSignature& sig, const std::vector<tfn::Shape>& input_shapes, int threads)
      : sig_(sig) {
    dims_.assign(static_cast<size_t>(sig.num_dims), 0);
    for (int i = 0; i < sig.num_inputs; ++i) {
      const TfnAotTensorDesc& d = sig.inputs[i];
      for (int k = 0; k < d.rank; ++k) {
        if (d.dim_index[k] >= 0) dims_[static_cast<size_t>(d.dim_index[k])] = input_shapes[i][k];
      }
      inputs_.push_back(
          std::make_unique<Buffer>(tfn::NumElements(input_shapes[i]) * ElementBytes(d.dtype)));
      in_.push_back(inputs_.back()->p);
    }
    for (int i = 0; i < sig.num_outputs; ++i) {
      int64_t out_dims[TFN_AOT_MAX_RANK];
      if (sig.output_shape(dims_.data(), i, out_dims) != TFN_AOT_OK) {
        Die(std::string(sig.name) + ": output_shape failed");
      }
      int64_t n = 1;
      for (int k = 0; k < sig.outputs[i].rank; ++k) n *= out_dims[k];
      outputs_.push_back(std::make_unique<Buffer>(n * ElementBytes(sig.outputs[i].dtype)));
      out_.push_back(outputs_.back()->p);
    }
    const int64_t scratch = sig.scratch_bytes(dims_.data());
    if (scratch < 0) Die(std::string(sig.name) + ": scratch_bytes rejects the dims");
    scratch_ = std::make_unique<Buffer>(scratch);
    if (threads > 1) {
      if (sig.abi_version < 2) Die(std::string(sig.name) + ": the object predates threads (ABI 1)");
      pool_ = tfn_aot_thread_pool_create(threads);
    }
    options_ = tfn_aot_thread_pool_run_options(pool_);
    // One untimed call: the timed ones then find code, weights and buffers
    // warm, as in an app that serves many requests.
    if (Run() != TFN_AOT_OK) Die(std::string(sig.name) + ": the AOT call failed");
  }
  ~AotCall() { tfn_aot_thread_pool_destroy(pool_); }

  // Runs once; returns the ABI status.
  int32_t Run() {
    if (pool_)
      return sig_.run_with_options(in_.data(), dims_.data(), out_.data(), scratch_->p, &options_);
    return sig_.run(in_.data(), dims_.data(), out_.data(), scratch_->p);
  }
  const void* input(int i) const { return in_[static_cast<size_t>(i)]; }
  void* output(int i) const { return out_[static_cast<size_t>(i)]; }

 private:
  const TfnAotSignature& sig_;
  std::vector<int64_t> dims_;
  std::vector<std::unique_ptr<Buffer>> inputs_, outputs_;
  std::vector<const void*> in_;
  std::vector<void*> out_;
  std::unique_ptr<Buffer> scratch_;
  TfnAotThreadPool* pool_ = nullptr;
  TfnAotRunOptions options_;
};

// An interpreter session for a bundle file, and inputs of the given shapes.
class InterpreterCall {
 public:
  InterpreterCall(const std::string& file, const std::string& signature,
                  const std::vector<tfn::Shape>& shapes, int threads)
      : signature_(signature) {
    auto bundle = runtime::Bundle::Load(BundlePath(file));
    if (!bundle.ok()) Die(BundlePath(file) + ": " + bundle.status().message());
    runtime::SessionOptions options;
    options.num_threads = threads;
    session_ = std::make_unique<runtime::Session>(*bundle, options);
    for (const tfn::Shape& s : shapes) {
      buffers_.push_back(std::make_unique<Buffer>(tfn::NumElements(s) * 4));
      inputs_.push_back(runtime::View(DType::kFloat32, s, buffers_.back()->p));
    }
    // One untimed call, as for AotCall: the first run of a session plans and
    // allocates its arena, and touching 64 MiB buffers for the first time
    // costs more than the chain itself.
    Run();
  }
  const void* Run() {
    auto out = session_->Run(signature_, inputs_);
    if (!out.ok()) Die(signature_ + ": " + out.status().message());
    return (*out)[0].data;
  }

 private:
  std::string signature_;
  std::unique_ptr<runtime::Session> session_;
  std::vector<std::unique_ptr<Buffer>> buffers_;
  std::vector<runtime::Tensor> inputs_;
};

// --- 1. The example models ------------------------------------------------------

struct Model {
  const char* name;
  const TfnAotSignature* aot;
};
const Model kModels[] = {
    {"mlp", &bench_aot_mlp_serving_default_signature},
    {"cnn", &bench_aot_cnn_serving_default_signature},
    {"transformer", &bench_aot_transformer_serving_default_signature},
};

using tfn::bench::ExampleModelInputShape;

// Registered from main, interleaved per model, batch and threads, so that
// the two sides of each ratio run seconds apart (the machine's load changes
// from minute to minute). Names: BM_ModelAot/MODEL/BATCH/THREADS.
void ModelAot(benchmark::State& state, int m, int64_t batch, int threads) {
  AotCall call(*kModels[m].aot, {ExampleModelInputShape(m, batch)}, threads);
  for (auto _ : state) {
    if (call.Run() != TFN_AOT_OK) Die(std::string(kModels[m].name) + ": the AOT call failed");
    benchmark::DoNotOptimize(call.output(0));
  }
  state.SetLabel(kModels[m].name);
}

void ModelInterpreter(benchmark::State& state, int m, int64_t batch, int threads) {
  InterpreterCall call(std::string(kModels[m].name) + ".tfn", "serving_default",
                       {ExampleModelInputShape(m, batch)}, threads);
  for (auto _ : state) benchmark::DoNotOptimize(call.Run());
  state.SetLabel(kModels[m].name);
}

// --- 2. The elementwise chain ---------------------------------------------------

void SetChainBytes(benchmark::State& state, int64_t n) {
  state.SetBytesProcessed(state.iterations() * n * 8);  // 4 read + 4 written per element
}

// range(0) = elements.
void BM_Memcpy(benchmark::State& state) {
  const int64_t n = state.range(0);
  Buffer src(n * 4), dst(n * 4);
  for (auto _ : state) {
    std::memcpy(dst.p, src.p, static_cast<size_t>(n) * 4);
    benchmark::ClobberMemory();
  }
  SetChainBytes(state, n);
}
BENCHMARK(BM_Memcpy)->Arg(kBig)->Arg(kSmall)->Unit(benchmark::kMicrosecond)->UseRealTime();

// The same copy on two threads, each copying one half (the bench's spinning
// pool, bench/spin_pool.h): the baseline of the 2-thread chain, which has
// both cores' memory bandwidth too.
struct CopyJob {
  char* dst;
  const char* src;
};
void CopyRange(void* arg, int64_t begin, int64_t end) {
  auto* job = static_cast<CopyJob*>(arg);
  std::memcpy(job->dst + begin, job->src + begin, static_cast<size_t>(end - begin));
}
void BM_Memcpy2Threads(benchmark::State& state) {
  const int64_t n = state.range(0);
  Buffer src(n * 4), dst(n * 4);
  static tfn::bench::SpinPool pool;
  CopyJob job{dst.p, src.p};
  for (auto _ : state) {
    tfn::bench::SpinPool::ParallelFor(&pool, n * 4, 1, CopyRange, &job);
    benchmark::ClobberMemory();
  }
  SetChainBytes(state, n);
}
BENCHMARK(BM_Memcpy2Threads)->Arg(kBig)->Unit(benchmark::kMicrosecond)->UseRealTime();

// One object's chain signature; range(0) = elements, range(1) = threads.
void ChainAot(benchmark::State& state, const TfnAotSignature& sig, const char* what) {
  const int64_t n = state.range(0);
  AotCall call(sig, {{n}}, static_cast<int>(state.range(1)));
  for (auto _ : state) {
    if (call.Run() != TFN_AOT_OK) Die("chain: the AOT call failed");
    benchmark::ClobberMemory();
  }
  SetChainBytes(state, n);
  // The compiled chain must compute the chain (a fast wrong loop proves nothing).
  const float* x = static_cast<const float*>(call.input(0));
  const float* y = static_cast<const float*>(call.output(0));
  for (int64_t i = 0; i < n; i += 997) {
    const double want = std::tanh(x[i] * 1.5 + 0.5) / (1 + std::exp(-x[i])) - x[i] / 3.0;
    if (std::fabs(y[i] - want) > 1e-5 * (1 + std::fabs(want))) {
      state.SkipWithError((std::string("the ") + what + " computes wrong values").c_str());
      break;
    }
  }
}

void BM_ChainAot(benchmark::State& state) {
  ChainAot(state, bench_aot_kernels_chain_signature, "AOT chain");
}
BENCHMARK(BM_ChainAot)
    ->Args({kBig, 1})
    ->Args({kBig, 2})
    ->Args({kSmall, 1})
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

// The same chain compiled with tfn-aot --fast-math (bench_aot_kernels_fast).
void BM_ChainAotFastMath(benchmark::State& state) {
  ChainAot(state, bench_aot_kernels_fast_chain_signature, "fast-math AOT chain");
}
BENCHMARK(BM_ChainAotFastMath)
    ->Args({kBig, 1})
    ->Args({kBig, 2})
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

void BM_ChainInterpreter(benchmark::State& state) {
  const int64_t n = state.range(0);
  InterpreterCall call("aot_kernels.tfn", "chain", {{n}}, static_cast<int>(state.range(1)));
  for (auto _ : state) benchmark::DoNotOptimize(call.Run());
  SetChainBytes(state, n);
}
BENCHMARK(BM_ChainInterpreter)
    ->Args({kBig, 1})
    ->Args({kSmall, 1})
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

// --- 3. A tiny call -------------------------------------------------------------

void BM_TinyAot(benchmark::State& state) {
  AotCall call(bench_aot_kernels_add_one_signature, {{4}}, 1);
  for (auto _ : state) {
    benchmark::DoNotOptimize(call.Run());
    benchmark::ClobberMemory();
  }
  const float* x = static_cast<const float*>(call.input(0));
  const float* y = static_cast<const float*>(call.output(0));
  for (int i = 0; i < 4; ++i) {
    if (y[i] != x[i] + 1.0f) state.SkipWithError("add_one computes wrong values");
  }
}
BENCHMARK(BM_TinyAot);

void BM_TinyInterpreter(benchmark::State& state) {
  InterpreterCall call("aot_kernels.tfn", "add_one", {{4}}, 1);
  for (auto _ : state) benchmark::DoNotOptimize(call.Run());
}
BENCHMARK(BM_TinyInterpreter);

}  // namespace

int main(int argc, char** argv) {
  using tfn::bench::Line;
  std::vector<Line> lines;
  for (int m = 0; m < 3; ++m) {
    for (int batch : {1, 64}) {
      for (int threads : {1, 2}) {
        const std::string args =
            "/" + std::to_string(m) + "/" + std::to_string(batch) + "/" + std::to_string(threads);
        benchmark::RegisterBenchmark(("BM_ModelAot" + args).c_str(), &ModelAot, m, batch, threads)
            ->Unit(benchmark::kMicrosecond)
            ->UseRealTime();
        benchmark::RegisterBenchmark(("BM_ModelInterpreter" + args).c_str(), &ModelInterpreter, m,
                                     batch, threads)
            ->Unit(benchmark::kMicrosecond)
            ->UseRealTime();
        lines.push_back({Line::kRatio,
                         std::string(kModels[m].name) + " batch " + std::to_string(batch) + ", " +
                             std::to_string(threads) + " thread" + (threads > 1 ? "s" : "") +
                             ": interpreter / AOT",
                         "BM_ModelInterpreter" + args, "BM_ModelAot" + args});
      }
    }
  }
  const std::string big = "/" + std::to_string(kBig), small = "/" + std::to_string(kSmall);
  lines.push_back({Line::kRatio, "chain 16M floats, AOT 1 thread / memcpy",
                   "BM_ChainAot" + big + "/1", "BM_Memcpy" + big, 1,
                   "target <= 1.5x, one core"});
  lines.push_back({Line::kRatio, "chain 16M floats, AOT 2 threads / memcpy",
                   "BM_ChainAot" + big + "/2", "BM_Memcpy" + big});
  lines.push_back({Line::kRatio, "chain 16M floats, AOT 2 threads / memcpy 2 threads",
                   "BM_ChainAot" + big + "/2", "BM_Memcpy2Threads" + big, 1,
                   "target <= 1.5x, the machine's bandwidth"});
  lines.push_back({Line::kRatio, "chain 16M floats, AOT --fast-math 1 thread / memcpy",
                   "BM_ChainAotFastMath" + big + "/1", "BM_Memcpy" + big});
  lines.push_back({Line::kRatio, "chain 16M floats, AOT --fast-math 2 thr. / memcpy 2 thr.",
                   "BM_ChainAotFastMath" + big + "/2", "BM_Memcpy2Threads" + big});
  lines.push_back({Line::kRatio, "chain 16M floats, interpreter 1 thread / memcpy",
                   "BM_ChainInterpreter" + big + "/1", "BM_Memcpy" + big});
  lines.push_back({Line::kRatio, "chain 16M floats, interpreter / AOT (1 thread)",
                   "BM_ChainInterpreter" + big + "/1", "BM_ChainAot" + big + "/1"});
  lines.push_back({Line::kRatio, "chain 64K floats (L2), AOT 1 thread / memcpy",
                   "BM_ChainAot" + small + "/1", "BM_Memcpy" + small});
  lines.push_back(
      {Line::kPer, "tiny call (x + 1 on f32[4]), AOT", "BM_TinyAot", "", 1, "target < 100 ns"});
  lines.push_back(
      {Line::kRatio, "tiny call, interpreter / AOT", "BM_TinyInterpreter", "BM_TinyAot"});
  return tfn::bench::RunWithRatios(argc, argv, lines);
}
