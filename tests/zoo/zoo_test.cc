// The model zoo (tests/zoo/make_zoo.py: torchvision classification and
// segmentation nets, a U-Net, recurrent layers, transformer encoders and a
// causal decoder, exported from PyTorch at build time with random weights)
// imports into bundles that give PyTorch's outputs through the runtime and
// through an AOT object (tfn-aot, linked into a shared library), for every
// case of the model's dynamic dims. Tolerance: max |tfn - torch| <= 1e-4 *
// max |torch| per output (errors relative to the output's scale: float32
// sums over thousands of terms in a different order than PyTorch's).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
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

const std::string kZoo = TFN_ZOO_DIR;
constexpr size_t kMinZooModels = 25;  // issue 19

// zoo.txt: one line per model, "NAME CASE...". Read when the tests are
// listed, so that each model is its own ctest test.
std::vector<std::vector<std::string>> ReadManifest() {
  std::vector<std::vector<std::string>> models;
  std::ifstream in(kZoo + "/zoo.txt");
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    std::vector<std::string> cases;
    for (std::string w; words >> w;) cases.push_back(w);
    if (!cases.empty()) models.push_back(cases);
  }
  return models;
}

double RelativeError(const ConstTensor& got, const ConstTensor& want) {
  double scale = 0, err = 0;
  for (int64_t i = 0; i < want.num_elements(); ++i) {
    scale = std::max(scale, std::fabs(want.ElementAsDouble(i)));
    double e = std::fabs(got.ElementAsDouble(i) - want.ElementAsDouble(i));
    err = std::isnan(e) ? INFINITY : std::max(err, e);
  }
  return err / std::max(scale, 1e-30);
}

ConstTensor Npy(const std::string& name) {
  auto t = runtime::ReadNpy(kZoo + "/" + name + ".npy");
  EXPECT_TRUE(t.ok()) << t.status().ToString() << " (tests/zoo/make_zoo.py writes it)";
  return t.ok() ? *t : ConstTensor();
}

TEST(Zoo, HoldsEveryModel) {
  auto models = ReadManifest();
  EXPECT_GE(models.size(), kMinZooModels)
      << kZoo << "/zoo.txt lists " << models.size()
      << " models; tests/zoo/make_zoo.py writes it at build time (target tfn_zoo)";
}

class ZooModel : public ::testing::TestWithParam<std::vector<std::string>> {};

TEST_P(ZooModel, MatchesPyTorchThroughRuntimeAndAot) {
  const std::vector<std::string>& cases = GetParam();
  const std::string& name = cases[0];
  auto imported = onnx_import::ImportOnnxFile(kZoo + "/" + name + ".onnx");
  ASSERT_TRUE(imported.ok()) << imported.status();
  std::string work = ::testing::TempDir() + "/zoo_" + name;
  std::string bundle_path = work + ".tfn";
  ASSERT_TRUE(exporter::WriteBundle(bundle_path, {imported->signature}, {}).ok());

  auto bundle = runtime::Bundle::Load(bundle_path);
  ASSERT_TRUE(bundle.ok()) << bundle.status().ToString();
  runtime::Session session(*bundle);
  auto aot =
      testing::AotSharedObject::Build(TFN_AOT_BIN, bundle_path, "serving_default", name, work);
  ASSERT_TRUE(aot.ok()) << aot.status().ToString();

  for (const std::string& c : cases) {
    SCOPED_TRACE(c);
    ConstTensor x = Npy(c + "_input"), want = Npy(c + "_output");
    auto got = session.Run("serving_default", {x});
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    ASSERT_EQ((*got)[0].shape, want.shape);
    double runtime_error = RelativeError((*got)[0], want);
    EXPECT_LE(runtime_error, 1e-4) << "runtime";

    auto compiled = runtime::RunCompiled((*aot)->signature(), {x});
    ASSERT_TRUE(compiled.ok()) << compiled.status().ToString();
    ASSERT_EQ((*compiled)[0].shape, want.shape);
    double aot_error = RelativeError((*compiled)[0], want);
    EXPECT_LE(aot_error, 1e-4) << "AOT object";
    std::printf("%s: relative error vs PyTorch: runtime %.2g, AOT object %.2g\n", c.c_str(),
                runtime_error, aot_error);
  }
  // The bundle and the AOT object of the big models hold 100s of MB each.
  std::error_code ignored;
  std::filesystem::remove(bundle_path, ignored);
  std::filesystem::remove_all(work, ignored);
}

INSTANTIATE_TEST_SUITE_P(PyTorch, ZooModel, ::testing::ValuesIn(ReadManifest()),
                         [](const ::testing::TestParamInfo<std::vector<std::string>>& i) {
                           return i.param[0];
                         });

}  // namespace
}  // namespace tfn
