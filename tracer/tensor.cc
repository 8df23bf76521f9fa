// Tensor accessors, element access and printing.
#include "tracer/tensor.h"

#include "core/format.h"

#include <ostream>

#include "tracer/ops.h"
#include "tracer/trace_context.h"

namespace tfn {

void ThrowIfError(const Status& s) {
  if (!s.ok()) throw Error(s);
}

Tensor Tensor::FromConst(ConstTensor value) {
  auto impl = std::make_shared<detail::TensorImpl>();
  impl->dtype = value.dtype;
  impl->value = std::move(value);
  return Tensor(std::move(impl));
}

bool Tensor::is_symbolic() const { return impl_ && impl_->trace_id != 0; }

DType Tensor::dtype() const {
  if (!impl_) throw Error(StatusCode::kFailedPrecondition, "dtype() of an undefined tensor");
  return impl_->dtype;
}

Shape Tensor::shape() const {
  if (!impl_) throw Error(StatusCode::kFailedPrecondition, "shape() of an undefined tensor");
  return is_symbolic() ? ToStaticShape(impl_->sym_shape) : impl_->value.shape;
}

void Tensor::CheckEager(const char* what) const {
  if (!impl_) {
    throw Error(StatusCode::kFailedPrecondition, std::string(what) + " of an undefined tensor");
  }
  if (is_symbolic()) {
    throw Error(StatusCode::kFailedPrecondition,
                std::string(what) + ": the tensor is symbolic (it is being traced), so it has no "
                                    "value yet; use tfn::print to see values when the graph runs");
  }
}

void Tensor::CheckType(DType t, const char* what) const {
  CheckEager(what);
  if (t != impl_->dtype) {
    throw Error(StatusCode::kInvalidArgument,
                std::string(what) + ": the tensor is " + DTypeName(impl_->dtype) +
                    ", not " + DTypeName(t) + "; use the matching C++ type or tfn::cast");
  }
}

int64_t Tensor::num_elements() const {
  CheckEager("num_elements");
  return impl_->value.num_elements();
}

const void* Tensor::data() const {
  CheckEager("data");
  return impl_->value.data;
}

const ConstTensor& Tensor::value() const {
  CheckEager("value");
  return impl_->value;
}

Tensor Tensor::operator[](int64_t i) const {
  Tensor index = constant(i);
  return gather(*this, index, 0);
}

std::string Tensor::ToString() const {
  if (!impl_) return "Tensor(undefined)";
  std::string type = std::string(DTypeName(dtype()));
  if (is_symbolic()) {
    return "Tensor(" + type + SymShapeToString(impl_->sym_shape) + ", symbolic)";
  }
  std::string body = FormatValues(impl_->value, 3, 7);
  return "Tensor(" + type + ShapeToString(shape()) + ", " + body + ")";
}

std::ostream& operator<<(std::ostream& os, const Tensor& t) { return os << t.ToString(); }

}  // namespace tfn
