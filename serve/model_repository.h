// The models a server serves: a repository directory laid out as
// REPO/NAME/VERSION/model.tfn (numeric versions, as TF Serving and Triton),
// plus single bundles named on the command line, each loaded as version 1.
//
// Which versions of a model are loaded is its VersionPolicy (latest N, all,
// or specific ones). Poll() rescans: a new version is loaded and warmed up
// beside the old ones, then swapped in; a version the policy drops is
// unloaded. Requests hold a shared_ptr to the ModelVersion they run on, so
// a request in flight finishes on the version it started with, and an
// unloaded version is freed when its last request ends.
//
// Per-model options (REPO/NAME/config.json, over the repository's
// defaults): {"version_policy": "latest:2" | "all" | "specific:1,3",
//             "instances": 2, "threads": 1,
//             "dynamic_batching": {"max_batch_size": 64,
//               "max_queue_delay_us": 500, "preferred_batch_sizes": [8, 16],
//               "max_queue_size": 1024}}
//
// Thread-safety: every const method may be called from any thread at any
// time, also while Poll runs on another thread (one Poll at a time).
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "serve/inference.h"

namespace tfn::serve {

class Metrics;
class DynamicBatcher;

struct VersionPolicy {
  enum class Kind { kLatest, kAll, kSpecific };
  Kind kind = Kind::kLatest;
  int64_t latest = 1;             // kLatest: how many of the newest versions
  std::vector<int64_t> specific;  // kSpecific: these versions
  // "latest", "latest:N", "all", "specific:V[,V...]".
  static Result<VersionPolicy> Parse(const std::string& text);
  std::string ToString() const;
  // Which of `available` (ascending) to load, ascending.
  std::vector<int64_t> Select(const std::vector<int64_t>& available) const;
};

// Dynamic batching of one model: requests to a signature whose inputs and
// outputs all have a dynamic first dim (the same one) are queued and run
// together, up to max_batch_size rows, waiting at most max_queue_delay_us
// for more after the first; a batch that reaches a preferred size runs at
// once. Requests whose other dims differ from the batch's wait for the next
// batch. A full queue refuses the request (kResourceExhausted: HTTP 503).
struct BatchingOptions {
  int64_t max_batch_size = 0;  // 0 or 1: no batching
  int64_t max_queue_delay_us = 100;
  std::vector<int64_t> preferred_batch_sizes;
  int64_t max_queue_size = 1024;
  bool enabled() const { return max_batch_size > 1; }
};

struct ModelOptions {
  VersionPolicy version_policy;
  BatchingOptions batching;
  int instances = 1;              // sessions per version; they share the bundle's mapped weights
  int threads = 1;                // intra-op threads of each session
  bool verify_checksums = false;  // hash every byte of each bundle at load
};

struct RepositoryOptions {
  std::string repository;                                    // "" = none; then only `bundles`
  std::vector<std::pair<std::string, std::string>> bundles;  // (model name, bundle path): version 1
  ModelOptions defaults;
};

// One loaded version of a model: its bundle, `instances` sessions and, per
// batching signature, a batcher. Immutable once loaded; Infer is
// thread-safe.
class ModelVersion {
 public:
  ~ModelVersion();
  const std::string& name() const { return name_; }
  int64_t version() const { return version_; }
  const runtime::Bundle& bundle() const { return *bundle_; }
  // "serving_default" when the bundle has it, else its first signature.
  const std::string& default_signature() const { return default_signature_; }
  // `name` "" is the default signature; null when there is none of that name.
  const runtime::SignatureInfo* FindSignature(const std::string& name) const;
  // Whether requests to this signature are batched.
  bool Batches(const std::string& signature) const;
  // Checks the request's inputs against the signature (names, dtypes,
  // shapes; an error names the input, the expected spec and what was
  // given) and runs it, through the batcher where the signature batches.
  Result<InferResponse> Infer(const InferRequest& request) const;

 private:
  friend class ModelRepository;
  ModelVersion() = default;
  // Loads the bundle at `path`, makes the sessions and batchers, and warms
  // each signature up once per session so plans are made before the first
  // request: a run on zeros, or only the plan when the bundle has variables
  // (a run could assign them).
  static Result<std::shared_ptr<const ModelVersion>> Load(const std::string& name, int64_t version,
                                                          const std::string& path,
                                                          const ModelOptions& options,
                                                          Metrics* metrics);
  void WarmUp() const;
  struct Signature;
  std::string name_;
  int64_t version_ = 0;
  std::string version_text_;  // version_ as responses and metrics label it
  std::shared_ptr<const runtime::Bundle> bundle_;
  std::vector<std::unique_ptr<runtime::Session>> sessions_;
  std::vector<std::unique_ptr<Signature>> signatures_;
  std::string default_signature_;
  Metrics* metrics_ = nullptr;
  mutable std::atomic<uint64_t> next_instance_{0};
};

class ModelRepository {
 public:
  // Loads what the options name (errors: a missing repository directory or
  // bundle path; a model whose versions all fail to load stays listed with
  // its error and keeps the server from being ready). `metrics` (optional,
  // not owned) must outlive the repository.
  static Result<std::unique_ptr<ModelRepository>> Open(const RepositoryOptions& options,
                                                       Metrics* metrics);
  ~ModelRepository();

  // Rescans the repository: loads new versions (warmed up) before swapping
  // them in, unloads versions the policy no longer selects, reloads a model
  // whose config.json changed. Returns what changed, one line per event.
  std::vector<std::string> Poll();

  // The version to run: `version` "" is the newest loaded one. NotFound
  // names the models (or the model's loaded versions) there are.
  Result<std::shared_ptr<const ModelVersion>> Find(const std::string& model,
                                                   const std::string& version) const;
  Result<ModelMetadata> Metadata(const std::string& model, const std::string& version) const;
  // Every version the policy selects, with its state (LOADING, AVAILABLE,
  // END) and load error.
  Result<std::vector<VersionStatus>> ModelStatus(const std::string& model) const;
  std::vector<std::string> ModelNames() const;
  // Every model has at least one version loaded.
  bool AllLoaded() const;

 private:
  ModelRepository() = default;
  struct Model;
  // Loads and unloads the versions of one model as its policy says.
  void PollModel(Model& m, std::vector<std::string>* events);
  RepositoryOptions options_;
  Metrics* metrics_ = nullptr;
  mutable std::mutex mu_;
  std::map<std::string, std::shared_ptr<Model>> models_;  // guarded by mu_
};

}  // namespace tfn::serve
