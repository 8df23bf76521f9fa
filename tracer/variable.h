// tfn::Variable: mutable state that functions read and update on every call.
//
// Create variables outside functions (in a model's constructor, as in Keras);
// creating one while a function is being traced is an error. Inside a traced
// body, value() records a read and assign/assign_add record updates, which
// run on every call, so state persists across calls. Outside a trace they act
// at once. A Variable is a handle: copies refer to the same state. Reads and
// updates are thread-safe (reads see a consistent value; see
// runtime/variables.h).
#pragma once

#include <memory>
#include <string>

#include "tracer/tensor.h"

namespace tfn {

namespace detail {
struct VariableImpl;
}

class Variable {
 public:
  // `name` is kept exactly as given (an empty one becomes "Variable"), so a
  // bundle calls the variable what the code does, whatever else the process
  // made. Names need not be unique in the process, only among the variables
  // one traced graph or one saved bundle uses: two different variables of one
  // name in one trace fail there, in one bundle at tfn::save.
  explicit Variable(const Tensor& initial_value, const std::string& name = "Variable");

  const std::string& name() const;
  DType dtype() const;
  Shape shape() const;

  // The current value (a graph read inside a trace).
  Tensor value() const;
  operator Tensor() const { return value(); }  // NOLINT: use a Variable where a Tensor goes
  // Replace the value / add to it; the dtype and shape must match.
  void assign(const Tensor& value) const;
  void assign_add(const Tensor& delta) const;

  const std::shared_ptr<detail::VariableImpl>& impl() const { return impl_; }
  // A handle to existing state (used by ConcreteFunction::variables()).
  static Variable FromImpl(std::shared_ptr<detail::VariableImpl> impl) {
    Variable v;
    v.impl_ = std::move(impl);
    return v;
  }

 private:
  Variable() = default;
  std::shared_ptr<detail::VariableImpl> impl_;
};

}  // namespace tfn
