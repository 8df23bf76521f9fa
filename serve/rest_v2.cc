// OIP (KServe v2) infer requests in JSON (rest_codec.h): the header, the
// inputs with their data flat or nested, and the requested outputs. Binary
// inputs and raw requests are rest_v2_binary.cc's.
#include "serve/rest_codec.h"

#include <set>
#include <string_view>
#include <utility>

#include "serve/datatype.h"
#include "serve/rest_tensor.h"
#include "serve/rest_v2_binary.h"

namespace tfn::serve {
namespace {

// v2 data: flat or nested arrays, flattened in row-major order.

Status CountLeaves(JsonValue array, int depth, const std::string& what, int64_t* count) {
  for (JsonValue e : array.GetArray()) {
    if (!e.IsArray()) {
      ++*count;
      continue;
    }
    if (depth + 1 >= kMaxRank) {
      return Bad(what + ": \"data\" nests more than " + std::to_string(kMaxRank) +
                 " arrays deep; tfn tensors have at most " + std::to_string(kMaxRank) + " dims");
    }
    TFN_RETURN_IF_ERROR(CountLeaves(e, depth + 1, what, count));
  }
  return Status::Ok();
}

// Depth is bounded: CountLeaves ran first.
Status FillLeaves(JsonValue array, DType dtype, char* dst, int64_t* index,
                  const std::string& what) {
  for (JsonValue e : array.GetArray()) {
    if (e.IsArray()) {
      TFN_RETURN_IF_ERROR(FillLeaves(e, dtype, dst, index, what));
      continue;
    }
    if (const char* expected = StoreElement(e, dtype, dst + *index * DTypeSize(dtype))) {
      return ElementError(what, *index, expected, e);
    }
    ++*index;
  }
  return Status::Ok();
}

Status TensorFromData(JsonValue data, DType dtype, const Shape& shape, int64_t n,
                      const std::string& what, ConstTensor* out) {
  if (!data.IsArray()) {
    return Bad(what + ": \"data\" should be an array (flat or nested, row-major) but is " +
               Found(data));
  }
  int64_t count = 0;
  TFN_RETURN_IF_ERROR(CountLeaves(data, 0, what, &count));
  if (count != n) {
    return Bad(what + ": shape " + ShapeToString(shape) + " holds " + std::to_string(n) +
               " elements but data has " + std::to_string(count));
  }
  char* dst = nullptr;
  TFN_ASSIGN_OR_RETURN(*out, AllocateTensor(dtype, shape, what, &dst));
  int64_t index = 0;
  return FillLeaves(data, dtype, dst, &index, what);
}

Status ParseShape(JsonValue v, const std::string& what, Shape* shape) {
  if (!v.IsArray()) {
    return Bad(what + ": \"shape\" should be an array of non-negative integers but is " + Found(v));
  }
  if (v.Size() > static_cast<uint32_t>(kMaxRank)) {
    return Bad(what + ": \"shape\" has " + std::to_string(v.Size()) +
               " dims; tfn tensors have at most " + std::to_string(kMaxRank));
  }
  int i = 0;
  for (JsonValue d : v.GetArray()) {
    if (!d.IsInt64() || d.GetInt64() < 0) {
      return Bad(what + ": shape[" + std::to_string(i) +
                 "] should be a non-negative integer but is " + Found(d));
    }
    shape->push_back(d.GetInt64());
    ++i;
  }
  return Status::Ok();
}

Status RequireString(JsonValue v, const std::string& where, const char* field, std::string* out) {
  if (!v) return Bad(where + " has no \"" + field + "\"");
  if (!v.IsString()) {
    return Bad(where + ": \"" + field + "\" should be a string but is " + Found(v));
  }
  *out = std::string(v.GetString());
  return Status::Ok();
}

Status ParseDatatype(JsonValue v, const std::string& what, DType* dtype) {
  if (!v) return Bad(what + " has no \"datatype\" (e.g. \"FP32\")");
  if (!v.IsString()) {
    return Bad(what + ": \"datatype\" should be a string such as \"FP32\" but is " + Found(v));
  }
  *dtype = DTypeFromOip(v.GetString());
  if (*dtype == DType::kInvalid)
    return Bad(what + ": " + DescribeUnsupported(OneLine(v.GetString())));
  return Status::Ok();
}

Status ParseV2Input(JsonValue v, size_t i, BinaryRegion* region, InferInput* out) {
  std::string where = "inputs[" + std::to_string(i) + "]";
  if (!v.IsObject()) {
    return Bad(where +
               " should be an object with \"name\", \"shape\", \"datatype\" and \"data\" but is " +
               Found(v));
  }
  TFN_RETURN_IF_ERROR(RequireString(v.Member("name"), where, "name", &out->name));
  std::string what = "input " + Quote(out->name);
  DType dtype = DType::kInvalid;
  TFN_RETURN_IF_ERROR(ParseDatatype(v.Member("datatype"), what, &dtype));
  JsonValue shape_value = v.Member("shape");
  if (!shape_value) return Bad(what + " has no \"shape\"");
  Shape shape;
  TFN_RETURN_IF_ERROR(ParseShape(shape_value, what, &shape));
  int64_t n = 0;
  TFN_RETURN_IF_ERROR(CountElements(shape, dtype, what, &n));

  JsonValue binary_size;
  if (JsonValue params = v.Member("parameters")) {
    if (!params.IsObject()) {
      return Bad(what + ": \"parameters\" should be an object but is " + Found(params));
    }
    binary_size = params.Member("binary_data_size");
  }
  JsonValue data = v.Member("data");
  if (binary_size && data) {
    return Bad(what +
               " has both \"data\" and parameters.binary_data_size; send its values one way");
  }
  if (binary_size) {
    return TensorFromBinary(binary_size, dtype, shape, n, what, region, &out->tensor);
  }
  if (!data) return Bad(what + " has no \"data\" (and no parameters.binary_data_size)");
  return TensorFromData(data, dtype, shape, n, what, &out->tensor);
}

Status ParseV2Inputs(JsonValue root, BinaryRegion* region, InferRequest* request) {
  JsonValue inputs = root.Member("inputs");
  if (!inputs) return Bad("the request has no \"inputs\"");
  if (!inputs.IsArray() || inputs.Empty()) {
    return Bad("\"inputs\" should be a non-empty array of input tensors but is " + Found(inputs));
  }
  std::set<std::string> names;
  size_t i = 0;
  for (JsonValue v : inputs.GetArray()) {
    InferInput input;
    TFN_RETURN_IF_ERROR(ParseV2Input(v, i++, region, &input));
    if (!names.insert(input.name).second) {
      return Bad("input " + Quote(input.name) + " appears twice in \"inputs\"");
    }
    request->inputs.push_back(std::move(input));
  }
  return Status::Ok();
}

Status ParseV2Output(JsonValue v, size_t i, std::set<std::string>* seen, V2InferRequest* out) {
  std::string where = "outputs[" + std::to_string(i) + "]";
  if (!v.IsObject()) return Bad(where + " should be an object {\"name\": ...} but is " + Found(v));
  std::string name;
  TFN_RETURN_IF_ERROR(RequireString(v.Member("name"), where, "name", &name));
  if (!seen->insert(name).second) {
    return Bad("output " + Quote(name) + " is requested twice in \"outputs\"");
  }
  if (JsonValue params = v.Member("parameters")) {
    if (!params.IsObject()) {
      return Bad("output " + Quote(name) + ": \"parameters\" should be an object but is " +
                 Found(params));
    }
    if (JsonValue binary = params.Member("binary_data")) {
      if (!binary.IsBool()) {
        return Bad("output " + Quote(name) +
                   ": parameters.binary_data should be true or false but is " + Found(binary));
      }
      out->binary_outputs[name] = binary.GetBool();
    }
  }
  out->request.outputs.push_back(std::move(name));
  return Status::Ok();
}

Status ParseV2Outputs(JsonValue root, V2InferRequest* out) {
  JsonValue outputs = root.Member("outputs");
  if (!outputs) return Status::Ok();
  if (!outputs.IsArray()) {
    return Bad("\"outputs\" should be an array of {\"name\": ...} objects but is " +
               Found(outputs));
  }
  std::set<std::string> seen;
  size_t i = 0;
  for (JsonValue v : outputs.GetArray()) {
    TFN_RETURN_IF_ERROR(ParseV2Output(v, i++, &seen, out));
  }
  return Status::Ok();
}

// "id" and the request-level "parameters".
Status ParseV2Header(JsonValue root, V2InferRequest* out) {
  if (JsonValue id = root.Member("id")) {
    if (!id.IsString()) return Bad("\"id\" should be a string but is " + Found(id));
    out->request.id = std::string(id.GetString());
  }
  JsonValue params = root.Member("parameters");
  if (!params) return Status::Ok();
  if (!params.IsObject()) return Bad("\"parameters\" should be an object but is " + Found(params));
  if (JsonValue binary = params.Member("binary_data_output")) {
    if (!binary.IsBool()) {
      return Bad("parameters.binary_data_output should be true or false but is " + Found(binary));
    }
    out->binary_data_output = binary.GetBool();
  }
  if (JsonValue signature = params.Member("signature_name")) {
    if (!signature.IsString()) {
      return Bad("parameters.signature_name should be a string but is " + Found(signature));
    }
    out->request.signature = std::string(signature.GetString());
  }
  return Status::Ok();
}

}  // namespace

Result<V2InferRequest> ParseV2InferRequest(std::shared_ptr<const std::string> body,
                                           int64_t header_length,
                                           const runtime::SignatureInfo* signature) {
  if (!body) return Bad("the request has no body; send a JSON inference request");
  TFN_RETURN_IF_ERROR(CheckHeaderLength(header_length, body->size()));
  if (header_length == 0) return ParseRawRequest(body, signature);
  size_t json_size = header_length < 0 ? body->size() : static_cast<size_t>(header_length);
  JsonDoc doc;
  TFN_ASSIGN_OR_RETURN(
      JsonValue root,
      ParseJson(std::string_view(body->data(), json_size),
                header_length < 0 ? "the request body" : "the request's JSON header", &doc));
  if (!root.IsObject()) {
    return Bad("the request should be a JSON object {\"inputs\": [...]} but is " + Found(root));
  }
  V2InferRequest out;
  TFN_RETURN_IF_ERROR(ParseV2Header(root, &out));
  BinaryRegion region;
  region.body = body;
  region.present = header_length > 0;
  region.begin = json_size;
  region.size = body->size() - json_size;
  TFN_RETURN_IF_ERROR(ParseV2Inputs(root, &region, &out.request));
  TFN_RETURN_IF_ERROR(ParseV2Outputs(root, &out));
  if (region.used != region.size) {
    return Bad("Inference-Header-Content-Length " + std::to_string(header_length) + " leaves " +
               std::to_string(region.size) +
               " bytes of binary data after the JSON, but the inputs' binary_data_size add up "
               "to " +
               std::to_string(region.used) + "; they must match exactly");
  }
  if (region.viewed) out.request.keepalive = body;
  return out;
}

}  // namespace tfn::serve
