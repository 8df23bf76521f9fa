// The OIP datatype table (serving-protocols: "Datatypes and sizes in bytes").
#include "serve/datatype.h"

namespace tfn::serve {
namespace {

struct Row {
  const char* name;
  DType dtype;
};
// The datatypes tfn has; the rest of OIP's list is in kOipOnly.
constexpr Row kRows[] = {
    {"BOOL", DType::kBool},    {"INT32", DType::kInt32},  {"INT64", DType::kInt64},
    {"FP32", DType::kFloat32}, {"FP64", DType::kFloat64},
};
constexpr const char* kOipOnly[] = {"INT8",   "INT16", "UINT8", "UINT16", "UINT32",
                                    "UINT64", "FP16",  "BF16",  "BYTES"};

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

}  // namespace tfn::serve
