// Tests of the optimized GEMM (opt/gemm.h) against an independent naive
// triple loop with double accumulation: odd sizes in M, N, K, all transpose
// combinations, strided operands (padding filled with NaN to catch stray
// reads, C padding checked for stray writes), accumulation, empty dims, 1..4
// threads, the prepacked-B path, and every ISA the CPU supports. The matmul
// kernel built on it is tested in matmul_test.cc.
//
// Tolerance. Two kinds of data:
//  * small integers in [-4, 4]: every product and partial sum is an integer
//    below 2^24 in magnitude, so float32 arithmetic is exact in any order and
//    results must equal the reference exactly;
//  * uniform reals in [-1, 1): the forward error of a float32 dot product of
//    length n, in any summation order and with or without FMA, is at most
//    gamma_n * sum_k |a_ik * b_kj| with gamma_n = n*u/(1 - n*u) and
//    u = 2^-24 (Higham, "Accuracy and Stability of Numerical Algorithms",
//    sec. 3.1). The GEMM adds at most K/kc + 2 further roundings (partial
//    sums over k blocks, accumulation into C), so we allow
//    |err| <= 2 * (K + 8) * u * (sum_k |a_ik b_kj| + |c0_ij|), with a factor
//    2 of margin. This bound is rigorous (never flaky) yet far below the size
//    of any indexing error (a missing or wrong term is ~0.3 on average).
#include "kernels/opt/gemm.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "kernels/testing/kernel_test_util.h"

