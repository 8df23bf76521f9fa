// Bf16Gemm (bf16_gemm.h) against a double-precision sum of the same
// products (A rounded to bfloat16 by core/half.h, B's bfloat16 values):
// every microkernel the CPU has (AVX512-BF16, AVX-512F, portable, by
// lowering simd.h's cap and disallowing vdpbf16ps), 1 and 2 threads, ragged sizes around the 12 x
// 32 tile and the depth pairs, a row stride wider than K, B packed from row- and column-major
// sources, and the epilogue (bias, residual, relu). Tolerance: float32
// summation of K exact products, |error| <= K * 2^-24 * sum |products|.
#include "kernels/opt/bf16_gemm.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "core/half.h"
#include "kernels/opt/simd.h"
#include "kernels/testing/kernel_test_util.h"

namespace tfn::kernels {
namespace {

struct Case {
  int64_t M, N, K;
  bool trans_b, epilogue;
};

void Check(const Case& c, int threads, uint32_t seed) {
  SCOPED_TRACE("M=" + std::to_string(c.M) + " N=" + std::to_string(c.N) +
               " K=" + std::to_string(c.K) + " trans_b=" + std::to_string(c.trans_b) +
               " threads=" + std::to_string(threads) + " kernel=" + Bf16GemmKernelName());
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1, 1);
  const int64_t lda = c.K + 5;
  std::vector<float> a(c.M * lda), bias(c.N), residual(c.M * c.N);
  for (float& v : a) v = u(rng);
  for (float& v : bias) v = u(rng);
  for (float& v : residual) v = u(rng);
  // b(k, j) at b[k * N + j], or b[j * K + k] transposed.
  std::vector<uint16_t> b(c.K * c.N);
  for (uint16_t& v : b) v = FloatToBFloat16Bits(u(rng));
  auto b_at = [&](int64_t k, int64_t j) { return b[c.trans_b ? j * c.K + k : k * c.N + j]; };
  std::vector<uint16_t> packed(Bf16PackedBElems(c.K, c.N));
  if (c.trans_b) {
    Bf16PackB(c.K, c.N, b.data(), 1, c.K, packed.data());
  } else {
    Bf16PackB(c.K, c.N, b.data(), c.N, 1, packed.data());
  }
  GemmEpilogue ep;
  if (c.epilogue) {
    ep.bias = bias.data();
    ep.residual = residual.data();
    ep.ldr = c.N;
    ep.act = kActRelu;
  }
  const int64_t ldc = c.N + 3;
  std::vector<float> got(c.M * ldc, -7.0f);
  std::vector<unsigned char> scratch(Bf16GemmScratchBytes(c.M, c.N, c.K, threads) + 63);
  TfnKernelContext ctx{};
  ctx.num_threads = threads;
  ctx.parallel_for = threads > 1 ? testing::TestParallelFor : nullptr;
  ASSERT_EQ(Bf16Gemm(c.M, c.N, c.K, a.data(), lda, packed.data(), got.data(), ldc,
                     c.epilogue ? &ep : nullptr, scratch.data() + 1,
                     static_cast<int64_t>(scratch.size()) - 1, &ctx),
            TFN_KERNEL_OK);
  for (int64_t i = 0; i < c.M; ++i) {
    for (int64_t j = 0; j < ldc; ++j) {
      if (j >= c.N) {  // past the matrix: untouched
        ASSERT_EQ(got[i * ldc + j], -7.0f) << i << "," << j;
        continue;
      }
      double want = 0, magnitude = 0;
      for (int64_t k = 0; k < c.K; ++k) {
        const double p =
            static_cast<double>(BFloat16BitsToFloat(FloatToBFloat16Bits(a[i * lda + k]))) *
            BFloat16BitsToFloat(b_at(k, j));
        want += p;
        magnitude += std::fabs(p);
      }
      double tol = static_cast<double>(c.K) * std::ldexp(1.0, -24) * magnitude + 1e-30;
      if (c.epilogue) {
        // The epilogue's two float32 adds each round once more.
        want = std::max(0.0, want + bias[j] + residual[i * c.N + j]);
        tol += 4 * std::ldexp(1.0, -24) * (magnitude + 2.0);
      }
      ASSERT_NEAR(got[i * ldc + j], want, tol) << "at " << i << "," << j;
    }
  }
}

// Each kernel the CPU can run: portable (cap below AVX-512), AVX-512F
// (vdpbf16ps not allowed) and AVX512-BF16.
struct Config {
  opt::Isa cap;
  bool vdpbf16ps;
};
std::vector<Config> Configs() {
  std::vector<Config> configs = {{opt::Isa::kPortable, false}};
  if (opt::DetectedIsa() == opt::Isa::kAvx512) {
    configs.push_back({opt::Isa::kAvx512, false});
    configs.push_back({opt::Isa::kAvx512, true});
  }
  return configs;
}

TEST(Bf16Gemm, MatchesDoubleSumOfBf16Products) {
  const Case cases[] = {{1, 1, 1, false, false},     {12, 32, 2, false, false},
                        {13, 33, 3, false, true},    {5, 70, 17, true, false},
                        {37, 31, 64, false, true},   {24, 96, 301, true, true},
                        {100, 200, 130, false, true}};
  for (const Config& config : Configs()) {
    const opt::Isa old = opt::SetIsaCapForTesting(config.cap);
    const bool old_allow = Bf16GemmAllowVdpbf16psForTesting(config.vdpbf16ps);
    for (const Case& c : cases) {
      for (int threads : {1, 2}) Check(c, threads, 11);
    }
    Bf16GemmAllowVdpbf16psForTesting(old_allow);
    opt::SetIsaCapForTesting(old);
  }
}

TEST(Bf16Gemm, PicksTheKernelTheCpuCanRun) {
  const opt::Isa old = opt::SetIsaCapForTesting(opt::Isa::kAvx512);
  const std::string name = Bf16GemmKernelName();
  EXPECT_EQ(name, opt::Bf16KernelsActive()                  ? "avx512bf16"
                  : opt::DetectedIsa() == opt::Isa::kAvx512 ? "avx512"
                                                            : "portable");
  const bool old_allow = Bf16GemmAllowVdpbf16psForTesting(false);
  EXPECT_EQ(std::string(Bf16GemmKernelName()),
            opt::DetectedIsa() == opt::Isa::kAvx512 ? "avx512" : "portable");
  Bf16GemmAllowVdpbf16psForTesting(old_allow);
  opt::SetIsaCapForTesting(opt::Isa::kAvx2);
  EXPECT_EQ(std::string(Bf16GemmKernelName()), "portable");
  opt::SetIsaCapForTesting(old);
}

TEST(Bf16Gemm, PackedLayoutPutsDepthPairsSideBySide) {
  // K = 3, N = 33: two panels of ceil(3/2) = 2 pair rows of 64 values.
  const int64_t K = 3, N = 33;
  std::vector<uint16_t> b(K * N);
  for (int64_t i = 0; i < K * N; ++i) b[i] = static_cast<uint16_t>(i + 1);
  std::vector<uint16_t> packed(Bf16PackedBElems(K, N), 0xFFFF);
  ASSERT_EQ(packed.size(), 2u * 2u * 64u);
  Bf16PackB(K, N, b.data(), N, 1, packed.data());
  EXPECT_EQ(packed[0], b[0 * N + 0]);           // k 0, j 0
  EXPECT_EQ(packed[1], b[1 * N + 0]);           // k 1, j 0
  EXPECT_EQ(packed[2 * 5], b[0 * N + 5]);       // k 0, j 5
  EXPECT_EQ(packed[64 + 2 * 7], b[2 * N + 7]);  // k 2, j 7
  EXPECT_EQ(packed[64 + 2 * 7 + 1], 0);         // k 3: past K
  EXPECT_EQ(packed[128 + 0], b[0 * N + 32]);    // panel 1, j 32
  EXPECT_EQ(packed[128 + 2], 0);                // j 33: past N
}

TEST(Bf16Gemm, TooLittleScratchIsAnError) {
  std::vector<float> a(16 * 16), c(16 * 16);
  std::vector<uint16_t> packed(Bf16PackedBElems(16, 16));
  EXPECT_EQ(
      Bf16Gemm(16, 16, 16, a.data(), 16, packed.data(), c.data(), 16, nullptr, nullptr, 0, nullptr),
      TFN_KERNEL_SCRATCH_TOO_SMALL);
}

}  // namespace
}  // namespace tfn::kernels
