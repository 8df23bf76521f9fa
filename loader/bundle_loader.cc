// Loading a bundle: verify the bytes, then build the runtime Module (one
// program per graph) with kernels prepared, weights used in place where they
// are stored raw and decompressed once where they are zstd-compressed.
#include <cstring>
#include <map>

#include "loader/executor.h"
#include "loader/mapped_file.h"
#include "loader/runtime.h"
#include "schema/bundle_generated.h"
#include "schema/bundle_verify.h"
#ifdef TFN_RUNTIME_ZSTD
#include <zstd.h>
#endif

namespace tfn::runtime {

namespace sc = tfn::schema;

// Segments up to this size are checksummed on every load (LoadOptions).
constexpr uint64_t kAlwaysCheckedSegmentBytes = 64 * 1024;

Tensor View(DType dtype, const Shape& shape, const void* data) {
  Tensor t;
  t.dtype = dtype;
  t.shape = shape;
  t.data = data;
  return t;
}

std::string TensorInfo::ToString() const {
  return name + ": " + DTypeName(dtype) + ShapeToString(shape);
}

class BundleLoader {
 public:
  BundleLoader(Bundle* bundle, const sc::Bundle* fb, const char* segments,
               const LoadOptions& options)
      : bundle_(bundle), fb_(fb), segments_(segments), options_(options) {}

  Status Run() {
    auto module = std::make_shared<rt::Module>();
    module->fuse_elementwise = !options_.reference_kernels;
    for (uint32_t v = 0; fb_->variables() && v < fb_->variables()->size(); ++v) {
      const sc::Variable* var = fb_->variables()->Get(v);
      Result<ConstTensor> t = TensorAt(var->tensor());
      if (!t.ok()) return t.status();
      rt::VariableInfo info;
      info.name = var->name()->str();
      info.dtype = t->dtype;
      info.shape = t->shape;
      info.initial_value = *t;
      variable_types_.emplace_back(info.dtype, info.shape);
      if (!variable_index_.emplace(info.name, static_cast<int>(v)).second) {
        return Corrupt("two variables are named '" + info.name + "'");
      }
      module->variables.push_back(std::move(info));
    }
    uint32_t num_graphs = fb_->graphs() ? fb_->graphs()->size() : 0;
    for (uint32_t g = 0; g < num_graphs; ++g) {
      rt::Program p;
      TFN_RETURN_IF_ERROR(BuildProgram(g, &p));
      module->programs.push_back(std::move(p));
    }
    TFN_RETURN_IF_ERROR(rt::ValidateModule(*module));
    for (uint32_t s = 0; fb_->signatures() && s < fb_->signatures()->size(); ++s) {
      const sc::Signature* sig = fb_->signatures()->Get(s);
      SignatureInfo info;
      info.name = sig->name()->str();
      for (uint32_t i = 0; sig->inputs() && i < sig->inputs()->size(); ++i) {
        info.inputs.push_back(Info(sig->inputs()->Get(i)));
      }
      for (uint32_t i = 0; sig->outputs() && i < sig->outputs()->size(); ++i) {
        info.outputs.push_back(Info(sig->outputs()->Get(i)));
      }
      const rt::Program& p = module->programs[sig->graph()];
      if (info.inputs.size() != p.params.size() || info.outputs.size() != p.results.size()) {
        return Corrupt("signature '" + info.name +
                       "' does not match its graph's inputs and outputs");
      }
      for (size_t i = 0; i < info.inputs.size(); ++i) {
        const rt::ValueInfo& v = p.values[p.params[i]];
        if (v.dtype != info.inputs[i].dtype || v.static_shape != info.inputs[i].shape) {
          return Corrupt("signature '" + info.name + "': input '" + info.inputs[i].name +
                         "' does not match its graph");
        }
      }
      bundle_->signatures_.push_back(std::move(info));
      bundle_->programs_.push_back(static_cast<int>(sig->graph()));
    }
    bundle_->module_ = std::move(module);
    return Status::Ok();
  }

 private:
  static Status Corrupt(const std::string& what) {
    return DataLoss("the bundle is malformed: " + what);
  }

  static TensorInfo Info(const sc::TensorType* t) {
    TensorInfo info;
    info.name = t->name() ? t->name()->str() : "";
    info.dtype = static_cast<DType>(t->dtype());
    for (uint32_t d = 0; d < t->dims()->size(); ++d) {
      info.shape.push_back(t->dims()->Get(d));
      info.dim_names.push_back(t->dim_exprs() ? t->dim_exprs()->Get(d)->str() : "");
    }
    return info;
  }

  Result<ConstTensor> TensorAt(uint32_t index) {
    auto cached = tensors_.find(index);
    if (cached != tensors_.end()) return cached->second;
    const sc::Tensor* t = fb_->tensors()->Get(index);
    const sc::Segment* seg = fb_->segments()->Get(t->segment());
    const char* stored = segments_ + seg->offset();
    bool compressed = seg->compression() == sc::Compression::ZSTD;
    // Small segments hold the graph's own constants (shapes, indices, loop
    // bounds, scalars): always checked, they cost nothing. Large raw ones are
    // the weights, hashed only with verify_checksums (loader/README.md has
    // the cost), which FromMemory has then checked already, with the rest;
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
      out.owner = bundle_->bytes_owner_;
    }
    bundle_->weight_bytes_ += out.byte_size();
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
        return AttrValue::String(a->s() ? a->s()->str() : "");
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

