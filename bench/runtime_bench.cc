// Runtime benchmark (issue 4, "Benchmarks"): the loader as a deployed app
// uses it.
//
//  1. Load time of a bundle with 100 MB of weights (one f32[5000,5000]
//     Variable, N(0, 0.02) like trained weights, so zstd gains about what it
//     gains on real models), saved by tfn::save into a temporary directory
//     when the benchmark starts:
//       - raw, memory-mapped (LoadOptions::use_mmap, the default): weights are
//         used in place, so the load itself touches almost none of them;
//       - raw, read into memory (use_mmap = false): one copy of the file;
//       - raw, mapped, with verify_checksums: every weight byte hashed;
//       - zstd-compressed (SaveOptions::compress, level 3): every segment
//         decompressed (and so checked) at load.
//     The baseline is read(2) of the same file into a buffer that is already
//     allocated and touched: the cost of moving 100 MB out of the page
//     cache, the least any load that touches the weights can cost. Because
//     a mapped load defers all work on the weights, "load + first run"
//     (load, make a Session, run a matmul x[1,5000] @ W, which reads every
//     weight once) is measured as well: what an app waits for before its
//     first answer.
//     The file stays in the page cache throughout (it was just written): the
//     figures are for a warm cache, not a cold disk.
//  2. Interpreter latency of the example models (examples/models, taken from
//     the model registry as tfn-export takes them, with their default
//     dynamic specs and saved with tfn::save): mlp and cnn at batch 1 and
//     64, the transformer at sequence length 1 and 64 (its batch), on 1 and
//     2 threads (SessionOptions::num_threads). GFLOPS counts the model's
//     multiply-adds x 2 (matmuls and convolutions only).
//  3. A trivial signature (y = x + 1 on f32[4]) through Session::Run, a
//     Method::Run with its output bound, and the C API (by name, and a
//     method handle with its output bound): the runtime's fixed cost per
//     call. Target: under 1 us.
//
// Ratios are printed after the run (bench_ratio.h). Results and the
// command: bench/RESULTS.md, "Runtime".
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "bench/bench_ratio.h"
#include "bench/example_models.h"
#include "exporter/model_registry.h"
#include "runtime/runtime.h"
#include "runtime/tfn_runtime.h"
#include "tfn/tfn.h"

namespace {

namespace runtime = tfn::runtime;
using tfn::DType;
using tfn::Tensor;
using tfn::TensorSpec;

constexpr int64_t kBigDim = 5000;  // 5000 x 5000 f32 = 100,000,000 bytes

// The temporary directory of the bundles, once made; removed at exit (also
// on failure: it holds over 200 MB).
std::string g_tmp_dir;

void RemoveTmpDir() {
  std::error_code ignored;
  if (!g_tmp_dir.empty()) std::filesystem::remove_all(g_tmp_dir, ignored);
}

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "runtime_bench: %s\n", what.c_str());
  RemoveTmpDir();
  std::exit(1);
}

// The bundles, made once per process in a temporary directory that main
// removes at exit.
struct Files {
  std::string dir;
  std::string big_raw, big_zstd, tiny;
  std::map<std::string, std::string> models;  // "mlp" -> path
};

// Traces and saves the bundles (tfn::save throws tfn::Error on failure).
void MakeFiles(Files* f) {
  // 100 MB of weights behind one matmul.
  tfn::Variable w(tfn::random_normal({kBigDim, kBigDim}, /*seed=*/7, 0, 0.02), "big/w");
  auto big = tfn::function([w](Tensor x) { return tfn::matmul(x, w); });
  std::map<std::string, tfn::ConcreteFunction> sig = {
      {"serving_default", big.get_concrete_function(TensorSpec({1, kBigDim}, DType::kFloat32))}};
  f->big_raw = f->dir + "/big_raw.tfn";
  f->big_zstd = f->dir + "/big_zstd.tfn";
  tfn::save(f->big_raw, sig);
  tfn::SaveOptions zstd;
  zstd.compress = true;  // level 3, tfn::save's and tfn-export's default
  tfn::save(f->big_zstd, sig, zstd);

  // y = x + 1 on f32[4].
  auto tiny = tfn::function([](Tensor x) { return x + 1.0f; });
  f->tiny = f->dir + "/tiny.tfn";
  tfn::save(f->tiny,
            {{"serving_default", tiny.get_concrete_function(TensorSpec({4}, DType::kFloat32))}});

  // The example models, exactly as `tfn-export NAME` makes them.
  for (const char* name : tfn::bench::kExampleModels) {
    const tfn::RegisteredModel* m = tfn::FindModel(name);
    if (!m) Die(std::string("model '") + name + "' is not registered (link tfn_example_models)");
    std::string path = f->dir + "/" + name + ".tfn";
    tfn::save(path, m->factory(tfn::ExportRequest{}));
    f->models[name] = path;
  }
}

