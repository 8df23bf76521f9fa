// The one reader of the bundle format: verified bytes -> plain records of
// the graphs, signatures, variables and weights. The runtime builds its
// Programs from them (bundle_loader.cc); the exporter builds ir::Graphs from
// them (exporter/bundle_reader.h, for tfn-aot, tfn-inspect and tests). So
// what a bundle means — attribute decoding, which segments are checksummed
// when, decompression, port and op checks — is decided here once.
//
// The bytes are untrusted: they are verified (schema/bundle_verify.h) before
// anything is read, every op name is looked up in the op table, every input
// and result port is checked against its producer's outputs, and attribute
// types are checked. What a node's attributes mean for its op (CheckNode)
// is left to the consumer, which checks it while building its own form.
//
// Ownership: records are plain values. Raw weights are used in place: their
// ConstTensors point into `data` and share `keepalive` (keep `data` alive and
// unchanged while they live if it is empty); compressed ones are
// decompressed once into memory they own. Thread-compatible (no state).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/attrs.h"
#include "core/op_def.h"
#include "core/status.h"
#include "runtime/runtime.h"

namespace tfn::runtime {

// A value's stored type is a runtime::TensorInfo (runtime.h): name, dtype,
// shape with kDynamic (-1) where only a symbol is known, and dim_names with
// that symbol ("?s0", "2*?s1") for those dims, "" for the others.
using TypeRecord = TensorInfo;

// An output port of a node of the same graph.
struct PortRef {
  int32_t node = 0;
  int32_t port = 0;
};

struct NodeRecord {
  const OpDef* def = nullptr;   // never null
  std::vector<PortRef> inputs;  // producers precede the node
  std::vector<TypeRecord> outputs;
  Attrs attrs;                      // as stored (not normalized)
  std::vector<uint32_t> subgraphs;  // cond: then, else; while_loop: cond, body
  int32_t fusion_group = -1;        // as stored (ir/passes/fuse_elementwise.h)
};

struct GraphRecord {
  std::vector<NodeRecord> nodes;  // program order; parameters are kParameter nodes
  std::vector<PortRef> results;
  std::vector<std::string> result_names;  // one per result ("" when unnamed)
};

struct SignatureRecord {
  std::string name;
  uint32_t graph = 0;  // index into BundleContents::graphs
  std::vector<TypeRecord> inputs, outputs;
};

struct VariableRecord {
  std::string name;
  ConstTensor value;
};

// Where a weight's stored bytes lie in the file (tfn-aot --weights external
// reads them in place at run time).
struct WeightRecord {
  ConstTensor tensor;
  uint64_t file_offset = 0;
  uint64_t stored_size = 0;
  bool compressed = false;  // zstd: the stored bytes are not the tensor's
};

struct BundleContents {
  uint32_t format_version = 0;
  uint64_t file_size = 0;
  uint64_t content_hash = 0;
  std::string producer, producer_version;
  std::vector<std::pair<std::string, std::string>> metadata;
  std::vector<GraphRecord> graphs;
  std::vector<SignatureRecord> signatures;
  std::vector<VariableRecord> variables;  // names unique (checked)
  std::vector<WeightRecord> weights;      // every weight read, once each
  int64_t weight_bytes = 0;               // of `weights`, as used at run time
};

struct ReadOptions {
  // Hash every segment (the weights too) before reading anything. Without
  // it, segments of kAlwaysCheckedSegmentBytes or less (the graph's own
  // constants) and compressed ones are hashed as they are read, and the
  // graph itself was hashed by the verifier (format 2 on).
  bool verify_checksums = false;
};

inline constexpr uint64_t kAlwaysCheckedSegmentBytes = 64 * 1024;

// `data` must be 8-byte aligned.
Result<BundleContents> ReadBundleContents(const void* data, uint64_t size,
                                          std::shared_ptr<const void> keepalive,
                                          const ReadOptions& options = {});

// A full audit: every segment against its checksum (format 1: also the
// content hash over every byte after the header). Names a corrupt segment.
Status VerifySegmentChecksums(const void* data, uint64_t size);

}  // namespace tfn::runtime
