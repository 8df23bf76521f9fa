// The binary tensor data extension of OIP's v2 requests (rest_v2_binary.h):
// binary inputs after the JSON header, and the raw binary request.
#include "serve/rest_v2_binary.h"

#include <cstring>
#include <utility>

#include "serve/datatype.h"
#include "serve/rest_tensor.h"

namespace tfn::serve {
namespace {

constexpr const char* kRawRequest = "a raw binary request (Inference-Header-Content-Length: 0)";

// A tensor of the bytes at body[offset...]: a view that shares the body when
// they are aligned for the dtype, else an aligned copy (the runtime's
// kernels may assume aligned elements).
Result<ConstTensor> BinaryTensor(DType dtype, const Shape& shape, const BinaryRegion& region,
                                 size_t offset, const std::string& what, bool* viewed) {
  const char* bytes = region.body->data() + offset;
  int64_t n = NumElements(shape);
  if (dtype == DType::kBool) TFN_RETURN_IF_ERROR(CheckBinaryBools(bytes, n, what));
  if (reinterpret_cast<uintptr_t>(bytes) % static_cast<uintptr_t>(DTypeSize(dtype)) != 0) {
    char* dst = nullptr;
    TFN_ASSIGN_OR_RETURN(ConstTensor copy, AllocateTensor(dtype, shape, what, &dst));
    std::memcpy(dst, bytes, static_cast<size_t>(n) * static_cast<size_t>(DTypeSize(dtype)));
    return copy;
  }
  ConstTensor view;
  view.dtype = dtype;
  view.shape = shape;
  view.data = bytes;
  view.owner = region.body;
  *viewed = true;
  return view;
}

// The raw request's input shape: the signature's, its one dynamic dim (if
// any) inferred from the byte count.
Result<Shape> RawInputShape(const runtime::TensorInfo& info, uint64_t bytes) {
  std::string what = std::string(kRawRequest) + ": input " + Quote(info.name) + " (" +
                     TypeText(info.dtype, info.shape) + ")";
  Shape shape = info.shape;
  int dynamic = -1, dynamic_dims = 0;
  int64_t step = DTypeSize(info.dtype);  // bytes per unit of the dynamic dim
  if (step == 0) return Bad(what + " has a dtype this server cannot take");
  for (int i = 0; i < shape.rank(); ++i) {
    if (shape[i] < 0) {
      dynamic = i;
      ++dynamic_dims;
    } else if (__builtin_mul_overflow(step, shape[i], &step)) {
      return Bad(what + " takes more than 2^63 bytes");
    }
  }
  if (dynamic_dims > 1) {
    return Bad(what + " has " + std::to_string(dynamic_dims) +
               " dynamic dims and only one can be inferred from the byte count; send a JSON "
               "header with its shape");
  }
  if (dynamic_dims == 0) {
    if (bytes != static_cast<uint64_t>(step)) {
      return Bad(what + " takes " + std::to_string(step) + " bytes but the body has " +
                 std::to_string(bytes));
    }
    return shape;
  }
  if (step == 0) {
    return Bad(what +
               " has no elements whatever its dynamic dim, so the byte count cannot give it; "
               "send a JSON header with its shape");
  }
  if (bytes % static_cast<uint64_t>(step) != 0) {
    return Bad(what + ": the body's " + std::to_string(bytes) +
               " bytes are not a whole number of " + std::to_string(step) +
               "-byte steps of its dynamic dim");
  }
  shape[dynamic] = static_cast<int64_t>(bytes / static_cast<uint64_t>(step));
  return shape;
}

}  // namespace

Status TensorFromBinary(JsonValue size_value, DType dtype, const Shape& shape, int64_t n,
                        const std::string& what, BinaryRegion* region, ConstTensor* out) {
  if (!size_value.IsInt64() || size_value.GetInt64() < 0) {
    return Bad(what + ": parameters.binary_data_size should be a non-negative integer but is " +
               Found(size_value));
  }
  if (!region->present) {
    return Bad(what +
               " has parameters.binary_data_size but the request has no "
               "Inference-Header-Content-Length header; send the JSON's length in it");
  }
  int64_t size = size_value.GetInt64();
  int64_t expected = n * DTypeSize(dtype);  // CountElements checked the product
  if (size != expected) {
    return Bad(what + ": parameters.binary_data_size is " + std::to_string(size) + " but " +
               TypeText(dtype, shape) + " takes " + std::to_string(expected) + " bytes");
  }
  size_t left = region->size - region->used;
  if (static_cast<uint64_t>(size) > left) {
    return Bad(what + ": its " + std::to_string(size) +
               " bytes of binary data go past the end of the body (" + std::to_string(left) +
               " bytes are left after the JSON header and the binary inputs before it)");
  }
  TFN_ASSIGN_OR_RETURN(*out, BinaryTensor(dtype, shape, *region, region->begin + region->used, what,
                                          &region->viewed));
  region->used += static_cast<size_t>(size);
  return Status::Ok();
}

Status CheckHeaderLength(int64_t header_length, size_t body_size) {
  if (header_length < -1) {
    return Bad("Inference-Header-Content-Length should be a byte count but is " +
               std::to_string(header_length));
  }
  if (header_length >= 0 && static_cast<uint64_t>(header_length) > body_size) {
    return Bad("Inference-Header-Content-Length is " + std::to_string(header_length) +
               " but the body has only " + std::to_string(body_size) + " bytes");
  }
  return Status::Ok();
}

Result<V2InferRequest> ParseRawRequest(const std::shared_ptr<const std::string>& body,
                                       const runtime::SignatureInfo* signature) {
  if (signature == nullptr) {
    return Bad(std::string(kRawRequest) +
               " needs the model's signature to name and type its input; send a JSON request");
  }
  if (signature->inputs.size() != 1) {
    return Bad(std::string(kRawRequest) + " carries one input, but signature " +
               Quote(signature->name) + " takes " + std::to_string(signature->inputs.size()) +
               "; send a JSON header that names each input");
  }
  const runtime::TensorInfo& info = signature->inputs[0];
  TFN_ASSIGN_OR_RETURN(Shape shape, RawInputShape(info, body->size()));
  BinaryRegion region;
  region.body = body;
  V2InferRequest out;
  InferInput input;
  input.name = info.name;
  TFN_ASSIGN_OR_RETURN(input.tensor, BinaryTensor(info.dtype, shape, region, 0,
                                                  "input " + Quote(info.name), &region.viewed));
  out.request.signature = signature->name;
  out.request.inputs.push_back(std::move(input));
  out.request.keepalive = body;
  out.binary_data_output = true;  // Triton answers a raw request in binary
  return out;
}

}  // namespace tfn::serve
