// Implementation of the bundle reader: FlatBuffer -> records.
#include "runtime/bundle_reader.h"

#include "schema/bundle_generated.h"
#include "schema/bundle_verify.h"
#ifdef TFN_RUNTIME_ZSTD
#include <zstd.h>
#endif

namespace tfn::runtime {

namespace sc = tfn::schema;

namespace {

Status Corrupt(const std::string& what) { return DataLoss("the bundle is malformed: " + what); }

std::string Str(const flatbuffers::String* s) { return s ? s->str() : ""; }

class Reader {
 public:
  Reader(const sc::Bundle* fb, const char* base, uint64_t segments_offset,
         std::shared_ptr<const void> keepalive, const ReadOptions& options, BundleContents* out)
      : fb_(fb),
        base_(base),
        segments_offset_(segments_offset),
        keepalive_(std::move(keepalive)),
        options_(options),
        out_(out) {}

  Status Run() {
    for (uint32_t v = 0; fb_->variables() && v < fb_->variables()->size(); ++v) {
      const sc::Variable* var = fb_->variables()->Get(v);
      Result<ConstTensor> t = TensorAt(var->tensor());
      if (!t.ok()) return t.status();
      for (const VariableRecord& other : out_->variables) {
        if (other.name == var->name()->str())
          return Corrupt("two variables are named '" + other.name + "'");
      }
      out_->variables.push_back(VariableRecord{var->name()->str(), *t});
    }
    uint32_t num_graphs = fb_->graphs() ? fb_->graphs()->size() : 0;
    out_->graphs.resize(num_graphs);
    for (uint32_t g = 0; g < num_graphs; ++g) TFN_RETURN_IF_ERROR(ReadGraph(g, &out_->graphs[g]));
    for (uint32_t s = 0; fb_->signatures() && s < fb_->signatures()->size(); ++s) {
      const sc::Signature* sig = fb_->signatures()->Get(s);
      SignatureRecord r;
      r.name = sig->name()->str();
      r.graph = sig->graph();
      for (uint32_t i = 0; sig->inputs() && i < sig->inputs()->size(); ++i)
        r.inputs.push_back(Type(sig->inputs()->Get(i)));
      for (uint32_t i = 0; sig->outputs() && i < sig->outputs()->size(); ++i)
        r.outputs.push_back(Type(sig->outputs()->Get(i)));
      out_->signatures.push_back(std::move(r));
    }
    return Status::Ok();
  }

 private:
  static TypeRecord Type(const sc::TensorType* t) {
    TypeRecord r;
    r.name = Str(t->name());
    r.dtype = static_cast<DType>(t->dtype());
    r.shape = Shape(t->dims()->begin(), t->dims()->end());
    for (uint32_t d = 0; d < t->dims()->size(); ++d)
      r.dim_names.push_back(t->dim_exprs() ? t->dim_exprs()->Get(d)->str() : "");
    return r;
  }

