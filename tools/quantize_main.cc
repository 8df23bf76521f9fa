// tfn-quantize: post-training static int8 quantization, bundle in, bundle
// out (quantizer/quantizer.h).
//
//   tfn-quantize model.tfn -o model_int8.tfn --calibration calib/
//   tfn-quantize model.tfn -o model_int8.tfn --calibration-random 8 --method entropy
//   tfn-quantize model.tfn -o model_int8.tfn --calibration calib/ --keep-float-below-sqnr 20
//   tfn-quantize transformer.tfn -o transformer_int8.tfn --dynamic
//   tfn-quantize model.tfn -o model_fp16.tfn --fp16-weights
//   tfn-quantize transformer.tfn -o transformer_bf16.tfn --bf16
//
// Prints the report (per layer SQNR and max abs error, per output the same
// against the float model) and writes the bundle atomically.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "exporter/bundle_reader.h"
#include "exporter/bundle_writer.h"
#include "quantizer/quantizer.h"
#include "tools/args.h"
#include "tools/run_io.h"

namespace tfn::tools {
namespace {

constexpr char kTool[] = "tfn-quantize";

double ParseNumber(const std::string& flag, const std::string& text) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !std::isfinite(v)) {
    Fail(kTool, flag + " expects a number, got '" + text + "'", 2);
  }
  return v;
}

quantizer::CalibrationMethod ParseMethod(const std::string& text) {
  if (text == "minmax") return quantizer::CalibrationMethod::kMinMax;
  if (text == "percentile") return quantizer::CalibrationMethod::kPercentile;
  if (text == "entropy") return quantizer::CalibrationMethod::kEntropy;
  Fail(kTool, "--method '" + text + "' is not one of minmax, percentile, entropy", 2);
}

// `count` batches drawn like tfn-run's --random-inputs (floats uniform in
// [-1, 1)), dynamic dims set to `batch`.
std::vector<quantizer::CalibrationBatch> RandomBatches(const ir::Graph& g, int64_t count,
                                                       int64_t batch) {
  std::vector<quantizer::CalibrationBatch> out;
  for (int64_t b = 0; b < count; ++b) {
    quantizer::CalibrationBatch inputs;
    for (int i = 0; i < static_cast<int>(g.params().size()); ++i) {
      const ir::TensorType& t = g.type(g.param(i));
      Shape shape;
      for (int d = 0; d < t.shape.rank(); ++d) {
        shape.push_back(t.shape[d].is_static() ? t.shape[d].value() : batch);
      }
      inputs.push_back(RandomTensor(t.dtype, shape, static_cast<uint64_t>(b * 1000 + i + 1)));
    }
    out.push_back(std::move(inputs));
  }
  return out;
}

