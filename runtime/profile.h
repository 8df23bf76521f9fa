// The runtime's profiler: where a run spends its time, step by step (one
// instruction, or one fused elementwise chain), as ONNX Runtime's profiler
// and TFLite's benchmark_model report it.
//
//   tfn::runtime::Profiler profiler;
//   tfn::runtime::RunOptions options;
//   options.profiler = &profiler;
//   for (int i = 0; i < 10; ++i) method->Run(inputs, options);
//   std::puts(profiler.Table().c_str());           // per op type, top nodes
//   WriteFile("trace.json", profiler.ChromeTrace()); // Perfetto, chrome://tracing
//
// A Profiler records every step of every run that names it, including the
// steps of cond branches and loop bodies; cond and while_loop themselves are
// recorded as spans around their bodies and left out of the totals (their
// time is their bodies'). Signatures run by a compiled AOT object
// (Session::UseCompiled) record nothing: the object runs as one call.
//
// Thread-safety: Record and every reader may be called from any thread at
// once (a mutex); runs on several threads share one profiler, each on its
// own trace row. Recording costs two clock reads and a small allocation per
// step, so a profiled run is slightly slower than an unprofiled one: time
// runs without a profiler, and profile separate runs (tfn-run --profile
// does).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace tfn::runtime {

// One step of one run.
struct ProfileEvent {
  std::string program;   // the signature's or subprogram's name
  int32_t step = 0;      // the instruction index (a chain: its first instruction)
  std::string op;        // the op's name; "fused_chain" for a chain
  std::string detail;    // output type, and a chain's ops ("add+relu")
  int64_t start_ns = 0;  // since the profiler was made
  int64_t duration_ns = 0;
  double flops = 0;        // floating-point operations (0: not defined for the op)
  bool container = false;  // cond/while_loop: spans its bodies' steps
  int32_t thread = 0;      // 0 for the first thread that recorded, then 1, 2, ...
};

// Totals of the steps of one op type, or of one step, over all recorded runs.
struct ProfileSummary {
  std::string op;
  std::string program;  // for a step
  int32_t step = -1;    // for a step; -1 for an op type
  std::string detail;   // for a step
  int64_t nodes = 0;    // distinct steps of this op type
  int64_t calls = 0;
  int64_t total_ns = 0;
  double flops = 0;
  double share = 0;  // of all non-container time
  double GflopsPerSecond() const { return total_ns > 0 ? flops / total_ns : 0; }
};

struct StepView;  // runtime/profile_step.h: what the executor shows of a step

class Profiler {
 public:
  Profiler();

  int64_t NowNs() const {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() -
                                                                start_)
        .count();
  }
  // Adds one event; `event.thread` is set from the calling thread.
  void Record(ProfileEvent event);
  // Counts one run (the top-level call), for per-run figures.
  void CountRun() { runs_.fetch_add(1, std::memory_order_relaxed); }
  // Drops the events and the run count (the clock keeps its origin).
  void Clear();

  std::vector<ProfileEvent> events() const;
  int64_t runs() const { return runs_.load(std::memory_order_relaxed); }
  // Per op type, most time first.
  std::vector<ProfileSummary> ByOp() const;
  // Per step (program, step), most time first; at most `limit`.
  std::vector<ProfileSummary> TopSteps(int limit) const;
  // The per-op table and the `top` slowest steps, as tfn-run --profile prints.
  std::string Table(int top = 10) const;
  // Every event in the Chrome trace event format (JSON): complete ("X")
  // events in microseconds, one row per thread.
  std::string ChromeTrace() const;

 private:
  friend class Executor;
  // The executor records steps through this pointer, set by the
  // constructor: an app that never makes a Profiler links none of the
  // recording code (the minimal runtime's size budget, bench/runtime_size.sh).
  void (*record_step_)(Profiler&, const StepView&, int32_t step, int64_t start_ns);
  const std::chrono::steady_clock::time_point start_;
  mutable std::mutex mu_;
  std::vector<ProfileEvent> events_;
  std::vector<std::thread::id> threads_;
  std::atomic<int64_t> runs_{0};
};

}  // namespace tfn::runtime
