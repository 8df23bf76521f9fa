// Version policies and config.json (model_config.h), read with the REST
// codec's JSON reader (json_reader.h; RapidJSON's DOM does not build with
// clang 19).
#include "serve/model_config.h"

#include <algorithm>
#include <cstdlib>

#include "serve/json_reader.h"

namespace tfn::serve {
namespace {

Result<int64_t> ParsePositive(const std::string& text, const std::string& what) {
  char* end = nullptr;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || v <= 0) {
    return Status(StatusCode::kInvalidArgument,
                  what + ": expected a positive integer, got '" + text + "'");
  }
  return static_cast<int64_t>(v);
}

Status KeyError(const std::string& where, const std::string& key, const char* expected) {
  return Status(StatusCode::kInvalidArgument, where + ": \"" + key + "\" must be " + expected);
}

Result<int64_t> PositiveInt(JsonValue v, const std::string& where, const std::string& key) {
  if (!v.IsInt64() || v.GetInt64() < 0) return KeyError(where, key, "a non-negative integer");
  return v.GetInt64();
}

Status ParseBatching(JsonValue b, BatchingOptions* out, const std::string& where) {
  if (!b.IsObject()) return KeyError(where, "dynamic_batching", "an object");
  for (const JsonMember& member : b.GetObject()) {
    const std::string key(member.name.GetString());
    const std::string full = "dynamic_batching." + key;
    if (key == "max_batch_size") {
      TFN_ASSIGN_OR_RETURN(out->max_batch_size, PositiveInt(member.value, where, full));
    } else if (key == "max_queue_delay_us") {
      TFN_ASSIGN_OR_RETURN(out->max_queue_delay_us, PositiveInt(member.value, where, full));
    } else if (key == "max_queue_size") {
      TFN_ASSIGN_OR_RETURN(out->max_queue_size, PositiveInt(member.value, where, full));
    } else if (key == "preferred_batch_sizes") {
      if (!member.value.IsArray()) return KeyError(where, full, "a list of positive integers");
      out->preferred_batch_sizes.clear();
      for (JsonValue s : member.value.GetArray()) {
        TFN_ASSIGN_OR_RETURN(int64_t size, PositiveInt(s, where, full));
        out->preferred_batch_sizes.push_back(size);
      }
    } else {
      return Status(StatusCode::kInvalidArgument,
                    where + ": unknown key \"" + full +
                        "\" (expected max_batch_size, max_queue_delay_us, "
                        "preferred_batch_sizes or max_queue_size)");
    }
  }
  return Status::Ok();
}

}  // namespace

Result<VersionPolicy> VersionPolicy::Parse(const std::string& text) {
  VersionPolicy p;
  const std::string what = "version policy '" + text + "'";
  if (text == "all") {
    p.kind = Kind::kAll;
  } else if (text == "latest") {
    p.kind = Kind::kLatest;
  } else if (text.rfind("latest:", 0) == 0) {
    p.kind = Kind::kLatest;
    TFN_ASSIGN_OR_RETURN(p.latest, ParsePositive(text.substr(7), what));
  } else if (text.rfind("specific:", 0) == 0) {
    p.kind = Kind::kSpecific;
    std::string rest = text.substr(9);
    size_t at = 0;
    while (at <= rest.size()) {
      const size_t comma = std::min(rest.find(',', at), rest.size());
      TFN_ASSIGN_OR_RETURN(int64_t v, ParsePositive(rest.substr(at, comma - at), what));
      p.specific.push_back(v);
      at = comma + 1;
    }
    std::sort(p.specific.begin(), p.specific.end());
  } else {
    return Status(StatusCode::kInvalidArgument,
                  what + ": expected latest, latest:N, all or specific:V[,V...]");
  }
  return p;
}

std::string VersionPolicy::ToString() const {
  switch (kind) {
    case Kind::kAll:
      return "all";
    case Kind::kLatest:
      return "latest:" + std::to_string(latest);
    case Kind::kSpecific: {
      std::string s = "specific:";
      for (size_t i = 0; i < specific.size(); ++i) {
        s += (i ? "," : "") + std::to_string(specific[i]);
      }
      return s;
    }
  }
  return "";
}

std::vector<int64_t> VersionPolicy::Select(const std::vector<int64_t>& available) const {
  switch (kind) {
    case Kind::kAll:
      return available;
    case Kind::kLatest: {
      const size_t n = std::min(available.size(), static_cast<size_t>(latest));
      return std::vector<int64_t>(available.end() - static_cast<std::ptrdiff_t>(n),
                                  available.end());
    }
    case Kind::kSpecific: {
      std::vector<int64_t> out;
      for (int64_t v : available) {
        if (std::binary_search(specific.begin(), specific.end(), v)) out.push_back(v);
      }
      return out;
    }
  }
  return {};
}

Result<ModelOptions> ParseModelConfig(const std::string& json, const ModelOptions& defaults,
                                      const std::string& where) {
  JsonDoc doc;
  JsonReadError error;
  if (!ReadJson(json, &doc, &error)) {
    if (error.kind == JsonReadError::Kind::kTooBig) {
      return Status(StatusCode::kInvalidArgument, where + " is " + error.message);
    }
    return Status(
        StatusCode::kInvalidArgument,
        where + ": not valid JSON at byte " + std::to_string(error.offset) + ": " + error.message);
  }
  const JsonValue root(&doc, 0);
  if (!root.IsObject()) return Status(StatusCode::kInvalidArgument, where + ": expected an object");
  ModelOptions out = defaults;
  for (const JsonMember& member : root.GetObject()) {
    const std::string key(member.name.GetString());
    if (key == "version_policy") {
      if (!member.value.IsString()) return KeyError(where, key, "a string");
      Result<VersionPolicy> p = VersionPolicy::Parse(std::string(member.value.GetString()));
      if (!p.ok()) return Status(StatusCode::kInvalidArgument, where + ": " + p.status().message());
      out.version_policy = *p;
    } else if (key == "instances" || key == "threads") {
      TFN_ASSIGN_OR_RETURN(int64_t n, PositiveInt(member.value, where, key));
      if (n < 1 || n > 1024) return KeyError(where, key, "between 1 and 1024");
      (key == "instances" ? out.instances : out.threads) = static_cast<int>(n);
    } else if (key == "dynamic_batching") {
      TFN_RETURN_IF_ERROR(ParseBatching(member.value, &out.batching, where));
    } else {
      return Status(StatusCode::kInvalidArgument,
                    where + ": unknown key \"" + key +
                        "\" (expected version_policy, instances, threads or dynamic_batching)");
    }
  }
  return out;
}

}  // namespace tfn::serve
