// TensorSpec: the type of a tensor argument (a static shape with kDynamic
// for unknown dims, a dtype, an optional name), and its text form
// "f32[?,784]" as written on command lines.
#pragma once

#include <string>

#include "core/dtype.h"
#include "core/shape.h"
#include "core/status.h"

namespace tfn {

struct TensorSpec {
  Shape shape;
  DType dtype = DType::kFloat32;
  std::string name;

  TensorSpec() = default;
  TensorSpec(Shape shape, DType dtype, std::string name = "")
      : shape(shape), dtype(dtype), name(std::move(name)) {}
  // True when a tensor of this dtype and shape fits the spec.
  bool Accepts(DType d, const Shape& s) const { return d == dtype && ShapeMatches(shape, s); }
  std::string ToString() const;  // "f32[?,3]"
  friend bool operator==(const TensorSpec& a, const TensorSpec& b) {
    return a.shape == b.shape && a.dtype == b.dtype && a.name == b.name;
  }
};

// Parses "f32[?,784]" (also "float32[...]", "int64[2,3]", "bool[]"; "?",
// "-1" and "None" for unknown dims).
Result<TensorSpec> ParseTensorSpecText(const std::string& text);

}  // namespace tfn
