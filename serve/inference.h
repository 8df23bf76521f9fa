// The protocol-neutral form of an inference call: what the REST codec and
// the gRPC service decode into and encode from, and what a model version
// runs (model_repository.h). Nothing here knows JSON, HTTP or protobuf.
//
// Ownership: an InferRequest's input tensors either own their bytes
// (decoded JSON) or view the request body (binary data, gRPC raw contents);
// `keepalive` then owns that body, so a request can be queued for a batch
// and outlive the handler's buffers only while it holds it.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tfn/runtime.h"

namespace tfn::serve {

struct InferInput {
  std::string name;
  runtime::Tensor tensor;
};

struct InferRequest {
  std::string model;
  std::string version;    // "" = the newest loaded version
  std::string id;         // echoed in the response
  std::string signature;  // "" = the model's default signature
  std::vector<InferInput> inputs;
  std::vector<std::string> outputs;       // empty = every output, in signature order
  std::shared_ptr<const void> keepalive;  // owns what input views point into
};

struct InferOutput {
  std::string name;
  runtime::Tensor tensor;  // owns its bytes
};

struct InferResponse {
  std::string model;
  std::string version;
  std::string id;
  std::vector<InferOutput> outputs;
};

// One tensor of model metadata: shape has -1 for a dynamic dim.
struct TensorMetadata {
  std::string name;
  std::string datatype;  // OIP name (datatype.h)
  std::vector<int64_t> shape;
};

struct SignatureMetadata {
  std::string name;
  std::vector<TensorMetadata> inputs;
  std::vector<TensorMetadata> outputs;
};

// What OIP's model metadata reports; inputs/outputs are the default
// signature's, `signatures` has every signature (the default first).
struct ModelMetadata {
  std::string name;
  std::vector<std::string> versions;  // loaded versions, ascending
  std::string platform = "tfn";
  std::vector<TensorMetadata> inputs;
  std::vector<TensorMetadata> outputs;
  std::vector<SignatureMetadata> signatures;
};

// The status of one version, as TF Serving's GetModelStatus reports it.
struct VersionStatus {
  int64_t version = 0;
  std::string state;  // "LOADING", "AVAILABLE", "UNLOADING", "END"
  std::string error;  // why a load failed ("" when none)
};

// How a tfn::Status maps onto the protocols: kInvalidArgument/kOutOfRange
// -> 400 / INVALID_ARGUMENT, kNotFound -> 404 / NOT_FOUND,
// kResourceExhausted (queue full) and kFailedPrecondition (not ready,
// shutting down) -> 503 / UNAVAILABLE, kUnimplemented -> 501 /
// UNIMPLEMENTED, anything else -> 500 / INTERNAL.
int HttpStatusOf(const Status& status);
// grpc::StatusCode values, as ints so this header needs no gRPC.
int GrpcCodeOf(const Status& status);

}  // namespace tfn::serve
