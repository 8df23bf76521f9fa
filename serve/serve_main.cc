// tfn-serve: serves the bundles of a model repository over the Open
// Inference Protocol (REST and gRPC) and TF Serving's REST API. The only
// code of serve/ that exits on error; everything else returns Status.
//
// Signals: SIGTERM/SIGINT drain and exit 0 (readiness false at once, no new
// connections, in-flight requests answered within --drain-timeout, else
// exit 1); SIGHUP rescans the repository at once.
#include <signal.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include "serve/grpc_server.h"
#include "serve/http_server.h"
#include "serve/server.h"
#include "tools/args.h"

namespace {

using tfn::serve::GrpcFrontEnd;
using tfn::serve::HttpFrontEnd;

constexpr const char* kTool = "tfn-serve";

void Log(const std::string& line) { std::fprintf(stderr, "%s: %s\n", kTool, line.c_str()); }

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// "dir/name.tfn" -> "name".
std::string Stem(const std::string& path) {
  const size_t slash = path.rfind('/');
  std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  const size_t dot = base.rfind('.');
  return dot == std::string::npos || dot == 0 ? base : base.substr(0, dot);
}

int Port(int64_t value, const char* flag) {
  if (value > 65535) tfn::tools::Fail(kTool, std::string(flag) + " must be at most 65535", 2);
  return static_cast<int>(value);
}

}  // namespace

