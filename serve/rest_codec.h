// The REST bodies of tfn-serve: the Open Inference Protocol (KServe v2) with
// its binary tensor data extension, and TF Serving's v1 predict and model
// status. Parses request bodies into inference.h's types and encodes
// responses from them; knows nothing of HTTP beyond the body and the
// Inference-Header-Content-Length value the caller hands over.
//
// Everything parsed comes from the network: every error is a Status with
// kInvalidArgument (kResourceExhausted only when memory runs out) and a
// one-line message that names the input, says what was expected and what
// was found. The JSON part of a body may be at most kMaxJsonBytes.
//
// Thread-safety: every function here is pure (no state, no globals) and may
// be called from any thread at once.
// Ownership: parsed JSON values are copied into tensors that own them;
// binary inputs are views of the body (see ParseV2InferRequest).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "serve/inference.h"

namespace tfn::serve {

// Bigger JSON is refused before parsing: it bounds the parser's memory and
// keeps RapidJSON's number scanner clear of int overflow.
inline constexpr size_t kMaxJsonBytes = size_t{128} << 20;

// A v2 infer request as REST sends it: the request, and how to encode the
// outputs.
struct V2InferRequest {
  InferRequest request;  // model/version are NOT set by the parser (they come from the URL)
  bool binary_data_output = false;             // request-level parameter "binary_data_output"
  std::map<std::string, bool> binary_outputs;  // per requested output: parameters.binary_data
};

// `body`: the whole HTTP body. `header_length`: the
// Inference-Header-Content-Length header's value, or -1 when absent (then
// the whole body is JSON). 0 is Triton's "raw binary request": the body is
// the bytes of the single input with no JSON; it needs `signature` (may be
// null otherwise) with exactly one input, whose name and dtype it takes,
// and at most one dynamic dim, inferred from the byte count; every output
// is then asked for in binary, and request.signature is that signature's
// name (a JSON request names its own in parameters.signature_name).
//
// Binary inputs (parameters.binary_data_size, and the raw request's) view
// *body where their bytes are aligned for their dtype (else they are copied
// into an aligned tensor); such a view's `owner` shares the body, and
// request.keepalive is the body when any input views it (a request whose
// inputs are all copies does not hold its body). Binary BOOL bytes must be
// 0 or 1.
// JSON numbers: NaN, Infinity and -Infinity tokens are accepted. Integers
// must be JSON integers in their datatype's range; FP16 and BF16 round to
// nearest even (once: not through FP32), and, as FP32, refuse a number that
// would round to infinity.
Result<V2InferRequest> ParseV2InferRequest(std::shared_ptr<const std::string> body,
                                           int64_t header_length,
                                           const runtime::SignatureInfo* signature);

// An encoded response body. When some output is binary, `body` is the JSON
// followed by the outputs' bytes, header_length is the JSON's size (the
// caller sends it as Inference-Header-Content-Length) and content_type is
// "application/octet-stream"; otherwise header_length is -1 and
// content_type "application/json".
struct EncodedBody {
  std::string body;
  std::string content_type;
  int64_t header_length = -1;
};

// The v2 response. An output goes in binary when the request asked for it
// (its parameters.binary_data, else binary_data_output): raw little-endian
// row-major bytes after the JSON, in output order, with
// "parameters":{"binary_data_size":N} and no "data" in its JSON entry.
// JSON data is flat and row-major; FP32 is written with the digits that
// round-trip it, FP16 and BF16 with those of the float they are (which
// round-trip them too), NaN and infinities as the tokens NaN, Infinity,
// -Infinity.
EncodedBody EncodeV2InferResponse(const InferResponse& response, const V2InferRequest& how);

// {"name":...,"version":...,"extensions":[...]}
std::string EncodeServerMetadata(const std::string& name, const std::string& version,
                                 const std::vector<std::string>& extensions);
// OIP's model metadata ({"name","versions","platform","inputs","outputs"})
// plus "signatures": [{"name","inputs","outputs"}, ...], the default first.
std::string EncodeModelMetadata(const ModelMetadata& metadata);
// OIP's model-ready body: {"name":...,"ready":...}.
std::string EncodeModelReady(const std::string& name, bool ready);
// {"error":"..."}; bytes that are not UTF-8 are replaced by '?'.
std::string EncodeError(const std::string& message);

// Resolves TF Serving's "signature_name" ("" when the body has none: the
// default signature) to a signature; an error (e.g. kNotFound listing the
// model's signatures) is returned as it is.
using SignatureLookup =
    std::function<Result<const runtime::SignatureInfo*>(const std::string& signature_name)>;

// TF Serving's predict: {"signature_name"?, "instances": ...} (row format)
// or {"signature_name"?, "inputs": ...} (columnar), not both. Types and
// names come from the signature (JSON numbers carry no type). Row format: a
// list with one entry per instance, each an object name -> value (or, with
// one input, the bare value); the instances are stacked along a new dim 0
// and must all have the same shape. Columnar: the tensor itself (one
// input) or an object name -> tensor. Every input of the signature must be
// given. {"b64": ...} values are refused (tfn has no bytes dtype). NaN and
// Infinity tokens are accepted. request.signature is the signature's name;
// *columnar (may be null) says which format the body used.
//
// The body's signature_name is only known after parsing, so the server
// passes a lookup (e.g. ModelVersion::FindSignature with an error message).
Result<InferRequest> ParseV1PredictRequest(std::shared_ptr<const std::string> body,
                                           const SignatureLookup& find_signature, bool* columnar);
// The same with the signature given: the body's signature_name must be
// absent or name it.
Result<InferRequest> ParseV1PredictRequest(std::shared_ptr<const std::string> body,
                                           const runtime::SignatureInfo& signature, bool* columnar);

// TF Serving's predict response, tensors as nested JSON arrays of their
// shape. Row format ({"predictions": [...]}, one entry per dim-0 row: the
// row itself with one output, an object name -> row with several) needs
// every output to have rank >= 1 and the same dim 0, else kInvalidArgument
// (send the request in columnar format). Columnar: {"outputs": tensor} with
// one output, {"outputs": {name: tensor, ...}} with several.
Result<std::string> EncodeV1PredictResponse(const InferResponse& response, bool columnar);

// TF Serving's GetModelStatus JSON:
// {"model_version_status":[{"version":"3","state":"AVAILABLE",
//   "status":{"error_code":"OK","error_message":""}}]};
// a version with an error has error_code "UNKNOWN" and the error as message.
std::string EncodeV1ModelStatus(const std::vector<VersionStatus>& versions);

}  // namespace tfn::serve
