// OIP (KServe v2) response bodies (rest_codec.h): infer responses in JSON or
// with binary outputs after it, server and model metadata, and errors (TF
// Serving's errors are the same {"error": ...}).
#include "serve/rest_codec.h"

#include <vector>

#include "serve/datatype.h"
#include "serve/json_writer.h"
#include "serve/rest_tensor.h"

namespace tfn::serve {
namespace {

void WriteFlatData(JsonWriter& w, const ConstTensor& t) {
  w.StartArray();
  int64_t n = t.num_elements();
  VisitData(t, [&](const auto* data) {
    for (int64_t i = 0; i < n; ++i) WriteValue(w, data[i]);
  });
  w.EndArray();
}

void WriteShape(JsonWriter& w, const Shape& shape) {
  w.StartArray();
  for (int64_t d : shape) w.Int64(d);
  w.EndArray();
}

void WriteShape(JsonWriter& w, const std::vector<int64_t>& shape) {
  w.StartArray();
  for (int64_t d : shape) w.Int64(d);
  w.EndArray();
}

bool WantsBinary(const V2InferRequest& how, const std::string& name) {
  auto it = how.binary_outputs.find(name);
  return it != how.binary_outputs.end() ? it->second : how.binary_data_output;
}

void WriteV2Output(JsonWriter& w, const InferOutput& output, bool binary) {
  w.StartObject();
  WriteKey(w, "name");
  WriteString(w, output.name);
  WriteKey(w, "datatype");
  WriteString(w, OipDatatype(output.tensor.dtype));
  WriteKey(w, "shape");
  WriteShape(w, output.tensor.shape);
  if (binary) {
    WriteKey(w, "parameters");
    w.StartObject();
    WriteKey(w, "binary_data_size");
    w.Int64(output.tensor.byte_size());
    w.EndObject();
  } else {
    WriteKey(w, "data");
    WriteFlatData(w, output.tensor);
  }
  w.EndObject();
}

void WriteTensorMetadata(JsonWriter& w, const std::vector<TensorMetadata>& tensors) {
  w.StartArray();
  for (const TensorMetadata& t : tensors) {
    w.StartObject();
    WriteKey(w, "name");
    WriteString(w, t.name);
    WriteKey(w, "datatype");
    WriteString(w, t.datatype);
    WriteKey(w, "shape");
    WriteShape(w, t.shape);
    w.EndObject();
  }
  w.EndArray();
}

}  // namespace

EncodedBody EncodeV2InferResponse(const InferResponse& response, const V2InferRequest& how) {
  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  std::vector<const ConstTensor*> binary;
  w.StartObject();
  WriteKey(w, "model_name");
  WriteString(w, response.model);
  if (!response.version.empty()) {
    WriteKey(w, "model_version");
    WriteString(w, response.version);
  }
  WriteKey(w, "id");
  WriteString(w, response.id);
  WriteKey(w, "outputs");
  w.StartArray();
  for (const InferOutput& output : response.outputs) {
    bool in_binary = WantsBinary(how, output.name);
    WriteV2Output(w, output, in_binary);
    if (in_binary) binary.push_back(&output.tensor);
  }
  w.EndArray();
  w.EndObject();

  EncodedBody out;
  if (binary.empty()) {
    out.body = Text(buffer);
    out.content_type = "application/json";
    return out;
  }
  size_t total = buffer.GetSize();
  for (const ConstTensor* t : binary) total += static_cast<size_t>(t->byte_size());
  out.body.reserve(total);
  out.body.assign(buffer.GetString(), buffer.GetSize());
  for (const ConstTensor* t : binary) {
    if (t->byte_size() > 0)
      out.body.append(static_cast<const char*>(t->data), static_cast<size_t>(t->byte_size()));
  }
  out.header_length = static_cast<int64_t>(buffer.GetSize());
  out.content_type = "application/octet-stream";
  return out;
}

std::string EncodeServerMetadata(const std::string& name, const std::string& version,
                                 const std::vector<std::string>& extensions) {
  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  w.StartObject();
  WriteKey(w, "name");
  WriteString(w, name);
  WriteKey(w, "version");
  WriteString(w, version);
  WriteKey(w, "extensions");
  w.StartArray();
  for (const std::string& e : extensions) WriteString(w, e);
  w.EndArray();
  w.EndObject();
  return Text(buffer);
}

std::string EncodeModelReady(const std::string& name, bool ready) {
  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  w.StartObject();
  WriteKey(w, "name");
  WriteString(w, name);
  WriteKey(w, "ready");
  w.Bool(ready);
  w.EndObject();
  return Text(buffer);
}

std::string EncodeModelMetadata(const ModelMetadata& metadata) {
  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  w.StartObject();
  WriteKey(w, "name");
  WriteString(w, metadata.name);
  WriteKey(w, "versions");
  w.StartArray();
  for (const std::string& v : metadata.versions) WriteString(w, v);
  w.EndArray();
  WriteKey(w, "platform");
  WriteString(w, metadata.platform);
  WriteKey(w, "inputs");
  WriteTensorMetadata(w, metadata.inputs);
  WriteKey(w, "outputs");
  WriteTensorMetadata(w, metadata.outputs);
  WriteKey(w, "signatures");
  w.StartArray();
  for (const SignatureMetadata& s : metadata.signatures) {
    w.StartObject();
    WriteKey(w, "name");
    WriteString(w, s.name);
    WriteKey(w, "inputs");
    WriteTensorMetadata(w, s.inputs);
    WriteKey(w, "outputs");
    WriteTensorMetadata(w, s.outputs);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return Text(buffer);
}

std::string EncodeError(const std::string& message) {
  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  w.StartObject();
  WriteKey(w, "error");
  WriteString(w, message);
  w.EndObject();
  return Text(buffer);
}

}  // namespace tfn::serve
