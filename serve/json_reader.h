// JSON texts parsed into a flat, read-only tree (JsonDoc) that the REST codec
// and config.json read through JsonValue handles.
//
// Why not RapidJSON's DOM: 1.1.0's rapidjson/document.h does not compile with
// clang 19 (the TSan, sanitizer and fuzz builds), and 1.1.0's own number
// conversion computes `exp + expFrac` in int, which overflows (undefined
// behaviour) on e.g. 0.00000000001e-2147483639. So RapidJSON's SAX reader
// parses (iteratively, validating UTF-8, NaN/Infinity tokens allowed) and
// hands numbers over as text, which std::from_chars converts here.
//
// The tree is the reader's events in document order: a container is
// followed by its children (an object's keys and values alternate), and
// every node knows where its subtree ends, so siblings are one step apart
// and nothing walks the tree recursively.
//
// Thread-safety: a JsonDoc is not changed after parsing; JsonValues of it may
// be read from any thread. Ownership: a JsonValue points into its JsonDoc,
// which must outlive it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace tfn::serve {

enum class JsonKind : uint8_t {
  kNull,
  kFalse,
  kTrue,
  kInt64,
  kUint64,
  kDouble,
  kString,
  kArray,
  kObject
};

struct JsonNode {
  JsonKind kind = JsonKind::kNull;
  uint32_t count = 0;  // an array's elements, an object's members, a string's bytes
  size_t end = 0;      // one past the last node of this subtree
  union {
    int64_t i = 0;  // kInt64
    uint64_t u;     // kUint64: above INT64_MAX
    double d;       // kDouble
    size_t offset;  // kString: where its bytes are in JsonDoc::strings
  };
};

struct JsonDoc {
  std::vector<JsonNode> nodes;  // nodes[0] is the root
  std::string strings;
};

class JsonElements;
class JsonMembers;

// A handle to one node of a JsonDoc; a default-constructed one is "absent"
// (a member that is not there).
class JsonValue {
 public:
  JsonValue() = default;
  JsonValue(const JsonDoc* doc, size_t index) : doc_(doc), index_(index) {}
  explicit operator bool() const { return doc_ != nullptr; }

  JsonKind kind() const { return node().kind; }
  bool IsNull() const { return kind() == JsonKind::kNull; }
  bool IsBool() const { return kind() == JsonKind::kFalse || kind() == JsonKind::kTrue; }
  bool GetBool() const { return kind() == JsonKind::kTrue; }
  bool IsString() const { return kind() == JsonKind::kString; }
  std::string_view GetString() const {
    return {doc_->strings.data() + node().offset, node().count};
  }
  bool IsArray() const { return kind() == JsonKind::kArray; }
  bool IsObject() const { return kind() == JsonKind::kObject; }
  uint32_t Size() const { return node().count; }
  bool Empty() const { return node().count == 0; }

  bool IsNumber() const {
    return kind() == JsonKind::kInt64 || kind() == JsonKind::kUint64 || kind() == JsonKind::kDouble;
  }
  // Integers are what JSON wrote without a fraction or exponent.
  bool IsInt64() const { return kind() == JsonKind::kInt64; }
  bool IsUint64() const { return kind() == JsonKind::kUint64 || (IsInt64() && node().i >= 0); }
  bool IsInt() const { return IsInt64() && node().i >= INT32_MIN && node().i <= INT32_MAX; }
  int64_t GetInt64() const { return node().i; }
  uint64_t GetUint64() const {
    return kind() == JsonKind::kUint64 ? node().u : static_cast<uint64_t>(node().i);
  }
  double GetDouble() const {
    switch (kind()) {
      case JsonKind::kInt64:
        return static_cast<double>(node().i);
      case JsonKind::kUint64:
        return static_cast<double>(node().u);
      default:
        return node().d;
    }
  }

  // The first child (an array's first element, an object's first key); the
  // node after this one's subtree.
  JsonValue First() const { return {doc_, index_ + 1}; }
  JsonValue Next() const { return {doc_, node().end}; }

  JsonElements GetArray() const;
  JsonMembers GetObject() const;
  // The value of the first member named `name`; absent when there is none
  // or this is not an object.
  JsonValue Member(std::string_view name) const;

 private:
  const JsonNode& node() const { return doc_->nodes[index_]; }
  const JsonDoc* doc_ = nullptr;
  size_t index_ = 0;
};

// Iterates an array's elements.
class JsonElements {
 public:
  class Iterator {
   public:
    Iterator(JsonValue v, uint32_t left) : v_(v), left_(left) {}
    JsonValue operator*() const { return v_; }
    Iterator& operator++() {
      v_ = v_.Next();
      --left_;
      return *this;
    }
    bool operator!=(const Iterator& o) const { return left_ != o.left_; }

   private:
    JsonValue v_;
    uint32_t left_;
  };
  explicit JsonElements(JsonValue array) : array_(array) {}
  Iterator begin() const { return {array_.First(), array_.Size()}; }
  Iterator end() const { return {array_, 0}; }

 private:
  JsonValue array_;
};

struct JsonMember {
  JsonValue name;
  JsonValue value;
};

// Iterates an object's members: keys and values alternate.
class JsonMembers {
 public:
  class Iterator {
   public:
    Iterator(JsonValue key, uint32_t left) : key_(key), left_(left) {}
    JsonMember operator*() const { return {key_, key_.Next()}; }
    Iterator& operator++() {
      key_ = key_.Next().Next();
      --left_;
      return *this;
    }
    bool operator!=(const Iterator& o) const { return left_ != o.left_; }

   private:
    JsonValue key_;
    uint32_t left_;
  };
  explicit JsonMembers(JsonValue object) : object_(object) {}
  Iterator begin() const { return {object_.First(), object_.Size()}; }
  Iterator end() const { return {object_, 0}; }

 private:
  JsonValue object_;
};

inline JsonElements JsonValue::GetArray() const { return JsonElements(*this); }
inline JsonMembers JsonValue::GetObject() const { return JsonMembers(*this); }

// Why ReadJson refused a text.
struct JsonReadError {
  enum class Kind {
    kTooBig,       // more than kMaxJsonBytes (rest_codec.h); nothing was parsed
    kSyntax,       // not JSON; `message` is RapidJSON's ("Invalid value.")
    kNumberRange,  // JSON, but a number is beyond a double's range
  };
  Kind kind = Kind::kSyntax;
  size_t offset = 0;    // the byte where parsing stopped
  std::string message;  // one line, without the offset
};

// Parses `text` into *doc (empty before) and returns true, or fills *error.
// Callers word the error for their readers (ParseJson, model_config.cc).
bool ReadJson(std::string_view text, JsonDoc* doc, JsonReadError* error);

// ReadJson, its error worded for a REST body that `what` names ("the request
// body"): kInvalidArgument, one line, with the offset.
Result<JsonValue> ParseJson(std::string_view text, const std::string& what, JsonDoc* doc);

// What a JSON value is, for "... but is <Found>": "the integer 5", "an
// array of 3 elements", "the string 'x'".
std::string Found(JsonValue v);

// `s` on one line (control bytes as \xNN), cut after about 64 bytes at a
// UTF-8 boundary: names in messages come from the network.
std::string OneLine(std::string_view s);
// OneLine(s) in single quotes.
std::string Quote(std::string_view s);

}  // namespace tfn::serve
