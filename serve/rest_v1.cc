// TF Serving's v1 predict requests (rest_codec.h): row format
// ("instances") and columnar ("inputs"), tensors as nested JSON arrays typed
// by the signature.
#include "serve/rest_codec.h"

#include <string_view>
#include <utility>
#include <vector>

#include "serve/rest_tensor.h"

namespace tfn::serve {
namespace {

// The shape of a tensor written as nested arrays, read along the first
// elements (FillNested checks that the rest agree).
Status NestedShape(JsonValue v, int max_rank, const std::string& what, Shape* shape) {
  while (v.IsArray()) {
    if (shape->rank() == max_rank) {
      return Bad(what + " nests more than " + std::to_string(max_rank) +
                 " arrays deep; tfn tensors have at most " + std::to_string(kMaxRank) + " dims" +
                 (max_rank < kMaxRank ? " and the instances add one" : ""));
    }
    shape->push_back(v.Size());
    if (v.Empty()) break;
    v = v.First();
  }
  return Status::Ok();
}

// Depth is bounded by the shape's rank.
Status FillNested(JsonValue v, const Shape& shape, int dim, DType dtype, char* dst, int64_t* index,
                  const std::string& what) {
  if (dim == shape.rank()) {
    if (v.IsArray()) {
      return Bad(what + ": element " + std::to_string(*index) + " is " + Found(v) +
                 " where a value was expected; nested arrays must all have the same length "
                 "(shape " +
                 ShapeToString(shape) + ")");
    }
    if (const char* expected = StoreElement(v, dtype, dst + *index * DTypeSize(dtype))) {
      return ElementError(what, *index, expected, v);
    }
    ++*index;
    return Status::Ok();
  }
  if (!v.IsArray() || v.Size() != static_cast<uint64_t>(shape[dim])) {
    if (IsB64(v)) return B64Error(what);
    return Bad(what + ": expected an array of " + std::to_string(shape[dim]) +
               " elements at depth " + std::to_string(dim) + " but found " + Found(v) +
               "; nested arrays must all have the same length (shape " + ShapeToString(shape) +
               ")");
  }
  for (JsonValue e : v.GetArray()) {
    TFN_RETURN_IF_ERROR(FillNested(e, shape, dim + 1, dtype, dst, index, what));
  }
  return Status::Ok();
}

Status CheckSignatureDType(const runtime::TensorInfo& info, const std::string& what) {
  if (!IsValidDType(static_cast<int>(info.dtype))) {
    return Bad(what + " has a dtype this server cannot fill from JSON");
  }
  return Status::Ok();
}

Status TensorFromNested(JsonValue v, const runtime::TensorInfo& info, ConstTensor* out) {
  std::string what = "input " + Quote(info.name);
  TFN_RETURN_IF_ERROR(CheckSignatureDType(info, what));
  Shape shape;
  TFN_RETURN_IF_ERROR(NestedShape(v, kMaxRank, what, &shape));
  int64_t n = 0;
  TFN_RETURN_IF_ERROR(CountElements(shape, info.dtype, what, &n));
  char* dst = nullptr;
  TFN_ASSIGN_OR_RETURN(*out, AllocateTensor(info.dtype, shape, what, &dst));
  int64_t index = 0;
  return FillNested(v, shape, 0, info.dtype, dst, &index, what);
}

// Row format: the instances' values of one input, stacked along a new dim 0.
Status StackInstances(const std::vector<JsonValue>& rows, const runtime::TensorInfo& info,
                      ConstTensor* out) {
  std::string what = "input " + Quote(info.name);
  TFN_RETURN_IF_ERROR(CheckSignatureDType(info, what));
  Shape inner;
  TFN_RETURN_IF_ERROR(NestedShape(rows[0], kMaxRank - 1, what + " of instance 0", &inner));
  for (size_t r = 1; r < rows.size(); ++r) {
    Shape other;
    std::string instance = what + " of instance " + std::to_string(r);
    TFN_RETURN_IF_ERROR(NestedShape(rows[r], kMaxRank - 1, instance, &other));
    if (other != inner) {
      return Bad(instance + " has shape " + ShapeToString(other) + " but instance 0 has " +
                 ShapeToString(inner) + "; every instance must have the same shape");
    }
  }
  Shape shape = inner;
  shape.insert(0, static_cast<int64_t>(rows.size()));
  int64_t n = 0;
  TFN_RETURN_IF_ERROR(CountElements(shape, info.dtype, what, &n));
  char* dst = nullptr;
  TFN_ASSIGN_OR_RETURN(*out, AllocateTensor(info.dtype, shape, what, &dst));
  int64_t row_bytes = NumElements(inner) * DTypeSize(info.dtype);
  for (size_t r = 0; r < rows.size(); ++r) {
    int64_t index = 0;
    TFN_RETURN_IF_ERROR(FillNested(rows[r], inner, 0, info.dtype, dst + r * row_bytes, &index,
                                   what + " of instance " + std::to_string(r)));
  }
  return Status::Ok();
}

std::string InputNames(const runtime::SignatureInfo& signature) {
  std::string names;
  for (size_t i = 0; i < signature.inputs.size(); ++i) {
    if (i == 8) return names + ", ...";
    names += (i ? ", " : "") + Quote(signature.inputs[i].name);
  }
  return names;
}

// Fills (*values)[input] from an object name -> value (`where` names it).
Status SplitNamed(JsonValue object, const runtime::SignatureInfo& signature,
                  const std::string& where, std::vector<JsonValue>* values) {
  for (const JsonMember& member : object.GetObject()) {
    std::string_view key = member.name.GetString();
    size_t i = 0;
    while (i < signature.inputs.size() && signature.inputs[i].name != key) ++i;
    if (i == signature.inputs.size()) {
      return Bad(where + " names " + Quote(key) + ", which is not an input of signature " +
                 Quote(signature.name) + " (inputs: " + InputNames(signature) + ")");
    }
    if ((*values)[i]) return Bad(where + " names " + Quote(key) + " twice");
    (*values)[i] = member.value;
  }
  for (size_t i = 0; i < signature.inputs.size(); ++i) {
    if (!(*values)[i]) {
      return Bad(where + " has no input " + Quote(signature.inputs[i].name) +
                 "; give every input of signature " + Quote(signature.name) + " (" +
                 InputNames(signature) + ")");
    }
  }
  return Status::Ok();
}

// Whether `v` names inputs (an object) rather than being a value.
bool IsNamed(JsonValue v) { return v.IsObject() && !IsB64(v); }

Status ParseRows(JsonValue instances, const runtime::SignatureInfo& signature,
                 InferRequest* request) {
  if (!instances.IsArray() || instances.Empty()) {
    return Bad("\"instances\" should be a non-empty array with one entry per instance but is " +
               Found(instances));
  }
  if (signature.inputs.empty()) {
    return Bad("signature " + Quote(signature.name) + " takes no inputs; send {\"inputs\": {}}");
  }
  size_t n_inputs = signature.inputs.size();
  std::vector<std::vector<JsonValue>> values(n_inputs, std::vector<JsonValue>(instances.Size()));
  size_t r = 0;
  for (JsonValue instance : instances.GetArray()) {
    std::string where = "instance " + std::to_string(r);
    if (n_inputs == 1 && !IsNamed(instance)) {
      values[0][r++] = instance;
      continue;
    }
    if (IsB64(instance)) return B64Error(where);
    if (!instance.IsObject()) {
      return Bad(where + " should be an object naming the inputs of signature " +
                 Quote(signature.name) + " (" + InputNames(signature) + ") but is " +
                 Found(instance));
    }
    std::vector<JsonValue> named(n_inputs);
    TFN_RETURN_IF_ERROR(SplitNamed(instance, signature, where, &named));
    for (size_t i = 0; i < n_inputs; ++i) values[i][r] = named[i];
    ++r;
  }
  for (size_t i = 0; i < n_inputs; ++i) {
    InferInput input;
    input.name = signature.inputs[i].name;
    TFN_RETURN_IF_ERROR(StackInstances(values[i], signature.inputs[i], &input.tensor));
    request->inputs.push_back(std::move(input));
  }
  return Status::Ok();
}

Status ParseColumns(JsonValue inputs, const runtime::SignatureInfo& signature,
                    InferRequest* request) {
  std::vector<JsonValue> values(signature.inputs.size());
  if (signature.inputs.size() == 1 && !IsNamed(inputs)) {
    values[0] = inputs;
  } else if (IsNamed(inputs)) {
    TFN_RETURN_IF_ERROR(SplitNamed(inputs, signature, "\"inputs\"", &values));
  } else {
    if (IsB64(inputs)) return B64Error("\"inputs\"");
    return Bad("\"inputs\" should be an object naming the inputs of signature " +
               Quote(signature.name) + " (" + InputNames(signature) + ") but is " + Found(inputs));
  }
  for (size_t i = 0; i < values.size(); ++i) {
    InferInput input;
    input.name = signature.inputs[i].name;
    TFN_RETURN_IF_ERROR(TensorFromNested(values[i], signature.inputs[i], &input.tensor));
    request->inputs.push_back(std::move(input));
  }
  return Status::Ok();
}

}  // namespace

Result<InferRequest> ParseV1PredictRequest(std::shared_ptr<const std::string> body,
                                           const SignatureLookup& find_signature, bool* columnar) {
  if (!body) {
    return Bad("the request has no body; send {\"instances\": [...]} or {\"inputs\": ...}");
  }
  JsonDoc doc;
  TFN_ASSIGN_OR_RETURN(JsonValue root, ParseJson(*body, "the request body", &doc));
  if (!root.IsObject()) {
    return Bad(
        "the request should be a JSON object {\"instances\": [...]} or {\"inputs\": ...} but is " +
        Found(root));
  }
  std::string signature_name;
  if (JsonValue s = root.Member("signature_name")) {
    if (!s.IsString()) return Bad("\"signature_name\" should be a string but is " + Found(s));
    signature_name = std::string(s.GetString());
  }
  JsonValue instances = root.Member("instances");
  JsonValue inputs = root.Member("inputs");
  if (instances && inputs) {
    return Bad(
        "the request has both \"instances\" (row format) and \"inputs\" (columnar format); send "
        "one");
  }
  if (!instances && !inputs) {
    return Bad(
        "the request has neither \"instances\" (row format) nor \"inputs\" (columnar format)");
  }
  TFN_ASSIGN_OR_RETURN(const runtime::SignatureInfo* signature, find_signature(signature_name));
  if (signature == nullptr) return NotFound("the model has no signature " + Quote(signature_name));
  InferRequest request;
  request.signature = signature->name;
  TFN_RETURN_IF_ERROR(instances ? ParseRows(instances, *signature, &request)
                                : ParseColumns(inputs, *signature, &request));
  if (columnar != nullptr) *columnar = static_cast<bool>(inputs);
  return request;
}

Result<InferRequest> ParseV1PredictRequest(std::shared_ptr<const std::string> body,
                                           const runtime::SignatureInfo& signature,
                                           bool* columnar) {
  SignatureLookup only =
      [&signature](const std::string& name) -> Result<const runtime::SignatureInfo*> {
    if (!name.empty() && name != signature.name) {
      return Bad("the body asks for signature " + Quote(name) +
                 " but this request is for signature " + Quote(signature.name));
    }
    return &signature;
  };
  return ParseV1PredictRequest(std::move(body), only, columnar);
}

}  // namespace tfn::serve
