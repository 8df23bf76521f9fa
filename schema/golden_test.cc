// The compatibility promise: every golden bundle of every format version in
// schema/testdata/ loads with today's runtime and reproduces its stored
// outputs exactly.
#include <gtest/gtest.h>

#include <cmath>

#include "runtime/npy.h"
#include "runtime/runtime.h"

namespace tfn {
namespace {

void CheckGolden(const std::string& dir, bool reference_kernels) {
  runtime::LoadOptions options;
  options.verify_checksums = true;
  options.reference_kernels = reference_kernels;
  auto bundle = runtime::Bundle::Load(dir + "/model.tfn", options);
  ASSERT_TRUE(bundle.ok()) << bundle.status().ToString();
  ASSERT_TRUE((*bundle)->VerifyChecksums().ok());
  runtime::Session session(*bundle);
  const runtime::SignatureInfo* sig = (*bundle)->FindSignature("serving_default");
  ASSERT_NE(sig, nullptr);
  std::vector<ConstTensor> inputs;
  for (size_t i = 0; i < sig->inputs.size(); ++i) {
    auto t = runtime::ReadNpy(dir + "/input_" + std::to_string(i) + ".npy");
    ASSERT_TRUE(t.ok()) << t.status().ToString();
    inputs.push_back(*t);
  }
  auto out = session.Run("serving_default", inputs);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_EQ(out->size(), sig->outputs.size());
  for (size_t i = 0; i < out->size(); ++i) {
    auto want = runtime::ReadNpy(dir + "/output_" + std::to_string(i) + ".npy");
    ASSERT_TRUE(want.ok()) << want.status().ToString();
    const ConstTensor& got = (*out)[i];
    ASSERT_EQ(got.dtype, want->dtype);
    ASSERT_EQ(got.shape, want->shape) << "output " << i;
    // Kernels improve between versions, so floats compare with a tolerance
    // (|got - want| <= 1e-5 * |want| + 1e-6); everything else exactly.
    for (int64_t k = 0; k < got.num_elements(); ++k) {
      double g = got.ElementAsDouble(k), w = want->ElementAsDouble(k);
      EXPECT_NEAR(g, w, 1e-5 * std::fabs(w) + 1e-6) << "output " << i << " element " << k;
    }
  }
}

TEST(Golden, FormatVersion1) { CheckGolden(std::string(TFN_SCHEMA_TESTDATA) + "/v1", false); }
TEST(Golden, FormatVersion1ReferenceKernels) {
  CheckGolden(std::string(TFN_SCHEMA_TESTDATA) + "/v1", true);
}
TEST(Golden, FormatVersion2) { CheckGolden(std::string(TFN_SCHEMA_TESTDATA) + "/v2", false); }
TEST(Golden, FormatVersion2ReferenceKernels) {
  CheckGolden(std::string(TFN_SCHEMA_TESTDATA) + "/v2", true);
}

// Version 3 adds the reduced-precision dtypes: a float16 input and output,
// int8 quantization, a bfloat16 round trip.
TEST(Golden, FormatVersion3) { CheckGolden(std::string(TFN_SCHEMA_TESTDATA) + "/v3", false); }
TEST(Golden, FormatVersion3ReferenceKernels) {
  CheckGolden(std::string(TFN_SCHEMA_TESTDATA) + "/v3", true);
}

// Each golden bundle is of the version its folder names (a regenerated v1
// would silently stop testing version 1).
TEST(Golden, FoldersHoldTheirVersion) {
  for (uint32_t version : {1u, 2u, 3u}) {
    auto bundle = runtime::Bundle::Load(std::string(TFN_SCHEMA_TESTDATA) + "/v" +
                                        std::to_string(version) + "/model.tfn");
    ASSERT_TRUE(bundle.ok()) << bundle.status().ToString();
    EXPECT_EQ((*bundle)->format_version(), version);
  }
}

}  // namespace
}  // namespace tfn
