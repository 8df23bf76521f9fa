// Step 1 of quantization (quantizer.h): the float graph of single ops a
// signature is quantized from, and which variables a graph still reads.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "exporter/bundle_reader.h"
#include "ir/graph.h"

namespace tfn::quantizer {

// `signature`'s graph with every variable no signature of the bundle assigns
// read as a constant, and its fused ops unlowered (ir/passes/unlower_fused.h).
absl::StatusOr<ir::Graph> PrepareFloatGraph(const exporter::ImportedBundle& bundle,
                                            const std::string& signature);

// Whether `graph` (or a subgraph of it) reads or assigns the variable `name`.
bool UsesVariable(const ir::Graph& graph, const std::string& name);

}  // namespace tfn::quantizer
