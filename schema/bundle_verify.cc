// Implementation of VerifyBundle.
#include "schema/bundle_verify.h"

#include <vector>

#include "schema/bundle_generated.h"

namespace tfn::schema {
namespace {

// Limits that keep hostile files from costing unbounded time or memory.
constexpr uint32_t kMaxGraphs = 1u << 16;
constexpr uint32_t kMaxNodes = 1u << 22;
constexpr int kMaxRank = 8;

template <class V>
uint32_t Count(const V* v) {
  return v ? v->size() : 0;
}

// FlatBuffers' verifier (2.0.8) aligns a vector's length field to 4 bytes
// only; a hostile offset can place an int64 or double vector's elements at
// 4 mod 8, and reading them would be undefined behaviour. (The builder
// aligns non-empty vectors; an empty one may sit anywhere.)
template <class T>
bool ElementsAligned(const flatbuffers::Vector<T>* v) {
  return !v || v->size() == 0 || reinterpret_cast<uintptr_t>(v->data()) % alignof(T) == 0;
}

class Checker {
 public:
  Checker(const Bundle* b, uint64_t segment_area, uint32_t format_version)
      : b_(b),
        segment_area_(segment_area),
        last_dtype_(format_version >= 3 ? DType::UINT64 : DType::FLOAT64) {}

  std::string Run() {
    uint32_t num_graphs = Count(b_->graphs());
    uint32_t num_tensors = Count(b_->tensors());
    uint32_t num_segments = Count(b_->segments());
    if (num_graphs > kMaxGraphs) return "too many graphs";
    for (uint32_t s = 0; s < num_segments; ++s) {
      const Segment* seg = b_->segments()->Get(s);
      uint64_t end = 0;
      if (seg->offset() % TFN_BUNDLE_ALIGNMENT != 0)
        return "segment " + std::to_string(s) + " is not 64-byte aligned";
      if (__builtin_add_overflow(seg->offset(), seg->size(), &end) || end > segment_area_) {
        return "segment " + std::to_string(s) + " lies outside the file";
      }
      if (seg->compression() == Compression::NONE && seg->raw_size() != seg->size()) {
        return "uncompressed segment " + std::to_string(s) + " has different stored and raw sizes";
      }
      if (seg->compression() != Compression::NONE && seg->compression() != Compression::ZSTD) {
        return "segment " + std::to_string(s) + " uses an unknown compression";
      }
    }
    for (uint32_t t = 0; t < num_tensors; ++t) {
      const Tensor* tensor = b_->tensors()->Get(t);
      std::string e = CheckDims(tensor->dims(), false);
      if (!e.empty()) return "tensor " + std::to_string(t) + ": " + e;
      if (!ValidDType(tensor->dtype()))
        return "tensor " + std::to_string(t) + " has an invalid dtype" +
               VersionHint(tensor->dtype());
      if (tensor->segment() >= num_segments)
        return "tensor " + std::to_string(t) + " names a missing segment";
      uint64_t elements = 1;
      for (int64_t d : *tensor->dims()) {
        if (__builtin_mul_overflow(elements, static_cast<uint64_t>(d), &elements))
          return "tensor too large";
      }
      uint64_t bytes = 0;
      if (__builtin_mul_overflow(elements, DTypeBytes(tensor->dtype()), &bytes) ||
          bytes != b_->segments()->Get(tensor->segment())->raw_size()) {
        return "tensor " + std::to_string(t) + " does not match the size of its segment";
      }
    }
    for (uint32_t v = 0; v < Count(b_->variables()); ++v) {
      if (b_->variables()->Get(v)->tensor() >= num_tensors)
        return "variable " + std::to_string(v) + " names a missing tensor";
    }
    uint64_t total_nodes = 0;
    for (uint32_t g = 0; g < num_graphs; ++g) {
      const Graph* graph = b_->graphs()->Get(g);
      total_nodes += Count(graph->nodes());
      if (total_nodes > kMaxNodes) return "too many nodes";
      std::string e = CheckGraph(g, graph, num_graphs, num_tensors);
      if (!e.empty()) return "graph " + std::to_string(g) + ": " + e;
    }
    for (uint32_t s = 0; s < Count(b_->signatures()); ++s) {
      const Signature* sig = b_->signatures()->Get(s);
      if (sig->graph() >= num_graphs)
        return "signature " + std::to_string(s) + " names a missing graph";
      for (const auto* list : {sig->inputs(), sig->outputs()}) {
        for (uint32_t i = 0; i < Count(list); ++i) {
          std::string e = CheckType(list->Get(i));
          if (!e.empty()) return "signature '" + sig->name()->str() + "': " + e;
        }
      }
    }
    return "";
  }