namespace tfn::kernels::testing {
namespace {

constexpr double kU = 1.0 / (1 << 24);
const float kNaN = std::numeric_limits<float>::quiet_NaN();
const int64_t kOddSizes[] = {1, 2, 3, 5, 7, 13, 17, 31, 33, 63, 65, 127, 129, 255, 257, 511, 513};

// A parallel_for that runs up to `num_threads` chunks, each on its own thread.
void ThreadsParallelFor(void* pool, int64_t n, int64_t min_chunk,
                        void (*fn)(void*, int64_t, int64_t), void* arg) {
  int64_t threads = *static_cast<int*>(pool);
  int64_t chunks = std::max<int64_t>(1, std::min(threads, n / std::max<int64_t>(1, min_chunk)));
  std::vector<std::thread> workers;
  for (int64_t c = 1; c < chunks; ++c) {
    workers.emplace_back([=] { fn(arg, n * c / chunks, n * (c + 1) / chunks); });
  }
  fn(arg, 0, n / chunks);
  for (std::thread& t : workers) t.join();
}

// A matrix stored row-major with row stride `ld` >= cols; padding is NaN.
struct Mat {
  int64_t rows = 0, cols = 0, ld = 0;
  std::vector<float> v;
  Mat(int64_t r, int64_t c, int64_t pad = 0) : rows(r), cols(c), ld(c + pad) {
    v.assign(static_cast<size_t>(std::max<int64_t>(1, r * ld)), kNaN);
  }
  float& at(int64_t i, int64_t j) { return v[i * ld + j]; }
  float at(int64_t i, int64_t j) const { return v[i * ld + j]; }
};

Mat RandomMat(int64_t r, int64_t c, int64_t pad, std::mt19937& rng, bool integers) {
  Mat m(r, c, pad);
  std::uniform_int_distribution<int> ints(-4, 4);
  std::uniform_real_distribution<float> reals(-1.0f, 1.0f);
  for (int64_t i = 0; i < r; ++i) {
    for (int64_t j = 0; j < c; ++j) m.at(i, j) = integers ? ints(rng) : reals(rng);
  }
  return m;
}

struct Case {
  int64_t M, N, K;
  bool ta, tb;
  bool accumulate = false;
  bool integers = true;
  int threads = 1;
  bool prepacked = false;
};

std::string Describe(const Case& c) {
  return "M=" + std::to_string(c.M) + " N=" + std::to_string(c.N) + " K=" + std::to_string(c.K) +
         " ta=" + std::to_string(c.ta) + " tb=" + std::to_string(c.tb) +
         " acc=" + std::to_string(c.accumulate) + " threads=" + std::to_string(c.threads) +
         " prepacked=" + std::to_string(c.prepacked) + " isa=" + GemmIsaName(GemmActiveIsa());
}

// Runs one GEMM on padded operands and checks it against the naive loop.
// Returns C (without padding) for bitwise comparisons between runs.
std::vector<float> CheckGemm(const Case& c, uint32_t seed) {
  std::mt19937 rng(seed);
  // Stored shapes: op(A) is M x K, so A is K x M when transposed.
  Mat a = c.ta ? RandomMat(c.K, c.M, 3, rng, c.integers) : RandomMat(c.M, c.K, 3, rng, c.integers);
  Mat b = c.tb ? RandomMat(c.N, c.K, 5, rng, c.integers) : RandomMat(c.K, c.N, 5, rng, c.integers);
  Mat cm = RandomMat(c.M, c.N, 7, rng, c.integers);
  const Mat c0 = cm;
  std::vector<unsigned char> scratch;
  int32_t status;
  TfnKernelContext ctx{};
  int pool_threads = c.threads;
  ctx.num_threads = c.threads;
  ctx.pool = &pool_threads;
  if (c.threads > 1) ctx.parallel_for = ThreadsParallelFor;
  if (c.prepacked) {
    std::vector<float> packed(static_cast<size_t>(GemmPackedBBytes(c.K, c.N) / 4 + 1));
    GemmPackB(c.K, c.N, b.v.data(), b.ld, c.tb, packed.data());
    scratch.resize(static_cast<size_t>(GemmPrepackedScratchBytes(c.M, c.N, c.K, c.threads)));
    status =
        GemmPrepacked(c.M, c.N, c.K, a.v.data(), a.ld, c.ta, packed.data(), cm.v.data(), cm.ld,
                      c.accumulate, scratch.data(), static_cast<int64_t>(scratch.size()), &ctx);
  } else {
    scratch.resize(static_cast<size_t>(GemmScratchBytes(c.M, c.N, c.K, c.threads)));
    status = Gemm(c.M, c.N, c.K, a.v.data(), a.ld, c.ta, b.v.data(), b.ld, c.tb, cm.v.data(), cm.ld,
                  c.accumulate, scratch.data(), static_cast<int64_t>(scratch.size()), &ctx);
  }
  EXPECT_EQ(status, TFN_KERNEL_OK) << Describe(c);
  std::vector<float> out;
  int failures = 0;
  for (int64_t i = 0; i < c.M; ++i) {
    for (int64_t j = 0; j < cm.ld; ++j) {
      if (j >= c.N) {  // padding of C: untouched
        if (!std::isnan(cm.at(i, j)) && failures++ < 5) {
          ADD_FAILURE() << Describe(c) << ": wrote C padding at " << i << "," << j;
        }
        continue;
      }
      double sum = c.accumulate ? c0.at(i, j) : 0.0, mag = c.accumulate ? std::fabs(sum) : 0.0;
      for (int64_t k = 0; k < c.K; ++k) {
        double x = c.ta ? a.at(k, i) : a.at(i, k), y = c.tb ? b.at(j, k) : b.at(k, j);
        sum += x * y;
        mag += std::fabs(x * y);
      }
      const double got = cm.at(i, j);
      const double tol = c.integers ? 0.0 : 2.0 * (c.K + 8) * kU * mag;
      if (!(std::fabs(got - sum) <= tol) && failures++ < 5) {
        ADD_FAILURE() << Describe(c) << ": C[" << i << "," << j << "] = " << got << ", expected "
                      << sum << " (tolerance " << tol << ")";
      }
      out.push_back(cm.at(i, j));
    }
  }
  return out;
}

// Runs `body` once for every ISA this CPU supports, then restores kAuto.
template <class F>
void ForEachIsa(F body) {
  for (GemmIsa isa : {GemmIsa::kPortable, GemmIsa::kAvx2, GemmIsa::kAvx512}) {
    if (!GemmIsaSupported(isa)) {
      std::printf("[   INFO   ] GEMM ISA %s not supported here: skipped\n", GemmIsaName(isa));
      continue;
    }
    GemmForceIsa(isa);
    ASSERT_EQ(GemmActiveIsa(), isa);
    SCOPED_TRACE(GemmIsaName(isa));
    body();
  }
  GemmForceIsa(GemmIsa::kAuto);
}

TEST(Gemm, OddSizesEveryDimEveryIsa) {
  uint32_t seed = 1;
  ForEachIsa([&] {
    for (int64_t s : kOddSizes) {
      for (int t = 0; t < 4; ++t) {
        const bool ta = t & 1, tb = t & 2;
        CheckGemm({s, 33, 17, ta, tb}, seed++);
        CheckGemm({13, s, 31, ta, tb}, seed++);
        CheckGemm({7, 65, s, ta, tb}, seed++);
      }
    }
  });
}

TEST(Gemm, RandomShapesRealData) {
  std::mt19937 rng(42);
  std::uniform_int_distribution<size_t> pick(0, std::size(kOddSizes) - 1);
  ForEachIsa([&] {
    for (int i = 0; i < 24; ++i) {
      Case c{kOddSizes[pick(rng)], kOddSizes[pick(rng)], kOddSizes[pick(rng)], (i & 1) != 0,
             (i & 2) != 0};
      while (c.M * c.N * c.K > (int64_t{1} << 23)) c.M = (c.M + 1) / 2;  // keep the oracle fast
      c.integers = false;
      c.accumulate = (i % 3) == 0;
      CheckGemm(c, static_cast<uint32_t>(100 + i));
    }
  });
}

TEST(Gemm, LargeBlocksCrossCacheBlocks) {
  // Larger than kc and nc of every ISA, ragged in every dim.
  ForEachIsa([&] {
    CheckGemm({129, 545, 801, false, false}, 7);
    CheckGemm({70, 513, 777, true, true, false, false}, 8);
    CheckGemm({33, 1057, 400, false, true, true, true}, 9);
    CheckGemm({20, 70, 767, false, false}, 10);  // odd last k block of any kc up to 384
    CheckGemm({15, 47, 1151, true, false, true}, 12);
  });
}

TEST(Gemm, RowsAMultipleOf4KiBApart) {
  // A's rows are padded by 3 floats: K = 1021 and 2045 make them 4 and 8 KiB
  // apart, which the AVX-512 path packs (by rows) instead of reading A in
  // place; 2045 is also more than one K block.
  ForEachIsa([&] {
    CheckGemm({29, 65, 1021, false, false}, 13);
    CheckGemm({40, 300, 2045, false, false, true, false}, 14);
    CheckGemm({40, 300, 2045, false, false, false, false, 1, true}, 15);
  });
}

TEST(Gemm, EmptyDims) {
  for (bool acc : {false, true}) {
    CheckGemm({0, 5, 3, false, false, acc}, 1);
    CheckGemm({5, 0, 3, false, false, acc}, 2);
    CheckGemm({5, 4, 0, false, false, acc}, 3);  // K = 0: zeros, or C unchanged
    CheckGemm({5, 4, 0, true, true, acc}, 4);
    CheckGemm({5, 4, 0, false, false, acc, true, 1, true}, 5);
  }
}

TEST(Gemm, ThreadsGiveBitwiseIdenticalResults) {
  ForEachIsa([&] {
    // Wide (split over columns), tall and narrow (split over rows), tiny,
    // and a few rows over a few panels (split over columns, with fewer than
    // kMinPanelsPerThread panels each: the scratch holds only those).
    for (Case base : {Case{64, 512, 300, false, false}, Case{300, 40, 257, true, false},
                      Case{1, 784, 512, false, true}, Case{97, 161, 129, true, true},
                      Case{12, 512, 784, false, true}}) {
      base.integers = false;
      std::vector<float> one = CheckGemm(base, 11);
      for (int threads : {2, 3, 4, 8}) {
        Case c = base;
        c.threads = threads;
        EXPECT_EQ(CheckGemm(c, 11), one) << Describe(c);
      }
    }
  });
}

TEST(Gemm, PrepackedMatchesPackedBitwise) {
  ForEachIsa([&] {
    int i = 0;
    for (Case c : {Case{1, 512, 784, false, false}, Case{64, 512, 784, false, false},
                   Case{37, 45, 403, true, true}, Case{130, 1000, 70, false, true},
                   Case{17, 31, 5, true, false}, Case{3, 100, 801, true, true},
                   Case{4, 33, 390, false, false}, Case{2, 700, 9, false, true},
                   // one row (the AVX-512 GEMV over panels): N tails, accumulate
                   Case{1, 1000, 130, false, false}, Case{1, 77, 300, true, false}}) {
      c.integers = false;
      c.accumulate = (i & 1) != 0;
      std::vector<float> packed_each_call = CheckGemm(c, 20 + i);
      c.prepacked = true;
      EXPECT_EQ(CheckGemm(c, 20 + i), packed_each_call) << Describe(c);
      c.threads = 2;
      EXPECT_EQ(CheckGemm(c, 20 + i), packed_each_call) << Describe(c);
      ++i;
    }
  });
}

// The scratch holds a B block per thread with the columns that thread gets:
// a batch-8 layer of 512 outputs on 8 threads (2 panels each) needs about
// 2.3x one thread's scratch (each thread also packs its own A), not 8x (6.8
// MB for the mlp example's first layer, before).
TEST(Gemm, ScratchForThreadsHoldsTheirColumnsOnly) {
  const int64_t one = GemmScratchBytes(8, 512, 784, 1), eight = GemmScratchBytes(8, 512, 784, 8);
  EXPECT_LT(eight, 3 * one) << "1 thread: " << one << " bytes, 8 threads: " << eight;
  // Tall and narrow: rows are split, so each thread needs every column.
  EXPECT_GE(GemmScratchBytes(512, 64, 784, 8), 8 * (GemmScratchBytes(512, 64, 784, 1) - 64));
}

TEST(Gemm, ScratchTooSmallIsAnError) {
  const int64_t M = 20, N = 2, K = 3;  // M large enough for the packed path of every ISA
  std::vector<float> a(M * K, 1), b(K * N, 1), c(M * N, 0);
  int64_t need = GemmScratchBytes(M, N, K, 1);
  std::vector<unsigned char> scratch(static_cast<size_t>(need));
  EXPECT_EQ(Gemm(M, N, K, a.data(), K, false, b.data(), N, true, c.data(), N, false, scratch.data(),
                 64, nullptr),
            TFN_KERNEL_SCRATCH_TOO_SMALL);
  EXPECT_EQ(Gemm(M, N, K, a.data(), K, false, b.data(), N, false, c.data(), N, false, nullptr, 0,
                 nullptr),
            TFN_KERNEL_SCRATCH_TOO_SMALL);
  EXPECT_EQ(Gemm(M, N, K, a.data(), K, false, b.data(), N, false, c.data(), N, false,
                 scratch.data(), need, nullptr),
            TFN_KERNEL_OK);
  EXPECT_EQ(c, std::vector<float>(M * N, 3.0f));
}

}  // namespace
}  // namespace tfn::kernels::testing