Files& GetFiles() {
  static Files* files = [] {
    auto* f = new Files;
    const char* tmp = std::getenv("TMPDIR");
    // mkdtemp(3) replaces the trailing XXXXXX with a unique name.
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/tfn_runtime_bench_XXXXXX";
    if (!mkdtemp(pattern.data())) Die("cannot make a temporary directory from " + pattern);
    f->dir = pattern;
    g_tmp_dir = f->dir;
    try {
      MakeFiles(f);
    } catch (const std::exception& e) {
      Die(std::string("making the bundles: ") + e.what());
    }
    return f;
  }();
  return *files;
}

std::shared_ptr<const runtime::Bundle> LoadOrDie(const std::string& path,
                                            const runtime::LoadOptions& options = {}) {
  auto bundle = runtime::Bundle::Load(path, options);
  if (!bundle.ok()) Die(path + ": " + bundle.status().message());
  return *bundle;
}

// Deterministic inputs in [-1, 1), owned by the caller.
std::vector<float> Floats(int64_t n) {
  std::vector<float> v(static_cast<size_t>(n));
  uint32_t s = 12345;
  for (float& x : v) {
    s = s * 1664525u + 1013904223u;
    x = static_cast<float>(s >> 8) / static_cast<float>(1 << 24) * 2.0f - 1.0f;
  }
  return v;
}

// --- 1. Load time --------------------------------------------------------------

// The baseline: the file's bytes read into a buffer allocated and touched
// beforehand.
void BM_ReadFile(benchmark::State& state) {
  const std::string& path = GetFiles().big_raw;
  const int64_t size = static_cast<int64_t>(std::filesystem::file_size(path));
  std::vector<char> buffer(static_cast<size_t>(size), 1);
  for (auto _ : state) {
    int fd = open(path.c_str(), O_RDONLY);
    int64_t got = 0;
    while (got < size) {
      ssize_t n = read(fd, buffer.data() + got, static_cast<size_t>(size - got));
      if (n <= 0) break;
      got += n;
    }
    close(fd);
    if (got != size) state.SkipWithError("short read");
    benchmark::DoNotOptimize(buffer.data());
  }
  state.SetBytesProcessed(state.iterations() * size);
}
BENCHMARK(BM_ReadFile)->Unit(benchmark::kMillisecond)->UseRealTime();

enum LoadKind { kMapped = 0, kRead = 1, kMappedVerified = 2, kZstd = 3 };

// range(0) = LoadKind. Each iteration loads the bundle and frees it again.
void BM_Load(benchmark::State& state) {
  const Files& f = GetFiles();
  const auto kind = static_cast<LoadKind>(state.range(0));
  const std::string& path = kind == kZstd ? f.big_zstd : f.big_raw;
  runtime::LoadOptions options;
  options.use_mmap = kind != kRead;
  options.verify_checksums = kind == kMappedVerified;
  int64_t weights = 0;
  for (auto _ : state) {
    std::shared_ptr<const runtime::Bundle> b = LoadOrDie(path, options);
    weights = b->weight_bytes();
    benchmark::DoNotOptimize(b.get());
  }
  static const char* kLabels[] = {"raw, mapped", "raw, read into memory", "raw, mapped, checksums",
                                  "zstd"};
  state.SetLabel(std::string(kLabels[kind]) + ", file " +
                 std::to_string(std::filesystem::file_size(path) / 1000000) + " MB, weights " +
                 std::to_string(weights / 1000000) + " MB");
  state.SetBytesProcessed(state.iterations() * weights);
}
BENCHMARK(BM_Load)->DenseRange(kMapped, kZstd)->Unit(benchmark::kMillisecond)->UseRealTime();

