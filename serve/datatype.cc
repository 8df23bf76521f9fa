// The OIP datatype table (serving-protocols: "Datatypes and sizes in bytes").
#include "serve/datatype.h"

namespace tfn::serve {
namespace {

struct Row {
  const char* name;
  DType dtype;
};
// The datatypes tfn has, in the order OIP lists them (BF16, from the proto
// and Triton, last); the rest of OIP's list is in kOipOnly.
constexpr Row kRows[] = {
    {"BOOL", DType::kBool},     {"UINT8", DType::kUInt8},   {"UINT16", DType::kUInt16},
    {"UINT32", DType::kUInt32}, {"UINT64", DType::kUInt64}, {"INT8", DType::kInt8},
    {"INT16", DType::kInt16},   {"INT32", DType::kInt32},   {"INT64", DType::kInt64},
    {"FP16", DType::kFloat16},  {"FP32", DType::kFloat32},  {"FP64", DType::kFloat64},
    {"BF16", DType::kBFloat16},
};
constexpr const char* kOipOnly[] = {"BYTES"};

}  // namespace

const char* OipDatatype(DType dtype) {
  for (const Row& r : kRows) {
    if (r.dtype == dtype) return r.name;
  }
  return "";
}

DType DTypeFromOip(std::string_view name) {
  for (const Row& r : kRows) {
    if (name == r.name) return r.dtype;
  }
  return DType::kInvalid;
}

std::string DescribeUnsupported(std::string_view name) {
  std::string have;
  for (const Row& r : kRows) have += std::string(have.empty() ? "" : ", ") + r.name;
  for (const char* o : kOipOnly) {
    if (name == o) {
      return "'" + std::string(name) +
             "' is an Open Inference Protocol datatype that tfn's bundles do not have yet; "
             "this server takes " +
             have;
    }
  }
  return "'" + std::string(name) +
         "' is not an Open Inference Protocol datatype; expected one of " + have;
}

Status CheckBinaryBools(const void* bytes, int64_t count, const std::string& what) {
  const auto* b = static_cast<const unsigned char*>(bytes);
  for (int64_t i = 0; i < count; ++i) {
    if (b[i] > 1) {
      return InvalidArgument(what + ": BOOL element " + std::to_string(i) + " is the byte " +
                             std::to_string(b[i]) + "; binary BOOL elements are one byte, 0 or 1");
    }
  }
  return Status::Ok();
}

}  // namespace tfn::serve
