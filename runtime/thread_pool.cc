// The runtime's thread pool (see thread_pool.h for the protocol).
#include "runtime/thread_pool.h"

#include <chrono>

#if defined(__linux__)
#include <sched.h>
#endif

namespace tfn::runtime {
namespace {

thread_local bool t_in_region = false;

inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield" ::: "memory");
#endif
}

// Chunk k of [0, n) cut into `chunks` nearly equal parts.
inline int64_t ChunkBegin(int64_t n, int64_t chunks, int64_t k) {
  const int64_t q = n / chunks, r = n % chunks;
  return k * q + (k < r ? k : r);
}

}  // namespace

int AvailableCores() {
#if defined(__linux__)
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    int n = CPU_COUNT(&set);
    if (n > 0) return n;
  }
#endif
  unsigned n = std::thread::hardware_concurrency();
  return n > 0 ? static_cast<int>(n) : 1;
}

ThreadPool::ThreadPool(int num_threads)
    : num_threads_(num_threads >= 1 ? num_threads : AvailableCores()) {
  shares_.reset(new Share[static_cast<size_t>(num_threads_)]);
  workers_.reserve(static_cast<size_t>(num_threads_ - 1));
  for (int i = 1; i < num_threads_; ++i) workers_.emplace_back([this, i] { WorkerMain(i); });
}

ThreadPool::~ThreadPool() {
  stop_.store(true, std::memory_order_seq_cst);
  {
    std::lock_guard<std::mutex> lock(mu_);
    cv_.notify_all();
  }
  for (std::thread& t : workers_) t.join();
}

bool ThreadPool::InParallelRegion() { return t_in_region; }

void ThreadPool::Fill(TfnKernelContext* ctx) {
  if (num_threads_ > 1) {
    ctx->parallel_for = &ThreadPool::ParallelForFn;
    ctx->pool = this;
    ctx->num_threads = num_threads_;
  } else {
    ctx->parallel_for = nullptr;
    ctx->pool = nullptr;
    ctx->num_threads = 1;
  }
}

void ThreadPool::ParallelForFn(void* pool, int64_t n, int64_t min_chunk,
                               void (*fn)(void*, int64_t, int64_t), void* arg) {
  if (pool) {
    static_cast<ThreadPool*>(pool)->ParallelFor(n, min_chunk, fn, arg);
  } else if (n > 0) {
    fn(arg, 0, n);
  }
}

void ThreadPool::RunChunks(int self) {
  for (int i = 0; i < num_threads_; ++i) {  // its own share, then the others'
    const int t = self + i < num_threads_ ? self + i : self + i - num_threads_;
    Share& share = shares_[t];
    for (;;) {
      const int64_t k = share.next.fetch_add(1, std::memory_order_relaxed);
      if (k >= share.end) break;
      fn_(arg_, ChunkBegin(n_, num_chunks_, k), ChunkBegin(n_, num_chunks_, k + 1));
    }
  }
}

void ThreadPool::ParallelFor(int64_t n, int64_t min_chunk, void (*fn)(void*, int64_t, int64_t),
                             void* arg) {
  if (n <= 0) return;
  if (min_chunk < 1) min_chunk = 1;
  int64_t chunks = n / min_chunk;
  const int64_t most = int64_t{num_threads_} * kChunksPerThread;
  if (chunks > most) chunks = most;
  if (num_threads_ <= 1 || chunks <= 1 || t_in_region ||
      busy_.exchange(true, std::memory_order_acquire)) {
    fn(arg, 0, n);
    return;
  }
  // Publish the loop: its fields, then a new epoch with the open bit (no
  // worker is inside: the previous loop ended with none).
  fn_ = fn;
  arg_ = arg;
  n_ = n;
  num_chunks_ = chunks;
  for (int t = 0; t < num_threads_; ++t) {
    shares_[t].next.store(ChunkBegin(chunks, num_threads_, t), std::memory_order_relaxed);
    shares_[t].end = ChunkBegin(chunks, num_threads_, t + 1);
  }
  const uint64_t old = state_.load(std::memory_order_relaxed);
  state_.store(((old & ~(kOpen | kInsideMask)) + kEpochUnit) | kOpen, std::memory_order_seq_cst);
  if (sleepers_.load(std::memory_order_seq_cst) > 0) {
    std::lock_guard<std::mutex> lock(mu_);
    cv_.notify_all();
  }
  t_in_region = true;
  RunChunks(0);
  t_in_region = false;
  // Close the loop (late workers no longer enter) and wait for the workers
  // inside to finish their chunks.
  state_.fetch_and(~kOpen, std::memory_order_acq_rel);
  for (int spins = 0; (state_.load(std::memory_order_acquire) & kInsideMask) != 0; ++spins) {
    if (spins < 4096) {
      CpuRelax();
    } else {
      std::this_thread::yield();
    }
  }
  busy_.store(false, std::memory_order_release);
}

void ThreadPool::WorkerMain(int self) {
  t_in_region = true;  // whatever a worker runs is a chunk of a loop
  using Clock = std::chrono::steady_clock;
  // Epoch 0 is the state before the first loop (which may be published
  // before this thread gets to run).
  uint64_t seen = 0;
  for (;;) {
    // Wait for a new epoch: spin for a while, then block.
    uint64_t s = state_.load(std::memory_order_acquire);
    if (s / kEpochUnit == seen && !stop_.load(std::memory_order_relaxed)) {
      const Clock::time_point deadline = Clock::now() + std::chrono::microseconds(kSpinMicros);
      for (int i = 1;; ++i) {
        CpuRelax();
        s = state_.load(std::memory_order_acquire);
        if (s / kEpochUnit != seen || stop_.load(std::memory_order_relaxed)) break;
        if ((i & 127) == 0 && Clock::now() > deadline) {
          std::unique_lock<std::mutex> lock(mu_);
          sleepers_.fetch_add(1, std::memory_order_seq_cst);
          for (;;) {
            s = state_.load(std::memory_order_seq_cst);
            if (s / kEpochUnit != seen || stop_.load(std::memory_order_seq_cst)) break;
            cv_.wait(lock);
          }
          sleepers_.fetch_sub(1, std::memory_order_relaxed);
          break;
        }
      }
    }
    if (stop_.load(std::memory_order_acquire)) return;
    seen = s / kEpochUnit;
    // Enter the loop if it is still open; the caller waits for us to leave.
    while (s / kEpochUnit == seen && (s & kOpen)) {
      if (state_.compare_exchange_weak(s, s + 1, std::memory_order_acq_rel,
                                       std::memory_order_acquire)) {
        RunChunks(self);
        state_.fetch_sub(1, std::memory_order_release);
        break;
      }
    }
  }
}

}  // namespace tfn::runtime
