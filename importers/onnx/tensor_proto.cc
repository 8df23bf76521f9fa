// Implementation of TensorProto conversion.
#include "importers/onnx/tensor_proto.h"

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>

namespace tfn::onnx_import {

absl::StatusOr<DType> DTypeFromOnnx(int32_t elem_type) {
  switch (elem_type) {
    case onnx::TensorProto::FLOAT: return DType::kFloat32;
    case onnx::TensorProto::DOUBLE: return DType::kFloat64;
    case onnx::TensorProto::FLOAT16: return DType::kFloat16;
    case onnx::TensorProto::BFLOAT16: return DType::kBFloat16;
    case onnx::TensorProto::INT8: return DType::kInt8;
    case onnx::TensorProto::INT16: return DType::kInt16;
    case onnx::TensorProto::INT32: return DType::kInt32;
    case onnx::TensorProto::INT64: return DType::kInt64;
    case onnx::TensorProto::UINT8: return DType::kUInt8;
    case onnx::TensorProto::UINT16: return DType::kUInt16;
    case onnx::TensorProto::UINT32: return DType::kUInt32;
    case onnx::TensorProto::UINT64: return DType::kUInt64;
    case onnx::TensorProto::BOOL: return DType::kBool;
    default:
      return absl::UnimplementedError(
          std::string("element type ") + OnnxTypeName(elem_type) +
          " is not supported (tfn has float, double, float16, bfloat16, "
          "int8/16/32/64, uint8/16/32/64 and bool; no strings or "
          "complex numbers)");
  }
}

int32_t OnnxFromDType(DType t) {
  switch (t) {
    case DType::kFloat32: return onnx::TensorProto::FLOAT;
    case DType::kFloat64: return onnx::TensorProto::DOUBLE;
    case DType::kFloat16: return onnx::TensorProto::FLOAT16;
    case DType::kBFloat16: return onnx::TensorProto::BFLOAT16;
    case DType::kInt8: return onnx::TensorProto::INT8;
    case DType::kInt16: return onnx::TensorProto::INT16;
    case DType::kInt32: return onnx::TensorProto::INT32;
    case DType::kInt64: return onnx::TensorProto::INT64;
    case DType::kUInt8: return onnx::TensorProto::UINT8;
    case DType::kUInt16: return onnx::TensorProto::UINT16;
    case DType::kUInt32: return onnx::TensorProto::UINT32;
    case DType::kUInt64: return onnx::TensorProto::UINT64;
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

// "tensor 'w' (INT8, shape [2,3])", for messages.
std::string Describe(const onnx::TensorProto& t) {
  std::string dims;
  for (int64_t d : t.dims()) dims += (dims.empty() ? "" : ",") + std::to_string(d);
  return "tensor '" + t.name() + "' (" + OnnxTypeName(t.data_type()) + ", shape [" + dims + "])";
}

// Copies `field` (one value per element) into `data` through store(i, v),
// which returns false for a value its dtype cannot hold.
template <class Field, class Store>
absl::Status CopyField(const onnx::TensorProto& t, const Field& field, int64_t n, Store store) {
  if (static_cast<int64_t>(field.size()) != n) {
    return absl::InvalidArgumentError(Describe(t) + " holds " + std::to_string(field.size()) +
                                      " values, expected " + std::to_string(n));
  }
  for (int64_t i = 0; i < n; ++i) {
    if (!store(i, field.Get(static_cast<int>(i)))) {
      return absl::InvalidArgumentError(
          Describe(t) + " holds " + std::to_string(field.Get(static_cast<int>(i))) +
          " at element " + std::to_string(i) + ", outside the range of its type");
    }
  }
  return absl::OkStatus();
}

// int32_data holds INT32 and every narrower type, one value per element.
template <class T>
absl::Status CopyNarrowInts(const onnx::TensorProto& t, int64_t n, void* data) {
  return CopyField(t, t.int32_data(), n, [&](int64_t i, int32_t v) {
    if (v < std::numeric_limits<T>::min() || v > std::numeric_limits<T>::max()) return false;
    static_cast<T*>(data)[i] = static_cast<T>(v);
    return true;
  });
}

// FLOAT16 and BFLOAT16 are their bit patterns in int32_data (ONNX writes
// them as 0..65535; a sign-extended pattern is read as the same 16 bits).
template <class T>
absl::Status CopyHalfBits(const onnx::TensorProto& t, int64_t n, void* data) {
  return CopyField(t, t.int32_data(), n, [&](int64_t i, int32_t v) {
    if (v < -32768 || v > 65535) return false;
    static_cast<T*>(data)[i] = T::FromBits(static_cast<uint16_t>(v));
    return true;
  });
}

// The values of a tensor without raw or external data, from the typed field
// ONNX keeps its dtype in.
absl::Status ReadTypedField(const onnx::TensorProto& t, DType dtype, int64_t n, void* data) {
  auto plain = [&](const auto& field, auto tag) {
    using T = decltype(tag);
    return CopyField(t, field, n, [&](int64_t i, auto v) {
      static_cast<T*>(data)[i] = static_cast<T>(v);
      return true;
    });
  };
  switch (dtype) {
    case DType::kFloat32: return plain(t.float_data(), float{});
    case DType::kFloat64: return plain(t.double_data(), double{});
    case DType::kInt64: return plain(t.int64_data(), int64_t{});
    case DType::kInt32: return plain(t.int32_data(), int32_t{});
    case DType::kBool: return plain(t.int32_data(), bool{});
    case DType::kInt8: return CopyNarrowInts<int8_t>(t, n, data);
    case DType::kUInt8: return CopyNarrowInts<uint8_t>(t, n, data);
    case DType::kInt16: return CopyNarrowInts<int16_t>(t, n, data);
    case DType::kUInt16: return CopyNarrowInts<uint16_t>(t, n, data);
    case DType::kFloat16: return CopyHalfBits<Float16>(t, n, data);
    case DType::kBFloat16: return CopyHalfBits<BFloat16>(t, n, data);
    case DType::kUInt64: return plain(t.uint64_data(), uint64_t{});
    case DType::kUInt32:
      return CopyField(t, t.uint64_data(), n, [&](int64_t i, uint64_t v) {
        if (v > std::numeric_limits<uint32_t>::max()) return false;
        static_cast<uint32_t*>(data)[i] = static_cast<uint32_t>(v);
        return true;
      });
    default:
      return absl::UnimplementedError(Describe(t) + ": unsupported dtype " + DTypeName(dtype));
  }
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
  // Raw and external data are the elements' little-endian bytes, packed.
  auto mismatch = [&](size_t got) {
    return absl::InvalidArgumentError(Describe(t) + " holds " + std::to_string(got) +
                                      " bytes, expected " + std::to_string(bytes) + " (" +
                                      std::to_string(n) + " elements of " +
                                      std::to_string(DTypeSize(*dtype)) + ")");
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
  absl::Status s = ReadTypedField(t, *dtype, n, data);
  if (!s.ok()) return s;
  return out;
}

}  // namespace tfn::onnx_import
