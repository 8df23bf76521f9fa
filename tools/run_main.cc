// tfn-run: runs one signature of a bundle with tfn's embedded runtime on
// inputs from .npy files (or deterministic random ones), writes each output
// as OUTPUT_NAME.npy and prints its dtype, shape and a summary of its values;
// --benchmark N reports latency statistics; --profile and --profile-json
// time every step of separate runs (runtime/profile.h); --jit runs the
// signature through code compiled in process by LLVM instead of the
// interpreter; --steps N runs a training signature N times over stacked
// batches, and --restore-checkpoint / --save-checkpoint read and write the
// session's variables.
//
//   tfn-run mlp.tfn --input x=x.npy --output-dir out/
//   tfn-run mlp.tfn --random-inputs 32 --benchmark 100
//   tfn-run mlp.tfn --random-inputs 32 --profile --profile-json trace.json
//   tfn-run mlp.tfn --random-inputs 32 --benchmark 100 --jit
//
// Without --jit it is a pure runtime app: it runs on tfn_runtime only, as an
// application that deploys bundles would. --jit (run_jit.cc) is the one path
// that reaches the exporter's reader and LLVM (aot/).
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include "core/atomic_file.h"
#include "core/format.h"
#include "runtime/npy.h"
#include "runtime/runtime.h"
#include "tools/args.h"
#include "tools/run_io.h"
#include "tools/run_jit.h"

