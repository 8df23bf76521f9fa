// The REST routes (http_server.h). Each handler turns the URL and body into
// inference.h's types with rest_codec.h, calls InferenceServer, and encodes
// the answer; every error is {"error": "..."} with HttpStatusOf's status.
#include "serve/http_server.h"

#include <httplib.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "serve/json_writer.h"
#include "serve/listen_backlog.h"
#include "serve/rest_codec.h"

namespace tfn::serve {
namespace {

constexpr const char* kJson = "application/json";

void Error(httplib::Response& res, const Status& status) {
  res.status = HttpStatusOf(status);
  res.set_content(EncodeError(status.message()), kJson);
}

void Json(httplib::Response& res, int code, std::string body) {
  res.status = code;
  res.set_content(std::move(body), kJson);
}

// The request body, taken over instead of copied (binary inputs are views
// into it and must outlive a queued request); cpp-httplib does not use the
// body after the handler.
std::shared_ptr<const std::string> TakeBody(const httplib::Request& req) {
  return std::make_shared<const std::string>(std::move(const_cast<std::string&>(req.body)));
}

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::string Version(const httplib::Request& req, size_t i) {
  return req.matches.size() > i ? std::string(req.matches[i]) : std::string();
}

// One access-log line: a JSON object per request.
std::string AccessLogLine(const httplib::Request& req, const httplib::Response& res,
                          int64_t duration_us) {
  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  w.StartObject();
  WriteKey(w, "remote");
  WriteString(w, req.remote_addr);
  WriteKey(w, "method");
  WriteString(w, req.method);
  WriteKey(w, "path");
  WriteString(w, req.path);
  WriteKey(w, "status");
  w.Int(res.status);
  // The body is read after routing starts and the infer handlers take it
  // over: its size is the Content-Length header's.
  WriteKey(w, "request_bytes");
  w.Uint64(req.get_header_value<uint64_t>("Content-Length"));
  WriteKey(w, "response_bytes");
  w.Uint64(res.body.size());
  WriteKey(w, "duration_us");
  w.Int64(duration_us);
  w.EndObject();
  return Text(buffer);
}

}  // namespace

HttpFrontEnd::~HttpFrontEnd() { Stop(); }

Result<std::unique_ptr<HttpFrontEnd>> HttpFrontEnd::Start(InferenceServer& server,
                                                          const HttpOptions& options) {
  std::unique_ptr<HttpFrontEnd> fe(new HttpFrontEnd());
  fe->server_ = &server;
  fe->options_ = options;
  fe->http_ = std::make_unique<httplib::Server>();
  httplib::Server& http = *fe->http_;
  const int threads = options.threads > 0 ? options.threads : 1;
  http.new_task_queue = [threads] { return new httplib::ThreadPool(static_cast<size_t>(threads)); };
  http.set_payload_max_length(static_cast<size_t>(options.max_request_bytes));
  http.set_tcp_nodelay(true);
  http.set_keep_alive_max_count(100000);
  // Idle keep-alive connections close after 5 s: each holds a pool thread,
  // and a drain waits for them.
  http.set_keep_alive_timeout(5);
  fe->Routes();
  const int port = options.port == 0
                       ? http.bind_to_any_port(options.host)
                       : (http.bind_to_port(options.host, options.port) ? options.port : -1);
  if (port < 0) {
    return Status(StatusCode::kIoError, "cannot listen for HTTP on " + options.host + ":" +
                                            std::to_string(options.port) +
                                            " (in use, or not an address of this machine); "
                                            "pick another with --http-port");
  }
  fe->port_ = port;
  WidenListenBacklog(port);
  httplib::Server* raw = fe->http_.get();
  fe->listener_ = std::thread([raw] { raw->listen_after_bind(); });
  return fe;
}

void HttpFrontEnd::Stop() {
  if (!http_) return;
  http_->stop();
  if (listener_.joinable()) listener_.join();
}

void HttpFrontEnd::Routes() {
  httplib::Server& http = *http_;
  InferenceServer& server = *server_;
  const bool log = options_.access_log;

  if (log) {
    // A request is routed, handled and logged on one pool thread: its start
    // time waits for the logger in a thread_local.
    static thread_local std::chrono::steady_clock::time_point started;
    http.set_pre_routing_handler([](const httplib::Request&, httplib::Response&) {
      started = std::chrono::steady_clock::now();
      return httplib::Server::HandlerResponse::Unhandled;
    });
    http.set_logger([](const httplib::Request& req, const httplib::Response& res) {
      const auto us = std::chrono::duration_cast<std::chrono::microseconds>(
                          std::chrono::steady_clock::now() - started)
                          .count();
      std::fprintf(stderr, "%s\n", AccessLogLine(req, res, us).c_str());
    });
  }
  http.set_error_handler([](const httplib::Request& req, httplib::Response& res) {
    if (!res.body.empty()) return;  // a handler's own error
    std::string what = res.status == 413   ? "the request body is larger than the server's limit "
                                             "(--max-request-bytes)"
                       : res.status == 404 ? "no such endpoint: " + req.method + " " + req.path
                                           : "the request could not be read";
    res.set_content(EncodeError(what), kJson);
  });

  // Server health and metadata.
  http.Get("/v2/health/live", [&server](const httplib::Request&, httplib::Response& res) {
    Json(res, server.live() ? 200 : 503, server.live() ? "{\"live\":true}" : "{\"live\":false}");
  });
  http.Get("/v2/health/ready", [&server](const httplib::Request&, httplib::Response& res) {
    const bool ready = server.ready();
    Json(res, ready ? 200 : 503, ready ? "{\"ready\":true}" : "{\"ready\":false}");
  });
  http.Get("/v2", [&server](const httplib::Request&, httplib::Response& res) {
    Json(res, 200, EncodeServerMetadata(server.name(), server.version(), server.extensions()));
  });
  http.Get("/metrics", [&server](const httplib::Request&, httplib::Response& res) {
    res.set_content(server.metrics().Text(), "text/plain; version=0.0.4");
  });

  // Models: metadata, readiness, inference.
  const std::string model = R"(/v2/models/([^/]+)(?:/versions/([^/]+))?)";
  http.Get(model, [&server](const httplib::Request& req, httplib::Response& res) {
    Result<ModelMetadata> md = server.Metadata(req.matches[1], Version(req, 2));
    if (!md.ok()) return Error(res, md.status());
    Json(res, 200, EncodeModelMetadata(*md));
  });
  http.Get(model + "/ready", [&server](const httplib::Request& req, httplib::Response& res) {
    Result<bool> ready = server.ModelReady(req.matches[1], Version(req, 2));
    if (!ready.ok()) return Error(res, ready.status());
    Json(res, *ready ? 200 : 503, EncodeModelReady(req.matches[1], *ready));
  });
  http.Post(model + "/infer", [&server](const httplib::Request& req, httplib::Response& res) {
    const auto start = std::chrono::steady_clock::now();
    // A request whose body does not decode is still a failed request of the model.
    auto refuse = [&](const Status& status) {
      server.RecordRefused(req.matches[1], Version(req, 2), Protocol::kRest, status,
                           SecondsSince(start));
      Error(res, status);
    };
    int64_t header_length = -1;
    if (req.has_header("Inference-Header-Content-Length")) {
      const std::string h = req.get_header_value("Inference-Header-Content-Length");
      char* end = nullptr;
      header_length = std::strtoll(h.c_str(), &end, 10);
      if (h.empty() || *end != '\0' || header_length < 0) {
        return refuse(Status(StatusCode::kInvalidArgument,
                             "Inference-Header-Content-Length must be a non-negative "
                             "integer, got '" +
                                 h + "'"));
      }
    }
    const std::string name = req.matches[1], version = Version(req, 2);
    // The raw binary request (header length 0) takes its input's spec from
    // the default signature.
    const runtime::SignatureInfo* signature = nullptr;
    std::shared_ptr<const ModelVersion> found;
    if (header_length == 0) {
      Result<std::shared_ptr<const ModelVersion>> v = server.repository().Find(name, version);
      if (!v.ok()) return Error(res, v.status());
      found = *v;
      signature = found->FindSignature("");
    }
    Result<V2InferRequest> parsed = ParseV2InferRequest(TakeBody(req), header_length, signature);
    if (!parsed.ok()) return refuse(parsed.status());
    parsed->request.model = name;
    parsed->request.version = found ? std::to_string(found->version()) : version;
    Result<InferResponse> response = server.Infer(parsed->request, Protocol::kRest);
    if (!response.ok()) return Error(res, response.status());
    EncodedBody body = EncodeV2InferResponse(*response, *parsed);
    if (body.header_length >= 0) {
      res.set_header("Inference-Header-Content-Length", std::to_string(body.header_length));
    }
    res.status = 200;
    res.set_content(std::move(body.body), body.content_type);
  });

  // TF Serving's REST API: status and predict.
  const std::string v1 = R"(/v1/models/([^/:]+)(?:/versions/([^/:]+))?)";
  http.Get(v1, [&server](const httplib::Request& req, httplib::Response& res) {
    Result<std::vector<VersionStatus>> status = server.repository().ModelStatus(req.matches[1]);
    if (!status.ok()) return Error(res, status.status());
    const std::string version = Version(req, 2);
    std::vector<VersionStatus> shown;
    for (const VersionStatus& s : *status) {
      if (version.empty() || std::to_string(s.version) == version) shown.push_back(s);
    }
    if (shown.empty()) {
      return Error(res, Status(StatusCode::kNotFound, "model '" + std::string(req.matches[1]) +
                                                          "' has no version '" + version + "'"));
    }
    Json(res, 200, EncodeV1ModelStatus(shown));
  });
  http.Post(v1 + ":predict", [&server](const httplib::Request& req, httplib::Response& res) {
    const auto start = std::chrono::steady_clock::now();
    const std::string name = req.matches[1], version = Version(req, 2);
    Result<std::shared_ptr<const ModelVersion>> v = server.repository().Find(name, version);
    if (!v.ok()) return Error(res, v.status());
    bool columnar = false;
    const ModelVersion& found = **v;
    Result<InferRequest> request = ParseV1PredictRequest(
        TakeBody(req),
        [&found](const std::string& name) -> Result<const runtime::SignatureInfo*> {
          if (const runtime::SignatureInfo* s = found.FindSignature(name)) return s;
          return Status(StatusCode::kNotFound, "model '" + found.name() + "' version " +
                                                   std::to_string(found.version()) +
                                                   " has no signature '" + name + "'");
        },
        &columnar);
    if (!request.ok()) {
      server.RecordRefused(name, version, Protocol::kRest, request.status(), SecondsSince(start));
      return Error(res, request.status());
    }
    request->model = name;
    request->version = std::to_string((*v)->version());
    Result<InferResponse> response = server.Infer(*request, Protocol::kRest);
    if (!response.ok()) return Error(res, response.status());
    Result<std::string> body = EncodeV1PredictResponse(*response, columnar);
    if (!body.ok()) return Error(res, body.status());
    Json(res, 200, std::move(*body));
  });
}

}  // namespace tfn::serve
