// JSON values to tensor elements, and checked tensor sizes (rest_tensor.h).
#include "serve/rest_tensor.h"

#include <cfloat>
#include <cmath>
#include <limits>
#include <type_traits>

#include "serve/datatype.h"

namespace tfn::serve {
namespace {

// The largest double that rounds to a finite float (2^128 - 2^103 rounds to
// infinity).
constexpr double kFloatOverflow = 0x1.ffffffp127;
// Where FP16 and BF16 round to infinity: their largest finite value plus
// half an ulp (65504 + 16; 0x1.fep127 + 2^119), a tie that goes to the even
// infinity. As for FP32, a JSON number from there on is refused rather than
// sent to the model as infinity.
constexpr double kHalfOverflow = 65520.0;
constexpr double kBFloat16Overflow = 0x1.ffp127;

// An integer element of T: `range` when `v` is an integer beyond T's range,
// `plain` when it is no integer at all.
template <class T>
const char* StoreInteger(JsonValue v, void* dst, const char* plain, const char* range) {
  if constexpr (std::is_signed_v<T>) {
    if (v.IsInt64() && v.GetInt64() >= std::numeric_limits<T>::min() &&
        v.GetInt64() <= std::numeric_limits<T>::max()) {
      *static_cast<T*>(dst) = static_cast<T>(v.GetInt64());
      return nullptr;
    }
  } else {
    if (v.IsUint64() && v.GetUint64() <= std::numeric_limits<T>::max()) {
      *static_cast<T*>(dst) = static_cast<T>(v.GetUint64());
      return nullptr;
    }
  }
  return v.IsInt64() || v.IsUint64() ? range : plain;
}

// `d` (finite, within float's range) as a float rounded to odd: truncated
// toward zero, its last bit set when that dropped anything. Rounding that
// float to nearest even in a format with at least two bits fewer (FP16's 11,
// BF16's 8 of float's 24) gives what rounding `d` itself would; going
// through the nearest float instead can round twice (1 + 2^-11 + 2^-40 would
// become the FP16 tie 1 + 2^-11, then 1 instead of 1 + 2^-10).
float RoundToOddFloat(double d) {
  float f = static_cast<float>(d);
  if (static_cast<double>(f) == d) return f;
  if (std::fabs(static_cast<double>(f)) > std::fabs(d)) f = std::nextafter(f, 0.0f);
  return BitsToFloat(FloatBits(f) | 1u);
}

// An FP16 or BF16 element (Half is Float16 or BFloat16, whose float
// constructor rounds to nearest even); NaN and the infinities stay what they
// are, as for FP32.
template <class Half>
const char* StoreHalf(JsonValue v, void* dst, double overflow, const char* plain,
                      const char* range) {
  if (!v.IsNumber()) return plain;
  double d = v.GetDouble();
  if (!std::isfinite(d)) {
    *static_cast<Half*>(dst) = Half(static_cast<float>(d));
    return nullptr;
  }
  if (std::fabs(d) >= overflow) return range;
  *static_cast<Half*>(dst) = Half(RoundToOddFloat(d));
  return nullptr;
}

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
    case DType::kInt8:
      return StoreInteger<int8_t>(v, dst, "an integer (INT8)",
                                  "an integer in INT8's range [-128, 127]");
    case DType::kInt16:
      return StoreInteger<int16_t>(v, dst, "an integer (INT16)",
                                   "an integer in INT16's range [-32768, 32767]");
    case DType::kInt32:
      return StoreInteger<int32_t>(v, dst, "an integer (INT32)",
                                   "an integer in INT32's range [-2147483648, 2147483647]");
    case DType::kInt64:
      return StoreInteger<int64_t>(
          v, dst, "an integer (INT64)",
          "an integer in INT64's range [-9223372036854775808, 9223372036854775807]");
    case DType::kUInt8:
      return StoreInteger<uint8_t>(v, dst, "an integer (UINT8)",
                                   "an integer in UINT8's range [0, 255]");
    case DType::kUInt16:
      return StoreInteger<uint16_t>(v, dst, "an integer (UINT16)",
                                    "an integer in UINT16's range [0, 65535]");
    case DType::kUInt32:
      return StoreInteger<uint32_t>(v, dst, "an integer (UINT32)",
                                    "an integer in UINT32's range [0, 4294967295]");
    case DType::kUInt64:
      return StoreInteger<uint64_t>(v, dst, "an integer (UINT64)",
                                    "an integer in UINT64's range [0, 18446744073709551615]");
    case DType::kFloat16:
      return StoreHalf<Float16>(
          v, dst, kHalfOverflow, "a number (FP16)",
          "a number in FP16's range (magnitude below 65520; the largest FP16 is 65504)");
    case DType::kBFloat16:
      return StoreHalf<BFloat16>(v, dst, kBFloat16Overflow, "a number (BF16)",
                                 "a number in BF16's range (magnitude below 3.3961775e38; the "
                                 "largest BF16 is 3.3895314e38)");
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
