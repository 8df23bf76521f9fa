// The runtime's thread pool: persistent workers that split a loop with the
// calling thread, behind the kernels' TfnParallelForFn (kernels/kernel_abi.h).
//
//   tfn::runtime::ThreadPool pool(2);           // the caller + 1 worker thread
//   TfnKernelContext ctx{};
//   pool.Fill(&ctx);                       // parallel_for, pool, num_threads
//   pool.ParallelFor(n, 32768, fn, arg);   // fn(arg, begin, end) over [0, n)
//
// How a loop runs: [0, n) is cut into at most n / min_chunk chunks (and at most
// kChunksPerThread per thread); the caller publishes the loop, wakes the
// workers that sleep, and then claims chunks itself like every worker. Thread t
// (the caller is 0, workers 1..) first claims, in order, the chunks of its own
// share (the t-th of num_threads() contiguous ranges), then takes chunks left
// in the other shares, so a worker that wakes late only finds less to do. Own
// shares first: consecutive kernels that split a tensor the same way (in memory
// order) give each thread the part it wrote itself, still in its L2, instead of
// whichever part it happened to claim. ParallelFor returns when every chunk has
// run. Workers spin briefly (~kSpinMicros) after a loop before they block, so
// that the next kernel of the same run finds them awake. No allocation happens
// per loop.
//
// Serial cases (fn(arg, 0, n) on the calling thread): num_threads() == 1,
// n <= min_chunk, a call from inside a chunk of any pool (nested loops), and
// a call while another thread's loop holds this pool (concurrent callers of
// one pool never wait for each other: the pool serves one loop at a time,
// and with several callers the cores are busy anyway).
//
// Ownership and threads: the creator owns the pool; it must outlive every
// ParallelFor call and every TfnKernelContext filled from it. ParallelFor may
// be called from any number of threads at once (see above). The destructor
// joins the workers; it must not run while a loop is in progress.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "kernels/kernel_abi.h"

namespace tfn::runtime {

// The cores this process may run on (its CPU affinity mask), at least 1.
int AvailableCores();

class ThreadPool {
 public:
  static constexpr int kChunksPerThread = 4;
  static constexpr int kSpinMicros = 50;

  // A pool of `num_threads` threads in all, the caller included: it starts
  // num_threads - 1 workers (none for 1). Values below 1 mean AvailableCores().
  explicit ThreadPool(int num_threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int num_threads() const { return num_threads_; }

  // Runs fn(arg, begin, end) over [0, n) in chunks of at least min_chunk
  // elements (1 when min_chunk < 1), possibly in parallel; returns when all
  // have run. fn must not throw.
  void ParallelFor(int64_t n, int64_t min_chunk, void (*fn)(void* arg, int64_t begin, int64_t end),
                   void* arg);

  // The TfnParallelForFn over a ThreadPool* passed as `pool`.
  static void ParallelForFn(void* pool, int64_t n, int64_t min_chunk,
                            void (*fn)(void* arg, int64_t begin, int64_t end), void* arg);

  // Sets ctx->parallel_for, pool and num_threads (serial for a 1-thread pool).
  void Fill(TfnKernelContext* ctx);

  // True on a thread that is running a chunk of some pool's loop.
  static bool InParallelRegion();

 private:
  // state_: bits 0-31 workers inside the current loop, bit 32 the loop is
  // open (workers may enter), bits 33-63 the loop's epoch.
  static constexpr uint64_t kOpen = uint64_t{1} << 32;
  static constexpr uint64_t kEpochUnit = uint64_t{1} << 33;
  static constexpr uint64_t kInsideMask = kOpen - 1;

  void WorkerMain(int self);
  void RunChunks(int self);  // self: the thread's share (0: the caller)

  const int num_threads_;
  std::vector<std::thread> workers_;
  std::atomic<bool> busy_{false};  // a caller owns the loop slot
  std::atomic<uint64_t> state_{0};
  // Per thread: the next chunk of its share and the share's end.
  struct alignas(64) Share {
    std::atomic<int64_t> next{0};
    int64_t end = 0;
  };
  std::unique_ptr<Share[]> shares_;
  // The current loop: written by its caller before the epoch is published,
  // read by workers only while they are inside (counted in state_).
  void (*fn_)(void*, int64_t, int64_t) = nullptr;
  void* arg_ = nullptr;
  int64_t n_ = 0;
  int64_t num_chunks_ = 0;
  // Blocking: workers that stopped spinning wait on cv_.
  std::mutex mu_;
  std::condition_variable cv_;
  std::atomic<int> sleepers_{0};
  std::atomic<bool> stop_{false};
};

}  // namespace tfn::runtime
