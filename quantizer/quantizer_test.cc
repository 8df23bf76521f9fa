// tfn-quantize's library end to end on a small MLP: the quantized bundle
// runs int8 kernels and stays close to the float model (checked against the
// float graph run by the runtime), layers can be kept in float, and bad
// calibration data gets a one-line error that names the tensor.
#include "quantizer/quantizer.h"

#include <gtest/gtest.h>

#include <unistd.h>
#include <cmath>
#include <filesystem>

#include <random>

#include "optimizer/optimize.h"
#include "runtime/npy.h"
#include "runtime/program.h"
#include "runtime/runtime.h"

namespace tfn::quantizer {
namespace {

using ir::Graph;
using ir::ValueRef;

ConstTensor RandomFloats(const Shape& shape, uint32_t seed, float lo, float hi) {
  void* data = nullptr;
  ConstTensor t = ConstTensor::Allocate(DType::kFloat32, shape, &data);
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> u(lo, hi);
  for (int64_t i = 0; i < t.num_elements(); ++i) static_cast<float*>(data)[i] = u(gen);
  return t;
}

// x[?b,16] -> relu(x W1 + b1) -> W2 + b2 -> [?b,4], lowered as a bundle stores it.
exporter::ImportedBundle MlpBundle() {
  Graph g;
  ValueRef x = g.AddParameter({DType::kFloat32, SymShape{SymDim::Symbol("b"), 16}}, "x");
  auto layer = [&](ValueRef in, int64_t k, int64_t n, uint32_t seed, bool relu) {
    ValueRef v =
        *g.Add(OpId::kMatMul, {in, g.AddConstant(RandomFloats({k, n}, seed, -0.5f, 0.5f))});
    v = *g.Add(OpId::kAdd, {v, g.AddConstant(RandomFloats({n}, seed + 1, -0.1f, 0.1f))});
    return relu ? *g.Add(OpId::kRelu, {v}) : v;
  };
  g.SetResults({layer(layer(x, 16, 32, 1, true), 32, 4, 3, false)}, {"y"});
  EXPECT_TRUE(optimizer::OptimizeGraph(g).ok());
  exporter::ImportedBundle b;
  b.signatures.push_back({"serving_default", g});
  return b;
}

// x[?b,16] -> h = relu(x W1 + b1); relu(h + (h W2 + b2)) -> W3 + b3 -> [?b,4]:
// a residual block, lowered.
exporter::ImportedBundle ResidualBundle() {
  Graph g;
  ValueRef x = g.AddParameter({DType::kFloat32, SymShape{SymDim::Symbol("b"), 16}}, "x");
  auto dense = [&](ValueRef in, int64_t n, uint32_t seed) {
    ValueRef v =
        *g.Add(OpId::kMatMul, {in, g.AddConstant(RandomFloats({16, n}, seed, -0.4f, 0.4f))});
    return *g.Add(OpId::kAdd, {v, g.AddConstant(RandomFloats({n}, seed + 1, -0.1f, 0.1f))});
  };
  const ValueRef h = *g.Add(OpId::kRelu, {dense(x, 16, 1)});
  const ValueRef r = *g.Add(OpId::kRelu, {*g.Add(OpId::kAdd, {h, dense(h, 16, 3)})});
  g.SetResults({dense(r, 4, 5)}, {"y"});
  EXPECT_TRUE(optimizer::OptimizeGraph(g).ok());
  exporter::ImportedBundle b;
  b.signatures.push_back({"serving_default", g});
  return b;
}

std::vector<CalibrationBatch> Batches(int count) {
  std::vector<CalibrationBatch> out;
  for (int i = 0; i < count; ++i) out.push_back({RandomFloats({8, 16}, 100 + i, -1, 1)});
  return out;
}

ConstTensor RunGraph(const Graph& g, const ConstTensor& x) {
  absl::StatusOr<std::string> bytes = exporter::SerializeBundle({{"s", g}}, {});
  EXPECT_TRUE(bytes.ok()) << bytes.status();
  auto keep = std::make_shared<std::string>(*bytes);
  auto bundle = runtime::Bundle::FromMemory(keep->data(), keep->size(), keep);
  EXPECT_TRUE(bundle.ok()) << bundle.status().message();
  runtime::Session session(*bundle);
  auto out = session.Run("s", std::vector<ConstTensor>{x});
  EXPECT_TRUE(out.ok()) << out.status().message();
  return (*out)[0];
}

// max |quantized(x) - float(x)| / max |float(x)|, both graphs run by the runtime.
double RelativeMaxError(const Graph& float_graph, const Graph& quantized, const ConstTensor& x) {
  const ConstTensor f = RunGraph(float_graph, x), q = RunGraph(quantized, x);
  double max_f = 0, max_err = 0;
  for (int64_t i = 0; i < f.num_elements(); ++i) {
    const double fi = f.as<float>()[i];
    max_f = std::max(max_f, std::fabs(fi));
    max_err = std::max(max_err, std::fabs(fi - q.as<float>()[i]));
  }
  return max_err / max_f;
}

int Count(const Graph& g, OpId op) {
  int n = 0;
  for (const ir::Node& node : g.nodes()) n += node.op == op;
  return n;
}

TEST(Quantizer, MlpRunsInt8AndStaysCloseToFloat) {
  const exporter::ImportedBundle bundle = MlpBundle();
  for (CalibrationMethod method :
       {CalibrationMethod::kMinMax, CalibrationMethod::kPercentile, CalibrationMethod::kEntropy}) {
    QuantizeOptions options;
    options.method = method;
    absl::StatusOr<QuantizedBundle> q = QuantizeBundle(bundle, Batches(4), options);
    ASSERT_TRUE(q.ok()) << q.status();
    const Graph& g = q->signatures[0].graph;
    EXPECT_EQ(Count(g, OpId::kQLinearMatMul), 2) << g.ToString();
    ASSERT_EQ(q->report.layers.size(), 2u);
    for (const LayerReport& l : q->report.layers) {
      EXPECT_GT(l.error.SqnrDb(), 25) << q->report.ToString();
      EXPECT_FALSE(l.kept_float);
    }
    // Held-out input: int8 within 5% of the output's largest magnitude of
    // the float model (the runtime on the float bundle's graph).
    const ConstTensor x = RandomFloats({8, 16}, 999, -1, 1);
    EXPECT_LT(RelativeMaxError(bundle.signatures[0].graph, g, x), 0.05)
        << CalibrationMethodName(method);
  }
}

// Dynamic quantization: each matmul quantizes its input at run time
// (matmul_integer on the int8 weights), with float outputs; checked against
// the float model on held-out inputs as above.
TEST(Quantizer, DynamicMatMulsRunInt8AndStayCloseToFloat) {
  const exporter::ImportedBundle bundle = MlpBundle();
  QuantizeOptions options;
  options.dynamic = true;
  absl::StatusOr<QuantizedBundle> q = QuantizeBundle(bundle, Batches(2), options);
  ASSERT_TRUE(q.ok()) << q.status();
  const Graph& g = q->signatures[0].graph;
  EXPECT_EQ(Count(g, OpId::kMatMulInteger), 2) << g.ToString();
  EXPECT_EQ(Count(g, OpId::kFusedMatMul) + Count(g, OpId::kMatMul), 0) << g.ToString();
  EXPECT_EQ(q->report.method, "dynamic");
  for (const LayerReport& l : q->report.layers) {
    EXPECT_GT(l.error.SqnrDb(), 30) << q->report.ToString();
  }
  for (uint32_t seed : {999u, 1000u}) {
    // A held-out input with a wider range than the report's: ranges follow each run.
    const ConstTensor x = RandomFloats({8, 16}, seed, -3, 3);
    EXPECT_LT(RelativeMaxError(bundle.signatures[0].graph, g, x), 0.03);
  }
}

// x[?b,256] -> relu(x W1 + b1) -> W2 -> [?b,8], W1 large enough (128 KiB of
// float32) that export keeps it narrow (constant folding widens small casts).
exporter::ImportedBundle WideMlpBundle() {
  Graph g;
  ValueRef x = g.AddParameter({DType::kFloat32, SymShape{SymDim::Symbol("b"), 256}}, "x");
  ValueRef v = *g.Add(OpId::kMatMul, {x, g.AddConstant(RandomFloats({256, 128}, 7, -0.2f, 0.2f))});
  v = *g.Add(OpId::kRelu,
             {*g.Add(OpId::kAdd, {v, g.AddConstant(RandomFloats({128}, 8, -0.1f, 0.1f))})});
  g.SetResults({*g.Add(OpId::kMatMul, {v, g.AddConstant(RandomFloats({128, 8}, 9, -0.3f, 0.3f))})},
               {"y"});
  EXPECT_TRUE(optimizer::OptimizeGraph(g).ok());
  exporter::ImportedBundle b;
  b.signatures.push_back({"serving_default", g});
  return b;
}

// Nodes of `op` whose input `port` has dtype `t`.
int CountWithInputType(const Graph& g, OpId op, int port, DType t) {
  int n = 0;
  for (const ir::Node& node : g.nodes()) {
    n += node.op == op && static_cast<int>(node.inputs.size()) > port &&
         g.type(node.inputs[port]).dtype == t;
  }
  return n;
}

// --fp16-weights: the large weight stored float16 (packed, then cast), the
// model within float16's rounding of the float one; --bf16: the large
// matmul on bfloat16 panels (the bf16 GEMM), within bfloat16's rounding.
TEST(Quantizer, ReducedFloatWeightsStayCloseToFloat) {
  const exporter::ImportedBundle bundle = WideMlpBundle();
  std::vector<CalibrationBatch> batches;
  for (int i = 0; i < 2; ++i) batches.push_back({RandomFloats({8, 256}, 200 + i, -1, 1)});
  const ConstTensor x = RandomFloats({8, 256}, 999, -1, 1);
  struct Mode {
    ReducedFloat mode;
    const char* name;
    double min_sqnr, max_error;
  };
  // Relative errors: float16 rounds weights by <= 2^-11, bfloat16 by <= 2^-8
  // (and the bf16 matmul's inputs too); sums of 256 terms average them down.
  for (const Mode& m : {Mode{ReducedFloat::kFloat16Weights, "fp16-weights", 55, 2e-3},
                        Mode{ReducedFloat::kBFloat16, "bf16", 35, 1.5e-2}}) {
    SCOPED_TRACE(m.name);
    QuantizeOptions options;
    options.reduced_float = m.mode;
    absl::StatusOr<QuantizedBundle> q = QuantizeBundle(bundle, batches, options);
    ASSERT_TRUE(q.ok()) << q.status();
    const Graph& g = q->signatures[0].graph;
    EXPECT_EQ(q->report.method, m.name);
    ASSERT_EQ(q->report.layers.size(), 2u);
    for (const LayerReport& l : q->report.layers) {
      EXPECT_GT(l.error.SqnrDb(), m.min_sqnr) << q->report.ToString();
    }
    // The small layer ([128, 8]: 4 KiB) stays float32, and says why: export
    // would widen its weight back, leaving only the casts that round its input.
    EXPECT_FALSE(q->report.layers[0].kept_float);
    EXPECT_TRUE(q->report.layers[1].kept_float);
    EXPECT_NE(q->report.layers[1].why_float.find("widen it back"), std::string::npos)
        << q->report.ToString();
    if (m.mode == ReducedFloat::kBFloat16) {
      EXPECT_EQ(CountWithInputType(g, OpId::kFusedMatMul, 1, DType::kBFloat16), 1) << g.ToString();
      // No cast rounds an activation: the large layer's rounding is inside
      // its bf16 fused_matmul, the small layer has none.
      int rounding_casts = 0;
      for (const ir::Node& n : g.nodes()) {
        rounding_casts += n.op == OpId::kCast && n.outputs[0].dtype == DType::kBFloat16 &&
                          !g.ConstantValue(n.inputs[0]);
      }
      EXPECT_EQ(rounding_casts, 0) << g.ToString();
    } else {
      EXPECT_EQ(CountWithInputType(g, OpId::kCast, 0, DType::kFloat16), 1) << g.ToString();
    }
    EXPECT_LT(RelativeMaxError(bundle.signatures[0].graph, g, x), m.max_error);
  }
}

// The runtime widens the float16 weight once, at load (bundle_loader.cc):
// no cast is left among the optimized program's instructions; the
// reference kernels keep it as an instruction (the oracle runs every op).
TEST(Quantizer, RuntimeWidensFloat16WeightsAtLoad) {
  QuantizeOptions options;
  options.reduced_float = ReducedFloat::kFloat16Weights;
  absl::StatusOr<QuantizedBundle> q =
      QuantizeBundle(WideMlpBundle(), {{RandomFloats({2, 256}, 5, -1, 1)}}, options);
  ASSERT_TRUE(q.ok()) << q.status();
  absl::StatusOr<std::string> bytes =
      exporter::SerializeBundle({{"s", q->signatures[0].graph}}, {});
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  auto keep = std::make_shared<std::string>(*bytes);
  for (bool reference : {false, true}) {
    runtime::LoadOptions load;
    load.reference_kernels = reference;
    auto bundle = runtime::Bundle::FromMemory(keep->data(), keep->size(), keep, load);
    ASSERT_TRUE(bundle.ok()) << bundle.status().message();
    int casts = 0;
    for (const runtime::Instr& in : (*bundle)->module()->programs[0].instrs) {
      casts += in.op == OpId::kCast;
    }
    EXPECT_EQ(casts, reference ? 1 : 0);
  }
}

TEST(Quantizer, Float16WeightsOutOfRangeNameTheLayer) {
  exporter::ImportedBundle bundle = MlpBundle();
  // A weight float16 cannot hold: 1e5 > 65504 (in a weight over 64 KiB:
  // smaller ones stay float32, see above).
  Graph g;
  ValueRef x = g.AddParameter({DType::kFloat32, SymShape{SymDim::Symbol("b"), 16}}, "x");
  ConstTensor w = RandomFloats({16, 1100}, 1, -1, 1);
  const_cast<float*>(w.as<float>())[5] = 1e5f;
  g.SetResults({*g.Add(OpId::kMatMul, {x, g.AddConstant(w)})}, {"y"});
  bundle.signatures[0].graph = g;
  QuantizeOptions options;
  options.reduced_float = ReducedFloat::kFloat16Weights;
  absl::StatusOr<QuantizedBundle> q = QuantizeBundle(bundle, Batches(1), options);
  ASSERT_FALSE(q.ok());
  EXPECT_NE(q.status().message().find("float16's range"), std::string::npos) << q.status();
  EXPECT_NE(q.status().message().find("--keep-float %2"), std::string::npos) << q.status();
  // ... and keeping it float, as the error says, quantizes the rest.
  options.keep_float = {"%2"};
  q = QuantizeBundle(bundle, Batches(1), options);
  ASSERT_TRUE(q.ok()) << q.status();
  ASSERT_EQ(q->report.layers.size(), 1u);
  EXPECT_TRUE(q->report.layers[0].kept_float);
}

// The residual add is a layer of its own: with both inputs and its output
// quantized, fuse_qdq makes it one qlinear_add (its relu inside).
TEST(Quantizer, ResidualAddsRunInt8) {
  const exporter::ImportedBundle bundle = ResidualBundle();
  absl::StatusOr<QuantizedBundle> q = QuantizeBundle(bundle, Batches(4), {});
  ASSERT_TRUE(q.ok()) << q.status();
  const Graph& g = q->signatures[0].graph;
  EXPECT_EQ(Count(g, OpId::kQLinearMatMul), 3) << g.ToString();
  EXPECT_EQ(Count(g, OpId::kQLinearAdd), 1) << g.ToString();
  EXPECT_EQ(Count(g, OpId::kAdd) + Count(g, OpId::kRelu), 0) << g.ToString();
  ASSERT_EQ(q->report.layers.size(), 4u);
  EXPECT_EQ(q->report.layers[2].op, "add");
  for (const LayerReport& l : q->report.layers) {
    EXPECT_GT(l.error.SqnrDb(), 25) << q->report.ToString();
  }
  EXPECT_LT(RelativeMaxError(bundle.signatures[0].graph, g, RandomFloats({8, 16}, 999, -1, 1)),
            0.05);
}

// A relu6 (maximum and minimum with constants) joins its layer: the int8
// matmul clips, and no float op is left between the layers.
TEST(Quantizer, Relu6RunsInsideTheInt8Layer) {
  Graph g;
  ValueRef x = g.AddParameter({DType::kFloat32, SymShape{SymDim::Symbol("b"), 16}}, "x");
  ValueRef h = *g.Add(OpId::kMatMul, {x, g.AddConstant(RandomFloats({16, 16}, 1, -1, 1))});
  h = *g.Add(OpId::kMaximum, {h, g.AddConstant(ConstTensor::Scalar<float>(0))});
  h = *g.Add(OpId::kMinimum, {h, g.AddConstant(ConstTensor::Scalar<float>(6))});
  g.SetResults({*g.Add(OpId::kMatMul, {h, g.AddConstant(RandomFloats({16, 4}, 2, -1, 1))})}, {"y"});
  ASSERT_TRUE(optimizer::OptimizeGraph(g).ok());
  exporter::ImportedBundle bundle;
  bundle.signatures.push_back({"serving_default", g});
  absl::StatusOr<QuantizedBundle> q = QuantizeBundle(bundle, Batches(4), {});
  ASSERT_TRUE(q.ok()) << q.status();
  const Graph& out = q->signatures[0].graph;
  EXPECT_EQ(Count(out, OpId::kQLinearMatMul), 2) << out.ToString();
  EXPECT_EQ(Count(out, OpId::kMinimum) + Count(out, OpId::kMaximum), 0) << out.ToString();
  EXPECT_TRUE(q->report.dequantized_ops.empty()) << q->report.ToString();
  EXPECT_LT(RelativeMaxError(g, out, RandomFloats({8, 16}, 999, -1, 1)), 0.05);
}

TEST(Quantizer, KeepsLayersInFloatByIdAndBySqnr) {
  const exporter::ImportedBundle bundle = MlpBundle();
  absl::StatusOr<QuantizedBundle> all = QuantizeBundle(bundle, Batches(2), {});
  ASSERT_TRUE(all.ok()) << all.status();
  QuantizeOptions options;
  options.keep_float = {all->report.layers[1].id};
  absl::StatusOr<QuantizedBundle> q = QuantizeBundle(bundle, Batches(2), options);
  ASSERT_TRUE(q.ok()) << q.status();
  EXPECT_EQ(Count(q->signatures[0].graph, OpId::kQLinearMatMul), 1);
  EXPECT_TRUE(q->report.layers[1].kept_float);
  EXPECT_EQ(q->report.layers[1].why_float, "--keep-float");
  EXPECT_NE(q->report.ToString().find("float: --keep-float"), std::string::npos);

  options = {};
  options.keep_float_below_sqnr_db = 1000;  // every layer
  q = QuantizeBundle(bundle, Batches(2), options);
  ASSERT_TRUE(q.ok()) << q.status();
  EXPECT_EQ(Count(q->signatures[0].graph, OpId::kQLinearMatMul), 0);

  options = {};
  options.keep_float = {"%9999"};
  q = QuantizeBundle(bundle, Batches(2), options);
  ASSERT_FALSE(q.ok());
  EXPECT_NE(q.status().message().find("is not a layer; the layers are " + all->report.layers[0].id),
            std::string::npos)
      << q.status();
}

class CalibrationFolder : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("tfn_quantizer_test_" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  void Write(const std::string& name, const ConstTensor& t) {
    std::filesystem::create_directories((dir_ / name).parent_path());
    ASSERT_TRUE(runtime::WriteNpy((dir_ / name).string(), t).ok());
  }
  std::filesystem::path dir_;
};

TEST_F(CalibrationFolder, ReadsFilesAndBatchDirectories) {
  const exporter::ImportedBundle bundle = MlpBundle();
  const Graph& g = bundle.signatures[0].graph;
  Write("b.npy", RandomFloats({3, 16}, 1, -1, 1));
  Write("a.npy", RandomFloats({5, 16}, 2, -1, 1));
  absl::StatusOr<std::vector<CalibrationBatch>> batches = ReadCalibrationFolder(dir_.string(), g);
  ASSERT_TRUE(batches.ok()) << batches.status();
  ASSERT_EQ(batches->size(), 2u);
  EXPECT_EQ((*batches)[0][0].shape, (Shape{5, 16}));  // name order

  std::filesystem::remove_all(dir_);
  Write("0/x.npy", RandomFloats({2, 16}, 3, -1, 1));
  batches = ReadCalibrationFolder(dir_.string(), g);
  ASSERT_TRUE(batches.ok()) << batches.status();
  EXPECT_EQ(batches->size(), 1u);
}

TEST_F(CalibrationFolder, MismatchesNameTheTensor) {
  const exporter::ImportedBundle bundle = MlpBundle();
  const Graph& g = bundle.signatures[0].graph;
  Write("a.npy", RandomFloats({5, 15}, 2, -1, 1));
  absl::StatusOr<std::vector<CalibrationBatch>> b = ReadCalibrationFolder(dir_.string(), g);
  ASSERT_FALSE(b.ok());
  const std::string m(b.status().message());
  EXPECT_NE(m.find("a.npy': input 'x' f32[?b,16] was given f32[5,15]"), std::string::npos) << m;
  EXPECT_EQ(m.find('\n'), std::string::npos);

  std::filesystem::remove_all(dir_);
  Write("0/y.npy", RandomFloats({2, 16}, 3, -1, 1));
  b = ReadCalibrationFolder(dir_.string(), g);
  ASSERT_FALSE(b.ok());
  EXPECT_NE(std::string(b.status().message()).find("has no x.npy for input 'x'"), std::string::npos)
      << b.status();

  std::filesystem::remove_all(dir_);
  std::filesystem::create_directories(dir_);
  b = ReadCalibrationFolder(dir_.string(), g);
  ASSERT_FALSE(b.ok());
  EXPECT_NE(std::string(b.status().message()).find("holds no .npy files"), std::string::npos);
}

}  // namespace
}  // namespace tfn::quantizer
