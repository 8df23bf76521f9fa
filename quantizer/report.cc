// The quantization report: error statistics and their text.
#include <cmath>
#include <cstdio>
#include <limits>

#include "quantizer/quantizer.h"

namespace tfn::quantizer {

void ErrorStats::Add(const ConstTensor& quantized, const ConstTensor& reference) {
  const int64_t n = std::min(quantized.num_elements(), reference.num_elements());
  for (int64_t i = 0; i < n; ++i) {
    const double r = reference.ElementAsDouble(i), e = quantized.ElementAsDouble(i) - r;
    signal += r * r;
    noise += e * e;
    max_abs_error = std::max(max_abs_error, std::fabs(e));
  }
}

double ErrorStats::SqnrDb() const {
  if (noise == 0) return std::numeric_limits<double>::infinity();
  return 10 * std::log10(signal / noise);
}

const char* CalibrationMethodName(CalibrationMethod method) {
  switch (method) {
    case CalibrationMethod::kMinMax:
      return "minmax";
    case CalibrationMethod::kPercentile:
      return "percentile";
    case CalibrationMethod::kEntropy:
      return "entropy";
  }
  return "?";
}

namespace {
std::string Row(const char* a, const char* b, const char* c, const std::string& d,
                const std::string& e) {
  char line[256];
  std::snprintf(line, sizeof line, "  %-8s %-8s %-22s %10s %12s", a, b, c, d.c_str(), e.c_str());
  return line;
}
std::string Number(const char* format, double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}
std::string Sqnr(const ErrorStats& e) {
  return std::isinf(e.SqnrDb()) ? "inf" : Number("%.1f", e.SqnrDb());
}
}  // namespace

std::string QuantizeReport::ToString() const {
  const bool reduced_float = method == "fp16-weights" || method == "bf16";
  std::string s = "signature '" + signature + "': " + std::to_string(layers.size()) + " layers, " +
                  (method == "dynamic" ? "inputs quantized at run time (dynamic), measured"
                   : reduced_float     ? method + ", measured"
                                       : "calibrated (" + method + ")") +
                  " on " + std::to_string(calibration_batches) + " batches\n";
  const std::string form = reduced_float ? (method == "bf16" ? "bf16" : "fp16 weights") : "int8";
  s += Row("layer", "op", "output", "SQNR dB", "max |error|") + "\n";
  for (const LayerReport& l : layers) {
    std::string line = Row(l.id.c_str(), l.op.c_str(), l.type.c_str(), Sqnr(l.error),
                           Number("%.4g", l.error.max_abs_error));
    s += line + (l.kept_float ? "  float: " + l.why_float : "  " + form) + "\n";
  }
  s += "model outputs against the float model:\n";
  for (const auto& [name, e] : outputs) {
    s += Row(name.c_str(), "", "", Sqnr(e), Number("%.4g", e.max_abs_error)) + "\n";
  }
  if (!dequantized_ops.empty()) {
    s += "run in float on dequantized values:";
    for (const std::string& op : dequantized_ops) s += " " + op;
    s += "\n";
  }
  return s;
}

}  // namespace tfn::quantizer
