// The names Graph::FreshDim gives dims it makes up for data-dependent shapes
// (?d0, ?d1, ...): one definition, for the graph that makes them, the
// verifier that lets them differ and the importer that must not write them
// into attributes (their numbering means nothing outside one graph).
#pragma once

#include <cctype>
#include <cstdint>
#include <string>
#include <vector>

#include "core/sym_dim.h"

namespace tfn::ir {

inline std::string FreshDimName(int64_t n) { return "d" + std::to_string(n); }

inline bool IsFreshDimName(const std::string& name) {
  return name.size() > 1 && name[0] == 'd' && std::isdigit(static_cast<unsigned char>(name[1]));
}

// The "dims" attribute of reshape, broadcast_to and slice
// (core/rules/rules_shape.h) that states an output of dims `known`: "" when
// one is negative or a fresh dim, whose name means nothing past this graph's
// numbering.
inline std::string DimsAttribute(const std::vector<SymDim>& known) {
  std::string text;
  for (const SymDim& d : known) {
    if (d.is_static() && d.value() < 0) return "";
    for (const std::string& name : SymbolsOf(d)) {
      if (IsFreshDimName(name)) return "";
    }
    text += (text.empty() ? "" : ",") + d.ToString();
  }
  return text;
}

}  // namespace tfn::ir