// range(0) = LoadKind: load, make a session, run once (every weight read).
void BM_LoadAndRun(benchmark::State& state) {
  const Files& f = GetFiles();
  const auto kind = static_cast<LoadKind>(state.range(0));
  runtime::LoadOptions options;
  options.use_mmap = kind != kRead;
  const std::vector<float> x = Floats(kBigDim);
  const runtime::Tensor input = runtime::View(DType::kFloat32, {1, kBigDim}, x.data());
  runtime::SessionOptions so;
  so.num_threads = 1;
  for (auto _ : state) {
    runtime::Session session(LoadOrDie(kind == kZstd ? f.big_zstd : f.big_raw, options), so);
    auto out = session.Run("serving_default", std::vector<runtime::Tensor>{input});
    if (!out.ok()) Die(out.status().message());
    benchmark::DoNotOptimize(out->data());
  }
  state.SetLabel(kind == kZstd ? "zstd" : kind == kRead ? "raw, read into memory" : "raw, mapped");
}
BENCHMARK(BM_LoadAndRun)
    ->Arg(kMapped)
    ->Arg(kRead)
    ->Arg(kZstd)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// The run alone on a loaded (and already run once) bundle. BM_LoadAndRun
// minus this is the cost of getting to the first answer: the load, the
// Session (which copies each Variable's initial value into state it owns)
// and first-touch costs.
void BM_BigRun(benchmark::State& state) {
  runtime::SessionOptions so;
  so.num_threads = 1;
  runtime::Session session(LoadOrDie(GetFiles().big_raw), so);
  const std::vector<float> x = Floats(kBigDim);
  const std::vector<runtime::Tensor> inputs = {runtime::View(DType::kFloat32, {1, kBigDim}, x.data())};
  if (!session.Run("serving_default", inputs).ok())
    Die("the first run failed");  // untimed: warms up
  for (auto _ : state) {
    auto out = session.Run("serving_default", inputs);
    if (!out.ok()) Die(out.status().message());
    benchmark::DoNotOptimize(out->data());
  }
}
BENCHMARK(BM_BigRun)->Unit(benchmark::kMillisecond)->UseRealTime();

// --- 2. Interpreter latency ----------------------------------------------------

const auto& kModels = tfn::bench::kExampleModels;
using tfn::bench::ExampleModelInputShape;
double ModelFlops(int model, int64_t batch) {
  const double b = static_cast<double>(batch);
  switch (model) {
    case 0:
      return 2.0 * b * (784 * 512 + 512 * 512 + 512 * 10);
    case 1:
      return 2.0 * b * (28 * 28 * 16 * 9 * 1 + 14 * 14 * 32 * 9 * 16 + 7 * 7 * 32 * 10);
    default:  // 4 projections 256x256, FFN 256x1024x256, attention 2 x 4 heads x S x S x 64
      return 2.0 * b * (4 * 256 * 256 + 2 * 256 * 1024) + 2.0 * 2 * 4 * 64 * b * b;
  }
}

