// Parsing JSON into a JsonDoc (json_reader.h): RapidJSON's SAX reader, with
// numbers converted by std::from_chars.
#include "serve/json_reader.h"

#include <algorithm>
#include <charconv>

#include "serve/json_writer.h"
#include "serve/rapidjson.h"
#include "serve/rest_codec.h"  // kMaxJsonBytes

namespace tfn::serve {
namespace {

using rapidjson::SizeType;

// How far left of the decimal point the first significant digit of a JSON
// number is (negative: right of it); tells an underflow from an overflow.
int64_t DecimalMagnitude(std::string_view t) {
  size_t i = (!t.empty() && t[0] == '-') ? 1 : 0;
  auto digit = [&](size_t k) { return k < t.size() && t[k] >= '0' && t[k] <= '9'; };
  int64_t int_digits = 0, leading_zeros = 0;
  bool significant = false;
  for (; digit(i); ++i) {
    significant = significant || t[i] != '0';
    if (significant) ++int_digits;
  }
  if (i < t.size() && t[i] == '.') {
    for (++i; digit(i); ++i) {
      if (!significant && t[i] == '0') ++leading_zeros;
      significant = significant || t[i] != '0';
    }
  }
  int64_t magnitude = int_digits > 0 ? int_digits : -leading_zeros;
  if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
    ++i;
    bool negative = i < t.size() && t[i] == '-';
    if (i < t.size() && (t[i] == '-' || t[i] == '+')) ++i;
    int64_t exponent = 0;
    for (; digit(i); ++i) {
      exponent = std::min<int64_t>(exponent * 10 + (t[i] - '0'), 1'000'000'000);
    }
    magnitude += negative ? -exponent : exponent;
  }
  return magnitude;
}

// Fills a JsonDoc from RapidJSON's SAX events. Numbers arrive as text
// (kParseNumbersAsStringsFlag) in JSON's number grammar or as NaN/Infinity
// tokens, and are converted here (not by RapidJSON: see json_reader.h).
class JsonBuilder {
 public:
  explicit JsonBuilder(JsonDoc* doc) : doc_(*doc) {}
  const std::string& error() const { return error_; }
  // Whether error() is a syntax error (else a number out of range).
  bool syntax_error() const { return syntax_error_; }

  bool Null() { return Add(JsonKind::kNull); }
  bool Bool(bool b) { return Add(b ? JsonKind::kTrue : JsonKind::kFalse); }
  bool Int(int i) { return Int64(i); }
  bool Uint(unsigned u) { return Int64(u); }
  bool Int64(int64_t i) {
    Add(JsonKind::kInt64);
    doc_.nodes.back().i = i;
    return true;
  }
  bool Uint64(uint64_t u) {
    if (u <= static_cast<uint64_t>(INT64_MAX)) return Int64(static_cast<int64_t>(u));
    Add(JsonKind::kUint64);
    doc_.nodes.back().u = u;
    return true;
  }
  bool Double(double d) {
    Add(JsonKind::kDouble);
    doc_.nodes.back().d = d;
    return true;
  }
  bool String(const char* s, SizeType n, bool /*copy*/) {
    if (HasSurrogate(std::string_view(s, n))) {
      // RapidJSON 1.1.0 refuses a \u escape of an unpaired high surrogate
      // but encodes an unpaired low one (\udc00-\udfff) as the bytes ED B0-BF
      // xx, which are not UTF-8; strings are echoed in responses, which must
      // be. Refused as later RapidJSON versions refuse it.
      error_ = "The surrogate pair in string is invalid.";
      syntax_error_ = true;
      return false;
    }
    Add(JsonKind::kString);
    doc_.nodes.back().offset = doc_.strings.size();
    doc_.nodes.back().count = n;
    doc_.strings.append(s, n);
    return true;
  }
  bool Key(const char* s, SizeType n, bool copy) { return String(s, n, copy); }
  bool StartObject() { return Open(JsonKind::kObject); }
  bool EndObject(SizeType members) { return Close(members); }
  bool StartArray() { return Open(JsonKind::kArray); }
  bool EndArray(SizeType elements) { return Close(elements); }

  bool RawNumber(const char* s, SizeType n, bool /*copy*/) {
    std::string_view text(s, n);
    const char* end = s + n;
    if (text.find_first_of(".eEIN") == std::string_view::npos) {
      if (text[0] == '-') {
        int64_t v = 0;
        auto r = std::from_chars(s, end, v);
        if (r.ec == std::errc() && r.ptr == end) return Int64(v);
      } else {
        uint64_t v = 0;
        auto r = std::from_chars(s, end, v);
        if (r.ec == std::errc() && r.ptr == end) return Uint64(v);
      }
      // Beyond 64 bits: a double, as RapidJSON makes it.
    }
    double d = 0;
    auto r = std::from_chars(s, end, d);
    if (r.ec == std::errc() && r.ptr == end) return Double(d);
    if (r.ec == std::errc::result_out_of_range && DecimalMagnitude(text) <= 0) {
      return Double(text[0] == '-' ? -0.0 : 0.0);  // underflow: zero, as strtod gives
    }
    error_ = "the number " + OneLine(text) + " is outside the range of a double";
    return false;
  }

