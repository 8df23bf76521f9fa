// Implementation of ReadBundle: FlatBuffer -> ir::Graphs and weights.
#include "exporter/bundle_reader.h"

#include <zstd.h>

#include <fstream>
#include <map>
#include <sstream>

#include "core/attrs.h"
#include "schema/bundle_generated.h"
#include "schema/bundle_verify.h"

namespace tfn::exporter {

namespace sc = tfn::schema;

namespace {

class Reader {
 public:
  Reader(const sc::Bundle* b, const char* segments, uint64_t segments_offset,
         const ReadOptions& options,
         std::map<const void*, ImportedBundle::WeightLocation>* locations)
      : b_(b),
        segments_(segments),
        segments_offset_(segments_offset),
        options_(options),
        locations_(locations) {}

  absl::StatusOr<ConstTensor> TensorAt(uint32_t index) {
    auto cached = tensors_.find(index);
    if (cached != tensors_.end()) return cached->second;
    const sc::Tensor* t = b_->tensors()->Get(index);
    const sc::Segment* seg = b_->segments()->Get(t->segment());
    const char* stored = segments_ + seg->offset();
    if (options_.verify_checksums && schema::Hash64(stored, seg->size()) != seg->checksum()) {
      return absl::DataLossError("segment " + std::to_string(t->segment()) +
                                 " fails its checksum: the bundle is corrupt");
    }
    Shape shape(t->dims()->begin(), t->dims()->end());
    ConstTensor out;
    if (seg->compression() == sc::Compression::ZSTD) {
      void* data = nullptr;
      out = ConstTensor::Allocate(static_cast<DType>(t->dtype()), shape, &data);
      if (!data && seg->raw_size() > 0)
        return absl::ResourceExhaustedError("out of memory decompressing a weight");
      size_t n = ZSTD_decompress(data, seg->raw_size(), stored, seg->size());
      if (ZSTD_isError(n) || n != seg->raw_size()) {
        return absl::DataLossError("segment " + std::to_string(t->segment()) +
                                   " does not decompress to " + std::to_string(seg->raw_size()) +
                                   " bytes: the bundle is corrupt");
      }
    } else {
      out = ConstTensor::Copy(static_cast<DType>(t->dtype()), shape, stored);
    }
    if (out.data) {
      (*locations_)[out.data] =
          ImportedBundle::WeightLocation{segments_offset_ + seg->offset(), seg->size(),
                                         seg->compression() == sc::Compression::ZSTD, out};
    }
    tensors_[index] = out;
    return out;
  }

  absl::StatusOr<AttrValue> ReadAttr(const sc::Attr* a) {
    switch (a->type()) {
      case sc::AttrType::INT:
        return AttrValue::Int(a->i());
      case sc::AttrType::FLOAT:
        return AttrValue::Float(a->f());
      case sc::AttrType::STRING:
        return AttrValue::String(a->s() ? a->s()->str() : "");
      case sc::AttrType::INTS:
        return AttrValue::Ints(a->ints()
                                   ? std::vector<int64_t>(a->ints()->begin(), a->ints()->end())
                                   : std::vector<int64_t>{});
      case sc::AttrType::FLOATS:
        return AttrValue::Floats(a->floats()
                                     ? std::vector<double>(a->floats()->begin(), a->floats()->end())
                                     : std::vector<double>{});
      case sc::AttrType::DTYPE:
        if (!IsValidDType(static_cast<int>(a->i())))
          return absl::DataLossError("an attribute holds an invalid dtype");
        return AttrValue::Type(static_cast<DType>(a->i()));
      case sc::AttrType::TENSOR: {
        absl::StatusOr<ConstTensor> t = TensorAt(a->tensor());
        if (!t.ok()) return t.status();
        return AttrValue::Tensor(*t);
      }
    }
    return absl::DataLossError("an attribute has an unknown type");
  }

  static absl::StatusOr<ir::TensorType> ReadType(const sc::TensorType* t) {
    ir::TensorType out{static_cast<DType>(t->dtype()), SymShape()};
    for (uint32_t d = 0; d < t->dims()->size(); ++d) {
      int64_t v = t->dims()->Get(d);
      if (v >= 0) {
        out.shape.push_back(SymDim(v));
        continue;
      }
      std::string expr = t->dim_exprs() ? t->dim_exprs()->Get(d)->str() : "";
      SymDim s;
      std::string error;
      if (expr.empty() || !ParseSymDim(expr, &s, &error)) {
        return absl::DataLossError("a dynamic dim has no valid symbol ('" + expr + "')");
      }
      out.shape.push_back(s);
    }
    return out;
  }

