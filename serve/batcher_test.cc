// The dynamic batcher: requests from many threads are run as batches whose
// rows come back to the right request; the size limits, preferred sizes,
// incompatible shapes, the bounded queue and errors.
#include "serve/batcher.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

namespace tfn::serve {
namespace {

runtime::Tensor Rows(int64_t rows, int64_t cols, float first) {
  void* data = nullptr;
  runtime::Tensor t = runtime::Tensor::Allocate(DType::kFloat32, Shape{rows, cols}, &data);
  for (int64_t i = 0; i < rows * cols; ++i) static_cast<float*>(data)[i] = first + i;
  return t;
}

// A model: y = x + 1000, and the batch sizes it saw.
struct Recorder {
  std::mutex mu;
  std::vector<int64_t> batches;
  DynamicBatcher::RunFn Fn() {
    return [this](int,
                  const std::vector<runtime::Tensor>& in) -> Result<std::vector<runtime::Tensor>> {
      {
        std::lock_guard<std::mutex> lock(mu);
        batches.push_back(in[0].shape[0]);
      }
      void* data = nullptr;
      runtime::Tensor y = runtime::Tensor::Allocate(DType::kFloat32, in[0].shape, &data);
      for (int64_t i = 0; i < in[0].num_elements(); ++i) {
        static_cast<float*>(data)[i] = in[0].as<float>()[i] + 1000;
      }
      return std::vector<runtime::Tensor>{y};
    };
  }
};

TEST(Batcher, ConcurrentRequestsGetTheirOwnRows) {
  Recorder rec;
  BatchingOptions o;
  o.max_batch_size = 8;
  o.max_queue_delay_us = 20000;
  DynamicBatcher b(o, 1, rec.Fn(), nullptr);
  constexpr int kThreads = 16;
  std::vector<std::thread> threads;
  std::atomic<int> wrong{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      const int64_t rows = 1 + t % 2;
      Result<std::vector<runtime::Tensor>> out = b.Run({Rows(rows, 3, 100.f * t)});
      if (!out.ok() || (*out)[0].shape != Shape({rows, 3})) {
        ++wrong;
        return;
      }
      for (int64_t i = 0; i < rows * 3; ++i) {
        if ((*out)[0].as<float>()[i] != 100.f * t + i + 1000) ++wrong;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(wrong.load(), 0);
  int64_t total = 0;
  for (int64_t r : rec.batches) {
    EXPECT_LE(r, 8);
    total += r;
  }
  EXPECT_EQ(total, 24);  // 8 requests of 1 row, 8 of 2
  EXPECT_LT(rec.batches.size(), 16u) << "nothing was batched";
}

TEST(Batcher, PreferredSizeRunsWithoutWaitingForTheDelay) {
  Recorder rec;
  BatchingOptions o;
  o.max_batch_size = 64;
  o.max_queue_delay_us = 10'000'000;  // 10 s: only the preferred size can launch
  o.preferred_batch_sizes = {2};
  DynamicBatcher b(o, 1, rec.Fn(), nullptr);
  const auto start = std::chrono::steady_clock::now();
  std::thread other([&] { EXPECT_TRUE(b.Run({Rows(1, 3, 0)}).ok()); });
  EXPECT_TRUE(b.Run({Rows(1, 3, 0)}).ok());
  other.join();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  ASSERT_EQ(rec.batches.size(), 1u);
  EXPECT_EQ(rec.batches[0], 2);
}

TEST(Batcher, DifferentTrailingDimsGoInDifferentBatches) {
  Recorder rec;
  BatchingOptions o;
  o.max_batch_size = 8;
  o.max_queue_delay_us = 50000;
  DynamicBatcher b(o, 1, rec.Fn(), nullptr);
  std::thread other([&] {
    Result<std::vector<runtime::Tensor>> r = b.Run({Rows(1, 4, 0)});
    ASSERT_TRUE(r.ok());
    EXPECT_EQ((*r)[0].shape, Shape({1, 4}));
  });
  Result<std::vector<runtime::Tensor>> r = b.Run({Rows(1, 3, 0)});
  other.join();
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)[0].shape, Shape({1, 3}));
  EXPECT_EQ(rec.batches.size(), 2u);
}

TEST(Batcher, ARequestLargerThanTheLimitRunsAlone) {
  Recorder rec;
  BatchingOptions o;
  o.max_batch_size = 4;
  DynamicBatcher b(o, 2, rec.Fn(), nullptr);
  Result<std::vector<runtime::Tensor>> r = b.Run({Rows(9, 2, 0)});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)[0].shape, Shape({9, 2}));
  EXPECT_EQ((*r)[0].as<float>()[17], 1017.f);
}

TEST(Batcher, AFullQueueRefusesWithResourceExhausted) {
  std::atomic<bool> release{false};
  BatchingOptions o;
  o.max_batch_size = 2;
  o.max_queue_delay_us = 0;
  o.max_queue_size = 1;
  DynamicBatcher b(
      o, 1,
      [&](int, const std::vector<runtime::Tensor>& in) -> Result<std::vector<runtime::Tensor>> {
        while (!release.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        return in;
      },
      nullptr);
  // The first request is taken by the worker (which then blocks), the
  // second waits in the queue, the third finds it full.
  std::thread first([&] { EXPECT_TRUE(b.Run({Rows(1, 1, 0)}).ok()); });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  std::thread second([&] { EXPECT_TRUE(b.Run({Rows(1, 1, 0)}).ok()); });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  Result<std::vector<runtime::Tensor>> third = b.Run({Rows(1, 1, 0)});
  ASSERT_FALSE(third.ok());
  EXPECT_EQ(third.status().code(), StatusCode::kResourceExhausted);
  EXPECT_NE(third.status().message().find("queue is full"), std::string::npos);
  release = true;
  first.join();
  second.join();
}

TEST(Batcher, AModelErrorReachesEveryRequestOfTheBatch) {
  BatchingOptions o;
  o.max_batch_size = 4;
  o.max_queue_delay_us = 50000;
  o.preferred_batch_sizes = {2};
  DynamicBatcher b(
      o, 1,
      [](int, const std::vector<runtime::Tensor>&) -> Result<std::vector<runtime::Tensor>> {
        return Status(StatusCode::kInvalidArgument, "boom");
      },
      nullptr);
  std::thread other([&] { EXPECT_EQ(b.Run({Rows(1, 1, 0)}).status().message(), "boom"); });
  EXPECT_EQ(b.Run({Rows(1, 1, 0)}).status().message(), "boom");
  other.join();
}

TEST(Batcher, OutputsWithoutTheBatchRowsAreAnError) {
  BatchingOptions o;
  o.max_batch_size = 4;
  o.max_queue_delay_us = 50000;
  o.preferred_batch_sizes = {2};
  DynamicBatcher b(
      o, 1,
      [](int, const std::vector<runtime::Tensor>&) -> Result<std::vector<runtime::Tensor>> {
        return std::vector<runtime::Tensor>{Rows(1, 1, 0)};  // always one row
      },
      nullptr);
  std::thread other([&] { EXPECT_FALSE(b.Run({Rows(1, 1, 0)}).ok()); });
  Result<std::vector<runtime::Tensor>> r = b.Run({Rows(1, 1, 0)});
  other.join();
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("does not batch"), std::string::npos);
}

}  // namespace
}  // namespace tfn::serve
