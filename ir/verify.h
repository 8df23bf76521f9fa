// Verify(graph): checks every invariant listed in graph.h, recursively into
// subgraphs. The pass pipeline runs it after each pass when asked to (tests
// and debug builds do).
#pragma once

#include "absl/status/status.h"
#include "ir/graph.h"

namespace tfn::ir {

absl::Status Verify(const Graph& graph);

}  // namespace tfn::ir