namespace tfn::tools {
namespace {

constexpr char kTool[] = "tfn-run";

template <class T>
T OrFail(Result<T> r) {
  if (!r.ok()) Fail(kTool, r.status().message());
  return std::move(r).value();
}

void Benchmark(const runtime::Session& session, const std::string& signature,
               const std::vector<runtime::Tensor>& inputs, const runtime::RunOptions& options,
               int64_t runs, int64_t warmup) {
  using Clock = std::chrono::steady_clock;
  for (int64_t i = 0; i < warmup; ++i) OrFail(session.Run(signature, inputs, options));
  std::vector<double> us;
  us.reserve(static_cast<size_t>(runs));
  for (int64_t i = 0; i < runs; ++i) {
    Clock::time_point start = Clock::now();
    Result<std::vector<runtime::Tensor>> out = session.Run(signature, inputs, options);
    Clock::time_point end = Clock::now();
    if (!out.ok()) Fail(kTool, out.status().message());
    us.push_back(std::chrono::duration<double, std::micro>(end - start).count());
  }
  LatencyStats s = ComputeStats(std::move(us));
  std::printf(
      "benchmark: %lld runs after %lld warm-up: min %.2f µs, median %.2f µs, p90 %.2f µs, "
      "mean %.2f µs, max %.2f µs\n",
      static_cast<long long>(runs), static_cast<long long>(warmup), s.min_us, s.median_us, s.p90_us,
      s.mean_us, s.max_us);
}

// Runs `runs` more calls with a profiler; prints its table and/or writes its
// Chrome trace.
void Profile(const runtime::Session& session, const std::string& signature,
             const std::vector<runtime::Tensor>& inputs, runtime::RunOptions options, int64_t runs,
             bool print, const std::string& json_path) {
  runtime::Profiler profiler;
  options.profiler = &profiler;
  for (int64_t i = 0; i < runs; ++i) OrFail(session.Run(signature, inputs, options));
  if (print) std::printf("%s", profiler.Table().c_str());
  if (!json_path.empty()) {
    Status s = WriteFileAtomically(json_path, profiler.ChromeTrace());
    if (!s.ok()) Fail(kTool, "writing --profile-json '" + json_path + "': " + s.message());
    std::printf(
        "profile: %zu events of %lld runs -> %s (open in https://ui.perfetto.dev or "
        "chrome://tracing)\n",
        profiler.events().size(), static_cast<long long>(runs), json_path.c_str());
  }
}

// Runs `steps` steps, step i on input set i mod their count, printing the
// scalar outputs of about 20 of them (and the last); returns the last outputs.
std::vector<runtime::Tensor> RunSteps(const runtime::Session& session,
                                      const runtime::SignatureInfo& sig,
                                      const std::vector<std::vector<runtime::Tensor>>& sets,
                                      const runtime::RunOptions& options, int64_t steps) {
  const int64_t every = steps > 20 ? steps / 20 : 1;
  std::vector<runtime::Tensor> outputs;
  const auto start = std::chrono::steady_clock::now();
  for (int64_t i = 0; i < steps; ++i) {
    const auto& in = sets[static_cast<size_t>(i) % sets.size()];
    Result<std::vector<runtime::Tensor>> out = session.Run(sig.name, in, options);
    if (!out.ok()) Fail(kTool, "step " + std::to_string(i + 1) + ": " + out.status().message());
    outputs = std::move(out).value();
    if ((i + 1) % every != 0 && i + 1 != steps) continue;
    std::string line = "step " + std::to_string(i + 1) + "/" + std::to_string(steps) + ":";
    for (size_t k = 0; k < outputs.size() && k < sig.outputs.size(); ++k) {
      if (outputs[k].num_elements() != 1) continue;
      char value[64];
      std::snprintf(value, sizeof(value), " %s %.6g", sig.outputs[k].name.c_str(),
                    outputs[k].ElementAsDouble(0));
      line += value;
    }
    std::printf("%s\n", line.c_str());
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("%lld steps in %.3f s (%.1f µs per step), %zu input set%s\n",
              static_cast<long long>(steps), s, 1e6 * s / static_cast<double>(steps), sets.size(),
              sets.size() == 1 ? "" : "s");
  return outputs;
}

int Main(int argc, char** argv) {
  ArgParser args(kTool, "FILE [options]",
                 "Runs a signature of a .tfn bundle with tfn's runtime on inputs from .npy files,\n"
                 "writes each output as OUTPUT_NAME.npy and prints its dtype, shape and values.");
  std::string file, signature = "serving_default", output_dir = ".";
  std::vector<std::string> input_flags;
  runtime::RunOptions run_options;  // the runtime's default limits unless flags change them
  int64_t benchmark = 0, warmup = 5, random_batch = -1, summarize = 3, threads = 0;
  bool have_random = false, reference = false, verify = false, jit = false, fast_math = false;
  bool have_iterations = false, have_bytes = false, have_deadline = false;
  bool profile = false, have_profile_runs = false;
  int64_t profile_runs = 0, steps = 0;
  std::string profile_json, save_checkpoint, restore_checkpoint;
  args.Positional("FILE", "the bundle (.tfn)", &file);
  args.String("--signature", "SIG", "the signature to run (default serving_default)", &signature);
  args.List("--input", "NAME=PATH.npy", "an input of the signature from a NumPy .npy file",
            &input_flags);
  args.String("--output-dir", "DIR", "where to write OUTPUT_NAME.npy files (default: .)",
              &output_dir);
  args.Int("--random-inputs", "BATCH",
           "fill inputs without --input with deterministic random values; dynamic dims = BATCH",
           &random_batch, &have_random);
  args.Int("--benchmark", "N", "time N runs (after warm-up); print min/median/p90 latency",
           &benchmark);
  args.Int("--warmup", "N", "untimed runs before --benchmark (default 5)", &warmup);
  args.Flag("--profile",
            "after the timed runs, time every step of more runs and print the time per op type "
            "and the slowest steps (runs: --profile-runs)",
            &profile);
  args.String("--profile-json", "FILE",
              "as --profile, and write every step as a Chrome trace (Perfetto, chrome://tracing)",
              &profile_json);
  args.Int("--profile-runs", "N", "runs --profile times (default: --benchmark's N, at least 10)",
           &profile_runs, &have_profile_runs);
  args.Int("--steps", "N",
           "run the signature N times in a row on one session (a training signature updates its "
           "variables each step) and print its scalar outputs (e.g. the loss) as it goes; an "
           "--input array with one more leading dim is a stack of batches, step i takes batch "
           "i mod their count",
           &steps);
  args.String("--restore-checkpoint", "PATH",
              "set the variables from a checkpoint (as --save-checkpoint writes) before running",
              &restore_checkpoint);
  args.String("--save-checkpoint", "PATH",
              "after running, write every variable (weights, optimizer slots) to a checkpoint, "
              "atomically",
              &save_checkpoint);
  args.Int("--summarize", "N", "values shown at each end of a dim in the summary (default 3)",
           &summarize);
  args.Int("--max-while-iterations", "N",
           "stop a while_loop after N iterations with an error (default " +
               std::to_string(runtime::kDefaultMaxWhileIterations) + "; 0: no limit)",
           &run_options.max_while_iterations, &have_iterations);
  args.Int("--max-run-bytes", "N",
           "fail a run that plans more than N bytes (default: half the physical memory, " +
               std::to_string(run_options.max_run_bytes >> 20) + " MiB here; 0: no limit)",
           &run_options.max_run_bytes, &have_bytes);
  args.Int("--deadline-ms", "MS",
           "fail a run that takes longer than MS milliseconds (default 0: no deadline)",
           &run_options.deadline_ms, &have_deadline);
  args.Int("--threads", "N",
           "threads per run, this one included (default 0: the available cores; 1: no pool)",
           &threads);
  args.Flag("--verify-checksums", "hash every weight segment at load (slower, safer)", &verify);
  args.Flag("--reference-kernels", "use the reference kernels (the test oracle)", &reference);
  args.Flag("--jit",
            "compile the signature with LLVM in process (as jit_compile) and run that code "
            "instead of the interpreter; outputs agree within rtol 1e-4, atol 1e-6",
            &jit);
  args.Flag("--fast-math", "with --jit: compile as tfn-aot --fast-math does (see tfn-aot --help)",
            &fast_math);
  args.Examples(
      {"tfn-run mlp.tfn --input x=x.npy",
       "tfn-run mlp.tfn --signature classify "
       "--input x=x.npy --output-dir out",
       "tfn-run transformer.tfn --random-inputs 128 --benchmark 50",
       "tfn-run transformer.tfn --random-inputs 128 --benchmark 50 --jit",
       "tfn-run transformer.tfn --random-inputs 128 --profile --profile-json trace.json",
       "tfn-run digits.tfn --signature train --input x=batches_x.npy --input y=batches_y.npy "
       "--steps 500 --save-checkpoint digits.ckpt"});
  ExitOnError(args, args.Parse(argc, argv));

  runtime::LoadOptions options;
  options.reference_kernels = reference;
  options.verify_checksums = verify;
  std::shared_ptr<const runtime::Bundle> bundle = OrFail(runtime::Bundle::Load(file, options));
  const runtime::SignatureInfo* sig = bundle->FindSignature(signature);
  if (!sig) {
    std::string known;
    for (const runtime::SignatureInfo& s : bundle->signatures()) {
      known += (known.empty() ? "" : ", ") + s.name;
    }
    Fail(kTool, "'" + file + "' has no signature '" + signature + "'; it has: " + known);
  }
  if (steps < 0) Fail(kTool, "--steps takes N >= 1, got " + std::to_string(steps));
  if (steps > 0 && (benchmark > 0 || profile || !profile_json.empty())) {
    Fail(kTool,
         "--steps runs a sequence of steps; --benchmark and --profile time repeated runs "
         "of one input: drop one of them");
  }
  const std::vector<std::vector<runtime::Tensor>> input_sets =
      OrFail(CollectInputSets(*sig, input_flags, have_random ? random_batch : -1, steps > 0));
  std::vector<runtime::Tensor> inputs = input_sets.front();
  if (threads < 0 || threads > 1024) {
    Fail(kTool, "--threads takes 0 (the available cores) to 1024, got " + std::to_string(threads));
  }
  runtime::SessionOptions session_options;
  session_options.num_threads = static_cast<int>(threads);
  if (jit && (have_iterations || have_bytes || have_deadline)) {
    Fail(kTool,
         "--max-while-iterations, --max-run-bytes and --deadline-ms bound the interpreter, but "
         "--jit code runs to the end: drop one of the two flags");
  }
  if (jit && (profile || !profile_json.empty())) {
    Fail(kTool,
         "--profile times the interpreter's steps, but --jit code runs as one call: drop one of "
         "the two flags (compare --benchmark with and without --jit instead)");
  }
  if (have_profile_runs && profile_runs < 1) {
    Fail(kTool, "--profile-runs takes N >= 1, got " + std::to_string(profile_runs));
  }
  if (have_profile_runs && !profile && profile_json.empty()) {
    Fail(kTool,
         "--profile-runs sets how many runs --profile times: add --profile or --profile-json");
  }
  if (fast_math && !jit) {
    Fail(kTool,
         "--fast-math changes how --jit compiles; the interpreter's kernels have one precision: "
         "add --jit or drop --fast-math");
  }
  std::unique_ptr<aot::JitLibrary> jit_code;  // the code the session runs: outlives it
  runtime::Session session(bundle, session_options);
  if (jit) {
    std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
    jit_code = OrFail(UseJit(file, signature, JitOptions{reference, fast_math}, session));
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("jit: compiled signature '%s'%s in %.2f s\n", signature.c_str(),
                fast_math ? " with --fast-math" : "", s);
  }
  if (!restore_checkpoint.empty()) {
    Status s = session.RestoreCheckpoint(restore_checkpoint);
    if (!s.ok()) Fail(kTool, s.message());
    std::printf("restored the variables from '%s'\n", restore_checkpoint.c_str());
  }
  std::vector<runtime::Tensor> outputs;
  if (steps > 0) {
    outputs = RunSteps(session, *sig, input_sets, run_options, steps);
  } else {
    outputs = OrFail(session.Run(signature, inputs, run_options));
  }
  if (!save_checkpoint.empty()) {
    Status s = session.SaveCheckpoint(save_checkpoint);
    if (!s.ok()) Fail(kTool, s.message());
    std::printf("saved the variables to '%s'\n", save_checkpoint.c_str());
  }

  std::error_code ec;
  std::filesystem::create_directories(output_dir, ec);
  if (ec) Fail(kTool, "cannot create --output-dir '" + output_dir + "': " + ec.message());
  std::vector<std::string> files = OutputFileNames(sig->outputs);
  for (size_t i = 0; i < outputs.size() && i < sig->outputs.size(); ++i) {
    const runtime::Tensor& t = outputs[i];
    std::string path = (std::filesystem::path(output_dir) / files[i]).string();
    Status s = runtime::WriteNpy(path, t);
    if (!s.ok()) Fail(kTool, "writing output '" + sig->outputs[i].name + "': " + s.message());
    std::string prefix = sig->outputs[i].name + ": " +
                         TypeToString(static_cast<int>(t.dtype), t.shape) + " -> " + path;
    std::printf("%s\n  %s\n", prefix.c_str(),
                FormatValues(t, static_cast<int>(summarize), 2).c_str());
  }
  if (benchmark > 0) {
    std::vector<Shape> shapes;
    for (const runtime::Tensor& t : inputs) shapes.push_back(t.shape);
    // The interpreter's arena; JIT code takes its own scratch area per call.
    Result<int64_t> arena = session.ArenaBytes(signature, shapes);
    if (arena.ok() && !jit) std::printf("arena: %lld bytes\n", static_cast<long long>(*arena));
    std::printf("threads: %d\n", session.num_threads());
    Benchmark(session, signature, inputs, run_options, benchmark, warmup);
  }
  if (profile || !profile_json.empty()) {
    if (!have_profile_runs) profile_runs = benchmark > 10 ? benchmark : 10;
    Profile(session, signature, inputs, run_options, profile_runs, profile, profile_json);
  }
  return 0;
}

}  // namespace
}  // namespace tfn::tools

int main(int argc, char** argv) { return tfn::tools::Main(argc, argv); }
