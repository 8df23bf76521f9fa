// PyTorch's post-training-quantized models exported as QDQ ONNX graphs
// (tests/quant/make_qdq_models.py, made at build time: a small convnet with
// per-tensor and per-channel weights, resnet18 and mobilenet_v2) import into
// bundles whose every convolution and linear layer runs as an int8 op
// (ir/passes/fuse_qdq.h), and give:
//   - PyTorch's quantized output within a few output quantization steps
//     (the tolerance per model in kStepsVsTorch: the two engines round a
//     handful of intermediate values differently, and deeper nets carry a
//     one-step difference further; make_qdq_models.py measured ONNX Runtime
//     against PyTorch at the same distances);
//   - the same classification as PyTorch;
//   - the same output from the runtime and from an AOT object, bit for bit
//     (one integer arithmetic in every kernel variant).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "exporter/bundle_writer.h"
#include "importers/onnx/onnx_importer.h"
#include "runtime/compiled.h"
#include "runtime/npy.h"
#include "tests/testing/aot_shared_object.h"
#include "tfn/runtime.h"

namespace tfn {
namespace {

struct Model {
  std::string dir, name, input, output;
  double scale = 0;
};

// qdq.txt of each models directory: "NAME INPUT.npy OUTPUT.npy OUTPUT_SCALE".
std::vector<Model> ReadManifests() {
  std::vector<Model> models;
  for (const char* dir : {TFN_QDQ_DIR, TFN_QDQ_PER_CHANNEL_DIR}) {
    std::ifstream in(std::string(dir) + "/qdq.txt");
    for (std::string line; std::getline(in, line);) {
      Model m;
      m.dir = dir;
      std::istringstream words(line);
      if (words >> m.name >> m.input >> m.output >> m.scale) models.push_back(m);
    }
  }
  return models;
}

// Output quantization steps allowed against PyTorch (see the top).
const std::map<std::string, double> kStepsVsTorch = {
    {"convnet_qdq", 2}, {"resnet18_qdq", 4}, {"mobilenet_v2_qdq", 12}};

int64_t ArgMax(const ConstTensor& t) {
  int64_t best = 0;
  for (int64_t i = 1; i < t.num_elements(); ++i) {
    if (t.ElementAsDouble(i) > t.ElementAsDouble(best)) best = i;
  }
  return best;
}

TEST(Qdq, HoldsTheModels) {
  EXPECT_EQ(ReadManifests().size(), 4u)
      << "tests/quant/make_qdq_models.py writes qdq.txt at build time (target tfn_qdq_models)";
}

class QdqModel : public ::testing::TestWithParam<Model> {};

TEST_P(QdqModel, RunsInt8AndMatchesPyTorch) {
  const Model& m = GetParam();
  onnx_import::ImportOptions options;
  options.kernel_lowering = true;  // as tfn-export: the QDQ islands become int8 ops
  auto imported = onnx_import::ImportOnnxFile(m.dir + "/" + m.name + ".onnx", options);
  ASSERT_TRUE(imported.ok()) << imported.status();
  // Every convolution and matmul of the model is quantized.
  int qlinear = 0;
  for (const ir::Node& n : imported->signature.graph.nodes()) {
    EXPECT_NE(n.op, OpId::kConv2D) << "a float conv2d is left";
    EXPECT_NE(n.op, OpId::kFusedConv2D) << "a float conv2d is left";
    EXPECT_NE(n.op, OpId::kMatMul) << "a float matmul is left";
    EXPECT_NE(n.op, OpId::kFusedMatMul) << "a float matmul is left";
    qlinear += n.op == OpId::kQLinearConv2D || n.op == OpId::kQLinearMatMul;
  }
  EXPECT_GE(qlinear, 5);

  const std::string work = ::testing::TempDir() + "/qdq_" + m.name;
  const std::string bundle_path = work + ".tfn";
  ASSERT_TRUE(exporter::WriteBundle(bundle_path, {imported->signature}, {}).ok());
  auto bundle = runtime::Bundle::Load(bundle_path);
  ASSERT_TRUE(bundle.ok()) << bundle.status().ToString();
  runtime::Session session(*bundle);
  auto x = runtime::ReadNpy(m.dir + "/" + m.input);
  auto want = runtime::ReadNpy(m.dir + "/" + m.output);
  ASSERT_TRUE(x.ok() && want.ok()) << "make_qdq_models.py writes " << m.input << ", " << m.output;
  auto got = session.Run("serving_default", {*x});
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  const ConstTensor& y = (*got)[0];
  ASSERT_EQ(y.shape, want->shape);
  double steps = 0;
  for (int64_t i = 0; i < y.num_elements(); ++i) {
    steps = std::max(steps, std::fabs(y.ElementAsDouble(i) - want->ElementAsDouble(i)) / m.scale);
  }
  // (A difference of n steps is n * scale, give or take a float32 rounding.)
  EXPECT_LE(steps, kStepsVsTorch.at(m.name) + 1e-3) << "max |tfn - torch| in output steps";
  EXPECT_EQ(ArgMax(y), ArgMax(*want)) << "top-1 class";

  auto aot =
      testing::AotSharedObject::Build(TFN_AOT_BIN, bundle_path, "serving_default", m.name, work);
  ASSERT_TRUE(aot.ok()) << aot.status().ToString();
  auto compiled = runtime::RunCompiled((*aot)->signature(), {*x});
  ASSERT_TRUE(compiled.ok()) << compiled.status().ToString();
  EXPECT_TRUE((*compiled)[0].BytesEqual(y)) << "the AOT object and the runtime differ";
  std::printf("%s (%s): %d int8 ops, max |tfn - torch| %.0f output steps\n", m.name.c_str(),
              m.dir.c_str(), qlinear, steps);
  std::error_code ignored;
  std::filesystem::remove(bundle_path, ignored);
  std::filesystem::remove_all(work, ignored);
}

INSTANTIATE_TEST_SUITE_P(PyTorch, QdqModel, ::testing::ValuesIn(ReadManifests()),
                         [](const ::testing::TestParamInfo<Model>& i) {
                           return i.param.name + (std::string(i.param.dir) == TFN_QDQ_DIR
                                                      ? std::string()
                                                      : std::string("_per_channel"));
                         });

}  // namespace
}  // namespace tfn
