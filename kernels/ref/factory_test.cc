// Tests of the factory reference kernels: fill, fill_like and range by hand;
// the random generator against the Random123 known answers; the portable
// log/cos against libm; random_uniform and random_normal for determinism,
// their documented bit-to-sample mapping, ranges and sample statistics.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "kernels/ref/random.h"
#include "kernels/testing/kernel_test_util.h"

namespace tfn::kernels::testing {
namespace {

using HT = HostTensor;
constexpr double kPi = 3.14159265358979323846;

AttrValue Ints(std::vector<int64_t> v) { return AttrValue::Ints(std::move(v)); }

HT Run0(OpId op, Attrs attrs) {
  auto out = RunOp(op, {}, std::move(attrs));
  return out.empty() ? HT{} : out[0];
}

std::string ErrorOf(OpId op, Attrs attrs) {
  std::string error;
  RunOp(op, {}, std::move(attrs), Variant::kReference, &error);
  return error;
}

TEST(RefFill, CastsTheValue) {
  HT f = Run0(OpId::kFill, {{"shape", Ints({2, 3})}, {"value", AttrValue::Float(1.5)}});
  EXPECT_EQ(f.dtype, DType::kFloat32);
  EXPECT_EQ(f.shape, (Shape{2, 3}));
  EXPECT_EQ(f.values<float>(), std::vector<float>(6, 1.5f));
  auto fill = [](DType t, double v) {
    return Run0(
        OpId::kFill,
        {{"shape", Ints({2})}, {"value", AttrValue::Float(v)}, {"dtype", AttrValue::Type(t)}});
  };
  EXPECT_EQ(fill(DType::kInt32, 2.7).values<int32_t>(), (std::vector<int32_t>{2, 2}));
  EXPECT_EQ(fill(DType::kInt64, -2.7).values<int64_t>(), (std::vector<int64_t>{-2, -2}));
  EXPECT_EQ(fill(DType::kInt32, 1e20).values<int32_t>(),
            std::vector<int32_t>(2, std::numeric_limits<int32_t>::max()));
  EXPECT_EQ(fill(DType::kInt32, std::nan("")).values<int32_t>(), (std::vector<int32_t>{0, 0}));
  EXPECT_EQ(fill(DType::kBool, 0.5).values<bool>(), (std::vector<bool>{true, true}));
  EXPECT_EQ(fill(DType::kBool, 0).values<bool>(), (std::vector<bool>{false, false}));
  EXPECT_EQ(fill(DType::kFloat64, 0.1).values<double>(), (std::vector<double>{0.1, 0.1}));
  HT s = Run0(OpId::kFill, {{"shape", Ints({})}, {"value", AttrValue::Int(3)}});
  EXPECT_EQ(s.shape, Shape{});
  EXPECT_EQ(s.values<float>(), (std::vector<float>{3}));
  EXPECT_EQ(Run0(OpId::kFill, {{"shape", Ints({0, 2})}}).shape, (Shape{0, 2}));
  EXPECT_EQ(ErrorOf(OpId::kFill, {{"shape", Ints({-1})}}),
            "fill: 'shape' has a negative dim -1; every dim must be >= 0");
}

TEST(RefFillLike, TakesShapeAndDTypeOfTheInput) {
  auto out = RunOp(OpId::kFillLike, {HT::Of<int64_t>({2, 2}, {1, 2, 3, 4})},
                   {{"value", AttrValue::Float(7)}});
  EXPECT_EQ(out[0].dtype, DType::kInt64);
  EXPECT_EQ(out[0].shape, (Shape{2, 2}));
  EXPECT_EQ(out[0].values<int64_t>(), std::vector<int64_t>(4, 7));
  out = RunOp(OpId::kFillLike, {HT::Of<bool>({3}, {true, false, true})}, {});
  EXPECT_EQ(out[0].values<bool>(), std::vector<bool>(3, false));
  out = RunOp(OpId::kFillLike, {HT::Of<float>({0}, {})}, {{"value", AttrValue::Float(1)}});
  EXPECT_EQ(out[0].shape, (Shape{0}));
}

Attrs RangeAttrs(double start, double limit, double delta, DType dtype) {
  return {{"start", AttrValue::Float(start)},
          {"limit", AttrValue::Float(limit)},
          {"delta", AttrValue::Float(delta)},
          {"dtype", AttrValue::Type(dtype)}};
}

TEST(RefRange, HandComputed) {
  HT r = Run0(OpId::kRange, {{"limit", AttrValue::Float(5)}});
  EXPECT_EQ(r.dtype, DType::kInt64);
  EXPECT_EQ(r.values<int64_t>(), (std::vector<int64_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(Run0(OpId::kRange, RangeAttrs(1, 2, 0.25, DType::kFloat32)).values<float>(),
            (std::vector<float>{1, 1.25f, 1.5f, 1.75f}));
  EXPECT_EQ(Run0(OpId::kRange, RangeAttrs(5, 0, -1.5, DType::kFloat64)).values<double>(),
            (std::vector<double>{5, 3.5, 2, 0.5}));
  // Computed as start + i * delta in double, then cast (truncating for ints).
  EXPECT_EQ(Run0(OpId::kRange, RangeAttrs(0, 3, 0.5, DType::kInt32)).values<int32_t>(),
            (std::vector<int32_t>{0, 0, 1, 1, 2, 2}));
  EXPECT_EQ(Run0(OpId::kRange, RangeAttrs(-2, 2, 1, DType::kInt32)).values<int32_t>(),
            (std::vector<int32_t>{-2, -1, 0, 1}));
  // Not accumulated: element 10 of 0.1 steps is 10 * 0.1 exactly as double computes it.
  HT d = Run0(OpId::kRange, RangeAttrs(0, 1.05, 0.1, DType::kFloat64));
  ASSERT_EQ(d.size(), 11);
  EXPECT_EQ(d.values<double>()[10], 10 * 0.1);
  EXPECT_EQ(Run0(OpId::kRange, RangeAttrs(3, 1, 1, DType::kFloat32)).shape, (Shape{0}));
  EXPECT_EQ(ErrorOf(OpId::kRange, RangeAttrs(0, 1, 0, DType::kInt64)),
            "range: 'delta' must not be 0");
}

TEST(RefRandom, PhiloxKnownAnswers) {
  // Random123's kat_vectors for philox4x32_10: counter, key, expected output.
  struct Kat {
    uint32_t counter[4], key[2], out[4];
  };
  const Kat kats[] = {
      {{0, 0, 0, 0}, {0, 0}, {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
      {{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
       {0xffffffff, 0xffffffff},
       {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
      {{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
       {0xa4093822, 0x299f31d0},
       {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
  };
  for (const Kat& k : kats) {
    uint32_t out[4];
    Philox4x32(k.counter, k.key, out);
    for (int j = 0; j < 4; ++j) EXPECT_EQ(out[j], k.out[j]) << "word " << j;
  }
}

TEST(RefRandom, PortableLogMatchesLibm) {
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<double> unit(0, 1);
  std::vector<double> xs = {
      0x1p-53,     1e-300, 1e-10, 0.1,  0.5,  0.70710678118654746, 0.70710678118654757,
      1 - 0x1p-53, 1,      2,     1e10, 1e300};
  for (int i = 0; i < 20000; ++i) xs.push_back(1 - unit(rng));  // (0, 1]
  for (int i = 0; i < 2000; ++i) xs.push_back(std::exp(unit(rng) * 1400 - 700));
  for (double x : xs) {
    // A few ulp: 4 * 2^-52 relative, or 1e-300 absolute near log(1) = 0.
    const double want = std::log(x);
    EXPECT_LE(std::fabs(PortableLog(x) - want), 8.9e-16 * std::fabs(want) + 1e-300) << x;
  }
}

TEST(RefRandom, PortableCos2PiMatchesLibm) {
  std::mt19937_64 rng(2);
  std::uniform_real_distribution<double> unit(0, 1);
  std::vector<double> ts = {0, 0.125, 0.25, 0.5, 0.75, 1 - 0x1p-53, 0x1p-53, 0.2499999999999};
  for (int i = 0; i < 20000; ++i) ts.push_back(unit(rng));
  for (double t : ts) {
    // libm's own argument 2*pi*t carries ~4e-16 of rounding; 2e-15 absolute.
    EXPECT_NEAR(PortableCos2Pi(t), std::cos(2 * kPi * t), 2e-15) << t;
  }
  EXPECT_EQ(PortableCos2Pi(0), 1);
  EXPECT_EQ(PortableCos2Pi(0.5), -1);
}

Attrs UniformAttrs(std::vector<int64_t> shape, int64_t seed, double lo = 0, double hi = 1,
                   DType dtype = DType::kFloat32) {
  return {{"shape", Ints(std::move(shape))},
          {"seed", AttrValue::Int(seed)},
          {"minval", AttrValue::Float(lo)},
          {"maxval", AttrValue::Float(hi)},
          {"dtype", AttrValue::Type(dtype)}};
}

Attrs NormalAttrs(std::vector<int64_t> shape, int64_t seed, double mean = 0, double stddev = 1,
                  DType dtype = DType::kFloat32) {
  return {{"shape", Ints(std::move(shape))},
          {"seed", AttrValue::Int(seed)},
          {"mean", AttrValue::Float(mean)},
          {"stddev", AttrValue::Float(stddev)},
          {"dtype", AttrValue::Type(dtype)}};
}

// The Philox words of element i under seed s, as the factory's comment defines them.
void WordsOf(uint64_t seed, uint64_t i, uint32_t w[4]) {
  const uint32_t counter[4] = {static_cast<uint32_t>(i), static_cast<uint32_t>(i >> 32), 0, 0};
  const uint32_t key[2] = {static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32)};
  Philox4x32(counter, key, w);
}

double Top53(uint32_t hi, uint32_t lo) {
  return static_cast<double>(((static_cast<uint64_t>(hi) << 32) | lo) >> 11);
}

TEST(RefRandom, UniformFollowsTheDocumentedMapping) {
  // Seed 0, element 0: the all-zero Philox vector.
  HT u = Run0(OpId::kRandomUniform, UniformAttrs({1}, 0, 0, 1, DType::kFloat64));
  EXPECT_EQ(u.values<double>()[0],
            static_cast<double>(((uint64_t{0x6627e8d5} << 32) | 0xe169c58d) >> 11) * 0x1p-53);
  const int64_t seed = -123456789012345;  // negative seeds use all 64 bits
  u = Run0(OpId::kRandomUniform, UniformAttrs({50}, seed, -2, 3, DType::kFloat64));
  for (int64_t i = 0; i < 50; ++i) {
    uint32_t w[4];
    WordsOf(static_cast<uint64_t>(seed), static_cast<uint64_t>(i), w);
    EXPECT_DOUBLE_EQ(u.values<double>()[i], -2 + Top53(w[0], w[1]) * 0x1p-53 * 5) << i;
  }
}

TEST(RefRandom, NormalFollowsTheDocumentedMapping) {
  HT n = Run0(OpId::kRandomNormal, NormalAttrs({200}, 99, 1, 2, DType::kFloat64));
  for (int64_t i = 0; i < 200; ++i) {
    uint32_t w[4];
    WordsOf(99, static_cast<uint64_t>(i), w);
    const double u1 = (Top53(w[0], w[1]) + 1) * 0x1p-53, u2 = Top53(w[2], w[3]) * 0x1p-53;
    const double z = std::sqrt(-2 * std::log(u1)) * std::cos(2 * kPi * u2);
    // libm against the portable log/cos: 1e-13 covers z up to ~8.5.
    EXPECT_NEAR(n.values<double>()[i], 1 + 2 * z, 1e-13) << i;
  }
}

TEST(RefRandom, DeterministicAndIndependentOfShapeAndThreads) {
  for (OpId op : {OpId::kRandomUniform, OpId::kRandomNormal}) {
    auto attrs = [&](std::vector<int64_t> shape, int64_t seed) {
      return op == OpId::kRandomUniform ? UniformAttrs(shape, seed) : NormalAttrs(shape, seed);
    };
    HT a = Run0(op, attrs({100}, 42));
    HT b = Run0(op, attrs({100}, 42));
    EXPECT_EQ(a.bytes, b.bytes);
    HT c = Run0(op, attrs({100}, 43));
    EXPECT_NE(a.bytes, c.bytes);
    int same = 0;
    for (int i = 0; i < 100; ++i) same += a.values<float>()[i] == c.values<float>()[i];
    EXPECT_LT(same, 3) << "seeds 42 and 43 should give unrelated streams";
    // Element i depends only on (seed, i): reshaping or growing the tensor
    // keeps the values, and so does running with threads.
    EXPECT_EQ(Run0(op, attrs({10, 10}, 42)).bytes, a.bytes);
    HT longer = Run0(op, attrs({1000}, 42));
    EXPECT_EQ(std::vector<unsigned char>(longer.bytes.begin(), longer.bytes.begin() + 400),
              a.bytes);
    auto threaded = RunOp(op, {}, attrs({100}, 42), Variant::kReference, nullptr, 4);
    EXPECT_EQ(threaded[0].bytes, a.bytes);
  }
  // No two elements share a counter: 1000 f64 samples are all distinct (a
  // collision of 53-bit values has probability ~5e-11).
  std::vector<double> v =
      Run0(OpId::kRandomUniform, UniformAttrs({1000}, 42, 0, 1, DType::kFloat64)).values<double>();
  std::sort(v.begin(), v.end());
  EXPECT_EQ(std::adjacent_find(v.begin(), v.end()), v.end());
}

TEST(RefRandom, UniformRangeAndMean) {
  for (DType dt : {DType::kFloat32, DType::kFloat64}) {
    HT u = Run0(OpId::kRandomUniform, UniformAttrs({100000}, 7, -1, 3, dt));
    double sum = 0, lo = 10, hi = -10;
    for (int64_t i = 0; i < u.size(); ++i) {
      double v = u.at(i);
      sum += v;
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
    EXPECT_GE(lo, -1);
    EXPECT_LT(hi, 3);
    // Mean 1, stddev 4/sqrt(12) = 1.155, so the sample mean has stddev
    // 0.00365; 0.02 is over 5 of those.
    EXPECT_NEAR(sum / 1e5, 1.0, 0.02) << DTypeName(dt);
    EXPECT_LT(lo, -0.99);  // the ends of the interval are reached
    EXPECT_GT(hi, 2.99);
  }
  // A range one f32 ulp wide: most samples would round up to maxval, which
  // the kernel moves one ulp down, so every sample is exactly minval.
  HT u = Run0(OpId::kRandomUniform, UniformAttrs({1000}, 3, 1, 1.0000001, DType::kFloat32));
  for (float v : u.values<float>()) ASSERT_EQ(v, 1.0f);
  // minval == maxval gives minval.
  u = Run0(OpId::kRandomUniform, UniformAttrs({3}, 3, 2, 2, DType::kFloat64));
  EXPECT_EQ(u.values<double>(), std::vector<double>(3, 2));
}

TEST(RefRandom, UniformIntegers) {
  HT u = Run0(OpId::kRandomUniform, UniformAttrs({1000}, 5, -3, 5, DType::kInt32));
  std::vector<int> counts(8, 0);
  for (int32_t v : u.values<int32_t>()) {
    ASSERT_GE(v, -3);
    ASSERT_LT(v, 5);
    ++counts[v + 3];
  }
  for (int c : counts) EXPECT_GT(c, 80);     // 125 expected each
  const double big = 4611686018427387904.0;  // 2^62
  u = Run0(OpId::kRandomUniform, UniformAttrs({1000}, 5, -big, big, DType::kInt64));
  int negative = 0;
  for (int64_t v : u.values<int64_t>()) {
    ASSERT_GE(v, -(int64_t{1} << 62));
    ASSERT_LT(v, int64_t{1} << 62);
    negative += v < 0;
  }
  EXPECT_NEAR(negative, 500, 80);
  // The widest int32 range.
  u = Run0(OpId::kRandomUniform,
           UniformAttrs({100}, 1, -2147483648.0, 2147483648.0, DType::kInt32));
  EXPECT_EQ(u.size(), 100);
}

TEST(RefRandom, NormalStatistics) {
  for (DType dt : {DType::kFloat32, DType::kFloat64}) {
    HT n = Run0(OpId::kRandomNormal, NormalAttrs({100000}, 2024, 0, 1, dt));
    double sum = 0, sq = 0;
    int within1 = 0, within2 = 0;
    for (int64_t i = 0; i < n.size(); ++i) {
      const double v = n.at(i);
      ASSERT_TRUE(std::isfinite(v));
      sum += v;
      sq += v * v;
      within1 += std::fabs(v) < 1;
      within2 += std::fabs(v) < 2;
    }
    const double mean = sum / 1e5, sd = std::sqrt(sq / 1e5 - mean * mean);
    // Sampling stddevs for 1e5 samples: mean 0.0032, sd 0.0022, P(|z|<1)
    // 0.0015, P(|z|<2) 0.0007. The tolerances are 5 to 7 of those.
    EXPECT_NEAR(mean, 0, 0.02) << DTypeName(dt);
    EXPECT_NEAR(sd, 1, 0.015) << DTypeName(dt);
    EXPECT_NEAR(within1 / 1e5, 0.6827, 0.01) << DTypeName(dt);
    EXPECT_NEAR(within2 / 1e5, 0.9545, 0.005) << DTypeName(dt);
  }
  // mean and stddev shift and scale.
  HT n = Run0(OpId::kRandomNormal, NormalAttrs({100000}, 8, 3, 2, DType::kFloat64));
  double sum = 0, sq = 0;
  for (double v : n.values<double>()) {
    sum += v;
    sq += v * v;
  }
  EXPECT_NEAR(sum / 1e5, 3, 0.04);
  EXPECT_NEAR(std::sqrt(sq / 1e5 - 9), 2, 0.04);
  HT z = Run0(OpId::kRandomNormal, NormalAttrs({5}, 8, -1, 0, DType::kFloat64));
  EXPECT_EQ(z.values<double>(), std::vector<double>(5, -1));
}

TEST(RefRandom, Errors) {
  EXPECT_EQ(ErrorOf(OpId::kRandomNormal, NormalAttrs({2}, 1, 0, 1, DType::kInt32)),
            "random_normal: dtype must be f32 or f64, got int32");
  EXPECT_EQ(ErrorOf(OpId::kRandomNormal, NormalAttrs({2}, 1, 0, -1)),
            "random_normal: mean must be finite and stddev finite and >= 0");
  EXPECT_NE(ErrorOf(OpId::kRandomUniform, UniformAttrs({2}, 1, 1, 0)).find("minval <= maxval"),
            std::string::npos);
  EXPECT_NE(ErrorOf(OpId::kRandomUniform, UniformAttrs({2}, 1, 0, 2.5, DType::kInt32))
                .find("must be integers of that type with minval < maxval"),
            std::string::npos);
  EXPECT_NE(ErrorOf(OpId::kRandomUniform, UniformAttrs({2}, 1, 3, 3, DType::kInt64))
                .find("minval < maxval"),
            std::string::npos);
  EXPECT_NE(ErrorOf(OpId::kRandomUniform, UniformAttrs({2}, 1, 0, 4294967296.0, DType::kInt32))
                .find("must be integers of that type"),
            std::string::npos);
  EXPECT_EQ(ErrorOf(OpId::kRandomUniform, UniformAttrs({2}, 1, 0, 1, DType::kBool)),
            "random_uniform: dtype must be numeric, got bool");
  EXPECT_EQ(ErrorOf(OpId::kRandomUniform, UniformAttrs({-2}, 1)),
            "random_uniform: 'shape' has a negative dim -2; every dim must be >= 0");
}

}  // namespace
}  // namespace tfn::kernels::testing
