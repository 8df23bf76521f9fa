// Element conversion between any two dtypes, through one wide value.
//
// A cast over 13 dtypes written as one loop per (from, to) pair would be 169
// loops in every runtime, the minimal one included. Here each dtype has one
// loader (to a WideValue) and one storer (from it): 26 pieces. A WideValue
// keeps an integer exact (int64 or uint64) and a float as double, so every
// conversion is the one a direct C++ conversion with tfn's cast semantics
// (kernels/ref/scalar_ops.h) would make: float → int truncates, saturates at
// the range and maps NaN to 0; int → int wraps modulo 2^bits; → bool is
// "!= 0"; → float16/bfloat16 rounds to nearest even (bfloat16 truncates
// when asked: ONNX's Cast does). Header-only and free of library calls, so
// the AOT bitcode can use it. One owner for element conversion: the cast and
// quantize kernels, pad's fill value and ConstTensor::ElementAs* use it.
#pragma once

#include <cstdint>
#include <limits>

#include "core/dtype.h"

namespace tfn {

struct WideValue {
  enum Kind : uint8_t { kSigned, kUnsigned, kFloat } kind;
  int64_t i;   // kSigned (bool as 0/1)
  uint64_t u;  // kUnsigned
  double f;    // kFloat
};

inline bool IsSignedInteger(DType t) {
  return t == DType::kInt8 || t == DType::kInt16 || t == DType::kInt32 || t == DType::kInt64;
}

inline WideValue LoadWide(DType t, const void* data, int64_t k) {
  WideValue w{WideValue::kFloat, 0, 0, 0.0};
  switch (t) {
    case DType::kFloat16:
      w.f = HalfBitsToFloat(static_cast<const uint16_t*>(data)[k]);
      return w;
    case DType::kBFloat16:
      w.f = BFloat16BitsToFloat(static_cast<const uint16_t*>(data)[k]);
      return w;
    case DType::kFloat32:
      w.f = static_cast<const float*>(data)[k];
      return w;
    case DType::kFloat64:
      w.f = static_cast<const double*>(data)[k];
      return w;
    default:
      break;
  }
  // Integers and bool, by size: one path instead of one per dtype (the
  // minimal runtime links this).
  const int bytes = DTypeSize(t);
  uint64_t raw = 0;  // little-endian: the element's bytes are the low ones
  __builtin_memcpy(&raw, static_cast<const char*>(data) + k * bytes, static_cast<size_t>(bytes));
  if (t == DType::kBool) raw = raw != 0;
  if (IsSignedInteger(t) || t == DType::kBool) {
    const int shift = 64 - 8 * bytes;
    w.kind = WideValue::kSigned;
    w.i = static_cast<int64_t>(raw << shift) >> shift;  // sign-extended
  } else {
    w.kind = WideValue::kUnsigned;
    w.u = raw;
  }
  return w;
}

// The value as an integer of type I: floats truncate and saturate (NaN → 0),
// integers wrap modulo 2^bits.
template <class I>
I WideToInt(const WideValue& w) {
  if (w.kind == WideValue::kFloat) {
    const double v = w.f;
    if (v != v) return 0;
    constexpr I lo = std::numeric_limits<I>::min(), hi = std::numeric_limits<I>::max();
    if (v <= static_cast<double>(lo)) return lo;
    if (v >= static_cast<double>(hi)) return hi;
    return static_cast<I>(v);
  }
  return w.kind == WideValue::kSigned ? static_cast<I>(w.i) : static_cast<I>(w.u);
}

inline double WideToDouble(const WideValue& w) {
  return w.kind == WideValue::kFloat    ? w.f
         : w.kind == WideValue::kSigned ? static_cast<double>(w.i)
                                        : static_cast<double>(w.u);
}

// float32 the way a direct conversion makes it (int64 → float rounds once,
// not through double).
inline float WideToFloat(const WideValue& w) {
  return w.kind == WideValue::kFloat    ? static_cast<float>(w.f)
         : w.kind == WideValue::kSigned ? static_cast<float>(w.i)
                                        : static_cast<float>(w.u);
}

// Stores w as element k of `data` of dtype t. bfloat16_truncate: drop the
// low 16 bits of the float32 value instead of rounding (ONNX Cast).
inline void StoreWide(DType t, void* data, int64_t k, const WideValue& w,
                      bool bfloat16_truncate = false) {
  switch (t) {
    case DType::kFloat64:
      static_cast<double*>(data)[k] = WideToDouble(w);
      return;
    case DType::kFloat32:
      static_cast<float*>(data)[k] = WideToFloat(w);
      return;
    case DType::kFloat16:
      // double → float → half rounds twice; exact for every float source, and
      // for float64 sources off by one half-ulp only in ties created by the
      // first rounding.
      static_cast<uint16_t*>(data)[k] = FloatToHalfBits(WideToFloat(w));
      return;
    case DType::kBFloat16: {
      const float f = WideToFloat(w);
      static_cast<uint16_t*>(data)[k] =
          bfloat16_truncate ? FloatToBFloat16BitsTruncated(f) : FloatToBFloat16Bits(f);
      return;
    }
    case DType::kBool:
      static_cast<bool*>(data)[k] = w.kind == WideValue::kFloat    ? w.f != 0.0
                                    : w.kind == WideValue::kSigned ? w.i != 0
                                                                   : w.u != 0;
      return;
    default:
      break;
  }
  // Integers, by size: [lo, hi] is the dtype's range; floats truncate and
  // saturate (NaN → 0), integers keep their low bits (wrap modulo 2^bits).
  const int bytes = DTypeSize(t);
  if (bytes == 0) return;
  const int bits = 8 * bytes;
  const bool is_signed = IsSignedInteger(t);
  uint64_t out;
  if (w.kind == WideValue::kFloat) {
    const uint64_t top = uint64_t{1} << (bits - 1);  // 2^(bits-1)
    const double lo = is_signed ? -static_cast<double>(top) : 0.0;
    const double end = is_signed ? static_cast<double>(top) : 2.0 * static_cast<double>(top);
    const uint64_t hi = is_signed ? top - 1 : (top - 1) * 2 + 1;
    const double v = w.f;
    out = v != v      ? 0
          : v <= lo   ? static_cast<uint64_t>(static_cast<int64_t>(lo))
          : v >= end  ? hi
          : is_signed ? static_cast<uint64_t>(static_cast<int64_t>(v))
                      : static_cast<uint64_t>(v);
  } else {
    out = w.kind == WideValue::kSigned ? static_cast<uint64_t>(w.i) : w.u;
  }
  __builtin_memcpy(static_cast<char*>(data) + k * bytes, &out, static_cast<size_t>(bytes));
}

inline WideValue WideOfDouble(double v) { return WideValue{WideValue::kFloat, 0, 0, v}; }

}  // namespace tfn
