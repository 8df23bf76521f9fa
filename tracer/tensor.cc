// Tensor accessors, element access and printing.
#include "tracer/tensor.h"

#include <cmath>
#include <cstdio>
#include <ostream>

#include "tracer/ops.h"
#include "tracer/trace_context.h"

namespace tfn {

void ThrowIfError(const Status& s) {
  if (!s.ok()) throw Error(s);
}

std::string TensorSpec::ToString() const {
  return std::string(DTypeName(dtype)) + ShapeToString(shape);
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

namespace {

std::string ElementText(const ConstTensor& v, int64_t i) {
  if (v.dtype == DType::kBool) return v.ElementAsInt(i) ? "true" : "false";
  if (IsInteger(v.dtype)) return std::to_string(v.ElementAsInt(i));
  double x = v.ElementAsDouble(i);
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", x);
  return buf;
}

// NumPy-like nested brackets; dims longer than 6 show their first and last 3.
void Format(const ConstTensor& v, int dim, int64_t offset, std::string* out, int indent) {
  const Shape& s = v.shape;
  if (dim == s.rank()) {
    *out += ElementText(v, offset);
    return;
  }
  int64_t stride = 1;
  for (int d = dim + 1; d < s.rank(); ++d) stride *= s[d];
  int64_t n = s[dim];
  *out += "[";
  for (int64_t i = 0; i < n; ++i) {
    if (n > 6 && i == 3) {
      *out += dim + 1 == s.rank() ? "..., " : "...,\n" + std::string(indent + 1, ' ');
      i = n - 3;
    }
    Format(v, dim + 1, offset + i * stride, out, indent + 1);
    if (i + 1 < n) *out += dim + 1 == s.rank() ? ", " : ",\n" + std::string(indent + 1, ' ');
  }
  *out += "]";
}

}  // namespace

std::string Tensor::ToString() const {
  if (!impl_) return "Tensor(undefined)";
  std::string type = std::string(DTypeName(dtype()));
  if (is_symbolic()) {
    return "Tensor(" + type + SymShapeToString(impl_->sym_shape) + ", symbolic)";
  }
  std::string body;
  Format(impl_->value, 0, 0, &body, 7);
  return "Tensor(" + type + ShapeToString(shape()) + ", " + body + ")";
}

std::ostream& operator<<(std::ostream& os, const Tensor& t) { return os << t.ToString(); }

}  // namespace tfn