// range(0) = model, range(1) = batch, range(2) = threads.
void BM_Interpreter(benchmark::State& state) {
  const int model = static_cast<int>(state.range(0));
  const int64_t batch = state.range(1);
  runtime::SessionOptions so;
  so.num_threads = static_cast<int>(state.range(2));
  runtime::Session session(LoadOrDie(GetFiles().models.at(kModels[model])), so);
  const tfn::Shape shape = ExampleModelInputShape(model, batch);
  const std::vector<float> x = Floats(tfn::NumElements(shape));
  const std::vector<runtime::Tensor> inputs = {runtime::View(DType::kFloat32, shape, x.data())};
  if (!session.Run("serving_default", inputs).ok())
    Die("the first run failed");  // untimed: warms up
  for (auto _ : state) {
    auto out = session.Run("serving_default", inputs);
    if (!out.ok()) Die(out.status().message());
    benchmark::DoNotOptimize(out->data());
  }
  state.SetLabel(kModels[model]);
  state.counters["GFLOPS"] = benchmark::Counter(ModelFlops(model, batch) * 1e-9,
                                                benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_Interpreter)
    ->ArgsProduct({{0, 1, 2}, {1, 64}, {1, 2}})
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

// --- 3. A trivial signature ----------------------------------------------------

void BM_TrivialRun(benchmark::State& state) {
  runtime::SessionOptions so;
  so.num_threads = 1;
  runtime::Session session(LoadOrDie(GetFiles().tiny), so);
  const float x[4] = {1, 2, 3, 4};
  const std::vector<runtime::Tensor> inputs = {runtime::View(DType::kFloat32, {4}, x)};
  if (!session.Run("serving_default", inputs).ok())
    Die("the first run failed");  // untimed: warms up
  for (auto _ : state) {
    auto out = session.Run("serving_default", inputs);
    if (!out.ok()) Die(out.status().message());
    benchmark::DoNotOptimize(out->data());
  }
}
BENCHMARK(BM_TrivialRun);

// The same call through a Method resolved once, with its output bound to
// caller memory: no lookup by name, no allocation.
void BM_TrivialMethodBound(benchmark::State& state) {
  runtime::SessionOptions so;
  so.num_threads = 1;
  runtime::Session session(LoadOrDie(GetFiles().tiny), so);
  auto method = session.method("serving_default");
  if (!method.ok()) Die(method.status().message());
  const float x[4] = {1, 2, 3, 4};
  float y[4];
  const std::vector<runtime::Tensor> inputs = {runtime::View(DType::kFloat32, {4}, x)};
  std::vector<runtime::Tensor> outputs = {runtime::OutputView(DType::kFloat32, {4}, y)};
  const runtime::RunOptions options;
  if (!method->Run(inputs, &outputs, options).ok()) Die("the first run failed");  // warms up
  for (auto _ : state) {
    tfn::Status s = method->Run(inputs, &outputs, options);
    if (!s.ok()) Die(s.message());
    benchmark::DoNotOptimize(y);
  }
}
BENCHMARK(BM_TrivialMethodBound);

// The tiny bundle through the C API on a 1-thread session, and its input
// (x = [1, 2, 3, 4]).
struct TinyCSession {
  TfnRtBundle* bundle = nullptr;
  TfnRtSession* session = nullptr;
  float x[4] = {1, 2, 3, 4};
  TfnRtTensor input = {};
  char error[256] = "";

  TinyCSession() {
    if (tfn_rt_bundle_load(GetFiles().tiny.c_str(), &bundle, error, sizeof error) != TFN_RT_OK)
      Die(error);
    TfnRtSessionOptions options = tfn_rt_session_options_default();
    options.num_threads = 1;
    if (tfn_rt_session_create_with_options(bundle, &options, &session, error, sizeof error) !=
        TFN_RT_OK) {
      Die(error);
    }
    input.dtype = TFN_RT_FLOAT32;
    input.rank = 1;
    input.dims[0] = 4;
    input.data = x;
  }
  ~TinyCSession() {
    tfn_rt_session_free(session);
    tfn_rt_bundle_free(bundle);
  }
};

void BM_TrivialRunCApi(benchmark::State& state) {
  TinyCSession c;
  for (int warm = 0; warm < 2; ++warm) {  // the first timed call finds a warm session
    TfnRtOutputs* outputs = nullptr;
    if (tfn_rt_session_run(c.session, "serving_default", &c.input, 1, &outputs, c.error,
                           sizeof c.error))
      Die(c.error);
    tfn_rt_outputs_free(outputs);
  }
  for (auto _ : state) {
    TfnRtOutputs* outputs = nullptr;
    if (tfn_rt_session_run(c.session, "serving_default", &c.input, 1, &outputs, c.error,
                           sizeof c.error))
      Die(c.error);
    benchmark::DoNotOptimize(tfn_rt_outputs_get(outputs, 0)->data);
    tfn_rt_outputs_free(outputs);
  }
}
BENCHMARK(BM_TrivialRunCApi);

// The same call through a C method handle with its output bound to caller
// memory (tfn_rt_method_run_into): no lookup by name, no allocation.
void BM_TrivialMethodRunIntoCApi(benchmark::State& state) {
  TinyCSession c;
  TfnRtMethod* method = nullptr;
  if (tfn_rt_session_method(c.session, "serving_default", &method, c.error, sizeof c.error) !=
      TFN_RT_OK)
    Die(c.error);
  float y[4];
  TfnRtTensor output = c.input;
  output.data = y;
  if (tfn_rt_method_run_into(method, &c.input, 1, &output, 1, c.error, sizeof c.error))  // warms up
    Die(c.error);
  for (auto _ : state) {
    if (tfn_rt_method_run_into(method, &c.input, 1, &output, 1, c.error, sizeof c.error))
      Die(c.error);
    benchmark::DoNotOptimize(y);
  }
  tfn_rt_method_free(method);
}
BENCHMARK(BM_TrivialMethodRunIntoCApi);

}  // namespace

