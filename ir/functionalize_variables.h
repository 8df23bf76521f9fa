// Functionalizing variables: a graph that reads and assigns Variables
// becomes a pure function that compiled code (JIT, AOT) can run. Every
// variable the graph touches becomes an extra parameter holding its value at
// the call; every variable it assigns becomes an extra result holding its
// value after the call. Reads after an assignment see the assigned value, as
// in the interpreter (stateful ops run in program order).
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/graph.h"

namespace tfn::ir {

struct FunctionalizedGraph {
  Graph graph;
  // Variable names in order of first use: the graph's extra parameters follow
  // the original ones in this order (named "var_NAME").
  std::vector<std::string> variables;
  // For each extra result (after the original ones): the index in
  // `variables` of the variable it holds the new value of.
  std::vector<int> assigned;
};

// The name of a variable's parameter and result in the functionalized graph
// (and so of its state input and output in a tfn-aot object): "var_" and the
// name with characters other than letters, digits and '_' as '_'.
std::string StateName(const std::string& variable);

// Fails (Unimplemented) for variables used inside cond/while_loop subgraphs.
absl::StatusOr<FunctionalizedGraph> FunctionalizeVariables(const Graph& g);

}  // namespace tfn::ir
