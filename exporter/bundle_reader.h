// Reading bundles back into the IR: for tfn-aot (which compiles graphs),
// tfn-inspect and round-trip tests. The bytes are read by the runtime's
// bundle reader (runtime/bundle_reader.h: verified, checksummed, weights in
// place), the one reader of the format; every graph is then rebuilt through
// the checked builder, so a graph that does not re-infer to its stored types
// is refused.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "exporter/bundle_writer.h"

namespace tfn::exporter {

struct ImportedBundle {
  uint32_t format_version = 0;
  std::string producer;
  std::string producer_version;
  std::vector<std::pair<std::string, std::string>> metadata;
  std::vector<SignatureToExport> signatures;
  std::vector<VariableToExport> variables;
  uint64_t file_size = 0;
  uint64_t content_hash = 0;  // the header's (schema::ContentHash)
  // Owns the bytes the weights point into.
  std::shared_ptr<const std::string> bytes;
  // Where each weight read from the file (variable values and graph
  // constants) lies in it, keyed by the data pointer of its ConstTensor:
  // for tfn-aot --weights external, which reads weights in place at run time.
  struct WeightLocation {
    uint64_t file_offset = 0;  // of the stored bytes
    uint64_t size = 0;         // stored bytes
    bool compressed = false;   // zstd: the stored bytes are not the tensor's
    // Holds the data, so that no later allocation takes its address (the key).
    ConstTensor tensor;
  };
  std::map<const void*, WeightLocation> weight_locations;
};

struct ReadOptions {
  bool verify_checksums = true;  // every segment, the weights too (runtime::ReadOptions)
};

absl::StatusOr<ImportedBundle> ReadBundle(std::shared_ptr<const std::string> bytes,
                                          const ReadOptions& options = {});
absl::StatusOr<ImportedBundle> ReadBundleFile(const std::string& path,
                                              const ReadOptions& options = {});

}  // namespace tfn::exporter
