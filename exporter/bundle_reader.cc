// Implementation of ReadBundle: the bundle reader's records -> ir::Graphs.
#include "exporter/bundle_reader.h"

#include <cstring>
#include <fstream>
#include <sstream>

#include "ir/passes/fuse_elementwise.h"
#include "runtime/bundle_reader.h"

namespace tfn::exporter {

namespace {

absl::StatusOr<ir::TensorType> ReadType(const runtime::TypeRecord& t) {
  ir::TensorType out{t.dtype, SymShape()};
  for (int d = 0; d < t.shape.rank(); ++d) {
    if (t.shape[d] >= 0) {
      out.shape.push_back(SymDim(t.shape[d]));
      continue;
    }
    SymDim s;
    std::string error;
    if (t.dim_names[d].empty() || !ParseSymDim(t.dim_names[d], &s, &error)) {
      return absl::DataLossError("a dynamic dim has no valid symbol ('" + t.dim_names[d] + "')");
    }
    out.shape.push_back(s);
  }
  return out;
}

// Rebuilds graph `index` (and its subgraphs) through the checked builder.
absl::StatusOr<ir::Graph> ReadGraph(const runtime::BundleContents& b, uint32_t index,
                                    const ir::Graph* parent) {
  const runtime::GraphRecord& g = b.graphs[index];
  ir::Graph out = parent ? parent->NewSubgraph() : ir::Graph();
  std::vector<std::vector<ir::ValueRef>> values;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const runtime::NodeRecord& node = g.nodes[i];
    std::string at = "graph " + std::to_string(index) + ", node " + std::to_string(i);
    std::vector<ir::TensorType> stored;
    for (const runtime::TypeRecord& t : node.outputs) {
      absl::StatusOr<ir::TensorType> type = ReadType(t);
      if (!type.ok()) return type.status();
      stored.push_back(*type);
    }
    if (node.def->id == OpId::kParameter) {
      if (stored.size() != 1) return absl::DataLossError(at + ": a parameter needs one type");
      values.push_back({out.AddParameter(stored[0], node.outputs[0].name)});
      continue;
    }
    std::vector<ir::ValueRef> inputs;
    for (runtime::PortRef src : node.inputs) inputs.push_back(values[src.node][src.port]);
    std::vector<ir::Graph> subgraphs;
    for (uint32_t s : node.subgraphs) {
      absl::StatusOr<ir::Graph> sub = ReadGraph(b, s, &out);
      if (!sub.ok()) return sub.status();
      subgraphs.push_back(std::move(sub).value());
    }
    absl::StatusOr<std::vector<ir::ValueRef>> outs;
    if (node.def->id == OpId::kConstant) {
      const ConstTensor* t = node.attrs.GetTensor("value");
      if (!t) return absl::DataLossError(at + ": a constant without a value");
      outs = std::vector<ir::ValueRef>{out.AddConstant(*t)};
    } else {
      outs = out.AddNode(node.def->id, inputs, node.attrs, std::move(subgraphs));
    }
    if (!outs.ok()) return absl::DataLossError(at + ": " + std::string(outs.status().message()));
    if (outs->size() != stored.size()) return absl::DataLossError(at + ": wrong number of outputs");
    // The group is kept where a group may be (a hostile one elsewhere is
    // dropped); the pipeline recomputes all of them anyway.
    if (node.fusion_group >= 0 && !outs->empty()) {
      ir::Node& made = out.mutable_nodes()[(*outs)[0].node];
      if (ir::IsFusible(out, made)) made.fusion_group = node.fusion_group;
    }
    values.push_back(*outs);
  }
  std::vector<ir::ValueRef> results;
  for (runtime::PortRef r : g.results) results.push_back(values[r.node][r.port]);
  out.SetResults(results, g.result_names);
  return out;
}

}  // namespace

absl::StatusOr<ImportedBundle> ReadBundle(std::shared_ptr<const std::string> bytes,
                                          const ReadOptions& options) {
  // FlatBuffers needs 8-byte alignment: heap strings have it, short ones may not.
  const void* data = bytes->data();
  std::shared_ptr<const void> keepalive = bytes;
  if (reinterpret_cast<uintptr_t>(data) % 8 != 0) {
    std::shared_ptr<void> copy = AllocateAligned(bytes->size());
    if (!copy) return absl::ResourceExhaustedError("out of memory copying the bundle");
    std::memcpy(copy.get(), bytes->data(), bytes->size());
    data = copy.get();
    keepalive = copy;
  }
  runtime::ReadOptions read;
  read.verify_checksums = options.verify_checksums;
  Result<runtime::BundleContents> contents =
      runtime::ReadBundleContents(data, bytes->size(), std::move(keepalive), read);
  if (!contents.ok()) {
    if (contents.status().code() == StatusCode::kIncompatibleVersion)
      return absl::FailedPreconditionError(contents.status().message());
    return ir::ToAbsl(contents.status());
  }
  ImportedBundle out;
  out.bytes = bytes;
  out.file_size = contents->file_size;
  out.format_version = contents->format_version;
  out.producer = contents->producer;
  out.producer_version = contents->producer_version;
  out.metadata = contents->metadata;
  out.content_hash = contents->content_hash;
  for (const runtime::SignatureRecord& sig : contents->signatures) {
    absl::StatusOr<ir::Graph> g = ReadGraph(*contents, sig.graph, nullptr);
    if (!g.ok()) return g.status();
    out.signatures.push_back(SignatureToExport{sig.name, std::move(g).value()});
  }
  for (const runtime::VariableRecord& var : contents->variables)
    out.variables.push_back(VariableToExport{var.name, var.value});
  for (const runtime::WeightRecord& w : contents->weights) {
    if (!w.tensor.data || w.tensor.byte_size() == 0) continue;  // empty: may share a start
    out.weight_locations[w.tensor.data] =
        ImportedBundle::WeightLocation{w.file_offset, w.stored_size, w.compressed, w.tensor};
  }
  return out;
}

absl::StatusOr<ImportedBundle> ReadBundleFile(const std::string& path, const ReadOptions& options) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError("cannot open '" + path + "'");
  std::ostringstream ss;
  ss << in.rdbuf();
  absl::StatusOr<ImportedBundle> b =
      ReadBundle(std::make_shared<const std::string>(ss.str()), options);
  if (!b.ok())
    return absl::Status(b.status().code(), "'" + path + "': " + std::string(b.status().message()));
  return b;
}

}  // namespace tfn::exporter
