// QGemm (qgemm.h) against a plain int64 triple loop with the requantization
// written out: every microkernel the CPU has (VNNI, AVX2, portable, by
// lowering simd.h's cap), 1 and 2 threads, all four signedness pairs,
// per-tensor / per-row / per-column zero points, the four output kinds,
// ragged sizes around the 12 x 32 tile and the 4-byte depth groups. Integer
// outputs must match exactly; float outputs too (one product, same order).
#include "kernels/opt/qgemm.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "kernels/opt/simd.h"
#include "kernels/testing/kernel_test_util.h"

namespace tfn::kernels {
namespace {

struct Case {
  int64_t M, N, K;
  bool a_signed, b_signed;
  int a_zp_mode, b_zp_mode;  // 0 none, 1 per tensor, 2 per row (A) / column (B)
  QOutKind kind;
  bool bias, per_channel_scale, channel_is_row, relu;
};

std::string Describe(const Case& c) {
  return "M=" + std::to_string(c.M) + " N=" + std::to_string(c.N) + " K=" + std::to_string(c.K) +
         " a_signed=" + std::to_string(c.a_signed) + " b_signed=" + std::to_string(c.b_signed) +
         " zp=" + std::to_string(c.a_zp_mode) + "/" + std::to_string(c.b_zp_mode) +
         " kind=" + std::to_string(static_cast<int>(c.kind));
}

void Check(const Case& c, uint32_t seed, int threads) {
  SCOPED_TRACE(Describe(c) + " threads=" + std::to_string(threads));
  std::mt19937 rng(seed);
  auto byte = [&](bool is_signed) {
    return static_cast<uint8_t>(is_signed ? static_cast<int8_t>(rng() % 256 - 128) : rng() % 256);
  };
  // A with a row stride larger than K (a view into a wider matrix).
  const int64_t lda = c.K + 3;
  std::vector<uint8_t> a(c.M * lda), b(c.K * c.N);
  for (auto& v : a) v = byte(c.a_signed);
  for (auto& v : b) v = byte(c.b_signed);
  auto zp = [&](bool is_signed) {
    return is_signed ? static_cast<int32_t>(rng() % 256) - 128 : static_cast<int32_t>(rng() % 256);
  };
  std::vector<int32_t> za(c.a_zp_mode == 2 ? c.M : 1), zb(c.b_zp_mode == 2 ? c.N : 1);
  for (auto& z : za) z = zp(c.a_signed);
  for (auto& z : zb) z = zp(c.b_signed);
  const int64_t channels = c.channel_is_row ? c.M : c.N;
  std::vector<int32_t> bias(channels);
  std::vector<float> scale(c.per_channel_scale ? channels : 1), fbias(channels);
  for (auto& v : bias) v = static_cast<int32_t>(rng() % 20001) - 10000;
  for (auto& v : scale) v = std::ldexp(1.0f + (rng() % 1000) / 1000.0f, -12);
  for (auto& v : fbias) v = (rng() % 2001) / 1000.0f - 1.0f;

  QOperand qa{
      a.data(), lda, 1, c.a_signed, c.a_zp_mode ? za.data() : nullptr, c.a_zp_mode == 2 ? 1 : 0};
  QOperand qb{
      b.data(), c.N, 1, c.b_signed, c.b_zp_mode ? zb.data() : nullptr, c.b_zp_mode == 2 ? 1 : 0};
  const int64_t width = c.kind == QOutKind::kInt32 || c.kind == QOutKind::kFloat ? 4 : 1;
  std::vector<uint8_t> got(c.M * c.N * width, 0xCD), want(c.M * c.N * width);
  QGemmOutput out;
  out.kind = c.kind;
  out.data = got.data();
  out.ldc = c.N;
  out.channel_is_row = c.channel_is_row;
  out.bias = c.bias ? bias.data() : nullptr;
  out.scale = scale.data();
  out.scale_stride = c.per_channel_scale ? 1 : 0;
  out.fbias = c.kind == QOutKind::kFloat && c.bias ? fbias.data() : nullptr;
  const bool s8 = c.kind == QOutKind::kInt8;
  out.zero_point = s8 ? -3 : 121;
  out.qmin = s8 ? -128 : 0;
  out.qmax = s8 ? 127 : 255;
  if (c.relu) out.qmin = out.zero_point;

  // The oracle.
  auto value = [](uint8_t v, bool is_signed) {
    return is_signed ? static_cast<int64_t>(static_cast<int8_t>(v)) : static_cast<int64_t>(v);
  };
  for (int64_t i = 0; i < c.M; ++i) {
    for (int64_t j = 0; j < c.N; ++j) {
      const int64_t zai = c.a_zp_mode ? za[c.a_zp_mode == 2 ? i : 0] : 0;
      const int64_t zbj = c.b_zp_mode ? zb[c.b_zp_mode == 2 ? j : 0] : 0;
      int64_t acc = 0;
      for (int64_t k = 0; k < c.K; ++k) {
        acc +=
            (value(a[i * lda + k], c.a_signed) - zai) * (value(b[k * c.N + j], c.b_signed) - zbj);
      }
      const int64_t ch = c.channel_is_row ? i : j;
      if (c.bias) acc += bias[ch];
      const auto acc32 = static_cast<int32_t>(acc);
      const float s = scale[c.per_channel_scale ? ch : 0];
      const int64_t e = i * c.N + j;
      if (c.kind == QOutKind::kInt32) {
        std::memcpy(&want[e * 4], &acc32, 4);
      } else if (c.kind == QOutKind::kFloat) {
        float f = static_cast<float>(acc32) * s;
        if (c.bias) f += fbias[ch];
        std::memcpy(&want[e * 4], &f, 4);
      } else {
        const float r = std::nearbyint(static_cast<float>(acc32) * s);
        const int64_t q =
            std::clamp<int64_t>(static_cast<int64_t>(r) + out.zero_point, out.qmin, out.qmax);
        want[e] = static_cast<uint8_t>(q);
      }
    }
  }
  std::vector<uint8_t> scratch(QGemmScratchBytes(c.M, c.N, c.K, threads) + 1);
  TfnKernelContext ctx{};
  ctx.num_threads = threads;
  ctx.parallel_for = threads > 1 ? testing::TestParallelFor : nullptr;
  // Misaligned scratch on purpose: QGemm aligns inside it.
  ASSERT_EQ(QGemm(c.M, c.N, c.K, qa, qb, out, scratch.data() + 1,
                  static_cast<int64_t>(scratch.size()) - 1, &ctx),
            TFN_KERNEL_OK);
  for (int64_t e = 0; e < c.M * c.N; ++e) {
    if (std::memcmp(&got[e * width], &want[e * width], width) != 0) {
      FAIL() << "element (" << e / c.N << ", " << e % c.N << ") differs";
    }
  }
}

// Runs body once per microkernel this CPU has, then restores the cap.
template <class F>
void ForEachKernel(F body) {
  for (opt::Isa cap : {opt::Isa::kPortable, opt::Isa::kAvx2, opt::Isa::kAvx512}) {
    const opt::Isa old = opt::SetIsaCapForTesting(cap);
    const std::string name = QGemmKernelName();
    if (cap == opt::Isa::kPortable) {
      EXPECT_EQ(name, "portable");
    }
    if (cap == opt::Isa::kAvx512 && opt::VnniKernelsActive()) {
      EXPECT_EQ(name, "avx512vnni");
    }
    SCOPED_TRACE(name);
    body();
    opt::SetIsaCapForTesting(old);
  }
}

TEST(QGemm, SignednessZeroPointsAndOutputsEveryKernel) {
  uint32_t seed = 1;
  ForEachKernel([&] {
    for (int sign = 0; sign < 4; ++sign) {
      for (int zp = 0; zp < 9; ++zp) {
        for (QOutKind kind :
             {QOutKind::kInt32, QOutKind::kFloat, QOutKind::kUint8, QOutKind::kInt8}) {
          Case c{13,
                 37,
                 27,
                 (sign & 1) != 0,
                 (sign & 2) != 0,
                 zp % 3,
                 zp / 3,
                 kind,
                 (zp & 1) != 0,
                 (zp & 2) != 0,
                 (zp & 4) != 0,
                 zp == 5};
          Check(c, seed++, 1);
        }
      }
    }
  });
}

TEST(QGemm, RaggedSizesAndThreads) {
  const int64_t sizes[] = {1, 3, 4, 11, 12, 13, 31, 32, 33, 64, 100};
  uint32_t seed = 1000;
  ForEachKernel([&] {
    for (int64_t s : sizes) {
      for (int threads : {1, 2}) {
        Check({s, 45, 64, false, true, 1, 0, QOutKind::kUint8, true, true, false, false}, seed++,
              threads);
        Check({25, s, 36, false, true, 1, 0, QOutKind::kUint8, true, true, false, true}, seed++,
              threads);
        Check({14, 70, s, true, false, 2, 2, QOutKind::kInt32, false, false, false, false}, seed++,
              threads);
      }
    }
  });
}

TEST(QGemm, LargeDepthAndManyColumnBlocks) {
  // Deep enough that a B block holds fewer columns than N (several blocks).
  ForEachKernel([&] {
    Check({40, 300, 4608, false, true, 1, 0, QOutKind::kUint8, true, true, false, true}, 7, 2);
    Check({64, 1000, 512, false, true, 1, 0, QOutKind::kFloat, true, true, false, false}, 8, 2);
  });
}

TEST(QGemm, ScratchTooSmallIsAnError) {
  uint8_t a[16] = {}, b[16] = {};
  int32_t c[16];
  QOperand qa{a, 4, 1, false}, qb{b, 4, 1, true};
  QGemmOutput out;
  out.data = c;
  out.ldc = 4;
  uint8_t scratch[8];
  EXPECT_EQ(QGemm(4, 4, 4, qa, qb, out, scratch, sizeof(scratch), nullptr),
            TFN_KERNEL_SCRATCH_TOO_SMALL);
}

}  // namespace
}  // namespace tfn::kernels
