// The calibration methods on distributions whose answer is known by hand.
#include "quantizer/range_observer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

namespace tfn::quantizer {
namespace {

RangeObserver Observe(const std::vector<float>& v, bool histogram) {
  RangeObserver o;
  o.ObserveMinMax(v.data(), static_cast<int64_t>(v.size()));
  if (histogram) o.ObserveHistogram(v.data(), static_cast<int64_t>(v.size()));
  return o;
}

TEST(RangeObserver, MinMaxIsTheObservedRangeWithZero) {
  const std::vector<float> v = {0.5f, 2.0f, NAN, 1.25f};
  FloatRange r = Observe(v, false).Range(CalibrationMethod::kMinMax);
  EXPECT_EQ(r.lo, 0.0f);  // widened to hold 0
  EXPECT_EQ(r.hi, 2.0f);
  r = Observe({-3.0f, -1.0f}, false).Range(CalibrationMethod::kMinMax);
  EXPECT_EQ(r.lo, -3.0f);
  EXPECT_EQ(r.hi, 0.0f);
  EXPECT_FALSE(RangeObserver().observed());
}

// 99,999 values in [0, 1) and one at 1000: the bins are 1000/2048 wide, and
// 99.9% of the values lie in the first three (edges 0.49, 0.98, 1.46).
TEST(RangeObserver, PercentileClipsARareOutlier) {
  std::vector<float> v;
  for (int i = 0; i < 99999; ++i) v.push_back(static_cast<float>(i) / 99999.0f);
  v.push_back(1000.0f);
  const RangeObserver o = Observe(v, true);
  const FloatRange r = o.Range(CalibrationMethod::kPercentile, 99.9);
  EXPECT_EQ(r.lo, 0.0f);
  EXPECT_NEAR(r.hi, 3 * 1000.0 / 2048, 1e-3);
  EXPECT_EQ(o.Range(CalibrationMethod::kPercentile, 100).hi, 1000.0f);
  EXPECT_EQ(o.Range(CalibrationMethod::kMinMax).hi, 1000.0f);
}

// A standard normal sample with a few outliers at +-40: KL calibration with
// 128 levels clips around 3 to 5 sigma (TensorRT's figure for Gaussian
// activations), far inside the outliers and outside the bulk.
TEST(RangeObserver, EntropyClipsAGaussianAFewSigmasOut) {
  std::mt19937 gen(7);
  std::normal_distribution<float> normal;
  std::vector<float> v;
  for (int i = 0; i < 200000; ++i) v.push_back(normal(gen));
  for (int i = 0; i < 5; ++i) v.push_back(i % 2 ? 40.0f : -40.0f);
  const FloatRange r = Observe(v, true).Range(CalibrationMethod::kEntropy);
  EXPECT_GT(r.hi, 2.5f);
  EXPECT_LT(r.hi, 8.0f);
  EXPECT_EQ(r.lo, -r.hi);
}

// Without outliers nothing is worth clipping: a uniform sample keeps
// (nearly) its whole range.
TEST(RangeObserver, EntropyKeepsAUniformRange) {
  std::vector<float> v;
  for (int i = 0; i < 100000; ++i) v.push_back(6.0f * static_cast<float>(i) / 100000.0f);
  const FloatRange r = Observe(v, true).Range(CalibrationMethod::kEntropy);
  EXPECT_EQ(r.lo, 0.0f);
  EXPECT_GT(r.hi, 0.9f * 6.0f);
  EXPECT_LE(r.hi, 6.0f);
}

}  // namespace
}  // namespace tfn::quantizer
