// What tfn-inspect derives from a bundle's graphs: the op histogram, the
// weight bytes of constants, Graphviz dot, and the "?" form of types used in
// signature listings. Pure functions of ir::Graphs (no I/O).
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>

#include "ir/graph.h"

namespace tfn::tools {

// "f32[?,784]": static dims as numbers, every symbolic dim as "?" (the
// saved_model_cli view; PrintGraph keeps the symbols: "f32[?s0,784]").
std::string StaticTypeString(const ir::TensorType& type);

// Adds the count of each op in `graph` and, recursively, its subgraphs.
void CountOps(const ir::Graph& graph, std::map<std::string, int64_t>* counts);

// Adds the bytes of constant tensors in `graph` (and its subgraphs) that are
// not in `seen` yet; a tensor shared by several graphs counts once.
int64_t ConstantBytes(const ir::Graph& graph, std::set<const void*>* seen);

// Graphviz dot of one graph: a node per op, labelled with the op and its
// output types; edges for data flow (labelled with the output port when it
// is not 0); parameters and results as ellipses; each subgraph of a cond or
// while_loop as a cluster, with dashed edges for the operands flowing into
// its parameters and its results flowing back.
std::string GraphToDot(const ir::Graph& graph, const std::string& name);

// A JSON string literal.
std::string JsonString(const std::string& s);

}  // namespace tfn::tools
