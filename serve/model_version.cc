// One loaded version of a model (model_repository.h): its sessions, the
// per-signature methods and batchers, and the checks that turn a request
// into the signature's inputs.
#include <algorithm>

#include "serve/batcher.h"
#include "serve/datatype.h"
#include "serve/metrics.h"
#include "serve/model_repository.h"

namespace tfn::serve {

struct ModelVersion::Signature {
  const runtime::SignatureInfo* info = nullptr;
  std::vector<runtime::Method> methods;  // one per session
  std::unique_ptr<DynamicBatcher> batcher;
};

namespace {

// Batching needs one dynamic first dim shared by every input and output.
bool BatchesAlongFirstDim(const runtime::SignatureInfo& sig) {
  if (sig.inputs.empty() || sig.outputs.empty()) return false;
  const runtime::TensorInfo& first = sig.inputs[0];
  if (first.shape.rank() == 0 || first.shape[0] != kDynamic || first.dim_names.empty())
    return false;
  auto same_batch_dim = [&](const runtime::TensorInfo& t) {
    return t.shape.rank() > 0 && t.shape[0] == kDynamic && !t.dim_names.empty() &&
           t.dim_names[0] == first.dim_names[0];
  };
  return std::all_of(sig.inputs.begin(), sig.inputs.end(), same_batch_dim) &&
         std::all_of(sig.outputs.begin(), sig.outputs.end(), same_batch_dim);
}

std::string Given(const runtime::Tensor& t) {
  const char* oip = OipDatatype(t.dtype);
  return std::string(*oip ? oip : DTypeName(t.dtype)) + " " + ShapeToString(t.shape);
}

std::string Expected(const runtime::TensorInfo& info) {
  return std::string(OipDatatype(info.dtype)) + " " + ShapeToString(info.shape) + " (" +
         info.ToString() + ")";
}

std::string Names(const std::vector<runtime::TensorInfo>& infos) {
  std::string s;
  for (const auto& i : infos) s += (s.empty() ? "'" : ", '") + i.name + "'";
  return s;
}

// The request's inputs in signature order, each checked against its spec.
// `where()` names the signature in messages; it is called on errors only.
template <class Where>
Result<std::vector<runtime::Tensor>> OrderInputs(const InferRequest& request,
                                                 const runtime::SignatureInfo& sig,
                                                 const Where& where) {
  std::vector<runtime::Tensor> ordered(sig.inputs.size());
  std::vector<bool> given(sig.inputs.size(), false);
  for (const InferInput& in : request.inputs) {
    auto it = std::find_if(sig.inputs.begin(), sig.inputs.end(),
                           [&](const runtime::TensorInfo& i) { return i.name == in.name; });
    if (it == sig.inputs.end()) {
      return Status(StatusCode::kInvalidArgument, where() + " has no input '" + in.name +
                                                      "'; its inputs are " + Names(sig.inputs));
    }
    const size_t k = static_cast<size_t>(it - sig.inputs.begin());
    if (given[k]) {
      return Status(StatusCode::kInvalidArgument, "input '" + in.name + "' is given twice");
    }
    const runtime::Tensor& t = in.tensor;
    bool fits = t.dtype == it->dtype && t.shape.rank() == it->shape.rank();
    for (int d = 0; fits && d < t.shape.rank(); ++d) {
      fits = it->shape[d] == kDynamic || it->shape[d] == t.shape[d];
    }
    if (!fits) {
      return Status(StatusCode::kInvalidArgument, "input '" + in.name + "' of " + where() +
                                                      ": expected " + Expected(*it) + ", got " +
                                                      Given(t));
    }
    given[k] = true;
    ordered[k] = t;
  }
  for (size_t k = 0; k < given.size(); ++k) {
    if (!given[k]) {
      return Status(StatusCode::kInvalidArgument,
                    "input '" + sig.inputs[k].name + "' (" + Expected(sig.inputs[k]) +
                        ") is missing from the request to " + where());
    }
  }
  return ordered;
}

// Zeros of `info` with every dynamic dim 1: the warm-up input.
runtime::Tensor WarmUpInput(const runtime::TensorInfo& info) {
  Shape shape = info.shape;
  for (int d = 0; d < shape.rank(); ++d) {
    if (shape[d] == kDynamic) shape[d] = 1;
  }
  void* unused = nullptr;
  return runtime::Tensor::Allocate(info.dtype, shape, &unused);
}

}  // namespace

ModelVersion::~ModelVersion() = default;

Result<std::shared_ptr<const ModelVersion>> ModelVersion::Load(const std::string& name,
                                                               int64_t version,
                                                               const std::string& path,
                                                               const ModelOptions& options,
                                                               Metrics* metrics) {
  runtime::LoadOptions load;
  load.verify_checksums = options.verify_checksums;
  TFN_ASSIGN_OR_RETURN(std::shared_ptr<const runtime::Bundle> bundle,
                       runtime::Bundle::Load(path, load));
  if (bundle->signatures().empty()) {
    return Status(StatusCode::kInvalidArgument, path + " has no signatures to serve");
  }
  std::shared_ptr<ModelVersion> v(new ModelVersion());
  v->name_ = name;
  v->version_ = version;
  v->version_text_ = std::to_string(version);
  v->bundle_ = bundle;
  v->metrics_ = metrics;
  v->default_signature_ = bundle->FindSignature("serving_default") != nullptr
                              ? "serving_default"
                              : bundle->signatures()[0].name;
  runtime::SessionOptions session_options;
  session_options.num_threads = std::max(options.threads, 1);
  for (int i = 0; i < std::max(options.instances, 1); ++i) {
    v->sessions_.push_back(std::make_unique<runtime::Session>(bundle, session_options));
  }
  const std::string version_text = std::to_string(version);
  for (const runtime::SignatureInfo& info : bundle->signatures()) {
    auto s = std::make_unique<Signature>();
    s->info = &info;
    for (const auto& session : v->sessions_) {
      TFN_ASSIGN_OR_RETURN(runtime::Method m, session->method(info.name));
      s->methods.push_back(m);
    }
    if (options.batching.enabled() && BatchesAlongFirstDim(info)) {
      Signature* raw = s.get();
      s->batcher = std::make_unique<DynamicBatcher>(
          options.batching, static_cast<int>(v->sessions_.size()),
          [raw](int instance, const std::vector<runtime::Tensor>& inputs) {
            return raw->methods[static_cast<size_t>(instance)].Run(inputs);
          },
          [metrics, name, version_text](int64_t rows, int64_t requests,
                                        const std::vector<double>& waited) {
            if (metrics) metrics->RecordBatch(name, version_text, rows, requests, waited);
          });
    }
    v->signatures_.push_back(std::move(s));
  }
  v->WarmUp();
  return std::shared_ptr<const ModelVersion>(std::move(v));
}

void ModelVersion::WarmUp() const {
  // A bundle with variables is only planned, not run: a signature may
  // assign them, and serving must not start from state a warm-up changed.
  // Without variables a run also faults the mapped weights in. A signature
  // whose dims must agree in ways 1s do not meet fails here; its first
  // request then pays for planning instead. Nothing else depends on it.
  const bool stateless = sessions_[0]->VariableNames().empty();
  for (const auto& s : signatures_) {
    std::vector<runtime::Tensor> inputs;
    std::vector<Shape> shapes;
    for (const runtime::TensorInfo& info : s->info->inputs) {
      inputs.push_back(WarmUpInput(info));
      shapes.push_back(inputs.back().shape);
    }
    for (const runtime::Method& m : s->methods) {
      if (stateless) {
        (void)m.Run(inputs);
      } else {
        (void)m.ArenaBytes(shapes);
      }
    }
  }
}

const runtime::SignatureInfo* ModelVersion::FindSignature(const std::string& name) const {
  const std::string& want = name.empty() ? default_signature_ : name;
  for (const auto& s : signatures_) {
    if (s->info->name == want) return s->info;
  }
  return nullptr;
}

bool ModelVersion::Batches(const std::string& signature) const {
  const std::string& want = signature.empty() ? default_signature_ : signature;
  for (const auto& s : signatures_) {
    if (s->info->name == want) return s->batcher != nullptr;
  }
  return false;
}

Result<InferResponse> ModelVersion::Infer(const InferRequest& request) const {
  const std::string& want = request.signature.empty() ? default_signature_ : request.signature;
  const Signature* sig = nullptr;
  for (const auto& s : signatures_) {
    if (s->info->name == want) sig = s.get();
  }
  // Messages name the signature; the text is made only for an error (this
  // runs on every request).
  auto where = [&] {
    return "model '" + name_ + "' version " + version_text_ + " signature '" + want + "'";
  };
  if (sig == nullptr) {
    std::string names;
    for (const auto& s : signatures_) names += (names.empty() ? "'" : ", '") + s->info->name + "'";
    return Status(StatusCode::kNotFound, "model '" + name_ + "' version " +
                                             std::to_string(version_) + " has no signature '" +
                                             want + "'; its signatures are " + names);
  }
  // Which outputs to return, in the order asked for.
  std::vector<size_t> wanted;
  for (const std::string& o : request.outputs) {
    auto it = std::find_if(sig->info->outputs.begin(), sig->info->outputs.end(),
                           [&](const runtime::TensorInfo& i) { return i.name == o; });
    if (it == sig->info->outputs.end()) {
      return Status(
          StatusCode::kInvalidArgument,
          where() + " has no output '" + o + "'; its outputs are " + Names(sig->info->outputs));
    }
    wanted.push_back(static_cast<size_t>(it - sig->info->outputs.begin()));
  }
  if (request.outputs.empty()) {
    for (size_t k = 0; k < sig->info->outputs.size(); ++k) wanted.push_back(k);
  }
  TFN_ASSIGN_OR_RETURN(std::vector<runtime::Tensor> inputs,
                       OrderInputs(request, *sig->info, where));
  Result<std::vector<runtime::Tensor>> outputs = Status(StatusCode::kInternal, "not run");
  if (sig->batcher) {
    outputs = sig->batcher->Run(std::move(inputs));
  } else {
    const size_t instance = next_instance_.fetch_add(1) % sig->methods.size();
    outputs = sig->methods[instance].Run(inputs);
    if (metrics_) {
      const int64_t rows = inputs.empty() || inputs[0].shape.rank() == 0 ? 1 : inputs[0].shape[0];
      metrics_->RecordBatch(name_, version_text_, rows, 1, {0.0});
    }
  }
  if (!outputs.ok()) {
    return Status(outputs.status().code(), where() + ": " + outputs.status().message());
  }
  InferResponse response;
  response.model = name_;
  response.version = version_text_;
  response.id = request.id;
  for (size_t k : wanted) response.outputs.push_back({sig->info->outputs[k].name, (*outputs)[k]});
  return response;
}

}  // namespace tfn::serve
