// Names, sizes and parsing of dtypes, generated from TFN_DTYPE_LIST.
#include "core/dtype.h"

namespace tfn {

const char* DTypeName(DType t) {
  switch (t) {
#define TFN_DTYPE_NAME(e, v, T, n, k) \
  case DType::e:                      \
    return n;
    TFN_DTYPE_LIST(TFN_DTYPE_NAME)
#undef TFN_DTYPE_NAME
    default:
      return "invalid";
  }
}

DTypeKind KindOf(DType t) {
  switch (t) {
#define TFN_DTYPE_KIND(e, v, T, n, k) \
  case DType::e:                      \
    return DTypeKind::k;
    TFN_DTYPE_LIST(TFN_DTYPE_KIND)
#undef TFN_DTYPE_KIND
    default:
      return DTypeKind::kInvalid;
  }
}

bool IsValidDType(int value) {
  switch (value) {
#define TFN_DTYPE_VALID(e, v, T, n, k) case v:
    TFN_DTYPE_LIST(TFN_DTYPE_VALID)
#undef TFN_DTYPE_VALID
    return true;
    default:
      return false;
  }
}

DType ParseDType(std::string_view name) {
  struct Alias {
    const char* name;
    DType type;
  };
  static constexpr Alias kAliases[] = {
      {"bool", DType::kBool},       {"b8", DType::kBool},        {"int32", DType::kInt32},
      {"i32", DType::kInt32},       {"int64", DType::kInt64},    {"i64", DType::kInt64},
      {"f32", DType::kFloat32},     {"float32", DType::kFloat32}, {"float", DType::kFloat32},
      {"f64", DType::kFloat64},     {"float64", DType::kFloat64}, {"double", DType::kFloat64},
  };
  for (const Alias& a : kAliases) {
    if (name == a.name) return a.type;
  }
  return DType::kInvalid;
}

}  // namespace tfn
