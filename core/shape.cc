// Concrete-shape helpers: element counts with overflow checks, printing, matching.
#include "core/shape.h"

#include "core/dtype.h"

namespace tfn {

bool CheckedNumElements(const Shape& shape, int64_t* out) {
  int64_t n = 1;  // the product of the nonzero dims: an empty tensor's strides must fit too
  bool empty = false;
  for (int64_t d : shape) {
    if (d < 0) return false;
    if (d == 0) {
      empty = true;
    } else if (__builtin_mul_overflow(n, d, &n)) {
      return false;
    }
  }
  *out = empty ? 0 : n;
  return true;
}

int64_t NumElements(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

std::string ShapeToString(const Shape& shape) {
  std::string s = "[";
  for (int i = 0; i < shape.rank(); ++i) {
    if (i) s += ",";
    s += shape[i] < 0 ? std::string("?") : std::to_string(shape[i]);
  }
  return s + "]";
}

std::string TypeToString(int dtype_value, const Shape& shape) {
  return std::string(DTypeName(static_cast<DType>(dtype_value))) + ShapeToString(shape);
}

bool IsFullyDefined(const Shape& shape) {
  for (int64_t d : shape) {
    if (d < 0) return false;
  }
  return true;
}

bool ShapeMatches(const Shape& pattern, const Shape& concrete) {
  if (pattern.rank() != concrete.rank()) return false;
  for (int i = 0; i < pattern.rank(); ++i) {
    if (pattern[i] >= 0 && pattern[i] != concrete[i]) return false;
  }
  return true;
}

bool NormalizeAxis(int64_t axis, int rank, int* out) {
  if (axis < -rank || axis >= rank) return false;
  *out = static_cast<int>(axis < 0 ? axis + rank : axis);
  return true;
}

}  // namespace tfn