 private:
  bool Add(JsonKind kind) {
    JsonNode node;
    node.kind = kind;
    node.end = doc_.nodes.size() + 1;
    doc_.nodes.push_back(node);
    return true;
  }
  bool Open(JsonKind kind) {
    open_.push_back(doc_.nodes.size());
    return Add(kind);
  }
  bool Close(SizeType count) {
    JsonNode& node = doc_.nodes[open_.back()];
    open_.pop_back();
    node.count = count;
    node.end = doc_.nodes.size();
    return true;
  }

  // Whether UTF-8 text (RapidJSON validated its bytes) holds an encoded
  // UTF-16 surrogate, U+D800-U+DFFF: ED A0-BF xx.
  static bool HasSurrogate(std::string_view s) {
    for (size_t i = 0; i + 1 < s.size(); ++i) {
      if (static_cast<unsigned char>(s[i]) == 0xED && static_cast<unsigned char>(s[i + 1]) >= 0xA0)
        return true;
    }
    return false;
  }

  JsonDoc& doc_;
  std::vector<size_t> open_;  // the containers not closed yet
  std::string error_;
  bool syntax_error_ = false;
};

constexpr unsigned kParseFlags =
    rapidjson::kParseNumbersAsStringsFlag | rapidjson::kParseNanAndInfFlag |
    rapidjson::kParseIterativeFlag |        // no recursion on deep nesting
    rapidjson::kParseValidateEncodingFlag;  // strings we echo are UTF-8

}  // namespace

std::string OneLine(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (i >= 64 && (c & 0xC0) != 0x80) return out + "...";
    if (c < 0x20 || c == 0x7f) {
      static const char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

std::string Quote(std::string_view s) { return "'" + OneLine(s) + "'"; }

JsonValue JsonValue::Member(std::string_view name) const {
  if (!IsObject()) return {};
  for (const JsonMember& m : GetObject()) {
    if (m.name.GetString() == name) return m.value;
  }
  return {};
}

std::string Found(JsonValue v) {
  switch (v.kind()) {
    case JsonKind::kNull:
      return "null";
    case JsonKind::kFalse:
      return "false";
    case JsonKind::kTrue:
      return "true";
    case JsonKind::kObject:
      return v.Member("b64") ? "a {\"b64\": ...} object" : "an object";
    case JsonKind::kArray:
      return "an array of " + std::to_string(v.Size()) + " elements";
    case JsonKind::kString:
      return "the string " + Quote(v.GetString());
    case JsonKind::kInt64:
      return "the integer " + std::to_string(v.GetInt64());
    case JsonKind::kUint64:
      return "the integer " + std::to_string(v.GetUint64());
    case JsonKind::kDouble:
      return "the number " + FormatDouble(v.GetDouble());
  }
  return "a JSON value";
}

bool ReadJson(std::string_view text, JsonDoc* doc, JsonReadError* error) {
  // Checked here, for every caller: the limit bounds the parser's memory and
  // keeps RapidJSON's number scanner clear of int overflow (rest_codec.h).
  if (text.size() > kMaxJsonBytes) {
    error->kind = JsonReadError::Kind::kTooBig;
    error->offset = 0;
    error->message = std::to_string(text.size()) + " bytes of JSON; this server takes at most " +
                     std::to_string(kMaxJsonBytes);
    return false;
  }
  JsonBuilder builder(doc);
  rapidjson::Reader reader;
  rapidjson::MemoryStream stream(text.data(), text.size());
  rapidjson::ParseResult result = reader.Parse<kParseFlags>(stream, builder);
  if (!result.IsError()) return true;
  error->offset = result.Offset();
  if (result.Code() == rapidjson::kParseErrorTermination && !builder.error().empty()) {
    error->kind =
        builder.syntax_error() ? JsonReadError::Kind::kSyntax : JsonReadError::Kind::kNumberRange;
    error->message = builder.error();
  } else {
    error->kind = JsonReadError::Kind::kSyntax;
    error->message = rapidjson::GetParseError_En(result.Code());
  }
  return false;
}

Result<JsonValue> ParseJson(std::string_view text, const std::string& what, JsonDoc* doc) {
  JsonReadError error;
  if (ReadJson(text, doc, &error)) return JsonValue(doc, 0);
  std::string at = " (at byte " + std::to_string(error.offset) + ")";
  switch (error.kind) {
    case JsonReadError::Kind::kTooBig:
      return InvalidArgument(what + " is " + error.message + " (send big tensors as binary data)");
    case JsonReadError::Kind::kNumberRange:
      return InvalidArgument(what + ": " + error.message + at);
    case JsonReadError::Kind::kSyntax:
      break;
  }
  return InvalidArgument(what + " is not valid JSON: " + error.message + at);
}

}  // namespace tfn::serve
