// The benchmarks' two-thread pool for TfnKernelContext::parallel_for: one
// spinning worker runs the upper half of each range while the caller runs
// the lower half. It spins so that a loop's wake-up costs no futex call, and
// yields after a while because the machine may be shared. An idle worker
// then polls with short sleeps: the benches keep their pools in statics, and
// a worker that yielded forever would hold a core through every later
// benchmark (the 2-thread AOT chain ran 20-40% slower after the 2-thread
// memcpy's pool had gone idle). Kernel benches use
// it to measure a kernel's own 2-thread scaling, apart from the runtime's
// pool (runtime/thread_pool.h).
//
// Ownership and threads: one caller at a time; the destructor joins the
// worker and must not run during a loop.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>

namespace tfn::bench {

class SpinPool {
 public:
  SpinPool() : worker_([this] { Loop(); }) {}
  ~SpinPool() {
    stop_.store(true);
    worker_.join();
  }
  SpinPool(const SpinPool&) = delete;
  SpinPool& operator=(const SpinPool&) = delete;

  static void ParallelFor(void* pool, int64_t n, int64_t min_chunk,
                          void (*fn)(void*, int64_t, int64_t), void* arg) {
    auto* self = static_cast<SpinPool*>(pool);
    const int64_t mid = n / 2;
    if (mid < min_chunk || n < 2) return fn(arg, 0, n);
    self->fn_ = fn;
    self->arg_ = arg;
    self->begin_ = mid;
    self->end_ = n;
    self->done_.store(false, std::memory_order_relaxed);
    self->gen_.fetch_add(1, std::memory_order_release);
    fn(arg, 0, mid);
    SpinUntil([&] { return self->done_.load(std::memory_order_acquire); });
  }

 private:
  // The idle worker (idle_sleep) sleeps 100 us per poll after 10000 yields
  // (milliseconds); the caller, waiting for the worker's half, only yields.
  template <class F>
  static void SpinUntil(F done, bool idle_sleep = false) {
    for (int i = 0; !done(); ++i) {
      if (idle_sleep && i > 30000) {
        std::this_thread::sleep_for(std::chrono::microseconds(100));
      } else if (i > 20000) {
        std::this_thread::yield();
      }
    }
  }
  void Loop() {
    uint64_t seen = 0;
    while (true) {
      SpinUntil(
          [&] {
            return stop_.load(std::memory_order_relaxed) ||
                   gen_.load(std::memory_order_acquire) != seen;
          },
          /*idle_sleep=*/true);
      if (stop_.load(std::memory_order_relaxed)) return;
      seen = gen_.load(std::memory_order_acquire);
      fn_(arg_, begin_, end_);
      done_.store(true, std::memory_order_release);
    }
  }
  void (*fn_)(void*, int64_t, int64_t) = nullptr;
  void* arg_ = nullptr;
  int64_t begin_ = 0, end_ = 0;
  std::atomic<uint64_t> gen_{0};
  std::atomic<bool> done_{true};
  std::atomic<bool> stop_{false};
  std::thread worker_;
};

}  // namespace tfn::bench
