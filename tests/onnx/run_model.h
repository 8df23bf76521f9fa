// Test helper shared by the ONNX importer suites: import a model built in
// C++ (its `model` member, an onnx::ModelProto), export the bundle, run it in
// the runtime.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "exporter/bundle_writer.h"
#include "importers/onnx/onnx_importer.h"
#include "tfn/runtime.h"

namespace tfn::onnx_import {

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
