// Graph control flow and printing: tfn::cond, tfn::while_loop, tfn::print.
//
// Inside a trace, cond records both branches and while_loop its condition and
// body as subgraphs, so the choice and the iteration happen when the graph
// runs; outside a trace they simply run. Tensors from the enclosing function
// used inside branches or bodies are captured automatically. A C++ `if` on a
// static value is resolved while tracing and leaves no trace in the graph.
//
// tfn::print records a print node that prints on every call (C++ output in
// the body happens only while tracing). Output goes to the print sink
// (logging.h), standard output by default.
#pragma once

#include <functional>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "tracer/function.h"
#include "tracer/tensor.h"

namespace tfn {

namespace detail {

bool IsTracing();
using BranchFn = std::function<std::vector<Tensor>(OutputStructure* structure)>;
std::vector<Tensor> CondImpl(const Tensor& pred, const BranchFn& true_fn, const BranchFn& false_fn,
                             OutputStructure* structure);
bool EagerPredicate(const Tensor& pred, const char* op);

struct PrintItem {
  bool is_tensor = false;
  std::string text;
  Tensor tensor;
};
inline PrintItem MakePrintItem(const Tensor& t) { return PrintItem{true, "", t}; }
inline PrintItem MakePrintItem(const Variable& v) { return PrintItem{true, "", v.value()}; }
inline PrintItem MakePrintItem(const std::string& s) { return PrintItem{false, s, Tensor()}; }
inline PrintItem MakePrintItem(const char* s) { return PrintItem{false, s, Tensor()}; }
template <class T, class = std::enable_if_t<std::is_arithmetic_v<T>>>
PrintItem MakePrintItem(T v) {
  std::ostringstream os;
  os << v;
  return PrintItem{false, os.str(), Tensor()};
}
void PrintImpl(const std::vector<PrintItem>& items);

}  // namespace detail

// Runs true_fn() if pred (a bool scalar) is true, else false_fn(). Both must
// return the same structure (a Tensor, std::vector<Tensor>, std::tuple of
// Tensors, ...) with the same dtypes and ranks.
template <class TrueFn, class FalseFn>
auto cond(const Tensor& pred, TrueFn true_fn, FalseFn false_fn) {
  using R = std::decay_t<std::invoke_result_t<TrueFn&>>;
  using Traits = detail::OutputTraits<R>;
  if (!detail::IsTracing()) {
    if (detail::EagerPredicate(pred, "cond")) return typename Traits::Output(true_fn());
    return typename Traits::Output(false_fn());
  }
  detail::OutputStructure structure;
  std::vector<Tensor> flat = detail::CondImpl(
      pred, [&](detail::OutputStructure* s) { return Traits::Flatten(true_fn(), s); },
      [&](detail::OutputStructure* s) {
        return Traits::Flatten(R(false_fn()), s);
      },
      &structure);
  return Traits::Unflatten(flat, structure);
}

struct WhileOptions {
  // At most this many iterations (< 0: no bound), as tf.while_loop's
  // maximum_iterations. A GradientTape can differentiate a traced loop only
  // when it is bounded: the loop then saves each iteration's loop variables
  // in [maximum_iterations, ...] buffers (memory the plan knows before the
  // first step) and the backward loop replays one iteration's gradient per
  // step from them, last first.
  int64_t maximum_iterations = -1;
};

// while cond_fn(vars): vars = body_fn(vars). cond_fn returns a bool scalar;
// body_fn returns as many tensors as it is given, with the same dtypes and
// ranks (dims that change between iterations become dynamic).
std::vector<Tensor> while_loop(
    const std::function<Tensor(const std::vector<Tensor>&)>& cond_fn,
    const std::function<std::vector<Tensor>(const std::vector<Tensor>&)>& body_fn,
    const std::vector<Tensor>& loop_vars, const WhileOptions& options = {});

// Prints its items separated by spaces: strings and numbers as they are,
// tensors as values ([1, 2, 3]). Inside a trace it prints on every call.
template <class... Items>
void print(const Items&... items) {
  detail::PrintImpl({detail::MakePrintItem(items)...});
}

}  // namespace tfn
