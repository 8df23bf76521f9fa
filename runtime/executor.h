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
#include "runtime/planner.h"
#include "runtime/program.h"
#include "runtime/runtime.h"
#include "runtime/thread_pool.h"
#include "runtime/variables.h"

namespace tfn::runtime {

// How one run goes: the runtime's public RunOptions (runtime.h), the one
// struct for every caller. Its defaults bound a bundle's run; traced
// functions in process run with the limits set to 0 (none).

class Executor {
 public:
  // Without a pool (or with a 1-thread pool) everything runs on the caller.
  explicit Executor(std::shared_ptr<const Module> module,
                    std::shared_ptr<ThreadPool> pool = nullptr);
  ~Executor();

  const Module& module() const { return *module_; }

  // Runs `program` on `inputs` (one per parameter; dtypes and static dims are
  // checked). `variables[i]` is the storage of module variable i.
  // `outputs` has one entry per result. An entry whose data is set is bound:
  // the result is written into that caller memory, which must be writable,
  // must not overlap the inputs, and must be of exactly the result's dtype
  // and shape (an error names both otherwise); with every output bound and
  // the plan cached, a run allocates nothing. The other entries are set to
  // tensors that own their memory; large ones come from memory that earlier
  // outputs gave back when their last owner dropped them (as ONNX Runtime's
  // arena does), so that they are not fresh pages to fault in on every call.
  Status Run(int program, const ConstTensor* inputs, int num_inputs, VariableSlot* const* variables,
             ConstTensor* outputs, int num_outputs, const RunOptions& options) const;
  // As above with no output bound: `outputs` is resized to the results.
  Status Run(int program, const ConstTensor* inputs, int num_inputs, VariableSlot* const* variables,
             std::vector<ConstTensor>* outputs, const RunOptions& options = {}) const;

  // Result shapes of a run on inputs of these shapes, without running
  // (kDynamic where a shape depends on computed data); plans are cached.
  Result<std::vector<Shape>> ResultShapes(int program,
                                          const std::vector<Shape>& input_shapes) const;

  // The arena bytes one run needs for these input shapes (planned, not run).
  Result<int64_t> ArenaBytes(int program, const std::vector<Shape>& input_shapes) const;

 private:
  struct Arena;
  struct RunState;
  class OutputCache;
  using Clock = std::chrono::steady_clock;
  Status RunUntil(int program, const ConstTensor* inputs, int num_inputs,
                  VariableSlot* const* variables, ConstTensor* outputs, int num_outputs,
                  const RunOptions& options, Clock::time_point deadline) const;
  Result<std::shared_ptr<const Plan>> GetPlan(int program, const Shape* shapes, int n) const;
  std::unique_ptr<Arena> TakeArena(int64_t bytes) const;
  void ReturnArena(std::unique_ptr<Arena> arena) const;
  Status RunInstr(RunState& st, int index) const;
  Status RunChain(RunState& st, const FusedChain& chain) const;
  Status RunControlFlow(RunState& st, const Instr& in) const;
  static Status Charge(RunState& st, int64_t bytes, const std::string& what);
  static Status CheckDeadline(const RunState& st);
  // A new tensor for result value v of `p` (shape `shape`, bytes not set)
  // from the output cache.
  Status NewOutput(const Program& p, int32_t v, const Shape& shape, ConstTensor* out) const;

  std::shared_ptr<const Module> module_;
  std::shared_ptr<ThreadPool> pool_;
  TfnKernelContext base_ctx_{};                             // the pool's parallel_for, or serial
  std::vector<std::vector<const ConstTensor*>> constants_;  // per program, per value
  mutable std::mutex mu_;
  mutable std::vector<std::map<std::vector<int64_t>, std::shared_ptr<const Plan>>> plans_;
  // Per program: the plan used last, found without building a key (a run
  // on the same shapes as the last one allocates nothing to find its plan).
  mutable std::vector<std::shared_ptr<const Plan>> last_plan_;
  mutable std::vector<std::unique_ptr<Arena>> arenas_;
  std::shared_ptr<OutputCache> output_cache_;
};

}  // namespace tfn::runtime
