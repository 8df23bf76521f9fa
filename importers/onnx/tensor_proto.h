// ONNX TensorProto <-> tfn ConstTensor, and ONNX element types <-> DType.
// Untrusted models: every size is checked before bytes are read.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "core/attrs.h"
#include "onnx/onnx_pb.h"

namespace tfn::onnx_import {

// The tfn dtype of an ONNX element type, or an error naming the type.
absl::StatusOr<DType> DTypeFromOnnx(int32_t elem_type);
int32_t OnnxFromDType(DType t);
const char* OnnxTypeName(int32_t elem_type);

// Reads a tensor's values (raw_data, typed fields, or external data found
// relative to `base_dir`).
absl::StatusOr<ConstTensor> TensorFromProto(const onnx::TensorProto& t, const std::string& base_dir);
// For a tensor with external data: the file exists and holds its byte range.
absl::Status CheckExternalData(const onnx::TensorProto& t, const std::string& base_dir);

}  // namespace tfn::onnx_import
