// Test helpers shared by the ONNX importer suites: build a model in C++
// (TestModel), import it (its `model` member, an onnx::ModelProto), export
// the bundle, run it in the runtime.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "exporter/bundle_writer.h"
#include "importers/onnx/onnx_importer.h"
#include "onnx/onnx_pb.h"
#include "tfn/runtime.h"

namespace tfn::onnx_import {

// A one-graph ONNX model built node by node, inputs and outputs with static
// dims, initializers from values.
struct TestModel {
  using I64 = std::vector<int64_t>;
  onnx::ModelProto model;
  onnx::GraphProto* g = model.mutable_graph();

  explicit TestModel(int opset = 17) {
    model.set_ir_version(8);
    model.add_opset_import()->set_version(opset);
    g->set_name("test");
  }
  // dims < 0 are symbolic ("N0", "N1", ... by position).
  void Input(const std::string& name, int elem_type, const I64& dims) {
    SetType(g->add_input(), name, elem_type, dims);
  }
  void Output(const std::string& name, int elem_type, const I64& dims) {
    SetType(g->add_output(), name, elem_type, dims);
  }
  // An output of `rank` dims whose sizes the model leaves unstated.
  void OutputOfRank(const std::string& name, int elem_type, int rank) {
    onnx::ValueInfoProto* v = g->add_output();
    v->set_name(name);
    auto* t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(elem_type);
    auto* shape = t->mutable_shape();
    for (int i = 0; i < rank; ++i) shape->add_dim();
  }
  onnx::NodeProto* Node(const std::string& op, const std::vector<std::string>& in,
                        const std::vector<std::string>& out) {
    onnx::NodeProto* n = g->add_node();
    n->set_op_type(op);
    n->set_name(out[0]);
    for (const std::string& i : in) n->add_input(i);
    for (const std::string& o : out) n->add_output(o);
    return n;
  }
  // An initializer whose values are in int32_data, as ONNX stores FLOAT16,
  // BFLOAT16 (bit patterns) and the integers of 32 bits and narrower.
  void Int32Data(const std::string& name, int elem_type, const I64& dims,
                 const std::vector<int32_t>& v) {
    onnx::TensorProto* t = g->add_initializer();
    t->set_name(name);
    t->set_data_type(elem_type);
    for (int64_t d : dims) t->add_dims(d);
    for (int32_t x : v) t->add_int32_data(x);
  }
  void FloatData(const std::string& name, const I64& dims, const std::vector<float>& v) {
    onnx::TensorProto* t = g->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::FLOAT);
    for (int64_t d : dims) t->add_dims(d);
    for (float x : v) t->add_float_data(x);
  }

 private:
  static void SetType(onnx::ValueInfoProto* v, const std::string& name, int elem_type,
                      const I64& dims) {
    v->set_name(name);
    auto* t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(elem_type);
    auto* shape = t->mutable_shape();
    for (size_t i = 0; i < dims.size(); ++i) {
      auto* d = shape->add_dim();
      if (dims[i] < 0) {
        d->set_dim_param("N" + std::to_string(i));
      } else {
        d->set_dim_value(dims[i]);
      }
    }
  }
};

inline void SetInt(onnx::NodeProto* n, const std::string& name, int64_t v) {
  onnx::AttributeProto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(v);
}
inline void SetInts(onnx::NodeProto* n, const std::string& name, const std::vector<int64_t>& v) {
  onnx::AttributeProto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (int64_t x : v) a->add_ints(x);
}

// The outputs, or (empty) the first error's message in *error; without
// `error`, an error fails the test.
template <class M>
std::vector<ConstTensor> RunModel(const M& m, const std::vector<ConstTensor>& inputs,
                                  std::string* error = nullptr) {
  auto fail = [&](const std::string& message) {
    if (error) {
      *error = message;
    } else {
      ADD_FAILURE() << message;
    }
    return std::vector<ConstTensor>{};
  };
  absl::StatusOr<ImportResult> imported = ImportOnnxBytes(m.model.SerializeAsString(), ".");
  if (!imported.ok()) return fail(std::string(imported.status().message()));
  absl::StatusOr<std::string> bytes = exporter::SerializeBundle({imported->signature}, {});
  if (!bytes.ok()) return fail(std::string(bytes.status().message()));
  auto owned = std::make_shared<std::string>(*bytes);
  auto bundle = runtime::Bundle::FromMemory(owned->data(), owned->size(), owned);
  if (!bundle.ok()) return fail(bundle.status().message());
  runtime::Session session(*bundle);
  auto out = session.Run("serving_default", inputs);
  if (!out.ok()) return fail(out.status().message());
  return *out;
}

template <class T>
std::vector<T> Values(const ConstTensor& t) {
  return std::vector<T>(t.as<T>(), t.as<T>() + t.num_elements());
}

}  // namespace tfn::onnx_import
