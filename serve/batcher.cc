// The dynamic batcher (batcher.h): one worker at a time gathers a batch from
// the head of the queue while the others run theirs, so concurrent workers
// never split a batch that could have been one.
#include "serve/batcher.h"

#include <algorithm>
#include <cstring>

namespace tfn::serve {

struct DynamicBatcher::Pending {
  std::vector<runtime::Tensor> inputs;
  int64_t rows = 0;
  Clock::time_point arrival;
  std::mutex mu;
  std::condition_variable done_cv;
  bool done = false;
  Result<std::vector<runtime::Tensor>> result = Status(StatusCode::kInternal, "not run");
};

namespace {

// Same dtype and every dim but the first.
bool Compatible(const std::vector<runtime::Tensor>& a, const std::vector<runtime::Tensor>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].dtype != b[i].dtype || a[i].shape.rank() != b[i].shape.rank()) return false;
    for (int d = 1; d < a[i].shape.rank(); ++d) {
      if (a[i].shape[d] != b[i].shape[d]) return false;
    }
  }
  return true;
}

// Rows [begin, begin + rows) of `t` along dim 0: a view sharing t's owner.
runtime::Tensor Rows(const runtime::Tensor& t, int64_t begin, int64_t rows) {
  runtime::Tensor out = t;
  const int64_t row_bytes = t.shape[0] > 0 ? t.byte_size() / t.shape[0] : 0;
  out.shape[0] = rows;
  out.data = static_cast<const char*>(t.data) + begin * row_bytes;
  return out;
}

}  // namespace

DynamicBatcher::DynamicBatcher(const BatchingOptions& options, int instances, RunFn run,
                               ObserveFn observe)
    : options_(options), run_(std::move(run)), observe_(std::move(observe)) {
  for (int i = 0; i < std::max(instances, 1); ++i) workers_.emplace_back([this, i] { Work(i); });
}

DynamicBatcher::~DynamicBatcher() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  for (std::thread& t : workers_) t.join();
}

Result<std::vector<runtime::Tensor>> DynamicBatcher::Run(std::vector<runtime::Tensor> inputs) {
  auto p = std::make_shared<Pending>();
  p->rows = inputs.empty() || inputs[0].shape.rank() == 0 ? 1 : inputs[0].shape[0];
  p->inputs = std::move(inputs);
  p->arrival = Clock::now();
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stop_) return Status(StatusCode::kFailedPrecondition, "the model version is unloading");
    if (static_cast<int64_t>(queue_.size()) >= options_.max_queue_size) {
      return Status(StatusCode::kResourceExhausted,
                    "the batch queue is full (" + std::to_string(queue_.size()) +
                        " requests waiting); retry later, or raise max_queue_size");
    }
    queue_.push_back(p);
  }
  cv_.notify_all();
  std::unique_lock<std::mutex> lock(p->mu);
  p->done_cv.wait(lock, [&] { return p->done; });
  return std::move(p->result);
}

std::vector<size_t> DynamicBatcher::Select(int64_t* rows) const {
  std::vector<size_t> picked = {0};
  *rows = queue_[0]->rows;
  for (size_t i = 1; i < queue_.size() && *rows < options_.max_batch_size; ++i) {
    const Pending& p = *queue_[i];
    if (*rows + p.rows > options_.max_batch_size) continue;
    if (!Compatible(queue_[0]->inputs, p.inputs)) continue;
    picked.push_back(i);
    *rows += p.rows;
  }
  return picked;
}

bool DynamicBatcher::Launchable(int64_t rows, Clock::time_point deadline) const {
  if (stop_ || rows >= options_.max_batch_size || Clock::now() >= deadline) return true;
  const auto& pref = options_.preferred_batch_sizes;
  return std::find(pref.begin(), pref.end(), rows) != pref.end();
}

void DynamicBatcher::Work(int instance) {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    cv_.wait(lock, [&] { return (stop_ && queue_.empty()) || (!queue_.empty() && !gathering_); });
    if (queue_.empty()) return;  // stopping, nothing left
    gathering_ = true;
    const Clock::time_point deadline =
        queue_[0]->arrival + std::chrono::microseconds(options_.max_queue_delay_us);
    int64_t rows = 0;
    std::vector<size_t> picked = Select(&rows);
    while (!Launchable(rows, deadline)) {
      cv_.wait_until(lock, deadline);
      picked = Select(&rows);
    }
    std::vector<std::shared_ptr<Pending>> batch;
    for (size_t k = picked.size(); k-- > 0;) {
      batch.push_back(queue_[picked[k]]);
      queue_.erase(queue_.begin() + static_cast<std::ptrdiff_t>(picked[k]));
    }
    std::reverse(batch.begin(), batch.end());
    gathering_ = false;
    lock.unlock();
    cv_.notify_all();
    Execute(instance, std::move(batch));
    lock.lock();
  }
}

void DynamicBatcher::Execute(int instance, std::vector<std::shared_ptr<Pending>> batch) {
  const Clock::time_point start = Clock::now();
  std::vector<double> waited;
  int64_t rows = 0;
  for (const auto& p : batch) {
    waited.push_back(std::chrono::duration<double>(start - p->arrival).count());
    rows += p->rows;
  }
  // One request: its own inputs. Several: concatenated along dim 0.
  std::vector<runtime::Tensor> inputs;
  Status failed;
  if (batch.size() == 1) {
    inputs = batch[0]->inputs;
  } else {
    for (size_t i = 0; i < batch[0]->inputs.size() && failed.ok(); ++i) {
      Shape shape = batch[0]->inputs[i].shape;
      shape[0] = rows;
      void* dst = nullptr;
      runtime::Tensor t = runtime::Tensor::Allocate(batch[0]->inputs[i].dtype, shape, &dst);
      if (dst == nullptr && t.byte_size() > 0) {
        failed = Status(StatusCode::kResourceExhausted, "out of memory concatenating a batch");
        break;
      }
      char* at = static_cast<char*>(dst);
      for (const auto& p : batch) {
        const runtime::Tensor& in = p->inputs[i];
        if (in.byte_size() > 0) std::memcpy(at, in.data, static_cast<size_t>(in.byte_size()));
        at += in.byte_size();
      }
      inputs.push_back(std::move(t));
    }
  }
  Result<std::vector<runtime::Tensor>> out =
      failed.ok() ? run_(instance, inputs) : Result<std::vector<runtime::Tensor>>(failed);
  if (out.ok() && batch.size() > 1) {
    for (const runtime::Tensor& t : *out) {
      if (t.shape.rank() == 0 || t.shape[0] != rows) {
        out = Status(StatusCode::kInternal,
                     "a batched output has " +
                         (t.shape.rank() ? std::to_string(t.shape[0]) : std::string("no")) +
                         " rows for a batch of " + std::to_string(rows) +
                         "; this signature does not batch along its first dim");
        break;
      }
    }
  }
  if (observe_) observe_(rows, static_cast<int64_t>(batch.size()), waited);
  int64_t begin = 0;
  for (const auto& p : batch) {
    Result<std::vector<runtime::Tensor>> mine = out.status();
    if (out.ok()) {
      std::vector<runtime::Tensor> slices;
      for (const runtime::Tensor& t : *out) {
        slices.push_back(batch.size() == 1 ? t : Rows(t, begin, p->rows));
      }
      mine = std::move(slices);
    }
    begin += p->rows;
    std::lock_guard<std::mutex> lock(p->mu);
    p->result = std::move(mine);
    p->done = true;
    p->done_cv.notify_one();
  }
}

}  // namespace tfn::serve
