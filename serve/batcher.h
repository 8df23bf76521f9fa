// Dynamic batching of one signature of one model version: requests are
// queued, and worker threads (one per session instance) run them as one
// batch, their inputs concatenated along the first dim and each request's
// rows of the outputs handed back (views of the batch's outputs: no copy).
//
// A batch is launched when it has max_batch_size rows, when its rows reach a
// preferred batch size, or max_queue_delay_us after its oldest request
// arrived, whichever comes first; at shutdown, at once. Only requests whose
// inputs agree in every dim but the first (and in dtype) go into one batch;
// the others wait for a later batch, in arrival order. A request with more
// rows than max_batch_size runs alone. The queue holds at most
// max_queue_size requests: Run refuses more with kResourceExhausted (the
// front ends answer 503), so a burst cannot grow memory without bound.
//
// Thread-safety: Run may be called from any number of threads; it blocks
// until the request's batch has run. The destructor runs what is queued,
// then joins the workers: destroy the batcher only after every Run has
// returned (its owner, ModelVersion, is held by every request in flight).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "serve/model_repository.h"

namespace tfn::serve {

class DynamicBatcher {
 public:
  // Runs a batch on session `instance` (inputs in signature order).
  using RunFn = std::function<Result<std::vector<runtime::Tensor>>(
      int instance, const std::vector<runtime::Tensor>& inputs)>;
  // Called after each batch: its rows, how many requests it held, and how
  // long each waited in the queue.
  using ObserveFn =
      std::function<void(int64_t rows, int64_t requests, const std::vector<double>& queue_seconds)>;

  DynamicBatcher(const BatchingOptions& options, int instances, RunFn run, ObserveFn observe);
  ~DynamicBatcher();
  DynamicBatcher(const DynamicBatcher&) = delete;
  DynamicBatcher& operator=(const DynamicBatcher&) = delete;

  // Inputs in signature order, each with the same first dim (the rows).
  // Returns this request's rows of every output.
  Result<std::vector<runtime::Tensor>> Run(std::vector<runtime::Tensor> inputs);

 private:
  struct Pending;
  using Clock = std::chrono::steady_clock;
  void Work(int instance);
  // The requests the next batch would take, from the head of the queue.
  std::vector<size_t> Select(int64_t* rows) const;
  bool Launchable(int64_t rows, Clock::time_point deadline) const;
  void Execute(int instance, std::vector<std::shared_ptr<Pending>> batch);

  const BatchingOptions options_;
  const RunFn run_;
  const ObserveFn observe_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::shared_ptr<Pending>> queue_;  // guarded by mu_
  bool gathering_ = false;                      // a worker is forming a batch
  bool stop_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace tfn::serve
