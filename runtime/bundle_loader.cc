// Loading a bundle: read its records (bundle_reader.h: verified, weights in
// place where stored raw, decompressed once where zstd-compressed), then
// build the runtime Module (one program per graph) with kernels prepared.
#include <cstring>
#include <map>

#include "kernels/evaluate.h"
#include "runtime/bundle_reader.h"
#include "runtime/executor.h"
#include "runtime/mapped_file.h"
#include "runtime/runtime.h"

namespace tfn::runtime {

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

namespace {

#if TFN_OPTIMIZED_KERNELS
// A cast of a constant (weights stored as float16 or bfloat16 and widened
// to float32: tfn-quantize's --fp16-weights) is evaluated once, here, into a
// constant the program owns: the weights take float32 memory once per loaded
// bundle instead of a conversion on every run, as TFLite widens float16
// weights. Only 16-bit floats to float32: the memory it takes is at most
// twice the bytes the file holds. Returns false (the cast stays an
// instruction) when that cannot be done here. The minimal runtime leaves it
// to each run (the same values) to stay small.
bool EvaluateConstantCast(runtime::Program* p, const runtime::Instr& instr) {
  if (instr.op != OpId::kCast || instr.inputs.size() != 1 || instr.outputs.size() != 1 ||
      instr.fusion_group >= 0) {
    return false;
  }
  const ConstTensor* in = nullptr;
  for (const auto& [v, c] : p->constants) {
    if (v == instr.inputs[0]) in = &c;
  }
  const runtime::ValueInfo& out = p->values[instr.outputs[0]];
  if (!in || (in->dtype != DType::kFloat16 && in->dtype != DType::kBFloat16) ||
      out.dtype != DType::kFloat32 || !ShapeMatches(out.static_shape, in->shape)) {
    return false;
  }
  std::vector<ConstTensor> made;
  if (!kernels::EvaluateOp(OpId::kCast, instr.attrs, {*in}, &made).ok() || made.size() != 1 ||
      made[0].dtype != out.dtype) {
    return false;
  }
  p->constants.emplace_back(instr.outputs[0], std::move(made[0]));
  return true;
}
#endif

}  // namespace

class BundleLoader {
 public:
  // Takes the records' attributes and specs over (moves them) as it builds.
  BundleLoader(Bundle* bundle, runtime::BundleContents& contents, const LoadOptions& options)
      : bundle_(bundle), contents_(contents), options_(options) {}

  Status Run() {
    auto module = std::make_shared<runtime::Module>();
    module->fuse_elementwise = !options_.reference_kernels;
    for (const runtime::VariableRecord& var : contents_.variables) {
      runtime::VariableInfo info;
      info.name = var.name;
      info.dtype = var.value.dtype;
      info.shape = var.value.shape;
      info.initial_value = var.value;
      variable_index_.emplace(info.name, static_cast<int>(module->variables.size()));
      module->variables.push_back(std::move(info));
    }
    for (uint32_t g = 0; g < contents_.graphs.size(); ++g) {
      runtime::Program p;
      TFN_RETURN_IF_ERROR(BuildProgram(g, *module, &p));
      module->programs.push_back(std::move(p));
    }
    TFN_RETURN_IF_ERROR(runtime::ValidateModule(*module));
    for (runtime::SignatureRecord& sig : contents_.signatures) {
      SignatureInfo info;
      info.name = sig.name;
      info.inputs = std::move(sig.inputs);
      info.outputs = std::move(sig.outputs);
      const runtime::Program& p = module->programs[sig.graph];
      if (info.inputs.size() != p.params.size() || info.outputs.size() != p.results.size()) {
        return Corrupt("signature '" + info.name +
                       "' does not match its graph's inputs and outputs");
      }
      for (size_t i = 0; i < info.inputs.size(); ++i) {
        const runtime::ValueInfo& v = p.values[p.params[i]];
        if (v.dtype != info.inputs[i].dtype || v.static_shape != info.inputs[i].shape) {
          return Corrupt("signature '" + info.name + "': input '" + info.inputs[i].name +
                         "' does not match its graph");
        }
      }
      bundle_->signatures_.push_back(std::move(info));
      bundle_->programs_.push_back(static_cast<int>(sig.graph));
    }
    bundle_->module_ = std::move(module);
    return Status::Ok();
  }

 private:
  static Status Corrupt(const std::string& what) {
    return DataLoss("the bundle is malformed: " + what);
  }

