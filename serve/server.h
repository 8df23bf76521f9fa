// What the REST and gRPC front ends share: the model repository, the
// metrics, liveness and readiness, and one Infer that finds the version,
// runs the request and records it. The front ends only translate their
// protocol to and from inference.h's types and call this.
//
// Thread-safety: every method may be called from any thread at once.
// Ownership: owns the repository and the metrics; front ends hold a
// reference and must stop before it is destroyed.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "serve/inference.h"
#include "serve/metrics.h"
#include "serve/model_repository.h"

namespace tfn::serve {

// Which front end a request came through, for metrics and logs.
enum class Protocol { kRest, kGrpc };
const char* ProtocolName(Protocol p);  // "rest", "grpc"

class InferenceServer {
 public:
  // Loads the repository (ModelRepository::Open).
  static Result<std::unique_ptr<InferenceServer>> Create(const RepositoryOptions& options);

  // Live from creation until destruction.
  bool live() const { return true; }
  // Every model has a version loaded and shutdown has not begun.
  bool ready() const;
  // Readiness goes false at once (load balancers stop sending); requests
  // still arriving are served until the front ends stop.
  void BeginShutdown() { shutting_down_.store(true); }
  bool shutting_down() const { return shutting_down_.load(); }

  // OIP server metadata.
  std::string name() const { return "tfn"; }
  std::string version() const;
  std::vector<std::string> extensions() const;  // {"binary_tensor_data"}

  // Runs one request and records it in the metrics (requests, failures,
  // latency; the batcher records queue time and batch sizes).
  Result<InferResponse> Infer(const InferRequest& request, Protocol protocol);
  // A request refused before it could run (its body or headers did not
  // decode), `seconds` after it arrived: counted as a failure of the model
  // version when both exist, under signature "" (unknown names are not
  // recorded, as in Infer).
  void RecordRefused(const std::string& model, const std::string& version, Protocol protocol,
                     const Status& status, double seconds);
  Result<ModelMetadata> Metadata(const std::string& model, const std::string& version) const {
    return repository_->Metadata(model, version);
  }
  // A version is ready when it is loaded (NotFound for an unknown model).
  Result<bool> ModelReady(const std::string& model, const std::string& version) const;

  ModelRepository& repository() { return *repository_; }
  Metrics& metrics() { return *metrics_; }

 private:
  InferenceServer() = default;
  std::unique_ptr<Metrics> metrics_;
  std::unique_ptr<ModelRepository> repository_;
  std::atomic<bool> shutting_down_{false};
};

}  // namespace tfn::serve
