// JSON values to tensor elements, and checked tensor sizes (rest_tensor.h).
#include "serve/rest_tensor.h"

#include <cfloat>
#include <cmath>

#include "serve/datatype.h"

namespace tfn::serve {
namespace {

// The largest double that rounds to a finite float (2^128 - 2^103 rounds to
// infinity).
constexpr double kFloatOverflow = 0x1.ffffffp127;

}  // namespace

std::string TypeText(DType dtype, const Shape& shape) {
  return std::string(OipDatatype(dtype)) + " " + ShapeToString(shape);
}

bool IsB64(JsonValue v) { return v.IsObject() && v.Member("b64"); }

Status B64Error(const std::string& what) {
  return Bad(what +
             ": {\"b64\": ...} values carry bytes, and tfn has no bytes dtype; send numbers");
}

const char* StoreElement(JsonValue v, DType dtype, void* dst) {
  switch (dtype) {
    case DType::kBool:
      if (!v.IsBool()) return "true or false (BOOL)";
      *static_cast<bool*>(dst) = v.GetBool();
      return nullptr;
    case DType::kInt32:
      if (!v.IsInt()) {
        return v.IsInt64() || v.IsUint64() ? "an integer in INT32's range [-2147483648, 2147483647]"
                                           : "an integer (INT32)";
      }
      *static_cast<int32_t*>(dst) = static_cast<int32_t>(v.GetInt64());
      return nullptr;
    case DType::kInt64:
      if (!v.IsInt64()) {
        return v.IsUint64()
                   ? "an integer in INT64's range [-9223372036854775808, 9223372036854775807]"
                   : "an integer (INT64)";
      }
      *static_cast<int64_t*>(dst) = v.GetInt64();
      return nullptr;
    case DType::kFloat32: {
      if (!v.IsNumber()) return "a number (FP32)";
      double d = v.GetDouble();
      if (std::isfinite(d) && std::fabs(d) > FLT_MAX) {
        if (std::fabs(d) >= kFloatOverflow) {
          return "a number in FP32's range (magnitude below 3.4028235e38)";
        }
        d = std::copysign(FLT_MAX, d);  // what rounding gives; the cast would be undefined
      }
      *static_cast<float*>(dst) = static_cast<float>(d);
      return nullptr;
    }
    case DType::kFloat64:
      if (!v.IsNumber()) return "a number (FP64)";
      *static_cast<double*>(dst) = v.GetDouble();
      return nullptr;
    default:
      return "a value of a datatype this server takes";
  }
}

Status ElementError(const std::string& what, int64_t index, const char* expected, JsonValue v) {
  if (IsB64(v)) return B64Error(what);
  return Bad(what + ": element " + std::to_string(index) + " should be " + expected + " but is " +
             Found(v));
}

Result<ConstTensor> AllocateTensor(DType dtype, const Shape& shape, const std::string& what,
                                   char** dst) {
  void* data = nullptr;
  ConstTensor t = ConstTensor::Allocate(dtype, shape, &data);
  if (data == nullptr) {
    return ResourceExhausted(what + ": out of memory for " + TypeText(dtype, shape));
  }
  *dst = static_cast<char*>(data);
  return t;
}

Status CountElements(const Shape& shape, DType dtype, const std::string& what, int64_t* n) {
  if (!CheckedNumElements(shape, n)) {
    return Bad(what + ": shape " + ShapeToString(shape) + " holds more than 2^63 elements");
  }
  int64_t bytes = 0;
  if (__builtin_mul_overflow(*n, static_cast<int64_t>(DTypeSize(dtype)), &bytes)) {
    return Bad(what + ": " + TypeText(dtype, shape) + " takes more than 2^63 bytes");
  }
  return Status::Ok();
}

}  // namespace tfn::serve
