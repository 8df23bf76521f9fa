// Calibration statistics of one float tensor and the range its 8-bit
// quantization should cover, by one of three methods:
//
//   min-max     the observed [min, max]: nothing clipped, coarsest steps.
//   percentile  clips |x| at the given percentile of the |x| histogram (as
//               ONNX Runtime's calibrator does): rare outliers are clipped,
//               every other value gets finer steps.
//   entropy     the clipping threshold whose quantized distribution is
//               closest to the observed one in KL divergence (TensorRT's
//               calibration, also ONNX Runtime's "Entropy").
//
// Observation runs in two passes over the calibration data: ObserveMinMax
// on every batch, then (for percentile and entropy) ObserveHistogram on
// every batch, whose 2048 bins span [0, max |x|] of the first pass. Not
// thread-safe: one observer per tensor, fed from one thread.
#pragma once

#include <cstdint>
#include <vector>

namespace tfn::quantizer {

enum class CalibrationMethod { kMinMax, kPercentile, kEntropy };

struct FloatRange {
  float lo = 0, hi = 0;
};

class RangeObserver {
 public:
  static constexpr int kBins = 2048;

  // Pass 1. NaNs are ignored; infinities widen the range (and are clipped
  // by percentile and entropy).
  void ObserveMinMax(const float* values, int64_t count);
  // Pass 2: after every ObserveMinMax call.
  void ObserveHistogram(const float* values, int64_t count);
  bool observed() const { return min_ <= max_; }
  static bool NeedsHistogram(CalibrationMethod method) {
    return method != CalibrationMethod::kMinMax;
  }

  // The range to quantize to; `percentile` (in (0, 100]) is percentile's.
  // Always holds 0 (a zero point must be representable), and is the
  // observed range clipped at a threshold: never wider than [min, max].
  FloatRange Range(CalibrationMethod method, double percentile = 99.999) const;

 private:
  float AbsMax() const;
  // The |x| threshold by each method, from the histogram.
  double PercentileThreshold(double percentile) const;
  double EntropyThreshold() const;

  float min_ = 1, max_ = 0;  // empty until the first finite value
  std::vector<double> histogram_;
  double bin_width_ = 0;
};

}  // namespace tfn::quantizer
