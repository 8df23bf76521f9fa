// Implementation of FormatValues.
#include "core/format.h"

#include <cmath>
#include <cstdio>

namespace tfn {
namespace {

std::string ElementText(const ConstTensor& v, int64_t i) {
  if (v.dtype == DType::kBool) return v.ElementAsInt(i) ? "true" : "false";
  if (IsInteger(v.dtype)) return std::to_string(v.ElementAsInt(i));
  double x = v.ElementAsDouble(i);
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", x);
  return buf;
}

void Format(const ConstTensor& v, int dim, int64_t offset, int summarize, int indent,
            std::string* out) {
  const Shape& s = v.shape;
  if (dim == s.rank()) {
    *out += ElementText(v, offset);
    return;
  }
  int64_t stride = 1;
  for (int d = dim + 1; d < s.rank(); ++d) stride *= s[d];
  int64_t n = s[dim];
  bool last = dim + 1 == s.rank();
  std::string sep = last ? ", " : ",\n" + std::string(indent + dim + 1, ' ');
  *out += "[";
  for (int64_t i = 0; i < n; ++i) {
    if (summarize >= 0 && n > 2 * summarize && i == summarize) {
      *out += "..." + sep;
      i = n - summarize;
    }
    Format(v, dim + 1, offset + i * stride, summarize, indent, out);
    if (i + 1 < n) *out += sep;
  }
  *out += "]";
}

}  // namespace

std::string FormatValues(const ConstTensor& value, int summarize, int indent) {
  std::string out;
  Format(value, 0, 0, summarize, indent, &out);
  return out;
}

std::string FormatPrintMessage(const std::string& message, const std::vector<ConstTensor>& values,
                               int summarize) {
  std::string out;
  size_t next = 0;
  for (size_t i = 0; i < message.size(); ++i) {
    char c = message[i];
    if ((c == '{' || c == '}') && i + 1 < message.size() && message[i + 1] == c) {
      out += c;
      ++i;
    } else if (c == '{' && i + 1 < message.size() && message[i + 1] == '}') {
      out += next < values.size() ? FormatValues(values[next++], summarize) : std::string("{}");
      ++i;
    } else {
      out += c;
    }
  }
  for (; next < values.size(); ++next) {
    if (!out.empty()) out += " ";
    out += FormatValues(values[next], summarize);
  }
  return out;
}

}  // namespace tfn
