// Reading a model's options: the version policy's text form and
// REPO/NAME/config.json (model_repository.h shows its fields). Strict: an
// unknown key or a value of the wrong type is an error naming the key, so a
// typo does not silently serve with defaults.
#pragma once

#include <string>

#include "serve/model_repository.h"

namespace tfn::serve {

// `defaults` with what the JSON text sets; `where` names the file in errors.
Result<ModelOptions> ParseModelConfig(const std::string& json, const ModelOptions& defaults,
                                      const std::string& where);

}  // namespace tfn::serve
