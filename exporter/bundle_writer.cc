// Serializing signatures, graphs and weights into a bundle.
#include "exporter/bundle_writer.h"

#include <zstd.h>

#include <cstring>
#include <map>
#include <set>

#include "core/atomic_file.h"
#include "schema/bundle_generated.h"
#include "schema/bundle_header.h"

namespace tfn::exporter {

namespace fb = flatbuffers;
namespace sc = tfn::schema;

absl::StatusOr<ExportOptions::Compression> ParseCompression(const std::string& text, int* level) {
  if (text == "none") return ExportOptions::Compression::kNone;
  if (text.rfind("zstd", 0) == 0) {
    if (text.size() > 4) {
      if (text[4] != ':') return absl::InvalidArgumentError("expected zstd or zstd:LEVEL, got '" + text + "'");
      char* end = nullptr;
      long v = std::strtol(text.c_str() + 5, &end, 10);
      if (*end || v < 1 || v > 22) {
        return absl::InvalidArgumentError("zstd level must be 1 to 22, got '" + text.substr(5) + "'");
      }
      *level = static_cast<int>(v);
    }
    return ExportOptions::Compression::kZstd;
  }
  return absl::InvalidArgumentError("unknown compression '" + text + "' (expected none, zstd or zstd:LEVEL)");
}

namespace {

struct Weight {
  ConstTensor value;
  uint32_t segment = 0;
};

class Serializer {
 public:
  explicit Serializer(const ExportOptions& options) : options_(options) {}

  absl::StatusOr<std::string> Run(const std::vector<SignatureToExport>& signatures,
                                  const std::vector<VariableToExport>& variables) {
    // Graphs in preorder: a subgraph always follows its parent.
    std::vector<uint32_t> sig_graphs;
    for (const SignatureToExport& s : signatures) sig_graphs.push_back(AddGraph(s.graph));
    std::vector<fb::Offset<sc::Variable>> vars;
    std::set<std::string> var_names;
    for (const VariableToExport& v : variables) {
      if (!var_names.insert(v.name).second) {
        return absl::InvalidArgumentError("two variables are named '" + v.name + "'");
      }
      uint32_t t = AddTensor(v.value);
      vars.push_back(sc::CreateVariable(b_, b_.CreateString(v.name), t));
    }
    std::vector<fb::Offset<sc::Graph>> graphs;
    for (size_t g = 0; g < graphs_.size(); ++g) graphs.push_back(SerializeGraph(*graphs_[g]));
    std::vector<fb::Offset<sc::Signature>> sigs;
    std::set<std::string> sig_names;
    for (size_t i = 0; i < signatures.size(); ++i) {
      const SignatureToExport& s = signatures[i];
      if (!sig_names.insert(s.name).second) {
        return absl::InvalidArgumentError("two signatures are named '" + s.name + "'");
      }
      std::vector<fb::Offset<sc::TensorType>> ins, outs;
      for (size_t p = 0; p < s.graph.params().size(); ++p) {
        ins.push_back(Type(s.graph.type(s.graph.param(static_cast<int>(p))), s.graph.param_names()[p]));
      }
      for (size_t r = 0; r < s.graph.results().size(); ++r) {
        outs.push_back(Type(s.graph.type(s.graph.results()[r]), s.graph.result_names()[r]));
      }
      sigs.push_back(sc::CreateSignature(b_, b_.CreateString(s.name), sig_graphs[i],
                                         b_.CreateVector(ins), b_.CreateVector(outs)));
    }
    absl::Status st = BuildSegments();
    if (!st.ok()) return st;
    std::vector<fb::Offset<sc::Tensor>> tensors;
    for (const Weight& w : weights_) {
      std::vector<int64_t> dims(w.value.shape.begin(), w.value.shape.end());
      tensors.push_back(sc::CreateTensor(b_, static_cast<sc::DType>(w.value.dtype),
                                         b_.CreateVector(dims), w.segment));
    }
    std::vector<fb::Offset<sc::KeyValue>> kv;
    for (const auto& [k, v] : options_.metadata) {
      kv.push_back(sc::CreateKeyValue(b_, b_.CreateString(k), b_.CreateString(v)));
    }
    auto metadata = sc::CreateMetadata(b_, b_.CreateString("tfn"), b_.CreateString(kTfnVersion),
                                       b_.CreateVector(kv));
    auto root = sc::CreateBundle(b_, TFN_BUNDLE_FORMAT_VERSION, metadata, b_.CreateVector(sigs),
                                 b_.CreateVector(graphs), b_.CreateVector(vars),
                                 b_.CreateVector(tensors), b_.CreateVector(segments_));
    sc::FinishBundleBuffer(b_, root);
    return Assemble();
  }