  Result<ConstTensor> TensorAt(uint32_t index) {
    if (tensors_.empty()) tensors_.resize(fb_->tensors()->size());
    if (tensors_[index].dtype != DType::kInvalid) return tensors_[index];  // read already
    const sc::Tensor* t = fb_->tensors()->Get(index);
    const sc::Segment* seg = fb_->segments()->Get(t->segment());
    const char* stored = base_ + segments_offset_ + seg->offset();
    bool compressed = seg->compression() == sc::Compression::ZSTD;
    // Small segments hold the graph's own constants (shapes, indices, loop
    // bounds, scalars): always checked, they cost nothing. Large raw ones are
    // the weights, hashed only with verify_checksums (runtime/README.md has
    // the cost), which has then checked them already, with the rest;
    // compressed ones are hashed before they are decompressed.
    bool check =
        !options_.verify_checksums && (compressed || seg->size() <= kAlwaysCheckedSegmentBytes);
    if (check && schema::Hash64(stored, seg->size()) != seg->checksum()) {
      return DataLoss(
          "segment " + std::to_string(t->segment()) + " (" + std::to_string(seg->size()) +
          " bytes, tensor " + std::to_string(index) +
          ") fails its checksum: the bundle is corrupt; export it again or restore the file");
    }
    ConstTensor out;
    out.dtype = static_cast<DType>(t->dtype());
    out.shape = Shape(t->dims()->begin(), t->dims()->end());
    if (compressed) {
#ifdef TFN_RUNTIME_ZSTD
      void* data = nullptr;
      out = ConstTensor::Allocate(out.dtype, out.shape, &data);
      if (!data && seg->raw_size() > 0)
        return ResourceExhausted("out of memory decompressing a weight");
      size_t n = ZSTD_decompress(data, seg->raw_size(), stored, seg->size());
      if (ZSTD_isError(n) || n != seg->raw_size()) {
        return DataLoss("weight segment " + std::to_string(t->segment()) +
                        " does not decompress to its recorded size: the bundle is corrupt");
      }
#else
      return Unimplemented(
          "the bundle has zstd-compressed weights but this runtime was built "
          "without zstd; re-export without compression or rebuild with zstd");
#endif
    } else {
      out.data = stored;  // used in place: zero copy
      out.owner = keepalive_;
    }
    out_->weight_bytes += out.byte_size();
    out_->weights.push_back(
        WeightRecord{out, segments_offset_ + seg->offset(), seg->size(), compressed});
    tensors_[index] = out;
    return out;
  }

  Result<AttrValue> ReadAttr(const sc::Attr* a) {
    switch (a->type()) {
      case sc::AttrType::INT:
        return AttrValue::Int(a->i());
      case sc::AttrType::FLOAT:
        return AttrValue::Float(a->f());
      case sc::AttrType::STRING:
        return AttrValue::String(Str(a->s()));
      case sc::AttrType::INTS:
        return AttrValue::Ints(a->ints()
                                   ? std::vector<int64_t>(a->ints()->begin(), a->ints()->end())
                                   : std::vector<int64_t>());
      case sc::AttrType::FLOATS:
        return AttrValue::Floats(a->floats()
                                     ? std::vector<double>(a->floats()->begin(), a->floats()->end())
                                     : std::vector<double>());
      case sc::AttrType::DTYPE:
        if (!IsValidDType(static_cast<int>(a->i())))
          return Corrupt("an attribute holds an invalid dtype");
        return AttrValue::Type(static_cast<DType>(a->i()));
      case sc::AttrType::TENSOR: {
        Result<ConstTensor> t = TensorAt(a->tensor());
        if (!t.ok()) return t.status();
        return AttrValue::Tensor(*t);
      }
    }
    return Corrupt("an attribute has an unknown type");
  }

  Status ReadGraph(uint32_t index, GraphRecord* out) {
    const sc::Graph* g = fb_->graphs()->Get(index);
    uint32_t n = g->nodes() ? g->nodes()->size() : 0;
    out->nodes.resize(n);
    for (uint32_t i = 0; i < n; ++i) {
      const sc::Node* node = g->nodes()->Get(i);
      NodeRecord& r = out->nodes[i];
      std::string at = "graph " + std::to_string(index) + ", node " + std::to_string(i) + " (" +
                       node->op()->str() + ")";
      r.def = FindOpDef(node->op()->str());
      if (!r.def) {
        return Unimplemented(at + ": this version of tfn does not know the op '" +
                             node->op()->str() + "'; use a newer tfn");
      }
      for (uint32_t o = 0; node->outputs() && o < node->outputs()->size(); ++o)
        r.outputs.push_back(Type(node->outputs()->Get(o)));
      for (uint32_t k = 0; node->input_nodes() && k < node->input_nodes()->size(); ++k)
        r.inputs.push_back(PortRef{node->input_nodes()->Get(k), node->input_ports()->Get(k)});
      for (uint32_t a = 0; node->attrs() && a < node->attrs()->size(); ++a) {
        Result<AttrValue> v = ReadAttr(node->attrs()->Get(a));
        if (!v.ok()) return v.status().WithContext(at);
        r.attrs.Set(node->attrs()->Get(a)->name()->str(), *v);
      }
      for (uint32_t s = 0; node->subgraphs() && s < node->subgraphs()->size(); ++s)
        r.subgraphs.push_back(node->subgraphs()->Get(s));
      r.fusion_group = node->fusion_group();
    }
    for (uint32_t r = 0; g->result_nodes() && r < g->result_nodes()->size(); ++r) {
      out->results.push_back(PortRef{g->result_nodes()->Get(r), g->result_ports()->Get(r)});
      out->result_names.push_back(g->result_names() && r < g->result_names()->size()
                                      ? g->result_names()->Get(r)->str()
                                      : "");
    }
    return Status::Ok();
  }

