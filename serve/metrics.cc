// Prometheus text exposition (format 0.0.4) of the server's counters and
// histograms. Label values are escaped as the format says (\\, \", \n).
#include "serve/metrics.h"

#include <cstdio>

namespace tfn::serve {
namespace {

// Seconds: 50 us .. 10 s, roughly 2.5x apart (the server adds tens of
// microseconds; models take microseconds to seconds).
const std::vector<double> kSecondsBounds = {0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025,
                                            0.005,   0.01,   0.025,   0.05,   0.1,   0.25,
                                            0.5,     1,      2.5,     5,      10};
const std::vector<double> kBatchBounds = {1, 2, 4, 8, 16, 32, 64, 128, 256};

std::string Escape(const std::string& v) {
  std::string out;
  for (char c : v) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::string Label(const char* name, const std::string& value) {
  return std::string(name) + "=\"" + Escape(value) + "\"";
}

std::string Number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

void Header(std::string& out, const char* name, const char* type, const char* help) {
  out += std::string("# HELP ") + name + " " + help + "\n# TYPE " + name + " " + type + "\n";
}

template <class V>
void Samples(std::string& out, const char* name, const std::map<std::string, V>& values) {
  for (const auto& [labels, v] : values) {
    out += std::string(name) + "{" + labels + "} " + Number(static_cast<double>(v)) + "\n";
  }
}

}  // namespace

void Metrics::Histogram::Observe(double v) {
  if (counts.empty()) counts.assign(bounds.size() + 1, 0);
  size_t i = 0;
  while (i < bounds.size() && v > bounds[i]) ++i;
  ++counts[i];
  sum += v;
  ++count;
}

void Metrics::RecordRequest(const std::string& model, const std::string& version,
                            const std::string& signature, const char* protocol, int code,
                            double seconds) {
  const std::string mv = Label("model", model) + "," + Label("version", version);
  const std::string labels =
      mv + "," + Label("signature", signature) + "," + Label("protocol", protocol);
  std::lock_guard<std::mutex> lock(mu_);
  ++requests_[labels];
  if (code != 200) ++failures_[labels + "," + Label("code", std::to_string(code))];
  Histogram& h = request_seconds_[mv + "," + Label("protocol", protocol)];
  if (h.bounds.empty()) h.bounds = kSecondsBounds;
  h.Observe(seconds);
}

void Metrics::RecordBatch(const std::string& model, const std::string& version, int64_t rows,
                          int64_t requests, const std::vector<double>& queue_seconds) {
  const std::string mv = Label("model", model) + "," + Label("version", version);
  std::lock_guard<std::mutex> lock(mu_);
  inferences_[mv] += static_cast<uint64_t>(requests);
  ++executions_[mv];
  Histogram& b = batch_sizes_[mv];
  if (b.bounds.empty()) b.bounds = kBatchBounds;
  b.Observe(static_cast<double>(rows));
  Histogram& q = queue_seconds_[mv];
  if (q.bounds.empty()) q.bounds = kSecondsBounds;
  for (double s : queue_seconds) q.Observe(s);
}

void Metrics::SetLoaded(const std::string& model, const std::string& version, bool loaded) {
  std::lock_guard<std::mutex> lock(mu_);
  loaded_[Label("model", model) + "," + Label("version", version)] = loaded ? 1 : 0;
}

std::string Metrics::Text() const {
  std::string out;
  std::lock_guard<std::mutex> lock(mu_);
  auto histograms = [&](const char* name, const char* help, const std::map<Labels, Histogram>& hs) {
    Header(out, name, "histogram", help);
    for (const auto& [labels, h] : hs) {
      uint64_t cumulative = 0;
      for (size_t i = 0; i < h.bounds.size(); ++i) {
        cumulative += h.counts[i];
        out += std::string(name) + "_bucket{" + labels + ",le=\"" + Number(h.bounds[i]) + "\"} " +
               std::to_string(cumulative) + "\n";
      }
      out += std::string(name) + "_bucket{" + labels + ",le=\"+Inf\"} " + std::to_string(h.count) +
             "\n";
      out += std::string(name) + "_sum{" + labels + "} " + Number(h.sum) + "\n";
      out += std::string(name) + "_count{" + labels + "} " + std::to_string(h.count) + "\n";
    }
  };
  Header(out, "tfn_requests_total", "counter", "Inference requests received.");
  Samples(out, "tfn_requests_total", requests_);
  Header(out, "tfn_request_failures_total", "counter",
         "Inference requests that failed, by HTTP status code.");
  Samples(out, "tfn_request_failures_total", failures_);
  histograms("tfn_request_duration_seconds",
             "Time to run a request (its batch wait included; decoding and encoding the body not).",
             request_seconds_);
  histograms("tfn_queue_duration_seconds", "Time requests waited for their batch to start.",
             queue_seconds_);
  histograms("tfn_batch_size", "Rows per executed batch.", batch_sizes_);
  Header(out, "tfn_inferences_total", "counter", "Requests executed (a batch of n counts n).");
  Samples(out, "tfn_inferences_total", inferences_);
  Header(out, "tfn_batch_executions_total", "counter", "Model executions (batches).");
  Samples(out, "tfn_batch_executions_total", executions_);
  Header(out, "tfn_model_loaded", "gauge", "1 while a model version is loaded.");
  Samples(out, "tfn_model_loaded", loaded_);
  return out;
}

}  // namespace tfn::serve
