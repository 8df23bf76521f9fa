// Internal: the representation of tensors and the per-thread stack of traces.
//
// While a function body runs under a trace, ops record nodes into the trace's
// graph instead of computing. Traces nest: tracing a cond branch or a
// while_loop body pushes a child trace whose graph is a closed subgraph;
// symbolic tensors of an enclosing trace used inside it are captured as
// parameters of the subgraph (and become operands of the control-flow node).
// Everything here is thread-local; one thread traces one function at a time.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/attrs.h"
#include "ir/graph.h"
#include "tracer/tensor.h"

namespace tfn::detail {

struct VariableImpl;

struct TensorImpl {
  DType dtype = DType::kInvalid;
  // Eager tensors: the value.
  ConstTensor value;
  // Symbolic tensors: the trace and the value in its graph.
  uint64_t trace_id = 0;  // 0 for eager tensors
  ir::ValueRef ref;
  SymShape sym_shape;
};

class TraceContext {
 public:
  // Starts recording into `graph` (owned by the caller, which must outlive
  // this context) and makes this the current trace of the thread.
  // `function_name` names the tfn::function being traced, for errors (empty
  // for the subgraph traces of cond and while_loop).
  explicit TraceContext(ir::Graph* graph, std::string function_name = "");
  ~TraceContext();
  TraceContext(const TraceContext&) = delete;
  TraceContext& operator=(const TraceContext&) = delete;

  static TraceContext* Current();
  ir::Graph& graph() { return *graph_; }
  uint64_t id() const { return id_; }
  TraceContext* parent() const { return parent_; }

  // The value standing for `t` in this trace's graph: an eager tensor
  // becomes a constant, a symbolic tensor of this trace is itself, and one of
  // an enclosing trace becomes a new parameter (recorded in captures()).
  ir::ValueRef Capture(const Tensor& t);
  // A symbolic tensor for a value of this trace's graph.
  Tensor Wrap(ir::ValueRef v);

  // Outer tensors captured as parameters, in parameter order (after the
  // parameters the trace was started with).
  const std::vector<Tensor>& captures() const { return captures_; }
  // Variables read or assigned in this trace (by name).
  std::map<std::string, std::shared_ptr<VariableImpl>>& variables() { return variables_; }
  // Records that this trace and every enclosing one use `v` (the outermost
  // trace's graph, and a nested function's own, refer to it). Graphs refer
  // to variables by name, so a different variable of a name already used at
  // any level throws instead of silently aliasing the two.
  void UseVariable(const std::shared_ptr<VariableImpl>& v);

 private:
  ir::Graph* graph_;
  TraceContext* parent_;
  uint64_t id_;
  std::string function_name_;
  std::vector<Tensor> captures_;
  std::map<const TensorImpl*, ir::ValueRef> capture_map_;
  std::map<std::string, std::shared_ptr<VariableImpl>> variables_;
};

// Runs an op: records it when a trace is active, else computes it eagerly.
// Throws tfn::Error with the op's message on bad input.
std::vector<Tensor> ApplyOp(OpId op, const std::vector<Tensor>& inputs, Attrs attrs = {});
Tensor Apply1(OpId op, const std::vector<Tensor>& inputs, Attrs attrs = {});

// A scalar constant of dtype `dtype` (eager).
Tensor ScalarOf(DType dtype, double value);

}  // namespace tfn::detail
