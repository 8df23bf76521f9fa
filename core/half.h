// float16 (IEEE 754 binary16) and bfloat16 storage types.
//
// Both are 16-bit patterns that tfn stores and converts; arithmetic on them
// happens in float32 (this CPU, like most, has no float16 arithmetic in
// AVX-512F). They convert implicitly to float and from float, so generic
// code written over T works on them and computes in float32.
//
// The conversions are pure bit arithmetic (no libm, no intrinsics), so the
// kernels compiled to bitcode for AOT objects can use them. float → float16
// and float → bfloat16 round to nearest, ties to even; NaN stays NaN (quiet).
// ONNX's Cast to BFLOAT16 truncates instead: see BFloat16::Truncate.
#pragma once

#include <cstdint>
#include <cstring>

namespace tfn {

inline uint32_t FloatBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
inline float BitsToFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

// binary16 bits → float (exact: every binary16 value is a float).
inline float HalfBitsToFloat(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu;
  if (exp == 0x1f) return BitsToFloat(sign | 0x7f800000u | (mant << 13));  // inf, NaN
  if (exp != 0) return BitsToFloat(sign | ((exp + 112) << 23) | (mant << 13));
  if (mant == 0) return BitsToFloat(sign);  // ±0
  // Subnormal: mant · 2^-24, exact in float.
  float v = static_cast<float>(mant) * BitsToFloat(0x33800000u);  // 2^-24
  return sign ? -v : v;
}

// float → binary16 bits, round to nearest even; overflow → ±inf.
inline uint16_t FloatToHalfBits(float f) {
  uint32_t u = FloatBits(f);
  uint16_t sign = static_cast<uint16_t>((u >> 16) & 0x8000u);
  uint32_t abs = u & 0x7fffffffu;
  if (abs > 0x7f800000u) return static_cast<uint16_t>(sign | 0x7e00u | ((abs >> 13) & 0x3ffu));
  if (abs >= 0x47800000u) return static_cast<uint16_t>(sign | 0x7c00u);  // ≥ 65536 → inf
  if (abs >= 0x38800000u) {                                   // normal in binary16 (≥ 2^-14)
    uint32_t mant_round = abs + 0xfffu + ((abs >> 13) & 1u);  // ties to even at bit 13
    uint32_t h = (mant_round >> 13) - (112u << 10);           // rebias 127 → 15
    return static_cast<uint16_t>(sign | h);                   // a carry into inf is right
  }
  if (abs < 0x33000000u) return sign;  // below half the smallest subnormal (2^-25) → ±0
  // Subnormal result: value / 2^-24, rounded to nearest even.
  uint32_t exp = abs >> 23;
  uint32_t mant = (abs & 0x7fffffu) | 0x800000u;
  uint32_t shift = 126 - exp;  // 14..24 for exp in [102, 112]
  uint32_t q = mant >> shift;
  uint32_t rem = mant & ((1u << shift) - 1);
  uint32_t half = 1u << (shift - 1);
  if (rem > half || (rem == half && (q & 1u))) ++q;
  return static_cast<uint16_t>(sign | q);
}

inline float BFloat16BitsToFloat(uint16_t b) { return BitsToFloat(static_cast<uint32_t>(b) << 16); }

// float → bfloat16 bits, round to nearest even.
inline uint16_t FloatToBFloat16Bits(float f) {
  uint32_t u = FloatBits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u)
    return static_cast<uint16_t>((u >> 16) | 0x40u);  // quiet NaN
  u += 0x7fffu + ((u >> 16) & 1u);
  return static_cast<uint16_t>(u >> 16);
}

// float → bfloat16 bits by dropping the low 16 bits (what ONNX's Cast
// specifies, and what its node tests expect).
inline uint16_t FloatToBFloat16BitsTruncated(float f) {
  uint32_t u = FloatBits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((u >> 16) | 0x40u);
  return static_cast<uint16_t>(u >> 16);
}

struct Float16 {
  uint16_t bits = 0;
  Float16() = default;
  Float16(float f) : bits(FloatToHalfBits(f)) {}  // NOLINT: implicit, computes in float
  static Float16 FromBits(uint16_t b) {
    Float16 h;
    h.bits = b;
    return h;
  }
  operator float() const { return HalfBitsToFloat(bits); }  // NOLINT
};

struct BFloat16 {
  uint16_t bits = 0;
  BFloat16() = default;
  BFloat16(float f) : bits(FloatToBFloat16Bits(f)) {}  // NOLINT: implicit, computes in float
  static BFloat16 FromBits(uint16_t b) {
    BFloat16 h;
    h.bits = b;
    return h;
  }
  static BFloat16 Truncate(float f) { return FromBits(FloatToBFloat16BitsTruncated(f)); }
  operator float() const { return BFloat16BitsToFloat(bits); }  // NOLINT
};

static_assert(sizeof(Float16) == 2 && sizeof(BFloat16) == 2, "16-bit storage");

}  // namespace tfn
