// Implementation of the calibration statistics and the three range methods.
#include "quantizer/range_observer.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace tfn::quantizer {

void RangeObserver::ObserveMinMax(const float* values, int64_t count) {
  for (int64_t i = 0; i < count; ++i) {
    const float v = values[i];
    if (v != v) continue;
    if (min_ > max_) {
      min_ = max_ = v;
      continue;
    }
    min_ = std::min(min_, v);
    max_ = std::max(max_, v);
  }
}

float RangeObserver::AbsMax() const {
  if (!observed()) return 0;
  return std::min(std::max(std::fabs(min_), std::fabs(max_)), std::numeric_limits<float>::max());
}

void RangeObserver::ObserveHistogram(const float* values, int64_t count) {
  if (histogram_.empty()) {
    histogram_.assign(kBins, 0);
    bin_width_ = AbsMax() > 0 ? static_cast<double>(AbsMax()) / kBins : 1;
  }
  for (int64_t i = 0; i < count; ++i) {
    const double a = std::fabs(static_cast<double>(values[i]));
    if (a != a) continue;
    const double bin = std::floor(a / bin_width_);
    histogram_[bin >= kBins ? kBins - 1 : static_cast<int>(bin)] += 1;
  }
}

double RangeObserver::PercentileThreshold(double percentile) const {
  double total = 0;
  for (double c : histogram_) total += c;
  const double want = total * std::min(percentile, 100.0) / 100.0;
  double seen = 0;
  for (int i = 0; i < kBins; ++i) {
    seen += histogram_[i];
    if (seen >= want) return (i + 1) * bin_width_;
  }
  return kBins * bin_width_;
}

// For each candidate threshold of i bins: P is the histogram clipped there
// (the outliers added to its last bin), Q the same bins merged into the
// quantized levels and spread back uniformly over the bins that held
// values. The threshold with the least KL(P || Q) wins.
double RangeObserver::EntropyThreshold() const {
  // Levels over [0, t]: 256 for a tensor without negative values (uint8 from
  // zero), 128 for |x| of a signed one.
  const int levels = min_ >= 0 ? 256 : 128;
  double total = 0;
  for (double c : histogram_) total += c;
  if (total == 0) return kBins * bin_width_;
  double best_kl = std::numeric_limits<double>::infinity();
  int best = kBins;
  std::vector<double> q(kBins);
  double outside = total;  // the counts at and above bin i
  for (int i = 0; i < levels; ++i) outside -= histogram_[i];
  for (int i = levels; i <= kBins; ++i) {
    if (i > levels) outside -= histogram_[i - 1];
    // Q: the first i bins merged into `levels` groups, spread over their nonzero bins.
    for (int j = 0; j < levels; ++j) {
      const int start = static_cast<int>(static_cast<int64_t>(j) * i / levels);
      const int stop = static_cast<int>(static_cast<int64_t>(j + 1) * i / levels);
      double sum = 0;
      int nonzero = 0;
      for (int k = start; k < stop; ++k) {
        sum += histogram_[k];
        nonzero += histogram_[k] != 0;
      }
      for (int k = start; k < stop; ++k) q[k] = histogram_[k] != 0 ? sum / nonzero : 0;
    }
    double kl = 0;
    for (int k = 0; k < i; ++k) {
      const double p = (histogram_[k] + (k == i - 1 ? outside : 0)) / total;
      if (p == 0) continue;
      // The clipped outliers can land in a bin Q holds nothing in.
      const double qk = std::max(q[k] / total, 1e-12);
      kl += p * std::log(p / qk);
    }
    if (kl < best_kl) {
      best_kl = kl;
      best = i;
    }
  }
  return best * bin_width_;
}

FloatRange RangeObserver::Range(CalibrationMethod method, double percentile) const {
  if (!observed()) return FloatRange{0, 0};
  double lo = min_, hi = max_;
  if (method != CalibrationMethod::kMinMax && !histogram_.empty()) {
    const double t = method == CalibrationMethod::kPercentile ? PercentileThreshold(percentile)
                                                              : EntropyThreshold();
    lo = std::max(lo, -t);
    hi = std::min(hi, t);
  }
  lo = std::max(std::min(lo, 0.0), -static_cast<double>(std::numeric_limits<float>::max()));
  hi = std::min(std::max(hi, 0.0), static_cast<double>(std::numeric_limits<float>::max()));
  return FloatRange{static_cast<float>(lo), static_cast<float>(hi)};
}

}  // namespace tfn::quantizer
