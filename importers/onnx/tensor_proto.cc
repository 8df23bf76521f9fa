// Implementation of TensorProto conversion.
#include "importers/onnx/tensor_proto.h"

#include <cstdlib>
#include <cstring>
#include <fstream>

namespace tfn::onnx_import {

absl::StatusOr<DType> DTypeFromOnnx(int32_t elem_type) {
  switch (elem_type) {
    case onnx::TensorProto::FLOAT: return DType::kFloat32;
    case onnx::TensorProto::DOUBLE: return DType::kFloat64;
    case onnx::TensorProto::INT32: return DType::kInt32;
    case onnx::TensorProto::INT64: return DType::kInt64;
    case onnx::TensorProto::BOOL: return DType::kBool;
    default:
      return absl::UnimplementedError(std::string("element type ") + OnnxTypeName(elem_type) +
                                      " is not supported (tfn has float, double, int32, int64, bool)");
  }
}

int32_t OnnxFromDType(DType t) {
  switch (t) {
    case DType::kFloat32: return onnx::TensorProto::FLOAT;
    case DType::kFloat64: return onnx::TensorProto::DOUBLE;
    case DType::kInt32: return onnx::TensorProto::INT32;
    case DType::kInt64: return onnx::TensorProto::INT64;
    case DType::kBool: return onnx::TensorProto::BOOL;
    default: return onnx::TensorProto::UNDEFINED;
  }
}

const char* OnnxTypeName(int32_t elem_type) {
  if (onnx::TensorProto_DataType_IsValid(elem_type)) {
    return onnx::TensorProto_DataType_Name(static_cast<onnx::TensorProto_DataType>(elem_type)).c_str();
  }
  return "UNKNOWN";
}

namespace {

// The file and byte range of a tensor's external data, checked against the
// file's size.
absl::Status LocateExternal(const onnx::TensorProto& t, const std::string& base_dir, std::ifstream* in,
                            int64_t* offset, int64_t* length) {
  std::string location;
  *offset = 0;
  *length = -1;
  for (const onnx::StringStringEntryProto& kv : t.external_data()) {
    if (kv.key() == "location") location = kv.value();
    if (kv.key() == "offset") *offset = std::strtoll(kv.value().c_str(), nullptr, 10);
    if (kv.key() == "length") *length = std::strtoll(kv.value().c_str(), nullptr, 10);
  }
  if (location.empty() || location.find("..") != std::string::npos || location[0] == '/') {
    return absl::InvalidArgumentError("tensor '" + t.name() + "' has external data with a bad location '" +
                                      location + "'");
  }
  std::string path = base_dir + "/" + location;
  in->open(path, std::ios::binary);
  if (!*in) {
    return absl::NotFoundError("the external data file '" + location + "' of tensor '" + t.name() +
                               "' is missing (looked for " + path + "; keep it next to the .onnx file)");
  }
  in->seekg(0, std::ios::end);
  int64_t size = in->tellg();
  if (*offset < 0 || *offset > size || (*length >= 0 && *length > size - *offset)) {
    return absl::DataLossError("the external data of tensor '" + t.name() + "' lies outside " + path +
                               " (" + std::to_string(size) + " bytes)");
  }
  if (*length < 0) *length = size - *offset;
  return absl::OkStatus();
}

absl::Status ReadExternal(const onnx::TensorProto& t, const std::string& base_dir, std::string* bytes) {
  std::ifstream in;
  int64_t offset = 0, length = 0;
  absl::Status s = LocateExternal(t, base_dir, &in, &offset, &length);
  if (!s.ok()) return s;
  bytes->resize(static_cast<size_t>(length));
  in.seekg(offset);
  in.read(bytes->data(), length);
  if (!in) return absl::DataLossError("cannot read the external data of tensor '" + t.name() + "'");
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckExternalData(const onnx::TensorProto& t, const std::string& base_dir) {
  if (t.data_location() != onnx::TensorProto::EXTERNAL) return absl::OkStatus();
  std::ifstream in;
  int64_t offset = 0, length = 0;
  return LocateExternal(t, base_dir, &in, &offset, &length);
}

absl::StatusOr<ConstTensor> TensorFromProto(const onnx::TensorProto& t, const std::string& base_dir) {
  absl::StatusOr<DType> dtype = DTypeFromOnnx(t.data_type());
  if (!dtype.ok()) return absl::Status(dtype.status().code(), "tensor '" + t.name() + "': " + std::string(dtype.status().message()));
  Shape shape;
  for (int64_t d : t.dims()) {
    if (d < 0 || shape.rank() >= kMaxRank) return absl::InvalidArgumentError("tensor '" + t.name() + "' has a bad shape");
    shape.push_back(d);
  }
  int64_t n = 0;
  if (!CheckedNumElements(shape, &n) || n > (int64_t{1} << 40)) {
    return absl::InvalidArgumentError("tensor '" + t.name() + "' is too large");
  }
  void* data = nullptr;
  ConstTensor out = ConstTensor::Allocate(*dtype, shape, &data);
  if (!data && n > 0) return absl::ResourceExhaustedError("out of memory for tensor '" + t.name() + "'");
  size_t bytes = static_cast<size_t>(n) * static_cast<size_t>(DTypeSize(*dtype));
  auto mismatch = [&](size_t got) {
    return absl::InvalidArgumentError("tensor '" + t.name() + "' of shape " + ShapeToString(shape) + " holds " +
                                      std::to_string(got) + " values/bytes, expected " + std::to_string(n));
  };
  if (t.data_location() == onnx::TensorProto::EXTERNAL) {
    std::string raw;
    absl::Status s = ReadExternal(t, base_dir, &raw);
    if (!s.ok()) return s;
    if (raw.size() != bytes) return mismatch(raw.size());
    if (bytes) std::memcpy(data, raw.data(), bytes);
    return out;
  }
  if (t.has_raw_data()) {
    if (t.raw_data().size() != bytes) return mismatch(t.raw_data().size());
    if (bytes) std::memcpy(data, t.raw_data().data(), bytes);
    return out;
  }
  auto copy = [&](const auto& field, auto convert) -> absl::Status {
    if (static_cast<int64_t>(field.size()) != n) return mismatch(field.size());
    for (int64_t i = 0; i < n; ++i) convert(i, field.Get(static_cast<int>(i)));
    return absl::OkStatus();
  };
  switch (*dtype) {
    case DType::kFloat32:
      return copy(t.float_data(), [&](int64_t i, float v) { static_cast<float*>(data)[i] = v; }).ok()
                 ? absl::StatusOr<ConstTensor>(out) : mismatch(t.float_data().size());
    case DType::kFloat64:
      return copy(t.double_data(), [&](int64_t i, double v) { static_cast<double*>(data)[i] = v; }).ok()
                 ? absl::StatusOr<ConstTensor>(out) : mismatch(t.double_data().size());
    case DType::kInt64:
      return copy(t.int64_data(), [&](int64_t i, int64_t v) { static_cast<int64_t*>(data)[i] = v; }).ok()
                 ? absl::StatusOr<ConstTensor>(out) : mismatch(t.int64_data().size());
    case DType::kInt32:
      return copy(t.int32_data(), [&](int64_t i, int32_t v) { static_cast<int32_t*>(data)[i] = v; }).ok()
                 ? absl::StatusOr<ConstTensor>(out) : mismatch(t.int32_data().size());
    case DType::kBool:
      return copy(t.int32_data(), [&](int64_t i, int32_t v) { static_cast<bool*>(data)[i] = v != 0; }).ok()
                 ? absl::StatusOr<ConstTensor>(out) : mismatch(t.int32_data().size());
    default: return absl::UnimplementedError("unsupported tensor dtype");
  }
}

}  // namespace tfn::onnx_import
