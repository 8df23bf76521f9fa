// TF Serving's v1 response bodies (rest_codec.h): predict responses, row
// format ("predictions") or columnar ("outputs"), tensors as nested JSON
// arrays of their shape; and model status.
#include "serve/rest_codec.h"

#include "serve/json_writer.h"
#include "serve/rest_tensor.h"

namespace tfn::serve {
namespace {

// The elements from *index on, as nested arrays of `shape` from `dim` on.
template <class T>
void WriteNested(JsonWriter& w, const T* data, const Shape& shape, int dim, int64_t* index) {
  if (dim == shape.rank()) {
    WriteValue(w, data[(*index)++]);
    return;
  }
  w.StartArray();
  for (int64_t i = 0; i < shape[dim]; ++i) WriteNested(w, data, shape, dim + 1, index);
  w.EndArray();
}

// The tensor's elements from `first` on, nested in its shape from `dim` on.
void WriteNestedData(JsonWriter& w, const ConstTensor& t, int dim, int64_t first) {
  if (!IsValidDType(static_cast<int>(t.dtype))) {
    w.Null();
    return;
  }
  VisitData(t, [&](const auto* data) {
    int64_t index = first;
    WriteNested(w, data, t.shape, dim, &index);
  });
}

// Row format's row count: the dim 0 every output shares.
Result<int64_t> RowCount(const InferResponse& response) {
  int64_t rows = -1;
  const std::string* first = nullptr;
  for (const InferOutput& output : response.outputs) {
    const Shape& shape = output.tensor.shape;
    if (shape.rank() == 0) {
      return Bad("the row format (\"instances\") answers one entry per dim-0 row, but output " +
                 Quote(output.name) +
                 " is a scalar; send the request in columnar format (\"inputs\")");
    }
    if (rows >= 0 && shape[0] != rows) {
      return Bad(
          "the row format (\"instances\") needs every output to have the same dim 0, but output " +
          Quote(*first) + " has " + std::to_string(rows) + " rows and output " +
          Quote(output.name) + " has " + std::to_string(shape[0]) +
          "; send the request in columnar format (\"inputs\")");
    }
    rows = shape[0];
    first = &output.name;
  }
  return rows < 0 ? 0 : rows;
}

void WriteRow(JsonWriter& w, const ConstTensor& t, int64_t row) {
  int64_t row_elements = 1;
  for (int i = 1; i < t.shape.rank(); ++i) row_elements *= t.shape[i];
  WriteNestedData(w, t, 1, row * row_elements);
}

void WritePredictions(JsonWriter& w, const InferResponse& response, int64_t rows) {
  WriteKey(w, "predictions");
  w.StartArray();
  for (int64_t r = 0; r < rows; ++r) {
    if (response.outputs.size() == 1) {
      WriteRow(w, response.outputs[0].tensor, r);
      continue;
    }
    w.StartObject();
    for (const InferOutput& output : response.outputs) {
      WriteString(w, output.name);
      WriteRow(w, output.tensor, r);
    }
    w.EndObject();
  }
  w.EndArray();
}

void WriteColumns(JsonWriter& w, const InferResponse& response) {
  WriteKey(w, "outputs");
  if (response.outputs.size() == 1) {
    WriteNestedData(w, response.outputs[0].tensor, 0, 0);
    return;
  }
  w.StartObject();
  for (const InferOutput& output : response.outputs) {
    WriteString(w, output.name);
    WriteNestedData(w, output.tensor, 0, 0);
  }
  w.EndObject();
}

}  // namespace

Result<std::string> EncodeV1PredictResponse(const InferResponse& response, bool columnar) {
  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  w.StartObject();
  if (columnar) {
    WriteColumns(w, response);
  } else {
    TFN_ASSIGN_OR_RETURN(int64_t rows, RowCount(response));
    WritePredictions(w, response, rows);
  }
  w.EndObject();
  return Text(buffer);
}

std::string EncodeV1ModelStatus(const std::vector<VersionStatus>& versions) {
  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  w.StartObject();
  WriteKey(w, "model_version_status");
  w.StartArray();
  for (const VersionStatus& v : versions) {
    w.StartObject();
    WriteKey(w, "version");
    WriteString(w, std::to_string(v.version));
    WriteKey(w, "state");
    WriteString(w, v.state);
    WriteKey(w, "status");
    w.StartObject();
    WriteKey(w, "error_code");
    WriteString(w, v.error.empty() ? "OK" : "UNKNOWN");
    WriteKey(w, "error_message");
    WriteString(w, v.error);
    w.EndObject();
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return Text(buffer);
}

}  // namespace tfn::serve