 private:
  static constexpr const char* kTfnVersion = "0.1.0";

  uint32_t AddGraph(const ir::Graph& g) {
    uint32_t index = static_cast<uint32_t>(graphs_.size());
    graphs_.push_back(&g);
    subgraph_index_.emplace_back();
    for (int i = 0; i < g.num_nodes(); ++i) {
      for (const ir::Graph& sub : g.node(i).subgraphs) {
        uint32_t s = AddGraph(sub);
        subgraph_index_[index][{i, &sub}] = s;
      }
    }
    return index;
  }

  uint32_t AddTensor(const ConstTensor& t) {
    // Deduplicate by content so shared weights are stored once.
    std::string key = std::to_string(static_cast<int>(t.dtype)) + ShapeToString(t.shape) + "#" +
                      std::to_string(schema::Hash64(t.data, static_cast<size_t>(t.byte_size())));
    auto range = by_content_.equal_range(key);
    for (auto it = range.first; it != range.second; ++it) {
      if (weights_[it->second].value.BytesEqual(t)) return it->second;
    }
    uint32_t index = static_cast<uint32_t>(weights_.size());
    weights_.push_back(Weight{t, 0});
    by_content_.emplace(key, index);
    return index;
  }

  fb::Offset<sc::TensorType> Type(const ir::TensorType& t, const std::string& name) {
    std::vector<int64_t> dims;
    std::vector<fb::Offset<fb::String>> exprs;
    for (const SymDim& d : t.shape) {
      dims.push_back(d.StaticOrDynamic());
      exprs.push_back(b_.CreateString(d.is_static() ? std::string() : d.ToString()));
    }
    return sc::CreateTensorType(b_, name.empty() ? 0 : b_.CreateString(name),
                                static_cast<sc::DType>(t.dtype), b_.CreateVector(dims),
                                b_.CreateVector(exprs));
  }

  fb::Offset<sc::Attr> SerializeAttr(const std::string& name, const AttrValue& v) {
    auto n = b_.CreateString(name);
    switch (v.type()) {
      case AttrType::kInt: return sc::CreateAttr(b_, n, sc::AttrType::INT, v.i());
      case AttrType::kFloat: return sc::CreateAttr(b_, n, sc::AttrType::FLOAT, 0, v.f());
      case AttrType::kString:
        return sc::CreateAttr(b_, n, sc::AttrType::STRING, 0, 0, b_.CreateString(v.s()));
      case AttrType::kInts:
        return sc::CreateAttr(b_, n, sc::AttrType::INTS, 0, 0, 0, b_.CreateVector(v.ints()));
      case AttrType::kFloats:
        return sc::CreateAttr(b_, n, sc::AttrType::FLOATS, 0, 0, 0, 0, b_.CreateVector(v.floats()));
      case AttrType::kDType:
        return sc::CreateAttr(b_, n, sc::AttrType::DTYPE, static_cast<int64_t>(v.dtype()));
      case AttrType::kTensor:
        return sc::CreateAttr(b_, n, sc::AttrType::TENSOR, 0, 0, 0, 0, 0, AddTensor(v.tensor()));
    }
    return sc::CreateAttr(b_, n);
  }

  fb::Offset<sc::Graph> SerializeGraph(const ir::Graph& g) {
    uint32_t self = 0;
    while (graphs_[self] != &g) ++self;
    std::vector<fb::Offset<sc::Node>> nodes;
    for (int i = 0; i < g.num_nodes(); ++i) {
      const ir::Node& n = g.node(i);
      std::vector<int32_t> in_nodes, in_ports;
      for (ir::ValueRef v : n.inputs) {
        in_nodes.push_back(v.node);
        in_ports.push_back(v.port);
      }
      std::vector<fb::Offset<sc::Attr>> attrs;
      for (const auto& [name, value] : n.attrs) attrs.push_back(SerializeAttr(name, value));
      std::vector<fb::Offset<sc::TensorType>> outs;
      std::string out_name;
      if (n.op == OpId::kParameter) {
        int64_t index = n.attrs.GetInt("index");
        if (index >= 0 && index < static_cast<int64_t>(g.param_names().size())) out_name = g.param_names()[index];
      }
      for (const ir::TensorType& t : n.outputs) outs.push_back(Type(t, out_name));
      std::vector<uint32_t> subs;
      for (const ir::Graph& sub : n.subgraphs) subs.push_back(subgraph_index_[self][{i, &sub}]);
      nodes.push_back(sc::CreateNode(b_, b_.CreateString(n.def().name), b_.CreateVector(in_nodes),
                                     b_.CreateVector(in_ports), b_.CreateVector(attrs),
                                     b_.CreateVector(outs), b_.CreateVector(subs),
                                     n.fusion_group));
    }
    std::vector<int32_t> r_nodes, r_ports;
    std::vector<fb::Offset<fb::String>> r_names;
    for (size_t r = 0; r < g.results().size(); ++r) {
      r_nodes.push_back(g.results()[r].node);
      r_ports.push_back(g.results()[r].port);
      r_names.push_back(b_.CreateString(g.result_names()[r]));
    }
    return sc::CreateGraph(b_, 0, b_.CreateVector(nodes), b_.CreateVector(r_nodes),
                           b_.CreateVector(r_ports), b_.CreateVector(r_names));
  }

