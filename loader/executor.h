// The graph executor: runs a program of a Module on input tensors, with
// buffers from a planned arena, kernels chosen ahead of time, control flow
// and variables. The same executor runs traced functions in process and
// bundles in the runtime.
//
// Chains of elementwise instructions run tile by tile (fused_chain.h);
// kernels and chains split their work across the thread pool, if any.
//
// An Executor is thread-safe: many threads may call Run at once (each call
// takes its own arena from a pool; plans are cached per input shapes).
// The Module and the thread pool are held by shared_ptr; the pool may be
// shared with other executors.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/status.h"
#include "loader/planner.h"
#include "loader/program.h"
#include "loader/thread_pool.h"
#include "loader/variables.h"

namespace tfn::rt {

// How one run goes. The limits are mechanisms here (0: none, what traced
// functions run with in process); runtime::RunOptions (runtime.h) owns the
// defaults bundles run with. Each limit ends the run with an error that names
// what hit it and says how to raise it.
struct RunOptions {
  // Receives the text of each print op (with a trailing newline); when
  // empty, prints go to standard output.
  std::function<void(const std::string&)> print;
  // Stops a while_loop after this many iterations with an error (0: no
  // limit). A guard for models from untrusted sources.
  int64_t max_while_iterations = 0;
  // Bytes one program run may plan: its arena, its outputs, buffers of
  // data-dependent shape and kernel scratch (0: no limit). Subprogram runs
  // (cond branches, each loop iteration) are counted on their own.
  int64_t max_run_bytes = 0;
  // Ends the run once the clock passes this point, checked between
  // instructions and loop iterations (the default, max(): no deadline).
  // deadline_ms is what the message reports.
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  int64_t deadline_ms = 0;
};

class Executor {
 public:
  // Without a pool (or with a 1-thread pool) everything runs on the caller.
  explicit Executor(std::shared_ptr<const Module> module,
                    std::shared_ptr<ThreadPool> pool = nullptr);
  ~Executor();

  const Module& module() const { return *module_; }

  // Runs `program` on `inputs` (one per parameter; dtypes and static dims are
  // checked). `variables[i]` is the storage of module variable i. Outputs are
  // owned by the caller; large ones come from memory that earlier outputs
  // gave back when their last owner dropped them (as ONNX Runtime's arena
  // does), so that they are not fresh pages to fault in on every call.
  Status Run(int program, const ConstTensor* inputs, int num_inputs, VariableSlot* const* variables,
             std::vector<ConstTensor>* outputs, const RunOptions& options = {}) const;

  // The arena bytes one run needs for these input shapes (planned, not run).
  Result<int64_t> ArenaBytes(int program, const std::vector<Shape>& input_shapes) const;

 private:
  struct Arena;
  struct RunState;
  class OutputCache;
  Result<std::shared_ptr<const Plan>> GetPlan(int program, const Shape* shapes, int n) const;
  std::unique_ptr<Arena> TakeArena(int64_t bytes) const;
  void ReturnArena(std::unique_ptr<Arena> arena) const;
  Status RunInstr(RunState& st, int index) const;
  Status RunChain(RunState& st, const FusedChain& chain) const;
  Status RunControlFlow(RunState& st, const Instr& in) const;
  static Status Charge(RunState& st, int64_t bytes, const std::string& what);
  static Status CheckDeadline(const RunState& st);

  std::shared_ptr<const Module> module_;
  std::shared_ptr<ThreadPool> pool_;
  TfnKernelContext base_ctx_{};                             // the pool's parallel_for, or serial
  std::vector<std::vector<const ConstTensor*>> constants_;  // per program, per value
  mutable std::mutex mu_;
  mutable std::vector<std::map<std::vector<int64_t>, std::shared_ptr<const Plan>>> plans_;
  mutable std::vector<std::unique_ptr<Arena>> arenas_;
  std::shared_ptr<OutputCache> output_cache_;
};

}  // namespace tfn::rt
