// Models that tfn-export can export by name: the built-in examples and a
// user's own models in a shared library.
//
// In a user's library (built as a shared object and passed to tfn-export
// with --library):
//
//   #include "tfn/tfn.h"
//   #include "exporter/model_registry.h"
//
//   TFN_REGISTER_MODEL(my_model, "what it computes", [](const tfn::ExportRequest& r) {
//     static MyModel model;  // Variables created once, outside functions
//     auto f = tfn::function([](tfn::Tensor x) { return model(x); });
//     return std::map<std::string, tfn::ConcreteFunction>{
//         {"serving_default", f.get_concrete_function(r.InputSpecs("serving_default",
//                                                     {tfn::TensorSpec({tfn::kDynamic, 4}, tfn::DType::kFloat32)}))}};
//   });
//
// Registration happens in static initializers; the registry is thread-safe.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "tracer/function.h"

namespace tfn {

// What the command line asked for: per signature name, the input specs
// (e.g. --signature serving_default:x=f32[?,784]).
struct ExportRequest {
  std::map<std::string, std::vector<TensorSpec>> signature_specs;
  // Whether the functions the factory traces run the pass pipeline: a
  // factory passes it on as FunctionOptions::optimize (false: the graphs as
  // traced, e.g. the conformance suite's oracle).
  bool optimize = true;
  // The specs given for `signature`, or `defaults` when none were given.
  // Throws tfn::Error when the count differs from the defaults'.
  std::vector<TensorSpec> InputSpecs(const std::string& signature,
                                     const std::vector<TensorSpec>& defaults) const;
};

using ModelFactory = std::function<std::map<std::string, ConcreteFunction>(const ExportRequest&)>;

struct RegisteredModel {
  std::string name;
  std::string description;
  ModelFactory factory;
};

void RegisterModel(const std::string& name, const std::string& description, ModelFactory factory);
// nullptr when no model has this name.
const RegisteredModel* FindModel(const std::string& name);
std::vector<std::string> ModelNames();

// Parses "f32[?,784]" (also "float32[...]", "i64[2,3]", "bool[]").
TensorSpec ParseTensorSpec(const std::string& text);

}  // namespace tfn

#define TFN_REGISTER_MODEL(name, description, factory)                       \
  static const bool tfn_registered_model_##name = [] {                      \
    ::tfn::RegisterModel(#name, description, factory);                      \
    return true;                                                            \
  }()
