// Real models exported from PyTorch (tests/onnx/make_models.py: torchvision's
// resnet18, mobilenet_v2 and deeplabv3_mobilenet_v3_large (segmentation:
// dilated convs, resize) and a TransformerEncoderLayer with a dynamic
// sequence length, random weights, opset 17) import into bundles that give
// PyTorch's outputs through the runtime and through an AOT object (tfn-aot,
// linked into a shared library). Tolerance: max |tfn - torch| <= 1e-4 *
// max |torch| per output (errors relative to the output's scale: float32
// sums over thousands of terms in a different order than PyTorch's).
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "exporter/bundle_writer.h"
#include "importers/onnx/onnx_importer.h"
#include "runtime/compiled.h"
#include "runtime/npy.h"
#include "tests/testing/aot_shared_object.h"
#include "tfn/runtime.h"

namespace tfn {
namespace {

const std::string kModels = TFN_ONNX_MODELS_DIR;

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
  auto t = runtime::ReadNpy(kModels + "/" + name + ".npy");
  EXPECT_TRUE(t.ok()) << t.status().ToString() << " (tests/onnx/make_models.py writes it)";
  return t.ok() ? *t : ConstTensor();
}

class RealModel : public ::testing::TestWithParam<std::string> {};

TEST_P(RealModel, MatchesPyTorchThroughRuntimeAndAot) {
  const std::string name = GetParam();
  auto imported = onnx_import::ImportOnnxFile(kModels + "/" + name + ".onnx");
  ASSERT_TRUE(imported.ok()) << imported.status();
  std::string work = ::testing::TempDir() + "/real_models_" + name;
  std::string bundle_path = work + ".tfn";
  ASSERT_TRUE(exporter::WriteBundle(bundle_path, {imported->signature}, {}).ok());

  auto bundle = runtime::Bundle::Load(bundle_path);
  ASSERT_TRUE(bundle.ok()) << bundle.status().ToString();
  runtime::Session session(*bundle);
  auto aot =
      testing::AotSharedObject::Build(TFN_AOT_BIN, bundle_path, "serving_default", name, work);
  ASSERT_TRUE(aot.ok()) << aot.status().ToString();

  std::vector<std::string> cases = {name};
  if (name == "transformer_encoder") cases.push_back(name + "_seq7");  // the dynamic dim changes
  if (name == "transformer_dynamic") cases.push_back(name + "_seq7_batch5");  // both change
  if (name == "lstm" || name == "gru" || name == "rnn") cases.push_back(name + "_batch5");
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
}

INSTANTIATE_TEST_SUITE_P(PyTorch, RealModel,
                         ::testing::Values("resnet18", "mobilenet_v2",
                                           "deeplabv3_mobilenet_v3_large", "transformer_encoder",
                                           "transformer_dynamic", "lstm", "gru", "rnn"),
                         [](const ::testing::TestParamInfo<std::string>& i) { return i.param; });

}  // namespace
}  // namespace tfn