int Main(int argc, char** argv) {
  ArgParser args(kTool,
                 "IN.tfn -o OUT.tfn (--calibration DIR | --calibration-random N | --dynamic | "
                 "--fp16-weights | --bf16) [options]",
                 "Quantizes a bundle's signature to int8 (post-training): uint8 activations "
                 "calibrated on the given inputs (or, with --dynamic, quantized at run time), "
                 "int8 weights per output channel; or to float16 weights or bfloat16. "
                 "Prints each layer's error against the float model.");
  std::string in, out, signature = "serving_default", calibration, method = "minmax";
  std::string percentile = "99.999", below_sqnr, compression = "none";
  std::vector<std::string> keep_float;
  int64_t random_count = 0, batch = 1, threads = 0;
  bool random_given = false, dynamic = false, fp16_weights = false, bf16 = false;
  args.Positional("IN.tfn", "the float bundle", &in);
  args.String("--output|-o", "OUT.tfn", "the quantized bundle to write", &out);
  args.String("--signature", "SIG", "the signature to quantize (others are kept)", &signature);
  args.String("--calibration", "DIR",
              "calibration inputs: DIR/*.npy (one input) or DIR/BATCH/INPUT.npy", &calibration);
  args.Int("--calibration-random", "N", "calibrate on N batches of random inputs instead",
           &random_count, &random_given);
  args.Int("--batch", "B", "dynamic dims of random batches (default 1)", &batch);
  args.String("--method", "M", "minmax (default), percentile or entropy", &method);
  args.String("--percentile", "P", "percentile's clipping point (default 99.999)", &percentile);
  args.List("--keep-float", "ID", "keep this layer (as the report names it, e.g. %12) in float",
            &keep_float);
  args.String("--keep-float-below-sqnr", "DB", "keep layers whose SQNR is below DB in float",
              &below_sqnr);
  args.Flag("--dynamic",
            "dynamic quantization of matmuls: inputs quantized at run time, no calibration "
            "(the report is measured on the given inputs, or on 4 random batches)",
            &dynamic);
  args.Flag("--fp16-weights",
            "store conv2d and matmul weights as float16, computed in float32 (half the "
            "bundle; no calibration)",
            &fp16_weights);
  args.Flag("--bf16",
            "bfloat16 weights, and matmuls on bfloat16 inputs with float32 sums (the bf16 "
            "GEMM where the CPU has AVX512-BF16; no calibration)",
            &bf16);
  args.Int("--threads", "T", "threads of the calibration runs (default: every core)", &threads);
  args.String("--compression", "C", "none (default), zstd or zstd:LEVEL", &compression);
  args.Examples({"tfn-quantize model.tfn -o model_int8.tfn --calibration calib/",
                 "tfn-quantize model.tfn -o model_int8.tfn --calibration-random 8 --method entropy",
                 "tfn-quantize transformer.tfn -o transformer_int8.tfn --dynamic",
                 "tfn-quantize model.tfn -o model_fp16.tfn --fp16-weights",
                 "tfn-quantize transformer.tfn -o transformer_bf16.tfn --bf16"});
  ExitOnError(args, args.Parse(argc, argv));
  if (out.empty()) Fail(kTool, "missing -o OUT.tfn: where to write the quantized bundle", 2);
  if (!calibration.empty() && random_given) {
    Fail(kTool, "give one of --calibration DIR and --calibration-random N, not both", 2);
  }
  if (dynamic + fp16_weights + bf16 > 1) {
    Fail(kTool, "give at most one of --dynamic, --fp16-weights and --bf16", 2);
  }
  const bool uncalibrated = dynamic || fp16_weights || bf16;
  if (calibration.empty() && !random_given) {
    if (!uncalibrated) {
      Fail(kTool,
           "give --calibration DIR or --calibration-random N (or --dynamic, "
           "--fp16-weights or --bf16, which need none)",
           2);
    }
    random_given = true;  // the report's inputs
    random_count = 4;
  }
  quantizer::QuantizeOptions options;
  options.signature = signature;
  options.method = ParseMethod(method);
  options.percentile = ParseNumber("--percentile", percentile);
  if (!(options.percentile > 0 && options.percentile <= 100)) {
    Fail(kTool, "--percentile must be in (0, 100], got " + percentile, 2);
  }
  if (!below_sqnr.empty()) {
    options.keep_float_below_sqnr_db = ParseNumber("--keep-float-below-sqnr", below_sqnr);
  }
  options.keep_float = keep_float;
  options.num_threads = static_cast<int>(threads);
  options.dynamic = dynamic;
  options.reduced_float = bf16           ? quantizer::ReducedFloat::kBFloat16
                          : fp16_weights ? quantizer::ReducedFloat::kFloat16Weights
                                         : quantizer::ReducedFloat::kNone;
  exporter::ExportOptions export_options;
  absl::StatusOr<exporter::ExportOptions::Compression> c =
      exporter::ParseCompression(compression, &export_options.zstd_level);
  if (!c.ok()) Fail(kTool, std::string(c.status().message()), 2);
  export_options.compression = *c;

  absl::StatusOr<exporter::ImportedBundle> bundle = exporter::ReadBundleFile(in);
  if (!bundle.ok()) Fail(kTool, "reading '" + in + "': " + std::string(bundle.status().message()));
  absl::StatusOr<ir::Graph> graph = quantizer::PrepareFloatGraph(*bundle, signature);
  if (!graph.ok()) Fail(kTool, std::string(graph.status().message()));
  std::vector<quantizer::CalibrationBatch> batches;
  if (random_given) {
    if (random_count == 0) Fail(kTool, "--calibration-random needs at least 1 batch", 2);
    batches = RandomBatches(*graph, random_count, batch);
  } else {
    absl::StatusOr<std::vector<quantizer::CalibrationBatch>> read =
        quantizer::ReadCalibrationFolder(calibration, *graph);
    if (!read.ok()) Fail(kTool, std::string(read.status().message()));
    batches = *std::move(read);
  }
  absl::StatusOr<quantizer::QuantizedBundle> q =
      quantizer::QuantizeBundle(*bundle, batches, options);
  if (!q.ok()) Fail(kTool, std::string(q.status().message()));
  std::fputs(q->report.ToString().c_str(), stdout);
  export_options.metadata = bundle->metadata;
  export_options.metadata.push_back(
      {"tfn-quantize",
       std::string(uncalibrated ? q->report.method : "int8 static, method " + method) +
           ", signature '" + signature + "'"});
  absl::Status st = exporter::WriteBundle(out, q->signatures, q->variables, export_options);
  if (!st.ok()) Fail(kTool, "writing '" + out + "': " + std::string(st.message()));
  std::printf("wrote %s\n", out.c_str());
  return 0;
}

}  // namespace
}  // namespace tfn::tools

int main(int argc, char** argv) { return tfn::tools::Main(argc, argv); }