  absl::Status BuildSegments() {
    uint64_t offset = 0;
    for (Weight& w : weights_) {
      const char* raw = static_cast<const char*>(w.value.data);
      uint64_t raw_size = static_cast<uint64_t>(w.value.byte_size());
      std::string stored(raw, raw + raw_size);
      sc::Compression compression = sc::Compression::NONE;
      if (options_.compression == ExportOptions::Compression::kZstd &&
          static_cast<int64_t>(raw_size) >= options_.min_compress_bytes) {
        std::string packed(ZSTD_compressBound(raw_size), '\0');
        size_t n = ZSTD_compress(packed.data(), packed.size(), raw, raw_size, options_.zstd_level);
        if (ZSTD_isError(n)) return absl::InternalError(std::string("zstd: ") + ZSTD_getErrorName(n));
        if (n < raw_size) {
          packed.resize(n);
          stored = std::move(packed);
          compression = sc::Compression::ZSTD;
        }
      }
      w.segment = static_cast<uint32_t>(segments_.size());
      segments_.push_back(sc::CreateSegment(b_, offset, stored.size(), raw_size, compression,
                                            schema::Hash64(stored.data(), stored.size())));
      segment_bytes_.push_back(std::move(stored));
      offset = schema::AlignUp64(offset + segment_bytes_.back().size());
    }
    return absl::OkStatus();
  }

  std::string Assemble() {
    uint64_t fb_size = b_.GetSize();
    uint64_t segments_offset = schema::AlignUp64(TFN_BUNDLE_HEADER_SIZE + fb_size);
    uint64_t total = segments_offset;
    for (const std::string& s : segment_bytes_) total = schema::AlignUp64(total) + s.size();
    std::string out(total, '\0');
    std::memcpy(&out[TFN_BUNDLE_HEADER_SIZE], b_.GetBufferPointer(), fb_size);
    uint64_t pos = segments_offset;
    for (const std::string& s : segment_bytes_) {
      pos = schema::AlignUp64(pos);
      if (!s.empty()) std::memcpy(&out[pos], s.data(), s.size());
      pos += s.size();
    }
    TfnBundleHeader header = schema::MakeHeader(out.data(), fb_size, segments_offset, total);
    std::memcpy(&out[0], &header, sizeof header);
    return out;
  }

  const ExportOptions& options_;
  fb::FlatBufferBuilder b_{1 << 16};
  std::vector<const ir::Graph*> graphs_;
  std::vector<std::map<std::pair<int, const ir::Graph*>, uint32_t>> subgraph_index_;
  std::vector<Weight> weights_;
  std::multimap<std::string, uint32_t> by_content_;
  std::vector<fb::Offset<sc::Segment>> segments_;
  std::vector<std::string> segment_bytes_;
};

}  // namespace

absl::StatusOr<std::string> SerializeBundle(const std::vector<SignatureToExport>& signatures,
                                            const std::vector<VariableToExport>& variables,
                                            const ExportOptions& options) {
  if (signatures.empty()) return absl::InvalidArgumentError("a bundle needs at least one signature");
  return Serializer(options).Run(signatures, variables);
}

absl::Status WriteBundle(const std::string& path, const std::vector<SignatureToExport>& signatures,
                         const std::vector<VariableToExport>& variables, const ExportOptions& options) {
  absl::StatusOr<std::string> bytes = SerializeBundle(signatures, variables, options);
  if (!bytes.ok()) return bytes.status();
  return ir::ToAbsl(WriteFileAtomically(path, *bytes));
}

}  // namespace tfn::exporter
