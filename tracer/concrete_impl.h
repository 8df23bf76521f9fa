// Internal: what a ConcreteFunction holds, and how it runs.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "runtime/executor.h"
#include "tracer/function.h"
#include "tracer/variable_impl.h"

namespace tfn::detail {

// Runs lowered graphs: the interpreter by default, the JIT when linked and
// asked for. aot/ registers its implementation through SetJitBackend so that
// the tracer never includes LLVM headers.
class GraphBackend {
 public:
  virtual ~GraphBackend() = default;
  // Runs the graph's program on inputs; variables[i] is module variable i.
  virtual Status Run(const std::vector<ConstTensor>& inputs, runtime::VariableSlot* const* variables,
                     std::vector<ConstTensor>* outputs) const = 0;
};

using JitFactory = std::function<absl::StatusOr<std::unique_ptr<GraphBackend>>(
    const ir::Graph& graph, const std::string& name)>;
// Installs the JIT (called by tfn_aot's registration object).
void SetJitBackend(JitFactory factory);
bool HasJitBackend();

class ConcreteImpl {
 public:
  std::string name;
  std::string signature;             // "(x: f32[?,3], use_extra: false)"
  CallKey key;
  std::vector<std::string> flat_names;  // per flat input: "argument 0 'x'"
  std::vector<TensorSpec> input_specs;
  std::vector<TensorSpec> output_specs;
  ir::Graph graph;
  OutputStructure structure;
  std::vector<std::shared_ptr<VariableImpl>> variables;  // in module order
  std::vector<runtime::VariableSlot*> slots;
  std::unique_ptr<GraphBackend> backend;
  std::atomic<int64_t> calls{0};

  // Checks inputs against input_specs and runs the graph eagerly.
  std::vector<Tensor> Run(const std::vector<Tensor>& inputs) const;
  // Records the graph into the current trace (a Function called while
  // tracing another) and returns its symbolic outputs.
  std::vector<Tensor> Inline(const std::vector<Tensor>& inputs) const;
};

// Builds the runnable ConcreteImpl for a traced, optimized graph.
absl::Status Finalize(ConcreteImpl* impl, bool jit_compile);

}  // namespace tfn::detail
