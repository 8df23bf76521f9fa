// libFuzzer target: HTTP bodies through every parser of tfn-serve's REST
// codec (serve/rest_codec.h), as the HTTP front end hands them over.
//
// Byte 0 picks the parser (low 2 bits: v2 JSON, v2 with an
// Inference-Header-Content-Length taken from bytes 1-2, v2 raw binary, v1
// predict) and a signature for those that need one (the other bits); the
// rest is the body. What parses is echoed as a response (its inputs as
// outputs) through the matching encoder, and that response, renamed into a
// request, must parse back to the same tensors. Every error must be one
// line, and its {"error": ...} body valid JSON.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "serve/datatype.h"
#include "serve/json_reader.h"
#include "serve/rest_codec.h"

namespace {

using tfn::DType;
using tfn::kDynamic;
using tfn::Shape;
namespace serve = tfn::serve;
namespace runtime = tfn::runtime;

runtime::TensorInfo Info(const char* name, DType dtype, Shape shape) {
  runtime::TensorInfo info;
  info.name = name;
  info.dtype = dtype;
  info.shape = shape;
  return info;
}

// Signatures of every dtype, one and several inputs, static and dynamic dims.
const std::vector<runtime::SignatureInfo>& Signatures() {
  static const std::vector<runtime::SignatureInfo> sigs = [] {
    std::vector<runtime::SignatureInfo> s(11);
    s[0].name = "serving_default";
    s[0].inputs = {Info("x", DType::kFloat32, {kDynamic, 3})};
    s[1].name = "flags";
    s[1].inputs = {Info("b", DType::kBool, {kDynamic})};
    s[2].name = "ids";
    s[2].inputs = {Info("i", DType::kInt32, {2, 2})};
    s[3].name = "pair";
    s[3].inputs = {Info("a", DType::kInt64, {kDynamic}), Info("b", DType::kBool, {kDynamic, 2})};
    s[4].name = "wide";
    s[4].inputs = {Info("d", DType::kFloat64, {kDynamic, kDynamic})};
    s[5].name = "empty";
    s[5].inputs = {Info("e", DType::kFloat32, {kDynamic, 0})};
    s[6].name = "image";
    s[6].inputs = {Info("p", DType::kUInt8, {kDynamic, 2, 3})};
    s[7].name = "halves";
    s[7].inputs = {Info("h", DType::kFloat16, {kDynamic}), Info("g", DType::kBFloat16, {kDynamic})};
    s[8].name = "small";
    s[8].inputs = {Info("c", DType::kInt8, {kDynamic}), Info("s", DType::kInt16, {kDynamic}),
                   Info("w", DType::kUInt16, {kDynamic})};
    s[9].name = "unsigned";
    s[9].inputs = {Info("u", DType::kUInt32, {kDynamic}), Info("q", DType::kUInt64, {kDynamic})};
    s[10].name = "bf16";
    s[10].inputs = {Info("g", DType::kBFloat16, {2, kDynamic})};
    return s;
  }();
  return sigs;
}

[[noreturn]] void Fail() { __builtin_trap(); }

std::shared_ptr<const std::string> Body(std::string text) {
  return std::make_shared<const std::string>(std::move(text));
}

// Same dtype, shape and elements (NaN equals NaN: its payload is not kept
// through JSON).
bool SameTensor(const tfn::ConstTensor& a, const tfn::ConstTensor& b) {
  if (a.dtype != b.dtype || a.shape != b.shape) return false;
  for (int64_t i = 0; i < a.num_elements(); ++i) {
    double x = a.ElementAsDouble(i), y = b.ElementAsDouble(i);
    bool same = (std::isnan(x) && std::isnan(y)) || (x == y && std::signbit(x) == std::signbit(y));
    // Beyond 2^53 a double cannot tell 64-bit integers apart: compare their bits.
    if (a.dtype == DType::kInt64 || a.dtype == DType::kUInt64) {
      same = a.ElementAsInt(i) == b.ElementAsInt(i);
    }
    if (!same) return false;
  }
  return true;
}

void CheckSameInputs(const serve::InferRequest& a, const serve::InferRequest& b) {
  if (a.inputs.size() != b.inputs.size()) Fail();
  for (size_t i = 0; i < a.inputs.size(); ++i) {
    if (a.inputs[i].name != b.inputs[i].name) Fail();
    if (!SameTensor(a.inputs[i].tensor, b.inputs[i].tensor)) Fail();
  }
}

// `from` -> `to` in the JSON text, at its first occurrence (an encoder's key).
std::string Rename(const std::string& text, const std::string& from, const std::string& to) {
  size_t at = text.find(from);
  if (at == std::string::npos) Fail();
  std::string out = text;
  out.replace(at, from.size(), to);
  return out;
}

// A JSON text the encoders made must parse. (Read directly: a request
// parser's error could quote a name that itself says "is not valid JSON".)
void CheckIsJson(const std::string& text) {
  serve::JsonDoc doc;
  serve::JsonReadError error;
  if (!serve::ReadJson(text, &doc, &error)) Fail();
}

void CheckError(const tfn::Status& status) {
  const std::string& m = status.message();
  if (m.empty() || m.find('\n') != std::string::npos) Fail();
  CheckIsJson(serve::EncodeError(m));
}

serve::InferResponse Echo(const serve::InferRequest& request) {
  serve::InferResponse response;
  response.model = "m";
  response.version = "1";
  response.id = request.id;
  for (const serve::InferInput& in : request.inputs)
    response.outputs.push_back({in.name, in.tensor});
  return response;
}

void EncodeMetadata(const serve::InferRequest& request) {
  serve::ModelMetadata metadata;
  metadata.name = request.id;
  metadata.versions = {"1"};
  serve::SignatureMetadata signature;
  signature.name = request.signature;
  for (const serve::InferInput& in : request.inputs) {
    serve::TensorMetadata t{in.name, serve::OipDatatype(in.tensor.dtype),
                            in.tensor.shape.ToVector()};
    metadata.inputs.push_back(t);
    signature.outputs.push_back(t);
  }
  metadata.signatures.push_back(signature);
  CheckIsJson(serve::EncodeModelMetadata(metadata));
  CheckIsJson(serve::EncodeServerMetadata(request.id, request.signature, {"binary_tensor_data"}));
  CheckIsJson(serve::EncodeV1ModelStatus({{1, "AVAILABLE", ""}, {2, "END", request.id}}));
}

void FuzzV2(std::shared_ptr<const std::string> body, int64_t header_length,
            const runtime::SignatureInfo* signature) {
  auto parsed = serve::ParseV2InferRequest(body, header_length, signature);
  if (!parsed.ok()) return CheckError(parsed.status());
  serve::EncodedBody encoded = serve::EncodeV2InferResponse(Echo(parsed->request), *parsed);
  if (encoded.header_length > static_cast<int64_t>(encoded.body.size())) Fail();
  int64_t json_size =
      encoded.header_length < 0 ? static_cast<int64_t>(encoded.body.size()) : encoded.header_length;
  // The outputs' entries have a request input's fields: parse them back.
  std::string again = Rename(encoded.body, "\"outputs\":", "\"inputs\":");
  int64_t again_header = encoded.header_length < 0 ? -1 : json_size - 1;
  auto back = serve::ParseV2InferRequest(Body(again), again_header, nullptr);
  if (!back.ok() || back->request.id != parsed->request.id) Fail();
  CheckSameInputs(parsed->request, back->request);
  EncodeMetadata(parsed->request);
}

void FuzzV1(std::shared_ptr<const std::string> body, const runtime::SignatureInfo& signature) {
  bool columnar = false;
  auto parsed = serve::ParseV1PredictRequest(body, signature, &columnar);
  if (!parsed.ok()) return CheckError(parsed.status());
  auto encoded = serve::EncodeV1PredictResponse(Echo(*parsed), columnar);
  if (!encoded.ok()) Fail();  // instances stack to one dim 0, so rows always encode
  std::string again = columnar ? Rename(*encoded, "\"outputs\":", "\"inputs\":")
                               : Rename(*encoded, "\"predictions\":", "\"instances\":");
  bool columnar_again = !columnar;
  auto back = serve::ParseV1PredictRequest(Body(again), signature, &columnar_again);
  if (!back.ok() || columnar_again != columnar) Fail();
  CheckSameInputs(*parsed, *back);
  EncodeMetadata(*parsed);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const auto& sigs = Signatures();
  const runtime::SignatureInfo& signature = sigs[(data[0] >> 2) % sigs.size()];
  const char* rest = reinterpret_cast<const char*>(data) + 1;
  switch (data[0] & 3) {
    case 0:
      FuzzV2(Body(std::string(rest, size - 1)), -1, nullptr);
      break;
    case 1: {
      if (size < 3) return 0;
      int64_t header_length = data[1] | (data[2] << 8);
      FuzzV2(Body(std::string(rest + 2, size - 3)), header_length, nullptr);
      break;
    }
    case 2:
      FuzzV2(Body(std::string(rest, size - 1)), 0, &signature);
      break;
    default:
      FuzzV1(Body(std::string(rest, size - 1)), signature);
      break;
  }
  return 0;
}
