// The names Graph::FreshDim gives dims it makes up for data-dependent shapes
// (?d0, ?d1, ...): one definition, for the graph that makes them, the
// verifier that lets them differ and the importer that must not write them
// into attributes (their numbering means nothing outside one graph).
#pragma once

#include <cctype>
#include <cstdint>
#include <string>

namespace tfn::ir {

inline std::string FreshDimName(int64_t n) { return "d" + std::to_string(n); }

inline bool IsFreshDimName(const std::string& name) {
  return name.size() > 1 && name[0] == 'd' && std::isdigit(static_cast<unsigned char>(name[1]));
}

}  // namespace tfn::ir