  Status BuildProgram(uint32_t index, rt::Program* p) {
    const sc::Graph* g = fb_->graphs()->Get(index);
    // Named as the tracer names programs (errors at run time name them):
    // the signature's name, or the parent's path to the control-flow node.
    auto sub = subgraph_names_.find(index);
    p->name = sub != subgraph_names_.end() ? sub->second : "graph " + std::to_string(index);
    for (uint32_t s = 0; fb_->signatures() && s < fb_->signatures()->size(); ++s) {
      if (fb_->signatures()->Get(s)->graph() == index)
        p->name = fb_->signatures()->Get(s)->name()->str();
    }
    uint32_t n = g->nodes() ? g->nodes()->size() : 0;
    std::vector<std::vector<int32_t>> ids(n);
    kernels::Variant variant =
        options_.reference_kernels ? kernels::Variant::kReference : kernels::Variant::kOptimized;
    for (uint32_t i = 0; i < n; ++i) {
      const sc::Node* node = g->nodes()->Get(i);
      std::string at =
          "'" + p->name + "', node " + std::to_string(i) + " (" + node->op()->str() + ")";
      const OpDef* def = FindOpDef(node->op()->str());
      if (!def) {
        return Unimplemented(at + ": this runtime does not know the op '" + node->op()->str() +
                             "'; use a newer tfn runtime");
      }
      for (uint32_t o = 0; node->outputs() && o < node->outputs()->size(); ++o) {
        const sc::TensorType* t = node->outputs()->Get(o);
        p->values.push_back(rt::ValueInfo{static_cast<DType>(t->dtype()),
                                          Shape(t->dims()->begin(), t->dims()->end())});
        ids[i].push_back(static_cast<int32_t>(p->values.size() - 1));
      }
      if (def->id == OpId::kParameter) {
        if (ids[i].size() != 1) return Corrupt(at + ": a parameter needs one output");
        p->params.push_back(ids[i][0]);
        continue;
      }
      Attrs attrs;
      for (uint32_t a = 0; node->attrs() && a < node->attrs()->size(); ++a) {
        Result<AttrValue> v = ReadAttr(node->attrs()->Get(a));
        if (!v.ok()) return v.status().WithContext(at);
        attrs.Set(node->attrs()->Get(a)->name()->str(), *v);
      }
      if (def->id == OpId::kConstant) {
        const ConstTensor* t = attrs.GetTensor("value");
        if (!t || ids[i].size() != 1)
          return Corrupt(at + ": a constant needs a value and one output");
        p->constants.emplace_back(ids[i][0], *t);
        continue;
      }
      std::vector<int32_t> in;
      for (uint32_t k = 0; node->input_nodes() && k < node->input_nodes()->size(); ++k) {
        const std::vector<int32_t>& src = ids[node->input_nodes()->Get(k)];
        in.push_back(src[node->input_ports()->Get(k)]);
      }
      rt::Instr instr;
      Status s = rt::MakeInstr(*p, def->id, in, ids[i], attrs, variant, &instr);
      if (!s.ok()) {
        return Corrupt(at + ": " + s.message() +
                       " (the node does not match its op's definition: export the bundle again)");
      }
      for (uint32_t k = 0; node->subgraphs() && k < node->subgraphs()->size(); ++k) {
        instr.subprograms.push_back(static_cast<int32_t>(node->subgraphs()->Get(k)));
        const char* part =
            def->id == OpId::kCond ? (k == 0 ? "/then" : "/else") : (k == 0 ? "/cond" : "/body");
        subgraph_names_.emplace(node->subgraphs()->Get(k),
                                p->name + "/" + def->name + std::to_string(i) + part);
      }
      if (def->id == OpId::kVarRead || def->id == OpId::kVarAssign ||
          def->id == OpId::kVarAssignAdd) {
        auto it = variable_index_.find(attrs.GetString("name"));
        if (it == variable_index_.end()) {
          return Corrupt(at + ": uses variable '" + attrs.GetString("name") +
                         "', which the bundle does not hold");
        }
        instr.variable = it->second;
        // Kernels downstream trust a var_read's declared type: it must be the variable's.
        const auto& [dtype, shape] = variable_types_[it->second];
        if (def->id == OpId::kVarRead &&
            (p->values[ids[i][0]].dtype != dtype ||
             !ShapeMatches(p->values[ids[i][0]].static_shape, shape))) {
          return Corrupt(at + ": reads variable '" + it->first + "' as " +
                         TypeToString(static_cast<int>(p->values[ids[i][0]].dtype),
                                      p->values[ids[i][0]].static_shape) +
                         ", but the bundle stores it as " +
                         TypeToString(static_cast<int>(dtype), shape));
        }
      }
      p->instrs.push_back(std::move(instr));
    }
    for (uint32_t r = 0; g->result_nodes() && r < g->result_nodes()->size(); ++r) {
      p->results.push_back(ids[g->result_nodes()->Get(r)][g->result_ports()->Get(r)]);
    }
    return Status::Ok();
  }