int main(int argc, char** argv) {
  tfn::tools::ArgParser args(kTool, "[PATH] [options]",
                             "Serves tfn bundles over the Open Inference Protocol (KServe v2: REST "
                             "and gRPC) and TF Serving's REST API.");
  std::string path, repository, host = "0.0.0.0", policy = "latest:1";
  std::vector<std::string> models, preferred;
  int64_t http_port = 8000, grpc_port = 8001, instances = 1, threads = 1, max_batch = 0,
          queue_delay = 100, queue_size = 1024, poll_seconds = 1, drain = 30,
          max_request = 64 << 20, grpc_max = 64 << 20, http_threads = 128, grpc_threads = 128;
  bool no_http = false, no_grpc = false, access_log = false, verify = false, grpc_max_given = false;
  args.Positional("PATH", "a model repository (REPO/NAME/VERSION/model.tfn) or a bundle file",
                  &path, false);
  args.String("--model-repository", "DIR", "the model repository (same as PATH)", &repository);
  args.List("--model", "NAME=BUNDLE", "serve a single bundle as NAME, version 1", &models);
  args.String("--host", "ADDR", "address to listen on (default 0.0.0.0)", &host);
  args.Int("--http-port", "N", "REST port (default 8000; 0 picks a free port)", &http_port);
  args.Int("--grpc-port", "N", "gRPC port (default 8001; 0 picks a free port)", &grpc_port);
  args.Flag("--no-http", "serve no REST", &no_http);
  args.Flag("--no-grpc", "serve no gRPC", &no_grpc);
  args.String("--version-policy", "P", "latest[:N] | all | specific:V[,V...] (default latest:1)",
              &policy);
  args.Int("--instances", "N", "sessions per model version (default 1)", &instances);
  args.Int("--threads", "N", "intra-op threads per session (default 1)", &threads);
  args.Int("--max-batch-size", "N", "dynamic batching: rows per batch (default 0: off)",
           &max_batch);
  args.Int("--max-queue-delay-us", "N",
           "dynamic batching: longest wait for a fuller batch "
           "(default 100)",
           &queue_delay);
  args.List("--preferred-batch-size", "N", "dynamic batching: run at once at this many rows",
            &preferred);
  args.Int("--max-queue-size", "N", "dynamic batching: requests waiting before 503 (default 1024)",
           &queue_size);
  args.Int("--poll-seconds", "N", "repository poll interval (default 1; 0: never; SIGHUP rescans)",
           &poll_seconds);
  args.Int("--drain-timeout", "SECONDS",
           "on SIGTERM, time to finish in-flight requests "
           "(default 30)",
           &drain);
  args.Int("--max-request-bytes", "N", "largest HTTP body (default 67108864)", &max_request);
  args.Int("--grpc-max-message-bytes", "N", "largest gRPC message (default: --max-request-bytes)",
           &grpc_max, &grpc_max_given);
  args.Int("--http-threads", "N", "HTTP connections served at once (default 128)", &http_threads);
  args.Int("--grpc-threads", "N", "gRPC threads kept for requests in flight (default 128)",
           &grpc_threads);
  args.Flag("--access-log", "one JSON line per HTTP request on stderr", &access_log);
  args.Flag("--verify-checksums", "hash every byte of each bundle when loading it", &verify);
  args.Examples({"tfn-serve models/                     # REPO/NAME/VERSION/model.tfn",
                 "tfn-serve mlp.tfn --http-port 8080    # one bundle, served as 'mlp'",
                 "tfn-serve models/ --max-batch-size 64 --max-queue-delay-us 500"});
  tfn::tools::ExitOnError(args, args.Parse(argc, argv));

  tfn::serve::RepositoryOptions options;
  if (!path.empty()) {
    if (EndsWith(path, ".tfn")) {
      options.bundles.push_back({Stem(path), path});
    } else if (repository.empty()) {
      repository = path;
    } else {
      tfn::tools::Fail(kTool, "PATH and --model-repository both name a repository; give one", 2);
    }
  }
  options.repository = repository;
  for (const std::string& m : models) {
    const size_t eq = m.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == m.size()) {
      tfn::tools::Fail(kTool, "--model expects NAME=BUNDLE, got '" + m + "'", 2);
    }
    options.bundles.push_back({m.substr(0, eq), m.substr(eq + 1)});
  }
  if (options.repository.empty() && options.bundles.empty()) {
    tfn::tools::Fail(kTool,
                     "nothing to serve: give a model repository or a bundle "
                     "(tfn-serve --help)",
                     2);
  }
  tfn::Result<tfn::serve::VersionPolicy> parsed_policy = tfn::serve::VersionPolicy::Parse(policy);
  if (!parsed_policy.ok()) tfn::tools::Fail(kTool, parsed_policy.status().message(), 2);
  tfn::serve::ModelOptions& d = options.defaults;
  d.version_policy = *parsed_policy;
  d.instances = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(instances, 1024)));
  d.threads = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(threads, 1024)));
  d.verify_checksums = verify;
  d.batching.max_batch_size = max_batch;
  d.batching.max_queue_delay_us = queue_delay;
  d.batching.max_queue_size = queue_size;
  for (const std::string& p : preferred) {
    char* end = nullptr;
    const long long v = std::strtoll(p.c_str(), &end, 10);
    if (p.empty() || *end != '\0' || v <= 0) {
      tfn::tools::Fail(kTool, "--preferred-batch-size expects a positive integer, got '" + p + "'",
                       2);
    }
    d.batching.preferred_batch_sizes.push_back(v);
  }
  if (no_http && no_grpc)
    tfn::tools::Fail(kTool, "--no-http and --no-grpc leave nothing to serve", 2);

  // Signals are taken by this thread alone (sigtimedwait below): block them
  // before any other thread starts, so every thread inherits the mask.
  sigset_t signals;
  sigemptyset(&signals);
  for (int s : {SIGTERM, SIGINT, SIGHUP}) sigaddset(&signals, s);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  signal(SIGPIPE, SIG_IGN);

  auto server = tfn::serve::InferenceServer::Create(options);
  if (!server.ok()) tfn::tools::Fail(kTool, server.status().message());
  for (const std::string& name : (*server)->repository().ModelNames()) {
    auto status = (*server)->repository().ModelStatus(name);
    if (!status.ok()) continue;
    for (const tfn::serve::VersionStatus& s : *status) {
      Log("model " + name + " version " + std::to_string(s.version) + ": " + s.state +
          (s.error.empty() ? "" : " (" + s.error + ")"));
    }
  }

  std::unique_ptr<HttpFrontEnd> http;
  std::unique_ptr<GrpcFrontEnd> grpc;
  if (!no_http) {
    tfn::serve::HttpOptions o;
    o.host = host;
    o.port = Port(http_port, "--http-port");
    o.threads = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(http_threads, 4096)));
    o.max_request_bytes = max_request;
    o.access_log = access_log;
    auto started = HttpFrontEnd::Start(**server, o);
    if (!started.ok()) tfn::tools::Fail(kTool, started.status().message());
    http = std::move(*started);
    Log("HTTP listening on " + host + ":" + std::to_string(http->port()));
  }
  if (!no_grpc) {
    tfn::serve::GrpcOptions o;
    o.address = host + ":" + std::to_string(Port(grpc_port, "--grpc-port"));
    o.max_message_bytes = grpc_max_given ? grpc_max : max_request;
    o.threads = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(grpc_threads, 4096)));
    auto started = GrpcFrontEnd::Start(**server, o);
    if (!started.ok()) tfn::tools::Fail(kTool, started.status().message());
    grpc = std::move(*started);
    Log("gRPC listening on " + host + ":" + std::to_string(grpc->port()));
  }
  Log((*server)->ready() ? "ready" : "not ready: a model has no version loaded (see above)");

  // Poll the repository; wait for signals in between.
  bool was_ready = (*server)->ready();
  for (;;) {
    timespec wait = {poll_seconds > 0 ? static_cast<time_t>(poll_seconds) : 3600, 0};
    siginfo_t info;
    const int sig = sigtimedwait(&signals, &info, &wait);
    if (sig == SIGTERM || sig == SIGINT) break;
    if (sig == SIGHUP || (sig < 0 && poll_seconds > 0)) {
      for (const std::string& event : (*server)->repository().Poll()) Log(event);
      if (!was_ready && (*server)->ready()) Log("ready");
      was_ready = (*server)->ready();
    }
  }

  // Drain: not ready at once, then stop accepting and finish what is in flight.
  (*server)->BeginShutdown();
  Log("draining (up to " + std::to_string(drain) + " s)");
  const auto deadline = std::chrono::system_clock::now() + std::chrono::seconds(drain);
  std::thread watchdog([deadline] {
    std::this_thread::sleep_until(deadline + std::chrono::seconds(1));
    Log("drain timed out: requests still running were abandoned");
    std::_Exit(1);
  });
  watchdog.detach();
  std::thread grpc_stop([&] {
    if (grpc) grpc->Shutdown(deadline);
  });
  if (http) http->Stop();
  grpc_stop.join();
  Log("drained; exiting");
  return 0;
}