  absl::StatusOr<ir::Graph> ReadGraph(uint32_t index, const ir::Graph* parent) {
    const sc::Graph* g = b_->graphs()->Get(index);
    ir::Graph out = parent ? parent->NewSubgraph() : ir::Graph();
    std::vector<std::vector<ir::ValueRef>> values;
    uint32_t n = g->nodes() ? g->nodes()->size() : 0;
    for (uint32_t i = 0; i < n; ++i) {
      const sc::Node* node = g->nodes()->Get(i);
      std::string at = "graph " + std::to_string(index) + ", node " + std::to_string(i);
      const OpDef* def = FindOpDef(node->op()->str());
      if (!def) {
        return absl::UnimplementedError(
            at + " uses op '" + node->op()->str() +
            "', which this version of tfn does not know; use a newer tfn");
      }
      std::vector<ir::TensorType> stored;
      for (uint32_t o = 0; node->outputs() && o < node->outputs()->size(); ++o) {
        absl::StatusOr<ir::TensorType> t = ReadType(node->outputs()->Get(o));
        if (!t.ok()) return t.status();
        stored.push_back(*t);
      }
      if (def->id == OpId::kParameter) {
        if (stored.size() != 1) return absl::DataLossError(at + ": a parameter needs one type");
        const sc::TensorType* t = node->outputs()->Get(0);
        values.push_back({out.AddParameter(stored[0], t->name() ? t->name()->str() : "")});
        continue;
      }
      Attrs attrs;
      for (uint32_t a = 0; node->attrs() && a < node->attrs()->size(); ++a) {
        absl::StatusOr<AttrValue> v = ReadAttr(node->attrs()->Get(a));
        if (!v.ok()) return v.status();
        attrs.Set(node->attrs()->Get(a)->name()->str(), *v);
      }
      std::vector<ir::ValueRef> inputs;
      for (uint32_t k = 0; node->input_nodes() && k < node->input_nodes()->size(); ++k) {
        const std::vector<ir::ValueRef>& src = values[node->input_nodes()->Get(k)];
        int32_t port = node->input_ports()->Get(k);
        if (port >= static_cast<int32_t>(src.size()))
          return absl::DataLossError(at + ": bad input port");
        inputs.push_back(src[port]);
      }
      std::vector<ir::Graph> subgraphs;
      for (uint32_t s = 0; node->subgraphs() && s < node->subgraphs()->size(); ++s) {
        absl::StatusOr<ir::Graph> sub = ReadGraph(node->subgraphs()->Get(s), &out);
        if (!sub.ok()) return sub.status();
        subgraphs.push_back(std::move(sub).value());
      }
      absl::StatusOr<std::vector<ir::ValueRef>> outs;
      if (def->id == OpId::kConstant) {
        const ConstTensor* t = attrs.GetTensor("value");
        if (!t) return absl::DataLossError(at + ": a constant without a value");
        outs = std::vector<ir::ValueRef>{out.AddConstant(*t)};
      } else {
        outs = out.AddNode(def->id, inputs, attrs, std::move(subgraphs));
      }
      if (!outs.ok()) return absl::DataLossError(at + ": " + std::string(outs.status().message()));
      if (outs->size() != stored.size())
        return absl::DataLossError(at + ": wrong number of outputs");
      values.push_back(*outs);
    }
    std::vector<ir::ValueRef> results;
    std::vector<std::string> names;
    for (uint32_t r = 0; g->result_nodes() && r < g->result_nodes()->size(); ++r) {
      const std::vector<ir::ValueRef>& src = values[g->result_nodes()->Get(r)];
      int32_t port = g->result_ports()->Get(r);
      if (port >= static_cast<int32_t>(src.size())) return absl::DataLossError("a bad result port");
      results.push_back(src[port]);
      names.push_back(g->result_names() && r < g->result_names()->size()
                          ? g->result_names()->Get(r)->str()
                          : "");
    }
    out.SetResults(results, names);
    return out;
  }

 private:
  const sc::Bundle* b_;
  const char* segments_;
  uint64_t segments_offset_;
  const ReadOptions& options_;
  std::map<const void*, ImportedBundle::WeightLocation>* locations_;
  std::map<uint32_t, ConstTensor> tensors_;
};

}  // namespace

absl::StatusOr<ImportedBundle> ReadBundle(std::shared_ptr<const std::string> bytes,
                                          const ReadOptions& options) {
  schema::VerifyResult v = schema::VerifyBundle(bytes->data(), bytes->size());
  if (!v.ok) {
    if (v.header == schema::HeaderProblem::kIncompatible)
      return absl::FailedPreconditionError(v.message);
    return absl::DataLossError(v.message);
  }
  ImportedBundle out;
  out.bytes = bytes;
  out.file_size = bytes->size();
  out.format_version = v.bundle->format_version();
  if (const sc::Metadata* m = v.bundle->metadata()) {
    if (m->producer()) out.producer = m->producer()->str();
    if (m->producer_version()) out.producer_version = m->producer_version()->str();
    for (uint32_t i = 0; m->options() && i < m->options()->size(); ++i) {
      const sc::KeyValue* kv = m->options()->Get(i);
      out.metadata.emplace_back(kv->key() ? kv->key()->str() : "",
                                kv->value() ? kv->value()->str() : "");
    }
  }
  out.content_hash = v.parsed.content_hash;
  Reader reader(v.bundle, bytes->data() + v.parsed.segments_offset, v.parsed.segments_offset,
                options, &out.weight_locations);
  for (uint32_t s = 0; v.bundle->signatures() && s < v.bundle->signatures()->size(); ++s) {
    const sc::Signature* sig = v.bundle->signatures()->Get(s);
    absl::StatusOr<ir::Graph> g = reader.ReadGraph(sig->graph(), nullptr);
    if (!g.ok()) return g.status();
    out.signatures.push_back(SignatureToExport{sig->name()->str(), std::move(g).value()});
  }
  for (uint32_t i = 0; v.bundle->variables() && i < v.bundle->variables()->size(); ++i) {
    const sc::Variable* var = v.bundle->variables()->Get(i);
    absl::StatusOr<ConstTensor> t = reader.TensorAt(var->tensor());
    if (!t.ok()) return t.status();
    out.variables.push_back(VariableToExport{var->name()->str(), *t});
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
