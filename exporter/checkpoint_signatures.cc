// tfn::checkpoint_signatures: the "save" and "restore" signatures of a
// trainable bundle, traced like any function.
#include <map>
#include <string>

#include "exporter/save.h"
#include "tracer/ops.h"

namespace tfn {

std::map<std::string, ConcreteFunction> checkpoint_signatures(
    const std::vector<Variable>& variables) {
  std::map<std::string, TensorSpec> specs;
  for (const Variable& v : variables) {
    if (!specs.emplace(v.name(), TensorSpec(v.shape(), v.dtype(), v.name())).second) {
      throw Error(StatusCode::kInvalidArgument, "checkpoint_signatures: two variables are named '" +
                                                    v.name() +
                                                    "'; a bundle refers to variables by name");
    }
  }
  auto save_fn = function(
      [variables]() {
        std::map<std::string, Tensor> out;
        for (const Variable& v : variables) out[v.name()] = identity(v.value());
        return out;
      },
      FunctionOptions{"save"});
  auto restore_fn = function(
      [variables](std::map<std::string, Tensor> values) {
        for (const Variable& v : variables) v.assign(values.at(v.name()));
        return std::map<std::string, Tensor>{};
      },
      FunctionOptions{"restore"});
  return {{"save", save_fn.get_concrete_function()},
          {"restore", restore_fn.get_concrete_function(specs)}};
}

}  // namespace tfn
