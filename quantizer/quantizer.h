// Post-training static int8 quantization of a bundle's signature: what
// tfn-quantize runs (tools/quantize_main.cc), as a library.
//
//   1. The signature's graph is made a float graph of single ops again:
//      variables no signature assigns become constants, and the fused,
//      prepacked ops the bundle stores are unlowered (ir/passes/unlower_fused.h).
//   2. Calibration runs it on the runtime over every batch and observes the
//      values the int8 layers will read and write (quantize_graph.h), then
//      picks each one's range (range_observer.h: min-max, percentile, entropy).
//   3. The graph with QDQ pairs is run once more beside a float twin of each
//      layer: the report gives each layer's SQNR and max abs error against
//      the float layer on the same input, and each output's against the
//      float model (as TFLite's quantization debugger does). Layers asked
//      for, or under an SQNR threshold, stay float, and the report is made
//      again for what is kept.
//   4. The QDQ graph goes through the pass pipeline, whose fuse_qdq makes the
//      int8 kernels; other signatures are kept as they were, and variables
//      only the quantized signature read are dropped.
//
// Thread-safety: QuantizeBundle keeps no state between calls.
#pragma once

#include <limits>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "exporter/bundle_reader.h"
#include "exporter/bundle_writer.h"
#include "ir/graph.h"
#include "quantizer/calibration_data.h"
#include "quantizer/float_graph.h"
#include "quantizer/range_observer.h"
#include "quantizer/reduced_float.h"

namespace tfn::quantizer {

struct QuantizeOptions {
  std::string signature = "serving_default";
  CalibrationMethod method = CalibrationMethod::kMinMax;
  double percentile = 99.999;  // kPercentile's, in (0, 100]
  // Layers kept in float by id ("%12", as the report prints them).
  std::vector<std::string> keep_float;
  // Layers whose own SQNR is below this many dB stay float (-inf: none).
  double keep_float_below_sqnr_db = -std::numeric_limits<double>::infinity();
  int num_threads = 0;  // of the calibration runs; 0: every core
  // Dynamic quantization instead of static: matmul layers quantize their
  // input at run time (int8_layers.h) and give float outputs; no ranges are
  // calibrated, and the batches serve the report only. For matmul-heavy
  // models whose activations have no stable range (ONNX Runtime's
  // quantize_dynamic).
  bool dynamic = false;
  // Reduced float instead of int8 (reduced_float.h: --fp16-weights, --bf16):
  // every conv2d and matmul layer; nothing is calibrated, and the batches
  // serve the report only.
  ReducedFloat reduced_float = ReducedFloat::kNone;
};

// Error of one quantized value against its float reference, over all batches.
struct ErrorStats {
  double signal = 0, noise = 0;  // sums of squares of the reference and of the error
  double max_abs_error = 0;
  void Add(const ConstTensor& quantized, const ConstTensor& reference);
  double SqnrDb() const;  // +inf when there is no error
};

struct LayerReport {
  std::string id;    // "%12"
  std::string op;    // "conv2d", "matmul"
  std::string type;  // of its output, "f32[?s0,8,8,32]"
  ErrorStats error;
  bool kept_float = false;
  std::string why_float;  // when kept_float
};

struct QuantizeReport {
  std::string signature;
  std::string method;
  size_t calibration_batches = 0;
  std::vector<LayerReport> layers;
  std::vector<std::pair<std::string, ErrorStats>> outputs;  // by output name
  std::vector<std::string> dequantized_ops;  // float ops left reading dequantized values
  std::string ToString() const;
};

struct QuantizedBundle {
  std::vector<exporter::SignatureToExport> signatures;
  std::vector<exporter::VariableToExport> variables;
  QuantizeReport report;
};

absl::StatusOr<QuantizedBundle> QuantizeBundle(const exporter::ImportedBundle& bundle,
                                               const std::vector<CalibrationBatch>& batches,
                                               const QuantizeOptions& options);

const char* CalibrationMethodName(CalibrationMethod method);

}  // namespace tfn::quantizer