 private:
  // Dtypes 6-13 arrived with format version 3; an older bundle holding one
  // is corrupt, not new.
  bool ValidDType(DType d) const { return d >= DType::BOOL && d <= last_dtype_; }
  const char* VersionHint(DType d) const {
    return d > last_dtype_ && d <= DType::UINT64 ? " (dtypes 6-13 need format version 3)" : "";
  }
  static uint64_t DTypeBytes(DType d) {
    // Indexed by the schema's DType value: BOOL ... UINT64.
    static constexpr uint8_t kBytes[] = {0, 1, 4, 8, 4, 8, 2, 2, 1, 1, 2, 2, 4, 8};
    const auto v = static_cast<uint32_t>(d);
    return v < sizeof kBytes ? kBytes[v] : 0;
  }
  static std::string CheckDims(const flatbuffers::Vector<int64_t>* dims, bool allow_dynamic) {
    if (!dims) return "dims are missing";
    if (!ElementsAligned(dims)) return "dims are misaligned";
    if (dims->size() > static_cast<uint32_t>(kMaxRank)) return "rank above 8";
    for (int64_t d : *dims) {
      if (d < (allow_dynamic ? -1 : 0)) return "a dim is negative";
    }
    return "";
  }
  std::string CheckType(const TensorType* t) const {
    if (!ValidDType(t->dtype()))
      return std::string("a tensor type has an invalid dtype") + VersionHint(t->dtype());
    std::string e = CheckDims(t->dims(), true);
    if (!e.empty()) return e;
    if (t->dim_exprs() && t->dim_exprs()->size() != t->dims()->size())
      return "dim_exprs and dims differ in length";
    return "";
  }
  std::string CheckGraph(uint32_t index, const Graph* g, uint32_t num_graphs,
                         uint32_t num_tensors) {
    uint32_t n = Count(g->nodes());
    std::vector<uint32_t> outputs(n, 0);
    for (uint32_t i = 0; i < n; ++i) {
      const Node* node = g->nodes()->Get(i);
      std::string at = "node " + std::to_string(i);
      if (Count(node->input_nodes()) != Count(node->input_ports()))
        return at + ": inputs are malformed";
      for (uint32_t k = 0; k < Count(node->input_nodes()); ++k) {
        int32_t src = node->input_nodes()->Get(k), port = node->input_ports()->Get(k);
        // Inputs come from earlier nodes only: graphs are acyclic by construction.
        if (src < 0 || static_cast<uint32_t>(src) >= i || port < 0 ||
            static_cast<uint32_t>(port) >= outputs[src]) {
          return at + ": input " + std::to_string(k) +
                 " does not name an output of an earlier node";
        }
      }
      for (uint32_t a = 0; a < Count(node->attrs()); ++a) {
        const Attr* attr = node->attrs()->Get(a);
        if (attr->type() == AttrType::TENSOR && attr->tensor() >= num_tensors) {
          return at + ": attribute '" + attr->name()->str() + "' names a missing tensor";
        }
        if (attr->type() > AttrType::TENSOR) return at + ": attribute of unknown type";
        if (!ElementsAligned(attr->ints()) || !ElementsAligned(attr->floats())) {
          return at + ": attribute '" + attr->name()->str() + "' has misaligned values";
        }
      }
      outputs[i] = Count(node->outputs());
      for (uint32_t o = 0; o < outputs[i]; ++o) {
        std::string e = CheckType(node->outputs()->Get(o));
        if (!e.empty()) return at + ": " + e;
      }
      for (uint32_t s = 0; s < Count(node->subgraphs()); ++s) {
        // Subgraphs come after their parent, so nesting cannot recurse.
        uint32_t sub = node->subgraphs()->Get(s);
        if (sub <= index || sub >= num_graphs) return at + ": names an invalid subgraph";
      }
    }
    if (Count(g->result_nodes()) != Count(g->result_ports())) return "results are malformed";
    for (uint32_t r = 0; r < Count(g->result_nodes()); ++r) {
      int32_t src = g->result_nodes()->Get(r), port = g->result_ports()->Get(r);
      if (src < 0 || static_cast<uint32_t>(src) >= n || port < 0 ||
          static_cast<uint32_t>(port) >= outputs[src]) {
        return "result " + std::to_string(r) + " does not name a node output";
      }
    }
    return "";
  }

  const Bundle* b_;
  uint64_t segment_area_;
  DType last_dtype_;
};

}  // namespace

VerifyResult VerifyBundle(const void* data, uint64_t size) {
  VerifyResult r;
  HeaderCheck h = CheckHeader(data, size, &r.parsed);
  if (!h.ok()) {
    r.ok = false;
    r.header = h.problem;
    r.message = h.message;
    return r;
  }
  // From format version 2 on the content hash covers the FlatBuffer (the
  // graphs, the signatures and the checksum of every segment): hashed on
  // every load, before any of it is parsed, so no corrupt graph byte is
  // read. It costs a few microseconds for a typical graph, against a full
  // pass over the weights for a version 1 hash.
  if (r.parsed.format_version >= 2 && ContentHash(data, r.parsed) != r.parsed.content_hash) {
    r.ok = false;
    r.header = HeaderProblem::kBadChecksum;
    r.message = "the bundle's graph (its " + std::to_string(r.parsed.flatbuffer_size) +
                "-byte FlatBuffer) does not match its checksum: the file is corrupt; export it "
                "again or restore the file";
    return r;
  }
  const uint8_t* fb = static_cast<const uint8_t*>(data) + r.parsed.flatbuffer_offset;
  flatbuffers::Verifier::Options options;
  options.max_depth = 64;
  options.max_tables = 1u << 24;
  flatbuffers::Verifier verifier(fb, r.parsed.flatbuffer_size, options);
  if (!BundleBufferHasIdentifier(fb) || !VerifyBundleBuffer(verifier)) {
    r.ok = false;
    r.header = HeaderProblem::kBadLayout;
    r.message = "the bundle's FlatBuffer fails verification: the file is corrupt";
    return r;
  }
  const Bundle* b = GetBundle(fb);
  if (b->format_version() != r.parsed.format_version) {
    r.ok = false;
    r.header = HeaderProblem::kBadLayout;
    r.message = "the header and the FlatBuffer disagree on the format version: the file is corrupt";
    return r;
  }
  std::string problem =
      Checker(b, r.parsed.file_size - r.parsed.segments_offset, r.parsed.format_version).Run();
  if (!problem.empty()) {
    r.ok = false;
    r.header = HeaderProblem::kBadLayout;
    r.message = "the bundle is malformed: " + problem;
    return r;
  }
  r.bundle = b;
  return r;
}

}  // namespace tfn::schema
