// Implementation of post-training static int8 quantization (steps 2-4 of
// quantizer.h).
#include "quantizer/quantizer.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

#include "ir/passes/constant_folding.h"
#include "ir/passes/fuse_qdq.h"
#include "optimizer/optimize.h"
#include "quantizer/graph_runner.h"
#include "quantizer/quantize_graph.h"

namespace tfn::quantizer {
namespace {

using ir::Graph;
using ir::ValueRef;

// The graph optimized and lowered as a bundle's graph is, then its runner.
absl::StatusOr<std::unique_ptr<GraphRunner>> Runner(Graph graph, int num_threads) {
  absl::Status st = optimizer::OptimizeGraph(graph);
  if (!st.ok()) return st;
  return GraphRunner::Create(graph, num_threads);
}

struct Calibration {
  std::map<ValueRef, FloatRange> ranges;
  std::vector<std::vector<ConstTensor>> float_outputs;  // per batch: the float model's results
};

// Step 2: every batch through the float graph with the observed values as
// extra results; once for min and max, once more for the histograms.
absl::StatusOr<Calibration> Calibrate(const Graph& graph, const std::vector<ValueRef>& values,
                                      const std::vector<CalibrationBatch>& batches,
                                      const QuantizeOptions& options) {
  Graph observed = graph;
  std::vector<ValueRef> results = graph.results();
  std::vector<std::string> names = graph.result_names();
  const size_t own = results.size();
  names.resize(own);
  for (ValueRef v : values) {
    results.push_back(v);
    names.push_back("observed_" + std::to_string(v.node) + "_" + std::to_string(v.port));
  }
  observed.SetResults(results, names);
  absl::StatusOr<std::unique_ptr<GraphRunner>> runner = Runner(observed, options.num_threads);
  if (!runner.ok()) return runner.status();
  std::vector<RangeObserver> observers(values.size());
  Calibration out;
  const int passes = !values.empty() && RangeObserver::NeedsHistogram(options.method) ? 2 : 1;
  for (int pass = 0; pass < passes; ++pass) {
    for (const CalibrationBatch& batch : batches) {
      absl::StatusOr<std::vector<ConstTensor>> r = (*runner)->Run(batch);
      if (!r.ok()) return r.status();
      for (size_t k = 0; k < values.size(); ++k) {
        const ConstTensor& t = (*r)[own + k];
        if (pass == 0) observers[k].ObserveMinMax(t.as<float>(), t.num_elements());
        if (pass == 1) observers[k].ObserveHistogram(t.as<float>(), t.num_elements());
      }
      if (pass == 0) out.float_outputs.emplace_back(r->begin(), r->begin() + own);
    }
  }
  for (size_t k = 0; k < values.size(); ++k) {
    out.ranges[values[k]] = observers[k].Range(options.method, options.percentile);
  }
  return out;
}

// Step 3: the report of quantizing `quantized` (the other layers stay float).
absl::StatusOr<QuantizeReport> Evaluate(const Graph& graph, const std::vector<Layer>& layers,
                                        const std::set<std::string>& quantized,
                                        const Calibration& calibration,
                                        const std::vector<CalibrationBatch>& batches,
                                        const QuantizeOptions& options) {
  std::vector<Layer> chosen;
  for (const Layer& l : layers) {
    if (quantized.count(l.id)) chosen.push_back(l);
  }
  absl::StatusOr<Graph> qdq =
      InsertQdq(graph, chosen, calibration.ranges,
                {/*float_twins=*/true, options.dynamic, options.reduced_float});
  if (!qdq.ok()) return qdq.status();
  absl::StatusOr<std::unique_ptr<GraphRunner>> runner = Runner(*qdq, options.num_threads);
  if (!runner.ok()) return runner.status();
  QuantizeReport report;
  report.signature = options.signature;
  report.method = options.reduced_float != ReducedFloat::kNone
                      ? ReducedFloatName(options.reduced_float)
                  : options.dynamic ? "dynamic"
                                    : CalibrationMethodName(options.method);
  report.calibration_batches = batches.size();
  std::map<std::string, size_t> row;
  for (const Layer& l : layers) {
    const ir::Node& n = graph.node(l.root);
    row[l.id] = report.layers.size();
    report.layers.push_back({l.id, n.def().name, graph.type(l.output).ToString(), {}, false, ""});
  }
  const size_t own = graph.results().size();
  for (size_t i = 0; i < own; ++i) report.outputs.push_back({graph.result_names()[i], {}});
  for (size_t b = 0; b < batches.size(); ++b) {
    absl::StatusOr<std::vector<ConstTensor>> r = (*runner)->Run(batches[b]);
    if (!r.ok()) return r.status();
    for (size_t i = 0; i < own; ++i) {
      report.outputs[i].second.Add((*r)[i], calibration.float_outputs[b][i]);
    }
    for (size_t k = 0; k < chosen.size(); ++k) {
      report.layers[row[chosen[k].id]].error.Add((*r)[own + 2 * k], (*r)[own + 2 * k + 1]);
    }
  }
  return report;
}

}  // namespace

absl::StatusOr<QuantizedBundle> QuantizeBundle(const exporter::ImportedBundle& bundle,
                                               const std::vector<CalibrationBatch>& batches,
                                               const QuantizeOptions& options) {
  absl::StatusOr<Graph> graph = PrepareFloatGraph(bundle, options.signature);
  if (!graph.ok()) return graph.status();
  if (batches.empty()) return absl::InvalidArgumentError("no calibration batches were given");
  for (size_t b = 0; b < batches.size(); ++b) {
    absl::Status st =
        CheckCalibrationBatch(batches[b], *graph, "calibration batch " + std::to_string(b));
    if (!st.ok()) return st;
  }
  std::vector<Layer> layers = FindLayers(*graph);
  const bool reduced = options.reduced_float != ReducedFloat::kNone;
  if (reduced) {  // conv2d and matmul weights; residual adds have none
    layers.erase(std::remove_if(layers.begin(), layers.end(),
                                [](const Layer& l) { return l.input2.valid(); }),
                 layers.end());
  }
  if (options.dynamic) {  // matmuls with [K, N] weights only (as ONNX Runtime's dynamic mode)
    layers.erase(std::remove_if(layers.begin(), layers.end(),
                                [&](const Layer& l) {
                                  return graph->node(l.root).op != OpId::kMatMul ||
                                         l.weight_axis != 1;
                                }),
                 layers.end());
  }
  if (layers.empty()) {
    return absl::InvalidArgumentError("signature '" + options.signature + "' has no " +
                                      (options.dynamic ? "matmul" : "conv2d or matmul") +
                                      " with constant float32 weights to quantize");
  }
  std::set<std::string> quantized, all_ids;
  for (const Layer& l : layers) all_ids.insert(l.id);
  quantized = all_ids;
  std::map<std::string, std::string> why_float;
  for (const std::string& id : options.keep_float) {
    if (!all_ids.count(id)) {
      std::string ids;
      for (const Layer& l : layers) ids += " " + l.id;
      return absl::InvalidArgumentError("--keep-float " + id + " is not a layer; the layers are" +
                                        ids);
    }
    why_float[id] = "--keep-float";
    quantized.erase(id);  // never quantized, not even for the first report
  }
  // A float32 weight small enough that the export folds cast(narrow weight)
  // back to float32 (constant folding's size rule) gains nothing narrow; with
  // --bf16 the casts rounding its input would stay and only cost time (the
  // zoo's transformer_encoder, all of whose weights are small, ran 0.95x).
  if (reduced) {
    for (const Layer& l : layers) {
      const int64_t bytes = graph->ConstantValue(graph->node(l.root).inputs[1])->byte_size();
      if (why_float.count(l.id) || !ir::FoldsWithin(bytes, bytes / 2)) continue;
      why_float[l.id] = "weight of " + std::to_string(bytes) +
                        " bytes <= " + std::to_string(ir::kMaxGrowBytes / 1024) +
                        " KiB: export would widen it back to float32";
      quantized.erase(l.id);
    }
  }
  // Dynamic quantization needs no ranges: the batches give the report's float outputs.
  absl::StatusOr<Calibration> calibration = Calibrate(
      *graph, options.dynamic || reduced ? std::vector<ValueRef>{} : QuantizedValues(layers),
      batches, options);
  if (!calibration.ok()) return calibration.status();
  absl::StatusOr<QuantizeReport> report =
      Evaluate(*graph, layers, quantized, *calibration, batches, options);
  if (!report.ok()) return report.status();
  for (const LayerReport& l : report->layers) {
    if (l.error.SqnrDb() < options.keep_float_below_sqnr_db && !why_float.count(l.id)) {
      char buf[96];
      std::snprintf(buf, sizeof buf, "SQNR %.1f dB < %.1f dB", l.error.SqnrDb(),
                    options.keep_float_below_sqnr_db);
      why_float[l.id] = buf;
    }
  }
  std::vector<Layer> chosen;
  for (const Layer& l : layers) {
    if (!why_float.count(l.id)) chosen.push_back(l);
  }
  if (!why_float.empty()) {  // the report of what is kept
    for (const auto& [id, why] : why_float) quantized.erase(id);
    report = Evaluate(*graph, layers, quantized, *calibration, batches, options);
    if (!report.ok()) return report.status();
    for (LayerReport& l : report->layers) {
      if (!why_float.count(l.id)) continue;
      l.kept_float = true;
      l.why_float = why_float[l.id];
    }
  }
  absl::StatusOr<Graph> qdq =
      InsertQdq(*graph, chosen, calibration->ranges,
                {/*float_twins=*/false, options.dynamic, options.reduced_float});
  if (!qdq.ok()) return qdq.status();
  absl::Status st = optimizer::OptimizeGraph(*qdq);
  if (!st.ok()) return st;
  report->dequantized_ops = ir::UnfusedQdqOps(*qdq);
  QuantizedBundle out;
  out.report = *std::move(report);
  for (const exporter::SignatureToExport& s : bundle.signatures) {
    out.signatures.push_back(s.name == options.signature ? exporter::SignatureToExport{s.name, *qdq}
                                                         : s);
  }
  for (const exporter::VariableToExport& v : bundle.variables) {  // those still used
    for (const exporter::SignatureToExport& s : out.signatures) {
      if (UsesVariable(s.graph, v.name)) {
        out.variables.push_back(v);
        break;
      }
    }
  }
  return out;
}

}  // namespace tfn::quantizer
