// OIP's binary tensor data extension, for the v2 request parser (rest_v2.cc):
// inputs whose bytes follow the JSON header (Inference-Header-Content-Length,
// parameters.binary_data_size), and Triton's raw binary request (a header
// length of 0: the body is the one input's bytes). Internal to the codec.
//
// Ownership: binary inputs view the body where their bytes are aligned for
// their dtype (the tensor's owner then shares it), else they are copies.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "serve/json_reader.h"
#include "serve/rest_codec.h"

namespace tfn::serve {

// The bytes after the JSON header, consumed by the binary inputs in order.
struct BinaryRegion {
  std::shared_ptr<const std::string> body;
  bool present = false;  // an Inference-Header-Content-Length was given
  size_t begin = 0;      // offset of the binary data in *body
  size_t size = 0;
  size_t used = 0;
  bool viewed = false;  // some input views the body
};

// An input of `dtype` and `shape` (n elements; CountElements checked its
// byte size) whose parameters.binary_data_size is `size_value`: its bytes
// are the next ones of *region.
Status TensorFromBinary(JsonValue size_value, DType dtype, const Shape& shape, int64_t n,
                        const std::string& what, BinaryRegion* region, ConstTensor* out);

// The Inference-Header-Content-Length value (-1: absent) against the body.
Status CheckHeaderLength(int64_t header_length, size_t body_size);

// A raw binary request: the body is the bytes of `signature`'s one input.
Result<V2InferRequest> ParseRawRequest(const std::shared_ptr<const std::string>& body,
                                       const runtime::SignatureInfo* signature);

}  // namespace tfn::serve
