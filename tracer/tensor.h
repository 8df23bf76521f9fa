// tfn::Tensor, TensorSpec and tfn::Error: the values of the tracing front end.
//
// A Tensor is either eager (it holds its data; ops on it compute at once) or
// symbolic (it stands for a value of a graph being traced; ops on it record
// nodes). Tensors are immutable and cheap to copy (they share their data);
// an eager Tensor may be read from many threads. A symbolic Tensor belongs
// to the trace that made it and must not outlive it or leave its thread.
//
// Errors throw tfn::Error, whose message names the op, the argument, what
// was expected and what was given.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "core/attrs.h"
#include "core/dtype.h"
#include "core/shape.h"
#include "core/status.h"
#include "core/tensor_spec.h"

namespace tfn {

class Error : public std::runtime_error {
 public:
  Error(StatusCode code, const std::string& message)
      : std::runtime_error(message), code_(code) {}
  explicit Error(const Status& s) : Error(s.code(), s.message()) {}
  StatusCode code() const { return code_; }

 private:
  StatusCode code_;
};

// Throws tfn::Error when `s` is not ok.
void ThrowIfError(const Status& s);

namespace detail {
struct TensorImpl;
}

class Tensor {
 public:
  Tensor() = default;  // an undefined tensor; most uses throw

  bool defined() const { return impl_ != nullptr; }
  bool is_symbolic() const;
  DType dtype() const;
  // The static shape: exact for eager tensors, kDynamic for unknown dims of
  // symbolic ones (use tfn::shape(x) for the run-time shape).
  Shape shape() const;
  int rank() const { return shape().rank(); }
  // Number of elements of an eager tensor.
  int64_t num_elements() const;

  // Element access (eager tensors only). T must match dtype() exactly.
  template <class T>
  std::vector<T> to_vector() const;
  // The single element of a one-element tensor.
  template <class T>
  T item() const;
  // Raw bytes of an eager tensor (row-major), valid while a Tensor shares them.
  const void* data() const;
  // The eager value as a constant (shares the bytes).
  const ConstTensor& value() const;

  // x[i]: the i-th slice along axis 0 (rank drops by one); negative i counts
  // from the end. Works on symbolic tensors, e.g. tfn::shape(x)[0].
  Tensor operator[](int64_t i) const;

  // "Tensor(f32[2,3], [[1, 2, 3], [4, 5, 6]])", summarized like NumPy when large.
  std::string ToString() const;

  // Internal: the implementation (used by the tracer and the runtime bridge).
  explicit Tensor(std::shared_ptr<detail::TensorImpl> impl) : impl_(std::move(impl)) {}
  const std::shared_ptr<detail::TensorImpl>& impl() const { return impl_; }
  // Wraps a constant as an eager tensor (shares its bytes).
  static Tensor FromConst(ConstTensor value);

 private:
  void CheckEager(const char* what) const;
  void CheckType(DType t, const char* what) const;
  std::shared_ptr<detail::TensorImpl> impl_;
};

std::ostream& operator<<(std::ostream& os, const Tensor& t);

template <class T>
std::vector<T> Tensor::to_vector() const {
  CheckType(DTypeOf<T>::value, "to_vector");
  const T* p = static_cast<const T*>(data());
  return std::vector<T>(p, p + num_elements());
}

template <class T>
T Tensor::item() const {
  CheckType(DTypeOf<T>::value, "item");
  if (num_elements() != 1) {
    throw Error(StatusCode::kInvalidArgument,
                "item: the tensor has " + std::to_string(num_elements()) +
                    " elements (" + std::string(DTypeName(dtype())) + ShapeToString(shape()) +
                    "); item() needs exactly one");
  }
  return *static_cast<const T*>(data());
}

}  // namespace tfn
