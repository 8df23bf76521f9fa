// Writing bundles: signatures (optimized graphs), variables and weights into
// the .tfn format (schema/README.md). The only user of FlatBufferBuilder.
//
// Deterministic: the same inputs and options give byte-identical output.
// Weights are deduplicated by content, so a variable or constant shared by
// several signatures is stored once.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/attrs.h"
#include "ir/graph.h"

namespace tfn::exporter {

struct SignatureToExport {
  std::string name;  // e.g. "serving_default"
  // Parameter names are the input names, result names the output names.
  ir::Graph graph;
};

struct VariableToExport {
  std::string name;
  ConstTensor value;  // the initial value stored in the bundle
};

struct ExportOptions {
  enum class Compression { kNone, kZstd };
  Compression compression = Compression::kNone;
  int zstd_level = 3;
  // Segments smaller than this stay raw even when compressing.
  int64_t min_compress_bytes = 4096;
  // Extra key/value pairs recorded in the metadata.
  std::vector<std::pair<std::string, std::string>> metadata;
};

// "zstd" or "zstd:LEVEL" or "none"; for command lines.
absl::StatusOr<ExportOptions::Compression> ParseCompression(const std::string& text, int* level);

absl::StatusOr<std::string> SerializeBundle(const std::vector<SignatureToExport>& signatures,
                                            const std::vector<VariableToExport>& variables,
                                            const ExportOptions& options = {});

// SerializeBundle + WriteFileAtomically.
absl::Status WriteBundle(const std::string& path, const std::vector<SignatureToExport>& signatures,
                         const std::vector<VariableToExport>& variables,
                         const ExportOptions& options = {});

}  // namespace tfn::exporter
