// The REST front end: KServe v2 / Open Inference Protocol over HTTP/1.1
// (with the binary tensor data extension), TF Serving's REST predict and
// status, and Prometheus metrics at /metrics. Built on cpp-httplib
// (README.md says why): a thread pool serves connections, one request at a
// time per connection, and each handler runs the request synchronously
// (dynamic batching blocks the handler until its batch ran).
//
// Ownership: `server` is not owned and must outlive the front end.
// Thread-safety: Start and Stop are called from one thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <thread>

#include "serve/server.h"

namespace httplib {
class Server;
}

namespace tfn::serve {

struct HttpOptions {
  std::string host = "0.0.0.0";
  int port = 8000;                       // 0 picks a free port
  int threads = 128;                     // connections served at once (keep-alive holds one each)
  int64_t max_request_bytes = 64 << 20;  // larger bodies get 413
  bool access_log = false;               // one JSON line per request on stderr
};

class HttpFrontEnd {
 public:
  static Result<std::unique_ptr<HttpFrontEnd>> Start(InferenceServer& server,
                                                     const HttpOptions& options);
  ~HttpFrontEnd();
  int port() const { return port_; }
  // Stops accepting connections and waits for the requests being served
  // to be answered.
  void Stop();

 private:
  HttpFrontEnd() = default;
  void Routes();
  InferenceServer* server_ = nullptr;
  HttpOptions options_;
  std::unique_ptr<httplib::Server> http_;
  std::thread listener_;
  int port_ = 0;
};

}  // namespace tfn::serve
