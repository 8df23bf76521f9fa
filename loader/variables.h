// Variable storage shared by the executor and its owners (a runtime Session,
// or a tfn::Variable in process).
//
// Reads take a snapshot (a shared reference to the current bytes, no copy);
// an assignment writes in place when nobody holds a snapshot and into a new
// buffer otherwise (copy-on-write). So a read value never changes under its
// reader, reads cost no copy, and concurrent runs are safe.
#pragma once

#include <memory>
#include <mutex>

#include "core/attrs.h"
#include "core/status.h"

namespace tfn::rt {

class VariableSlot {
 public:
  // Starts with a copy of `initial` (its dtype and shape are the variable's).
  explicit VariableSlot(const ConstTensor& initial);

  DType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  // The current value; the bytes stay valid and unchanged while it is held.
  ConstTensor Read() const;
  // Replaces the value (assign) or adds to it elementwise (assign_add).
  // `value` must have the variable's dtype and shape.
  Status Assign(const ConstTensor& value);
  Status AssignAdd(const ConstTensor& value);

 private:
  Status Check(const ConstTensor& value, const char* op) const;
  DType dtype_;
  Shape shape_;
  int64_t bytes_;
  mutable std::mutex mu_;
  std::shared_ptr<void> data_;  // guarded by mu_
};

}  // namespace tfn::rt
