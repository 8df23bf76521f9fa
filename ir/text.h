// The text form of graphs: printing (for users, tfn-inspect and golden
// tests) and parsing (for golden tests and hand-written graphs).
//
//   graph {
//     %0 = parameter {index=0} : f32[?s0,3] @x
//     %1 = constant {value=f32[] [2]} : f32[]
//     %2 = mul %0, %1 : f32[?s0,3]
//     %3 = split %2 {axis=1, num_splits=3} : f32[?s0,1], f32[?s0,1], f32[?s0,1]
//     %4 = cond %p, %2 : f32[?s0,3] {
//       graph { ... }
//       graph { ... }
//     }
//     return %3#1 @y
//   }
//
// Values are %<node index>, with #<port> for outputs after the first;
// attributes equal to their op's default are not printed (the parser fills
// them in); names of parameters and results follow '@'.
#pragma once

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "ir/graph.h"

namespace tfn::ir {

struct PrintOptions {
  // Constants with more elements print as "<N elements>" (not parseable).
  int max_constant_elements = 16;
};

std::string PrintGraph(const Graph& graph, const PrintOptions& options = {});
// Parses the text form. Types after ':' are checked against inference
// (parameters' types are taken as written).
absl::StatusOr<Graph> ParseGraph(std::string_view text);

// Shortest decimal text that parses back to exactly `v`.
std::string FormatDouble(double v);

}  // namespace tfn::ir