  Bundle* bundle_;
  const sc::Bundle* fb_;
  const char* segments_;
  const LoadOptions& options_;
  std::map<uint32_t, ConstTensor> tensors_;
  std::map<std::string, int> variable_index_;
  std::vector<std::pair<DType, Shape>> variable_types_;  // per variable index
  std::map<uint32_t, std::string> subgraph_names_;       // graph -> "parent/while_loop3/body"
};

Bundle::~Bundle() = default;

Result<std::shared_ptr<const Bundle>> Bundle::FromMemory(const void* data, uint64_t size,
                                                         std::shared_ptr<const void> keepalive,
                                                         const LoadOptions& options) {
  if (reinterpret_cast<uintptr_t>(data) % 8 != 0) {
    // FlatBuffers needs 8-byte alignment: work on an aligned copy.
    std::shared_ptr<void> copy = AllocateAligned(size);
    if (!copy) return ResourceExhausted("out of memory copying the bundle");
    if (size) std::memcpy(copy.get(), data, size);
    return FromMemory(copy.get(), size, copy, options);
  }
  schema::VerifyResult v = schema::VerifyBundle(data, size);
  if (!v.ok) {
    return Status(v.header == schema::HeaderProblem::kIncompatible
                      ? StatusCode::kIncompatibleVersion
                      : StatusCode::kDataLoss,
                  v.message);
  }
  std::shared_ptr<Bundle> b(new Bundle());
  b->bytes_owner_ = std::move(keepalive);
  b->bytes_ = data;
  b->size_ = size;
  b->format_version_ = v.bundle->format_version();
  if (const sc::Metadata* m = v.bundle->metadata()) {
    if (m->producer()) b->producer_ = m->producer()->str();
    if (m->producer_version()) b->producer_version_ = m->producer_version()->str();
  }
  // verify_checksums: every weight too, before anything is built (the graph
  // was hashed by VerifyBundle). Version 2: each segment against its
  // checksum, one pass over the weights. Version 1: the content hash, one
  // pass over every byte after the header; only when it fails are the
  // segments hashed one by one, to name the corrupt one (hashing them
  // always would read the weights twice).
  if (options.verify_checksums) {
    if (v.parsed.format_version >= 2) {
      TFN_RETURN_IF_ERROR(b->VerifyChecksums());
    } else if (schema::ContentHash(data, v.parsed) != v.parsed.content_hash) {
      TFN_RETURN_IF_ERROR(b->VerifyChecksums());  // names the segment, if one is
      return DataLoss(
          "the bundle's content hash does not match its bytes: it is corrupt; export it "
          "again or restore the file");
    }
  }
  BundleLoader loader(b.get(), v.bundle, static_cast<const char*>(data) + v.parsed.segments_offset,
                      options);
  TFN_RETURN_IF_ERROR(loader.Run());
  return std::shared_ptr<const Bundle>(std::move(b));
}

Result<std::shared_ptr<const Bundle>> Bundle::Load(const std::string& path,
                                                   const LoadOptions& options) {
  Result<std::shared_ptr<const rt::MappedFile>> file =
      options.use_mmap ? rt::MapFile(path) : rt::ReadFile(path);
  if (!file.ok()) return file.status();
  std::shared_ptr<const rt::MappedFile> f = *file;
  Result<std::shared_ptr<const Bundle>> b = FromMemory(f->data, f->size, f, options);
  if (!b.ok()) return b.status().WithContext("'" + path + "'");
  return b;
}

const SignatureInfo* Bundle::FindSignature(const std::string& name) const {
  for (const SignatureInfo& s : signatures_) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

Status Bundle::VerifyChecksums() const {
  schema::VerifyResult v = schema::VerifyBundle(bytes_, size_);
  if (!v.ok) return DataLoss(v.message);
  const char* segments = static_cast<const char*>(bytes_) + v.parsed.segments_offset;
  for (uint32_t s = 0; v.bundle->segments() && s < v.bundle->segments()->size(); ++s) {
    const sc::Segment* seg = v.bundle->segments()->Get(s);
    if (schema::Hash64(segments + seg->offset(), seg->size()) != seg->checksum()) {
      return DataLoss(
          "segment " + std::to_string(s) + " (" + std::to_string(seg->size()) +
          " bytes) fails its checksum: the bundle is corrupt; export it again or restore the file");
    }
  }
  // Version 2's content hash (the graph) was checked by VerifyBundle above.
  if (v.parsed.format_version == 1 &&
      schema::ContentHash(bytes_, v.parsed) != v.parsed.content_hash) {
    return DataLoss(
        "the bundle's content hash does not match its bytes: it is corrupt; export it again or "
        "restore the file");
  }
  return Status::Ok();
}

}  // namespace tfn::runtime
