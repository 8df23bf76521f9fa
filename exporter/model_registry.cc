// The model registry and spec parsing.
#include "exporter/model_registry.h"

#include <mutex>

namespace tfn {
namespace {

struct Registry {
  std::mutex mu;
  std::map<std::string, RegisteredModel> models;
};
Registry& GetRegistry() {
  static Registry* r = new Registry;
  return *r;
}

}  // namespace

std::vector<TensorSpec> ExportRequest::InputSpecs(const std::string& signature,
                                                  const std::vector<TensorSpec>& defaults) const {
  auto it = signature_specs.find(signature);
  if (it == signature_specs.end()) return defaults;
  if (it->second.size() != defaults.size()) {
    throw Error(StatusCode::kInvalidArgument,
                "signature '" + signature + "' takes " + std::to_string(defaults.size()) +
                    " inputs, the command line gives " + std::to_string(it->second.size()));
  }
  std::vector<TensorSpec> specs = it->second;
  for (size_t i = 0; i < specs.size(); ++i) {
    if (specs[i].name.empty()) specs[i].name = defaults[i].name;
  }
  return specs;
}

void RegisterModel(const std::string& name, const std::string& description, ModelFactory factory) {
  Registry& r = GetRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  r.models[name] = RegisteredModel{name, description, std::move(factory)};
}

const RegisteredModel* FindModel(const std::string& name) {
  Registry& r = GetRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.models.find(name);
  return it == r.models.end() ? nullptr : &it->second;
}

std::vector<std::string> ModelNames() {
  Registry& r = GetRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  std::vector<std::string> names;
  for (const auto& [n, m] : r.models) names.push_back(n);
  return names;
}

TensorSpec ParseTensorSpec(const std::string& text) {
  Result<TensorSpec> spec = ParseTensorSpecText(text);
  if (!spec.ok()) throw Error(spec.status());
  return *spec;
}

}  // namespace tfn