int main(int argc, char** argv) {
  using tfn::bench::Line;
  std::vector<Line> lines = {
      {Line::kRatio, "load, raw mapped / read(2) of the file", "BM_Load/0", "BM_ReadFile"},
      {Line::kRatio, "load, raw read into memory / read(2) of the file", "BM_Load/1",
       "BM_ReadFile"},
      {Line::kRatio, "load, raw mapped + checksums / read(2) of the file", "BM_Load/2",
       "BM_ReadFile"},
      {Line::kRatio, "load, zstd / read(2) of the file", "BM_Load/3", "BM_ReadFile"},
      {Line::kRatio, "load + first run, zstd / raw mapped", "BM_LoadAndRun/3", "BM_LoadAndRun/0"},
      {Line::kDifference, "load + first run, raw mapped: beyond a warm run", "BM_LoadAndRun/0",
       "BM_BigRun"},
      {Line::kDifference, "load + first run, zstd: beyond a warm run", "BM_LoadAndRun/3",
       "BM_BigRun"},
  };
  for (int m = 0; m < 3; ++m) {
    for (int batch : {1, 64}) {
      const std::string prefix =
          "BM_Interpreter/" + std::to_string(m) + "/" + std::to_string(batch);
      lines.push_back(
          {Line::kRatio,
           std::string(kModels[m]) + " batch " + std::to_string(batch) + ": 1 thread / 2 threads",
           prefix + "/1", prefix + "/2"});
    }
  }
  lines.push_back(
      {Line::kPer, "trivial call, Session::Run", "BM_TrivialRun", "", 1, "target < 1 us"});
  lines.push_back({Line::kPer, "trivial call, Method::Run with the output bound",
                   "BM_TrivialMethodBound", "", 1, "target: at most Session::Run's"});
  lines.push_back({Line::kRatio, "trivial call, bound Method::Run / Session::Run",
                   "BM_TrivialMethodBound", "BM_TrivialRun"});
  lines.push_back({Line::kPer, "trivial call, C API", "BM_TrivialRunCApi", "", 1, "target < 1 us"});
  lines.push_back({Line::kPer, "trivial call, C API method with the output bound",
                   "BM_TrivialMethodRunIntoCApi", "", 1, "target: at most the C API's by name"});
  lines.push_back({Line::kRatio, "trivial call, C API bound method / C API by name",
                   "BM_TrivialMethodRunIntoCApi", "BM_TrivialRunCApi"});
  const int rc = tfn::bench::RunWithRatios(argc, argv, lines);
  RemoveTmpDir();
  return rc;
}
