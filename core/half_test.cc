// Tests of the float16/bfloat16 conversions (core/half.h) and the new dtype
// rows: hand-computed bit patterns at the edges, and every float16 value
// through the round trip; where the CPU has F16C, a million random floats
// against the hardware's own conversion (an independent implementation).
#include "core/half.h"

#include <gtest/gtest.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include <cmath>
#include <limits>
#include <random>

#include "core/dtype.h"

namespace tfn {
namespace {

float FromBits(uint32_t u) { return BitsToFloat(u); }

TEST(Half, EdgeValuesToFloat16) {
  EXPECT_EQ(FloatToHalfBits(1.0f), 0x3C00);
  EXPECT_EQ(FloatToHalfBits(-0.0f), 0x8000);
  EXPECT_EQ(FloatToHalfBits(65504.0f), 0x7BFF);   // largest finite
  EXPECT_EQ(FloatToHalfBits(65519.99f), 0x7BFF);  // below the halfway point
  EXPECT_EQ(FloatToHalfBits(65520.0f), 0x7C00);   // halfway: to even, which is inf
  EXPECT_EQ(FloatToHalfBits(1e10f), 0x7C00);
  EXPECT_EQ(FloatToHalfBits(std::ldexp(1.0f, -14)), 0x0400);     // smallest normal
  EXPECT_EQ(FloatToHalfBits(std::ldexp(1.0f, -24)), 0x0001);     // smallest subnormal
  EXPECT_EQ(FloatToHalfBits(std::ldexp(1.0f, -25)), 0x0000);     // halfway to 0: even
  EXPECT_EQ(FloatToHalfBits(std::ldexp(3.0f, -25)), 0x0002);     // 1.5 ulps: to even (2)
  EXPECT_EQ(FloatToHalfBits(std::ldexp(1023.5f, -24)), 0x0400);  // rounds up into normal
  EXPECT_EQ(FloatToHalfBits(1.00048828125f), 0x3C00);            // 1 + 2^-11: halfway, even
  EXPECT_EQ(FloatToHalfBits(1.00146484375f), 0x3C02);            // 1 + 3·2^-11: halfway, even
  EXPECT_EQ(FloatToHalfBits(std::numeric_limits<float>::infinity()), 0x7C00);
  const uint16_t nan = FloatToHalfBits(std::numeric_limits<float>::quiet_NaN());
  EXPECT_EQ(nan & 0x7C00, 0x7C00);
  EXPECT_NE(nan & 0x03FF, 0);
}

TEST(Half, EveryFloat16SurvivesTheRoundTrip) {
  for (uint32_t h = 0; h <= 0xFFFF; ++h) {
    const float f = HalfBitsToFloat(static_cast<uint16_t>(h));
    if ((h & 0x7C00) == 0x7C00 && (h & 0x03FF) != 0) {
      ASSERT_TRUE(std::isnan(f)) << h;
      ASSERT_TRUE(std::isnan(HalfBitsToFloat(FloatToHalfBits(f)))) << h;
      continue;
    }
    ASSERT_EQ(FloatToHalfBits(f), h) << std::hex << h;
  }
  EXPECT_EQ(HalfBitsToFloat(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(HalfBitsToFloat(0x83FF), -std::ldexp(1023.0f, -24));
  EXPECT_EQ(HalfBitsToFloat(0x7BFF), 65504.0f);
}

#if defined(__x86_64__)
__attribute__((target("f16c"))) uint16_t HardwareHalf(float f) {
  return static_cast<uint16_t>(_cvtss_sh(f, _MM_FROUND_TO_NEAREST_INT));
}
#endif

TEST(Half, AgreesWithF16C) {
#if !defined(__x86_64__)
  GTEST_SKIP() << "F16C is an x86 instruction set";
#else
  if (!__builtin_cpu_supports("f16c")) GTEST_SKIP() << "this CPU has no F16C";
  std::mt19937 rng(5);
  for (int i = 0; i < 1000000; ++i) {
    const uint32_t u = rng();
    const float f = FromBits(u);
    if (std::isnan(f)) continue;
    ASSERT_EQ(FloatToHalfBits(f), HardwareHalf(f)) << std::hex << u;
  }
  // Every float in the float16 range's rounding-sensitive band, densely.
  for (uint32_t u = 0x33000000u; u < 0x47800000u; u += 61) {
    ASSERT_EQ(FloatToHalfBits(FromBits(u)), HardwareHalf(FromBits(u))) << std::hex << u;
  }
#endif
}

TEST(Half, BFloat16RoundsOrTruncates) {
  EXPECT_EQ(FloatToBFloat16Bits(1.0f), 0x3F80);
  EXPECT_EQ(FloatToBFloat16Bits(FromBits(0x3F808000)), 0x3F80);  // halfway: even
  EXPECT_EQ(FloatToBFloat16Bits(FromBits(0x3F818000)), 0x3F82);  // halfway: even
  EXPECT_EQ(FloatToBFloat16Bits(FromBits(0x3F808001)), 0x3F81);
  EXPECT_EQ(FloatToBFloat16Bits(FromBits(0x7F7FFFFF)), 0x7F80);  // max float rounds to inf
  EXPECT_EQ(FloatToBFloat16BitsTruncated(FromBits(0x3F81FFFF)), 0x3F81);
  EXPECT_EQ(FloatToBFloat16BitsTruncated(FromBits(0x7F7FFFFF)), 0x7F7F);
  EXPECT_TRUE(std::isnan(BFloat16BitsToFloat(FloatToBFloat16Bits(FromBits(0x7F800001)))));
  EXPECT_EQ(BFloat16BitsToFloat(0xC049), -3.140625f);
  BFloat16 b = 2.5f;
  Float16 h = -0.5f;
  EXPECT_EQ(static_cast<float>(b) + static_cast<float>(h), 2.0f);
}

TEST(Half, DTypeRows) {
  EXPECT_EQ(DTypeSize(DType::kFloat16), 2);
  EXPECT_EQ(DTypeSize(DType::kBFloat16), 2);
  EXPECT_EQ(DTypeSize(DType::kUInt64), 8);
  EXPECT_EQ(ParseDType("float16"), DType::kFloat16);
  EXPECT_EQ(ParseDType("bf16"), DType::kBFloat16);
  EXPECT_EQ(ParseDType("u8"), DType::kUInt8);
  EXPECT_STREQ(DTypeName(DType::kInt8), "int8");
  EXPECT_TRUE(IsFloating(DType::kBFloat16));
  EXPECT_TRUE(IsInteger(DType::kUInt32));
  EXPECT_TRUE(IsValidDType(13));
  EXPECT_FALSE(IsValidDType(14));
}

}  // namespace
}  // namespace tfn
