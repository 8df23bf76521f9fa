// The comparison's server on cpp-httplib, configured as tfn-serve runs it
// (serve/http_server.cc): a pool of THREADS workers, one keep-alive
// connection per worker at a time, TCP_NODELAY, and the listen backlog
// widened to SOMAXCONN after binding (Debian's build listens with 5).
#include <httplib.h>

#include "common.h"
#include "serve/listen_backlog.h"  // tfn-serve's own

int main(int argc, char** argv) {
  int port = 0, threads = 0;
  ParseArgs(argc, argv, &port, &threads);
  httplib::Server server;
  server.new_task_queue = [threads] {
    return new httplib::ThreadPool(static_cast<size_t>(threads));
  };
  server.set_tcp_nodelay(true);
  server.set_keep_alive_max_count(100000);
  server.Get(kReadyPath, [](const httplib::Request&, httplib::Response& res) {
    res.set_content(kReadyBody, sizeof(kReadyBody) - 1, "application/json");
  });
  server.Post(kInferPath, [](const httplib::Request& req, httplib::Response& res) {
    char body[256];
    const int n = InferAnswer(req.body.size(), body, sizeof(body));
    res.set_content(body, static_cast<size_t>(n), "application/json");
  });
  if (!server.bind_to_port("127.0.0.1", port)) return 1;
  tfn::serve::WidenListenBacklog(port);
  return server.listen_after_bind() ? 0 : 1;
}
