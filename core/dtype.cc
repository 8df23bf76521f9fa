// Names, sizes and parsing of dtypes, generated from TFN_DTYPE_LIST.
#include "core/dtype.h"

namespace tfn {

namespace {

// Indexed by dtype value (0 and gaps: invalid), generated from the list.
struct Row {
  const char* name;
  DTypeKind kind;
};
constexpr Row MakeRow(int value) {
#define TFN_DTYPE_ROW(e, v, T, n, k) \
  if (value == v) return Row{n, DTypeKind::k};
  TFN_DTYPE_LIST(TFN_DTYPE_ROW)
#undef TFN_DTYPE_ROW
  return Row{"invalid", DTypeKind::kInvalid};
}
constexpr Row kRows[kNumDTypeValues] = {
    MakeRow(0), MakeRow(1), MakeRow(2), MakeRow(3),  MakeRow(4),  MakeRow(5),  MakeRow(6),
    MakeRow(7), MakeRow(8), MakeRow(9), MakeRow(10), MakeRow(11), MakeRow(12), MakeRow(13)};
static_assert(kNumDTypeValues == 14, "add the new values to kRows");

const Row& RowOf(int value) { return kRows[value >= 0 && value < kNumDTypeValues ? value : 0]; }

}  // namespace

const char* DTypeName(DType t) { return RowOf(static_cast<int>(t)).name; }

DTypeKind KindOf(DType t) { return RowOf(static_cast<int>(t)).kind; }

bool IsValidDType(int value) { return RowOf(value).kind != DTypeKind::kInvalid; }

DType ParseDType(std::string_view name) {
  struct Alias {
    const char* name;
    DType type;
  };
  static constexpr Alias kAliases[] = {
      {"bool", DType::kBool},     {"b8", DType::kBool},           {"int32", DType::kInt32},
      {"i32", DType::kInt32},     {"int64", DType::kInt64},       {"i64", DType::kInt64},
      {"f32", DType::kFloat32},   {"float32", DType::kFloat32},   {"float", DType::kFloat32},
      {"f64", DType::kFloat64},   {"float64", DType::kFloat64},   {"double", DType::kFloat64},
      {"f16", DType::kFloat16},   {"float16", DType::kFloat16},   {"half", DType::kFloat16},
      {"bf16", DType::kBFloat16}, {"bfloat16", DType::kBFloat16}, {"int8", DType::kInt8},
      {"i8", DType::kInt8},       {"uint8", DType::kUInt8},       {"u8", DType::kUInt8},
      {"int16", DType::kInt16},   {"i16", DType::kInt16},         {"uint16", DType::kUInt16},
      {"u16", DType::kUInt16},    {"uint32", DType::kUInt32},     {"u32", DType::kUInt32},
      {"uint64", DType::kUInt64}, {"u64", DType::kUInt64},
  };
  for (const Alias& a : kAliases) {
    if (name == a.name) return a.type;
  }
  return DType::kInvalid;
}

}  // namespace tfn
