// TensorSpec printing and parsing.
#include "core/tensor_spec.h"

#include <cstdlib>

namespace tfn {

std::string TensorSpec::ToString() const { return std::string(DTypeName(dtype)) + ShapeToString(shape); }

Result<TensorSpec> ParseTensorSpecText(const std::string& text) {
  auto bad = [&](const std::string& why) {
    return InvalidArgument("cannot parse the tensor spec '" + text + "': " + why +
                           " (expected e.g. f32[?,784], int64[2,3] or bool[])");
  };
  size_t open = text.find('[');
  if (open == std::string::npos || text.empty() || text.back() != ']') return bad("no [dims]");
  DType dtype = ParseDType(text.substr(0, open));
  if (dtype == DType::kInvalid) return bad("unknown dtype '" + text.substr(0, open) + "'");
  Shape shape;
  std::string dims = text.substr(open + 1, text.size() - open - 2);
  size_t pos = 0;
  while (pos < dims.size()) {
    size_t comma = dims.find(',', pos);
    std::string d = dims.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    if (shape.rank() >= kMaxRank) return bad("rank above 8");
    if (d == "?" || d == "-1" || d == "None") {
      shape.push_back(kDynamic);
    } else {
      char* end = nullptr;
      long long v = std::strtoll(d.c_str(), &end, 10);
      if (d.empty() || *end || v < 0) return bad("'" + d + "' is not a dim");
      shape.push_back(v);
    }
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return TensorSpec(shape, dtype);
}

}  // namespace tfn
