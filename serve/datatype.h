// The Open Inference Protocol's tensor datatype names ("FP32", "INT64", ...)
// and tfn's dtypes: one table, used by the REST codec, the gRPC service and
// model metadata alike.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/dtype.h"
#include "core/status.h"

namespace tfn::serve {

// "FP32" for kFloat32 and so on; "" for a dtype OIP has no name for.
const char* OipDatatype(DType dtype);

// kInvalid when `name` is not an OIP datatype tfn has (BYTES, which OIP
// defines and tfn has no dtype for yet, is kInvalid too: DescribeUnsupported
// says which).
DType DTypeFromOip(std::string_view name);

// For an error message: why `name` cannot be served ("'BYTES' is an OIP
// datatype that tfn does not have yet; this server takes BOOL, UINT8, ...",
// or "'F32' is not an OIP datatype; ...").
std::string DescribeUnsupported(std::string_view name);

// Binary BOOL elements (REST's binary extension, gRPC's raw contents) are one
// byte each, 0 or 1: any other byte is an InvalidArgument naming `what`, the
// element and the byte (a bool holding another byte is undefined in C++).
Status CheckBinaryBools(const void* bytes, int64_t count, const std::string& what);

}  // namespace tfn::serve
