// Helpers shared by the REST codec's tests (rest_codec_test.cc,
// rest_codec_dtypes_test.cc): request bodies and tensor values.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "serve/rest_codec.h"

namespace tfn::serve::rest_test {

inline std::shared_ptr<const std::string> Body(std::string text) {
  return std::make_shared<const std::string>(std::move(text));
}

// A v2 JSON request body without the binary extension.
inline Result<V2InferRequest> ParseV2(const std::string& json) {
  return ParseV2InferRequest(Body(json), -1, nullptr);
}

template <class T>
std::vector<T> Values(const ConstTensor& t) {
  return std::vector<T>(t.as<T>(), t.as<T>() + t.num_elements());
}

}  // namespace tfn::serve::rest_test
