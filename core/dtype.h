// Element types of tfn tensors.
//
// Every dtype is one row of TFN_DTYPE_LIST; the rest of this header is
// generated from it. The numeric values are stable: bundles and the AOT ABI
// store them. Values 6-13 (float16 ... uint64) arrived with bundle format
// version 3. float16 and bfloat16 are storage types computed in float32
// (core/half.h); which ops take which dtypes is the op table's decision
// (core/op_def.h type masks), and a kernel's DispatchDType lists what it
// instantiates.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

#include "core/half.h"

namespace tfn {

// X(enumerator, value, C++ storage type, printed name, kind)
// The printed name is what error messages, the text IR and specs use;
// ParseDType also accepts the aliases listed in dtype.cc.
#define TFN_DTYPE_LIST(X)                      \
  X(kBool, 1, bool, "bool", kBool)             \
  X(kInt32, 2, int32_t, "int32", kInteger)     \
  X(kInt64, 3, int64_t, "int64", kInteger)     \
  X(kFloat32, 4, float, "f32", kFloating)      \
  X(kFloat64, 5, double, "f64", kFloating)     \
  X(kFloat16, 6, Float16, "f16", kFloating)    \
  X(kBFloat16, 7, BFloat16, "bf16", kFloating) \
  X(kInt8, 8, int8_t, "int8", kInteger)        \
  X(kUInt8, 9, uint8_t, "uint8", kInteger)     \
  X(kInt16, 10, int16_t, "int16", kInteger)    \
  X(kUInt16, 11, uint16_t, "uint16", kInteger) \
  X(kUInt32, 12, uint32_t, "uint32", kInteger) \
  X(kUInt64, 13, uint64_t, "uint64", kInteger)

enum class DType : uint8_t {
  kInvalid = 0,
#define TFN_DTYPE_ENUM(e, v, T, n, k) e = v,
  TFN_DTYPE_LIST(TFN_DTYPE_ENUM)
#undef TFN_DTYPE_ENUM
};

inline constexpr int kNumDTypeValues = 14;  // one past the largest value

enum class DTypeKind : uint8_t { kInvalid, kBool, kInteger, kFloating };

// Name as printed ("f32", "int32", ...); "invalid" for kInvalid or junk.
const char* DTypeName(DType t);
// Size in bytes of one element (0 for kInvalid or junk). Inline: the
// kernels compiled to bitcode for AOT objects use it, and those may call
// nothing but libc and libm.
inline int DTypeSize(DType t) {
  switch (t) {
#define TFN_DTYPE_SIZE(e, v, T, n, k) \
  case DType::e:                      \
    return static_cast<int>(sizeof(T));
    TFN_DTYPE_LIST(TFN_DTYPE_SIZE)
#undef TFN_DTYPE_SIZE
    default:
      return 0;
  }
}
DTypeKind KindOf(DType t);
inline bool IsFloating(DType t) { return KindOf(t) == DTypeKind::kFloating; }
inline bool IsInteger(DType t) { return KindOf(t) == DTypeKind::kInteger; }
inline bool IsNumeric(DType t) { return IsFloating(t) || IsInteger(t); }
// True for the values listed in TFN_DTYPE_LIST (used to check untrusted bytes).
bool IsValidDType(int value);
// Parses the printed names and the aliases of core/dtype.cc: "f32",
// "float32", "float", "f64", "float64", "double", "f16", "float16", "half",
// "bf16", "bfloat16", "int8"/"i8" ... "uint64"/"u64", "bool". Returns
// kInvalid when unknown.
DType ParseDType(std::string_view name);

// Compile-time mapping between C++ types and dtypes.
template <class T>
struct DTypeOf;
template <DType D>
struct CTypeOf;
#define TFN_DTYPE_TRAITS(e, v, T, n, k)          \
  template <>                                    \
  struct DTypeOf<T> {                            \
    static constexpr DType value = DType::e;     \
  };                                             \
  template <>                                    \
  struct CTypeOf<DType::e> {                     \
    using type = T;                              \
  };
TFN_DTYPE_LIST(TFN_DTYPE_TRAITS)
#undef TFN_DTYPE_TRAITS
template <DType D>
using CType = typename CTypeOf<D>::type;

// Calls f(T{}) with T the storage type of `t`; returns f's result. `t` must
// be valid (callers check IsValidDType on untrusted input first).
template <class F>
decltype(auto) VisitDType(DType t, F&& f) {
  switch (t) {
#define TFN_DTYPE_CASE(e, v, T, n, k) \
  case DType::e:                      \
    return f(T{});
    TFN_DTYPE_LIST(TFN_DTYPE_CASE)
#undef TFN_DTYPE_CASE
    default:
      return f(float{});  // unreachable for valid dtypes
  }
}

}  // namespace tfn
