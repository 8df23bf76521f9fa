// tfn-serve's gRPC front end: the Open Inference Protocol's
// GRPCInferenceService (serve/proto/grpc_service.proto; KServe's and
// Triton's gRPC clients speak it) on gRPC's synchronous C++ server. Each RPC
// is translated to inference.h's types, run by InferenceServer, and
// translated back; nothing here decides anything about models.
//
//   GrpcOptions options;
//   options.address = "0.0.0.0:0";  // port 0: any free port
//   auto grpc = GrpcFrontEnd::Start(server, options);
//   if (!grpc.ok()) { ... grpc.status().message() ... }
//   printf("gRPC on port %d\n", (*grpc)->port());
//   ...
//   server.BeginShutdown();
//   (*grpc)->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(30));
//
// Ownership: the front end does not own the InferenceServer; the server
// must outlive it (or at least its Shutdown). The front end owns the
// gRPC server and its threads.
//
// Thread-safety: RPCs run on gRPC's own thread pool, any number at once
// (InferenceServer is thread-safe). port() may be called from any thread;
// Shutdown may be called from any thread, and more than once (later calls
// wait for the first to finish). The destructor shuts down at once if
// Shutdown was not called.
//
// This header needs no gRPC or protobuf headers; only grpc_server.cc
// includes the generated grpc_service.{pb,grpc.pb}.h.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "core/status.h"
#include "serve/server.h"

namespace grpc {
class Server;
}  // namespace grpc

namespace tfn::serve {

struct GrpcOptions {
  // host:port to listen on; port 0 picks a free port (GrpcFrontEnd::port()).
  std::string address = "0.0.0.0:8001";
  // The largest request and response message, in bytes (gRPC's own default
  // of 4 MiB is too small for batches of images). A larger request fails
  // with RESOURCE_EXHAUSTED before it reaches the service. gRPC takes an
  // int: values above INT32_MAX are capped there.
  int64_t max_message_bytes = 64 << 20;
  // Threads kept for requests in flight (each holds one while its batch
  // waits and runs); more are started when needed and stopped when idle.
  int threads = 128;
};

class GrpcService;  // the GRPCInferenceService implementation (grpc_server.cc)

class GrpcFrontEnd {
 public:
  // Starts serving `server` (not owned; must outlive this). Result holds the
  // bound port (address with port 0 picks a free one). Errors: a
  // max_message_bytes below 1 (kInvalidArgument); an address gRPC cannot
  // listen on, e.g. in use or malformed (kIoError).
  static Result<std::unique_ptr<GrpcFrontEnd>> Start(InferenceServer& server,
                                                     const GrpcOptions& options);
  ~GrpcFrontEnd();
  GrpcFrontEnd(const GrpcFrontEnd&) = delete;
  GrpcFrontEnd& operator=(const GrpcFrontEnd&) = delete;

  // The port the server listens on.
  int port() const { return port_; }

  // Stops accepting; waits for in-flight RPCs until `deadline`, then cancels
  // the rest, and returns when every handler has returned. A handler that is
  // inside InferenceServer::Infer when the deadline passes still finishes
  // that run (a run cannot be interrupted); its client sees CANCELLED.
  void Shutdown(std::chrono::system_clock::time_point deadline);

 private:
  GrpcFrontEnd();
  std::unique_ptr<GrpcService> service_;  // must outlive server_
  std::unique_ptr<grpc::Server> server_;
  int port_ = 0;
  std::mutex shutdown_mu_;  // one Shutdown at a time
  bool shut_down_ = false;  // guarded by shutdown_mu_
};

}  // namespace tfn::serve