  const sc::Bundle* fb_;
  const char* base_;
  uint64_t segments_offset_;
  std::shared_ptr<const void> keepalive_;
  const ReadOptions& options_;
  BundleContents* out_;
  std::vector<ConstTensor> tensors_;  // per tensor index, once read
};

Status VerifyFailure(const schema::VerifyResult& v) {
  return Status(v.header == schema::HeaderProblem::kIncompatible ? StatusCode::kIncompatibleVersion
                                                                 : StatusCode::kDataLoss,
                v.message);
}

Status ContentHashMismatch() {
  return DataLoss(
      "the bundle's content hash does not match its bytes: it is corrupt; export it again or "
      "restore the file");
}

Status CheckSegments(const schema::VerifyResult& v, const void* data) {
  const char* segments = static_cast<const char*>(data) + v.parsed.segments_offset;
  for (uint32_t s = 0; v.bundle->segments() && s < v.bundle->segments()->size(); ++s) {
    const sc::Segment* seg = v.bundle->segments()->Get(s);
    if (schema::Hash64(segments + seg->offset(), seg->size()) != seg->checksum()) {
      return DataLoss(
          "segment " + std::to_string(s) + " (" + std::to_string(seg->size()) +
          " bytes) fails its checksum: the bundle is corrupt; export it again or restore the file");
    }
  }
  return Status::Ok();
}

}  // namespace

Status VerifySegmentChecksums(const void* data, uint64_t size) {
  schema::VerifyResult v = schema::VerifyBundle(data, size);
  if (!v.ok) return VerifyFailure(v);
  TFN_RETURN_IF_ERROR(CheckSegments(v, data));
  // Version 2's content hash (the graph) was checked by VerifyBundle above.
  if (v.parsed.format_version == 1 && schema::ContentHash(data, v.parsed) != v.parsed.content_hash)
    return ContentHashMismatch();
  return Status::Ok();
}

Result<BundleContents> ReadBundleContents(const void* data, uint64_t size,
                                          std::shared_ptr<const void> keepalive,
                                          const ReadOptions& options) {
  schema::VerifyResult v = schema::VerifyBundle(data, size);
  if (!v.ok) return VerifyFailure(v);
  // verify_checksums: every weight too, before anything is read (the graph
  // was hashed by VerifyBundle). Version 2: each segment against its
  // checksum, one pass over the weights. Version 1: the content hash, one
  // pass over every byte after the header; only when it fails are the
  // segments hashed one by one, to name the corrupt one (hashing them
  // always would read the weights twice).
  if (options.verify_checksums) {
    if (v.parsed.format_version >= 2) {
      TFN_RETURN_IF_ERROR(CheckSegments(v, data));
    } else if (schema::ContentHash(data, v.parsed) != v.parsed.content_hash) {
      TFN_RETURN_IF_ERROR(CheckSegments(v, data));  // names the segment, if one is
      return ContentHashMismatch();
    }
  }
  BundleContents out;
  out.format_version = v.bundle->format_version();
  out.file_size = size;
  out.content_hash = v.parsed.content_hash;
  if (const sc::Metadata* m = v.bundle->metadata()) {
    out.producer = Str(m->producer());
    out.producer_version = Str(m->producer_version());
    for (uint32_t i = 0; m->options() && i < m->options()->size(); ++i) {
      const sc::KeyValue* kv = m->options()->Get(i);
      out.metadata.emplace_back(Str(kv->key()), Str(kv->value()));
    }
  }
  Reader reader(v.bundle, static_cast<const char*>(data), v.parsed.segments_offset,
                std::move(keepalive), options, &out);
  TFN_RETURN_IF_ERROR(reader.Run());
  return out;
}

}  // namespace tfn::runtime
