// The Open Inference Protocol's tensor datatype names ("FP32", "INT64", ...)
// and tfn's dtypes: one table, used by the REST codec, the gRPC service and
// model metadata alike.
#pragma once

#include <string>
#include <string_view>

#include "core/dtype.h"

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

}  // namespace tfn::serve
