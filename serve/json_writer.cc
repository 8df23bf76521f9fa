// Writing JSON text (json_writer.h): strings, FP32 digits, whole texts.
#include "serve/json_writer.h"

#include <cfloat>
#include <charconv>
#include <cmath>
#include <cstring>

namespace tfn::serve {
namespace {

// Discards what UTF8<>::Validate copies.
struct NullSink {
  void Put(char) {}
};

// `s` with each byte that does not start a valid UTF-8 sequence as '?'.
std::string ValidUtf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  size_t i = 0;
  while (i < s.size()) {
    if (static_cast<unsigned char>(s[i]) < 0x80) {
      out += s[i++];
      continue;
    }
    rapidjson::MemoryStream in(s.data() + i, s.size() - i);
    NullSink sink;
    if (rapidjson::UTF8<>::Validate(in, sink)) {
      out.append(s.data() + i, in.Tell());
      i += in.Tell();
    } else {
      out += '?';
      ++i;
    }
  }
  return out;
}

// Whether the digits, read as a double and rounded to float, give v.
bool ReadsBackThroughDouble(const char* text, size_t n, float v) {
  double d = 0;
  if (std::from_chars(text, text + n, d).ec != std::errc()) return false;
  // Only FLT_MAX's digits lie above it (within half its ulp, so they round
  // to it); the cast of a double beyond the float range would be undefined.
  if (std::fabs(d) > FLT_MAX) return std::fabs(v) == FLT_MAX;
  float back = static_cast<float>(d);
  return std::memcmp(&back, &v, sizeof(v)) == 0;
}

}  // namespace

void WriteString(JsonWriter& w, std::string_view s) {
  std::string valid = ValidUtf8(s);
  w.String(valid.data(), static_cast<rapidjson::SizeType>(valid.size()));
}

void WriteKey(JsonWriter& w, const char* key) {
  w.Key(key, static_cast<rapidjson::SizeType>(std::strlen(key)));
}

void WriteValue(JsonWriter& w, float v) {
  if (!std::isfinite(v)) {  // the writer's NaN/Infinity tokens, as for FP64
    w.Double(static_cast<double>(v));
    return;
  }
  // std::to_chars without a format: the shortest digits that read back as v.
  char text[32];
  auto r = std::to_chars(text, text + sizeof(text) - 2, v);
  size_t n = static_cast<size_t>(r.ptr - text);
  // Readers that parse a double and round it to float (tfn's StoreElement,
  // Python's json with numpy) round twice, which can miss: of all finite
  // floats only +-7.038531e-26 do (checked exhaustively with libstdc++ 12).
  // Those get the double's digits, which read back exactly.
  if (r.ec != std::errc() || !ReadsBackThroughDouble(text, n, v)) {
    w.Double(static_cast<double>(v));
    return;
  }
  // A whole number gets ".0", as FP64 does: a client that types JSON numbers
  // by their text (Python's json) still sees a float, and -0.0 keeps its sign
  // (the reader takes "-0" for the integer 0).
  if (std::memchr(text, '.', n) == nullptr && std::memchr(text, 'e', n) == nullptr) {
    text[n++] = '.';
    text[n++] = '0';
  }
  w.RawValue(text, n, rapidjson::kNumberType);
}

std::string Text(const rapidjson::StringBuffer& buffer) {
  return std::string(buffer.GetString(), buffer.GetSize());
}

std::string FormatDouble(double d) {
  rapidjson::StringBuffer buffer;
  JsonWriter writer(buffer);
  writer.Double(d);
  return Text(buffer);
}

}  // namespace tfn::serve
