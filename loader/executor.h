// The graph executor: runs a program of a Module on input tensors, with
// buffers from a planned arena, kernels chosen ahead of time, control flow
// and variables. The same executor runs traced functions in process and
// bundles in the runtime.
//
// An Executor is thread-safe: many threads may call Run at once (each call
// takes its own arena from a pool; plans are cached per input shapes).
// The Module must outlive the Executor (it is held by shared_ptr).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/status.h"
#include "loader/planner.h"
#include "loader/program.h"
#include "loader/variables.h"

namespace tfn::rt {

struct RunOptions {
  // Receives the text of each print op (with a trailing newline); when
  // empty, prints go to standard output.
  std::function<void(const std::string&)> print;
  // Stops a while_loop after this many iterations with an error (0: no
  // limit). A guard for models from untrusted sources.
  int64_t max_while_iterations = 0;
};

class Executor {
 public:
  explicit Executor(std::shared_ptr<const Module> module);
  ~Executor();

  const Module& module() const { return *module_; }

  // Runs `program` on `inputs` (one per parameter; dtypes and static dims are
  // checked). `variables[i]` is the storage of module variable i. Outputs are
  // freshly allocated and owned by the caller.
  Status Run(int program, const ConstTensor* inputs, int num_inputs,
             VariableSlot* const* variables, std::vector<ConstTensor>* outputs,
             const RunOptions& options = {}) const;

  // The arena bytes one run needs for these input shapes (planned, not run).
  Result<int64_t> ArenaBytes(int program, const std::vector<Shape>& input_shapes) const;

 private:
  struct Arena;
  struct RunState;
  Result<std::shared_ptr<const Plan>> GetPlan(int program, const Shape* shapes, int n) const;
  std::unique_ptr<Arena> TakeArena(int64_t bytes) const;
  void ReturnArena(std::unique_ptr<Arena> arena) const;
  Status RunInstr(RunState& st, int index) const;
  Status RunControlFlow(RunState& st, const Instr& in) const;

  std::shared_ptr<const Module> module_;
  std::vector<std::vector<const ConstTensor*>> constants_;  // per program, per value
  mutable std::mutex mu_;
  mutable std::vector<std::map<std::vector<int64_t>, std::shared_ptr<const Plan>>> plans_;
  mutable std::vector<std::unique_ptr<Arena>> arenas_;
};

}  // namespace tfn::rt