  Status BuildProgram(uint32_t index, const runtime::Module& module, runtime::Program* p) {
    runtime::GraphRecord& g = contents_.graphs[index];
    // Named as the tracer names programs (errors at run time name them):
    // the signature's name, or the parent's path to the control-flow node.
    auto sub = subgraph_names_.find(index);
    p->name = sub != subgraph_names_.end() ? sub->second : "graph " + std::to_string(index);
    for (const runtime::SignatureRecord& sig : contents_.signatures) {
      if (sig.graph == index) p->name = sig.name;
    }
    std::vector<std::vector<int32_t>> ids(g.nodes.size());
    kernels::Variant variant =
        options_.reference_kernels ? kernels::Variant::kReference : kernels::Variant::kOptimized;
    for (size_t i = 0; i < g.nodes.size(); ++i) {
      runtime::NodeRecord& node = g.nodes[i];
      const OpDef* def = node.def;
      std::string at = "'" + p->name + "', node " + std::to_string(i) + " (" + def->name + ")";
      for (const runtime::TypeRecord& t : node.outputs) {
        p->values.push_back(runtime::ValueInfo{t.dtype, t.shape});
        ids[i].push_back(static_cast<int32_t>(p->values.size() - 1));
      }
      if (def->id == OpId::kParameter) {
        if (ids[i].size() != 1) return Corrupt(at + ": a parameter needs one output");
        p->params.push_back(ids[i][0]);
        continue;
      }
      if (def->id == OpId::kConstant) {
        const ConstTensor* t = node.attrs.GetTensor("value");
        if (!t || ids[i].size() != 1)
          return Corrupt(at + ": a constant needs a value and one output");
        p->constants.emplace_back(ids[i][0], *t);
        continue;
      }
      std::vector<int32_t> in;
      for (runtime::PortRef src : node.inputs) in.push_back(ids[src.node][src.port]);
      const bool var_op = def->id == OpId::kVarRead || def->id == OpId::kVarAssign ||
                          def->id == OpId::kVarAssignAdd;
      const std::string var_name = var_op ? node.attrs.GetString("name") : std::string();
      runtime::Instr instr;
      Status s =
          runtime::MakeInstr(*p, def->id, std::move(in), ids[i], std::move(node.attrs), variant, &instr);
      if (!s.ok()) {
        return Corrupt(at + ": " + s.message() +
                       " (the node does not match its op's definition: export the bundle again)");
      }
      instr.fusion_group = node.fusion_group;
      for (size_t k = 0; k < node.subgraphs.size(); ++k) {
        instr.subprograms.push_back(static_cast<int32_t>(node.subgraphs[k]));
        const char* part =
            def->id == OpId::kCond ? (k == 0 ? "/then" : "/else") : (k == 0 ? "/cond" : "/body");
        subgraph_names_.emplace(node.subgraphs[k],
                                p->name + "/" + def->name + std::to_string(i) + part);
      }
      if (var_op) {
        auto it = variable_index_.find(var_name);
        if (it == variable_index_.end()) {
          return Corrupt(at + ": uses variable '" + var_name + "', which the bundle does not hold");
        }
        instr.variable = it->second;
        // Kernels downstream trust a var_read's declared type: it must be the variable's.
        const runtime::VariableInfo& var = module.variables[it->second];
        const runtime::ValueInfo* read = def->id == OpId::kVarRead ? &p->values[ids[i][0]] : nullptr;
        if (read && (read->dtype != var.dtype || !ShapeMatches(read->static_shape, var.shape))) {
          return Corrupt(at + ": reads variable '" + it->first + "' as " +
                         TypeToString(static_cast<int>(read->dtype), read->static_shape) +
                         ", but the bundle stores it as " +
                         TypeToString(static_cast<int>(var.dtype), var.shape));
        }
      }
#if TFN_OPTIMIZED_KERNELS
      if (!options_.reference_kernels && EvaluateConstantCast(p, instr)) continue;
#endif
      p->instrs.push_back(std::move(instr));
    }
    for (runtime::PortRef r : g.results) p->results.push_back(ids[r.node][r.port]);
    return Status::Ok();
  }

  Bundle* bundle_;
  runtime::BundleContents& contents_;
  const LoadOptions& options_;
  std::map<std::string, int> variable_index_;
  std::map<uint32_t, std::string> subgraph_names_;  // graph -> "parent/while_loop3/body"
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
  runtime::ReadOptions read;
  read.verify_checksums = options.verify_checksums;
  Result<runtime::BundleContents> contents = runtime::ReadBundleContents(data, size, keepalive, read);
  if (!contents.ok()) return contents.status();
  std::shared_ptr<Bundle> b(new Bundle());
  b->bytes_owner_ = std::move(keepalive);
  b->bytes_ = data;
  b->size_ = size;
  b->format_version_ = contents->format_version;
  b->producer_ = contents->producer;
  b->producer_version_ = contents->producer_version;
  b->weight_bytes_ = contents->weight_bytes;
  BundleLoader loader(b.get(), *contents, options);
  TFN_RETURN_IF_ERROR(loader.Run());
  return std::shared_ptr<const Bundle>(std::move(b));
}

Result<std::shared_ptr<const Bundle>> Bundle::Load(const std::string& path,
                                                   const LoadOptions& options) {
  Result<std::shared_ptr<const runtime::MappedFile>> file =
      options.use_mmap ? runtime::MapFile(path) : runtime::ReadFile(path);
  if (!file.ok()) return file.status();
  std::shared_ptr<const runtime::MappedFile> f = *file;
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

Status Bundle::VerifyChecksums() const { return runtime::VerifySegmentChecksums(bytes_, size_); }

}  // namespace tfn::runtime
