// The server's metrics, written in Prometheus' text exposition format
// (version 0.0.4) at /metrics. Counters and histograms are kept per label
// set; the names follow Prometheus' conventions (tfn_..._total, _seconds):
//
//   tfn_requests_total{model,version,signature,protocol}
//   tfn_request_failures_total{model,version,signature,protocol,code}
//   tfn_request_duration_seconds (histogram){model,version,protocol}
//   tfn_queue_duration_seconds (histogram){model,version}
//   tfn_batch_size (histogram){model,version}
//   tfn_inferences_total{model,version}   (a batch of n counts n)
//   tfn_batch_executions_total{model,version}
//   tfn_model_loaded{model,version}       (gauge: 1 loaded, 0 not)
//
// Thread-safety: every method may be called from any thread at once (one
// mutex; a request records under it twice, well under a microsecond).
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace tfn::serve {

class Metrics {
 public:
  // A request that ended; `code` is its HTTP status (200 when it succeeded).
  void RecordRequest(const std::string& model, const std::string& version,
                     const std::string& signature, const char* protocol, int code, double seconds);
  // One executed batch of `rows` rows (1 for an unbatched run) and the time
  // its requests waited in the queue.
  void RecordBatch(const std::string& model, const std::string& version, int64_t rows,
                   int64_t requests, const std::vector<double>& queue_seconds);
  void SetLoaded(const std::string& model, const std::string& version, bool loaded);
  // The exposition text.
  std::string Text() const;

 private:
  struct Histogram {
    std::vector<double> bounds;
    std::vector<uint64_t> counts;  // per bound, then +Inf
    double sum = 0;
    uint64_t count = 0;
    void Observe(double v);
  };
  using Labels = std::string;  // rendered: model="m",version="1"
  mutable std::mutex mu_;
  std::map<Labels, uint64_t> requests_, failures_, inferences_, executions_;
  std::map<Labels, double> loaded_;
  std::map<Labels, Histogram> request_seconds_, queue_seconds_, batch_sizes_;
};

}  // namespace tfn::serve
