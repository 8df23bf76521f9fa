// InferenceServer (server.h): the repository, metrics and readiness the
// front ends share.
#include "serve/server.h"

#include <chrono>

namespace tfn::serve {

const char* ProtocolName(Protocol p) { return p == Protocol::kGrpc ? "grpc" : "rest"; }

Result<std::unique_ptr<InferenceServer>> InferenceServer::Create(const RepositoryOptions& options) {
  std::unique_ptr<InferenceServer> server(new InferenceServer());
  server->metrics_ = std::make_unique<Metrics>();
  TFN_ASSIGN_OR_RETURN(server->repository_, ModelRepository::Open(options, server->metrics_.get()));
  return server;
}

bool InferenceServer::ready() const { return !shutting_down() && repository_->AllLoaded(); }

std::string InferenceServer::version() const {
#ifdef TFN_VERSION
  return TFN_VERSION;
#else
  return "0";
#endif
}

std::vector<std::string> InferenceServer::extensions() const { return {"binary_tensor_data"}; }

Result<InferResponse> InferenceServer::Infer(const InferRequest& request, Protocol protocol) {
  const auto start = std::chrono::steady_clock::now();
  Result<std::shared_ptr<const ModelVersion>> version =
      repository_->Find(request.model, request.version);
  Result<InferResponse> response =
      version.ok() ? (*version)->Infer(request) : Result<InferResponse>(version.status());
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // Requests to models that do not exist are not recorded: their names come
  // from clients, and a label per typo would grow the metrics without bound.
  if (version.ok()) {
    // A signature the model lacks is counted under "" for the same reason.
    const runtime::SignatureInfo* found = (*version)->FindSignature(request.signature);
    const std::string signature = found ? found->name : "";
    metrics_->RecordRequest(request.model, std::to_string((*version)->version()), signature,
                            ProtocolName(protocol), HttpStatusOf(response.status()), seconds);
  }
  return response;
}

void InferenceServer::RecordRefused(const std::string& model, const std::string& version,
                                    Protocol protocol, const Status& status, double seconds) {
  Result<std::shared_ptr<const ModelVersion>> found = repository_->Find(model, version);
  if (!found.ok()) return;
  metrics_->RecordRequest(model, std::to_string((*found)->version()), "", ProtocolName(protocol),
                          HttpStatusOf(status), seconds);
}

Result<bool> InferenceServer::ModelReady(const std::string& model,
                                         const std::string& version) const {
  Result<std::shared_ptr<const ModelVersion>> v = repository_->Find(model, version);
  if (v.ok()) return true;
  if (v.status().code() == StatusCode::kFailedPrecondition) return false;
  return v.status();
}

}  // namespace tfn::serve
