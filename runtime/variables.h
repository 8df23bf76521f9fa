// Variable storage shared by the executor and its owners (a runtime Session,
// or a tfn::Variable in process).
//
// Reads take a snapshot (a shared reference to the current bytes, no copy);
// an assignment writes in place when nobody holds a snapshot and into a new
// buffer otherwise (copy-on-write). So a read value never changes under its
// reader, reads cost no copy, and concurrent runs are safe.
//
// A slot may start on bytes it does not own (Borrow: a bundle's mapped or
// decompressed weights, shared by every session of the bundle). It reads them
// in place and copies them only at its first assign/assign_add, so a session
// that never assigns a variable costs no copy of it and the bundle's bytes
// are never written.
#pragma once

#include <memory>
#include <mutex>

#include "core/attrs.h"
#include "core/status.h"

namespace tfn::runtime {

class VariableSlot {
 public:
  // Starts with a copy of `initial` (its dtype and shape are the variable's).
  explicit VariableSlot(const ConstTensor& initial);
  // Starts on `initial`'s bytes without copying them (they must stay
  // unchanged; `initial.owner`, if any, keeps them alive). The first
  // assignment moves the slot to bytes of its own.
  static std::unique_ptr<VariableSlot> Borrow(const ConstTensor& initial);

  DType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  // The current value; the bytes stay valid and unchanged while it is held.
  ConstTensor Read() const;
  // Replaces the value (assign) or adds to it elementwise (assign_add).
  // `value` must have the variable's dtype and shape.
  Status Assign(const ConstTensor& value);
  Status AssignAdd(const ConstTensor& value);

 private:
  VariableSlot(const ConstTensor& initial, bool borrow);
  Status Check(const ConstTensor& value, const char* op) const;
  // Makes data_ a block only this slot holds (copying the current bytes when
  // `keep_value`), so it may be written. Requires mu_.
  Status MakeWritable(bool keep_value, const char* op);
  DType dtype_;
  Shape shape_;
  int64_t bytes_;
  mutable std::mutex mu_;
  // The current bytes (guarded by mu_). When writable_, a block from
  // AllocateAligned that this slot allocated; otherwise borrowed bytes.
  std::shared_ptr<const void> data_;
  bool writable_ = false;  // guarded by mu_
};

}  // namespace tfn::runtime
