// What the REST codec's v1 (TF Serving) and v2 (OIP) halves share: JSON
// values stored as tensor elements, tensors allocated with checked sizes,
// the words of their errors, and tensor elements visited for writing.
// Internal to the codec (rest_codec.h is its API).
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include "serve/json_reader.h"
#include "serve/rest_codec.h"

namespace tfn::serve {

// Binary tensor data is little-endian; tensors are copied to and from it as
// they are in memory.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "the REST codec assumes a little-endian host");

// Every error of a body the client sent.
inline Status Bad(std::string message) { return InvalidArgument(std::move(message)); }

// "FP32 [2,3]".
std::string TypeText(DType dtype, const Shape& shape);

// TF Serving's {"b64": ...} bytes, which tfn has no dtype for.
bool IsB64(JsonValue v);
Status B64Error(const std::string& what);

// Stores `v` as an element of `dtype` at `dst`; returns null when it fits,
// else what was expected ("an integer (INT32)", "an integer in UINT8's range
// [0, 255]").
const char* StoreElement(JsonValue v, DType dtype, void* dst);
// The error for element `index` of `what` that StoreElement refused.
Status ElementError(const std::string& what, int64_t index, const char* expected, JsonValue v);

// A new tensor; *dst is its bytes. kResourceExhausted when memory runs out.
Result<ConstTensor> AllocateTensor(DType dtype, const Shape& shape, const std::string& what,
                                   char** dst);
// The element count of `shape` and, checked too, its byte size.
Status CountElements(const Shape& shape, DType dtype, const std::string& what, int64_t* n);

// Calls f(data as const T*) for the tensor's element type; nothing for an
// invalid dtype (no bytes to read as anything).
template <class F>
void VisitData(const ConstTensor& t, F&& f) {
  if (!IsValidDType(static_cast<int>(t.dtype))) return;
  VisitDType(t.dtype, [&](auto tag) { f(t.as<decltype(tag)>()); });
}

}  // namespace tfn::serve
