// ONNX's own backend test cases (Debian's libonnx-testdata: node/, simple/,
// pytorch-converted/, pytorch-operator/) through import -> bundle -> runtime,
// compared with the expected outputs (rtol 1e-3, atol 1e-7, as ONNX's
// runners; integers and bools exactly). Writes a report grouping the cases
// that do not pass by reason, and fails if fewer pass than the recorded floor
// (so a regression is caught).
#include <gtest/gtest.h>

#include <dirent.h>

#include <cmath>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>

#include "importers/onnx/onnx_importer.h"
#include "importers/onnx/tensor_proto.h"
#include "runtime/compiled.h"
#include "tests/testing/aot_shared_object.h"
#include "tfn/runtime.h"

namespace tfn::onnx_import {
namespace {

std::vector<std::string> List(const std::string& dir) {
  std::vector<std::string> out;
  DIR* d = opendir(dir.c_str());
  if (!d) return out;
  while (dirent* e = readdir(d)) {
    std::string n = e->d_name;
    if (n != "." && n != "..") out.push_back(n);
  }
  closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

bool ReadProto(const std::string& path, onnx::TensorProto* t) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::stringstream ss;
  ss << in.rdbuf();
  return t->ParseFromString(ss.str());
}

struct Outcome {
  bool pass = false;
  std::string reason;  // grouping key for the report
  std::string detail;
};

// The op or feature an import error names, for grouping.
std::string Reason(const std::string& message) {
  size_t ops = message.find("does not support: ");
  if (ops != std::string::npos) {
    std::string rest = message.substr(ops + 18);
    return "unsupported op " + rest.substr(0, rest.find(' '));
  }
  size_t type = message.find("element type ");
  if (type != std::string::npos) {
    std::string rest = message.substr(type + 13);
    return "dtype " + rest.substr(0, rest.find(' '));
  }
  size_t node = message.find("): ");
  if (message.rfind("node '", 0) == 0 && node != std::string::npos) {
    size_t open = message.find('(');
    return "op " + message.substr(open + 1, message.find(')') - open - 1) + ": " +
           message.substr(node + 3, 60);
  }
  return message.substr(0, 80);
}

// NumPy has no bfloat16: ONNX's test data stores bfloat16 tensors as UINT16
// tensors of their bit patterns (test_cast_BFLOAT16_to_FLOAT and the other
// BFLOAT16 casts). Such a tensor is read as the bfloat16 it encodes where a
// bfloat16 is expected.
ConstTensor AsExpected(const ConstTensor& t, DType expected) {
  if (t.dtype != DType::kUInt16 || expected != DType::kBFloat16) return t;
  return ConstTensor::Copy(DType::kBFloat16, t.shape, t.data);
}

// Runs every test_data_set_* of a case through `run` and compares with its
// expected outputs. `input_dtypes` are the signature's.
using Runner = std::function<Result<std::vector<ConstTensor>>(const std::vector<ConstTensor>&)>;

Outcome Compare(const std::string& dir, const std::vector<DType>& input_dtypes, const Runner& run) {
  Outcome o;
  bool any = false;
  for (const std::string& set : List(dir)) {
    if (set.rfind("test_data_set_", 0) != 0) continue;
    std::vector<ConstTensor> inputs;
    for (size_t i = 0; i < input_dtypes.size(); ++i) {
      onnx::TensorProto t;
      if (!ReadProto(dir + "/" + set + "/input_" + std::to_string(i) + ".pb", &t)) {
        o.reason = "missing or unreadable input";
        return o;
      }
      absl::StatusOr<ConstTensor> c = TensorFromProto(t, dir);
      if (!c.ok()) {
        o.reason = Reason(std::string(c.status().message()));
        o.detail = std::string(c.status().message());
        return o;
      }
      inputs.push_back(AsExpected(*c, input_dtypes[i]));
    }
    Result<std::vector<ConstTensor>> out = run(inputs);
    if (!out.ok()) {
      o.reason = "run failed: " + out.status().message().substr(0, 70);
      o.detail = out.status().message();
      return o;
    }
    for (size_t k = 0; k < out->size(); ++k) {
      onnx::TensorProto t;
      if (!ReadProto(dir + "/" + set + "/output_" + std::to_string(k) + ".pb", &t)) continue;
      absl::StatusOr<ConstTensor> want = TensorFromProto(t, dir);
      if (!want.ok()) {
        o.reason = Reason(std::string(want.status().message()));
        return o;
      }
      const ConstTensor& got = (*out)[k];
      want = AsExpected(*want, got.dtype);
      if (got.dtype != want->dtype || got.shape != want->shape) {
        o.reason = "wrong output type";
        o.detail = TypeToString(static_cast<int>(got.dtype), got.shape) + " vs expected " +
                   TypeToString(static_cast<int>(want->dtype), want->shape);
        return o;
      }
      for (int64_t e = 0; e < got.num_elements(); ++e) {
        double g = got.ElementAsDouble(e), w = want->ElementAsDouble(e);
        if ((std::isnan(g) && std::isnan(w)) || g == w) continue;
        if (IsFloating(got.dtype) && std::fabs(g - w) <= 1e-7 + 1e-3 * std::fabs(w)) continue;
        o.reason = "wrong values";
        o.detail = "output " + std::to_string(k) + " element " + std::to_string(e) + ": " +
                   std::to_string(g) + " vs expected " + std::to_string(w);
        return o;
      }
    }
    any = true;
  }
  o.pass = any;
  if (!any) o.reason = "no test data";
  return o;
}

Outcome RunCase(const std::string& dir) {
  Outcome o;
  absl::StatusOr<ImportResult> imported = ImportOnnxFile(dir + "/model.onnx");
  if (!imported.ok()) {
    o.detail = std::string(imported.status().message());
    size_t colon = o.detail.find("': ");
    if (colon != std::string::npos) o.detail = o.detail.substr(colon + 3);
    o.reason = Reason(o.detail);
    return o;
  }
  absl::StatusOr<std::string> bytes = exporter::SerializeBundle({imported->signature}, {});
  if (!bytes.ok()) {
    o.reason = "export failed";
    o.detail = std::string(bytes.status().message());
    return o;
  }
  auto owned = std::make_shared<std::string>(*bytes);
  auto bundle = runtime::Bundle::FromMemory(owned->data(), owned->size(), owned);
  if (!bundle.ok()) {
    o.reason = "load failed";
    o.detail = bundle.status().message();
    return o;
  }
  runtime::Session session(*bundle);
  std::vector<DType> input_dtypes;
  for (const runtime::TensorInfo& in : (*bundle)->signatures()[0].inputs) {
    input_dtypes.push_back(in.dtype);
  }
  return Compare(dir, input_dtypes, [&](const std::vector<ConstTensor>& in) {
    return session.Run("serving_default", in);
  });
}

// CMake refuses to configure without the data; a folder that has gone since
// is a failure too, never a skip: the conformance figures rest on it.
::testing::AssertionResult HaveTestData() {
  DIR* d = opendir((std::string(TFN_ONNX_TESTS) + "/node").c_str());
  if (d) closedir(d);
  if (d) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "no ONNX backend test data at " << TFN_ONNX_TESTS
                                       << "/node: install libonnx-testdata (scripts/setup.sh) or "
                                          "reconfigure with -DTFN_ONNX_TESTS_DIR";
}

TEST(OnnxConformance, BackendTestSuites) {
  ASSERT_TRUE(HaveTestData());
  std::string root = TFN_ONNX_TESTS;
  std::ofstream report(std::string(TFN_ONNX_REPORT));
  report << "# ONNX backend test cases through tfn (import -> bundle -> runtime)\n\n";
  int total_pass = 0;
  // The counts that pass today: fewer is a regression (raise them as tfn grows).
  std::map<std::string, int> floors = {
      {"node", 824}, {"simple", 7}, {"pytorch-converted", 81}, {"pytorch-operator", 32}};
  for (const auto& [suite, floor] : floors) {
    std::vector<std::string> cases = List(root + "/" + suite);
    int pass = 0;
    std::map<std::string, std::vector<std::string>> failures;
    for (const std::string& c : cases) {
      Outcome o = RunCase(root + "/" + suite + "/" + c);
      if (o.pass) {
        ++pass;
      } else {
        failures[o.reason].push_back(c);
      }
    }
    total_pass += pass;
    report << "## " << suite << ": " << pass << " of " << cases.size() << " pass\n\n";
    std::vector<std::pair<size_t, std::string>> groups;
    for (const auto& [reason, names] : failures) groups.push_back({names.size(), reason});
    std::sort(groups.rbegin(), groups.rend());
    for (const auto& [count, reason] : groups) {
      report << "- " << count << " × " << reason << ":";
      const std::vector<std::string>& names = failures[reason];
      for (size_t i = 0; i < names.size() && i < 6; ++i) report << " " << names[i];
      if (names.size() > 6) report << " …";
      report << "\n";
    }
    report << "\n";
    std::printf("%s: %d of %zu pass\n", suite.c_str(), pass, cases.size());
    EXPECT_GE(pass, floor) << suite << " regressed below the recorded floor";
  }
  std::printf("report: %s\n", TFN_ONNX_REPORT);
  EXPECT_GT(total_pass, 0);
}

// A representative subset (one or two cases per op family) also through an
// AOT object: import -> bundle file -> tfn-aot -> cc -shared -> dlopen.
TEST(OnnxConformance, AotObjectSubset) {
  ASSERT_TRUE(HaveTestData());
  // Cases whose shapes are static (ONNX tests that pass shapes, axes or pads
  // as graph inputs make them data-dependent, which AOT code refuses).
  const char* cases[] = {
      "test_add_bcast", "test_sub_example", "test_mul_bcast", "test_div_bcast", "test_pow_bcast_array",
      "test_relu", "test_sigmoid", "test_tanh", "test_erf", "test_exp", "test_log", "test_sqrt", "test_neg",
      "test_abs", "test_reciprocal", "test_sign", "test_floor", "test_round", "test_atan", "test_sinh",
      "test_mod_mixed_sign_float32", "test_isnan", "test_isinf", "test_equal", "test_greater", "test_and2d",
      "test_not_2d", "test_xor2d", "test_mean_example", "test_sum_example", "test_max_example",
      "test_clip_default_min", "test_leakyrelu", "test_softplus", "test_selu", "test_prelu_broadcast",
      "test_hardmax_example", "test_where_example", "test_cast_FLOAT_to_DOUBLE", "test_identity",
      "test_gemm_default_single_elem_vector_bias", "test_gemm_alpha", "test_matmul_3d", "test_einsum_batch_matmul",
      "test_einsum_transpose", "test_conv_with_strides_padding", "test_conv_with_autopad_same", "test_convtranspose",
      "test_convtranspose_pads", "test_maxpool_2d_pads", "test_maxpool_2d_dilations", "test_averagepool_2d_strides",
      "test_averagepool_2d_ceil", "test_globalaveragepool", "test_globalmaxpool", "test_lrn", "test_batchnorm_example",
      "test_instancenorm_example", "test_layer_normalization_3d_axis1_epsilon", "test_softmax_axis_1",
      "test_softmax_example", "test_logsoftmax_default_axis", "test_reduce_max_keepdims_example",
      "test_reduce_min_do_not_keepdims_example", "test_argmax_keepdims_example", "test_argmin_no_keepdims_example",
      "test_cumsum_2d_axis_1", "test_transpose_all_permutations_2", "test_transpose_default", "test_concat_3d_axis_1",
      "test_gather_1", "test_gather_elements_0", "test_gather_elements_1", "test_gathernd_example_float32",
      "test_scatter_elements_with_axis", "test_split_equal_parts_2d", "test_flatten_axis2", "test_flatten_default_axis",
      "test_depthtospace_crd_mode_example", "test_depthtospace_example", "test_spacetodepth", "test_tril",
      "test_shape", "test_size", "test_if",
      // reduced-precision and quantized dtypes (computed wider by the importer)
      "test_add_uint8", "test_min_uint32", "test_max_float16", "test_cast_FLOAT_to_FLOAT16",
      "test_cast_FLOAT_to_BFLOAT16", "test_quantizelinear_axis", "test_dequantizelinear",
      "test_dynamicquantizelinear",
      // the quantized ops with integer arithmetic (qlinear_conv2d, qlinear_matmul, *_integer)
      "test_qlinearconv", "test_qlinearmatmul_2D", "test_qlinearmatmul_3D", "test_convinteger_with_padding",
      "test_matmulinteger",
  };

  std::string work = ::testing::TempDir() + "/onnx_aot_subset";
  int passed = 0, total = 0;
  for (const char* name : cases) {
    std::string dir = std::string(TFN_ONNX_TESTS) + "/node/" + name;
    if (List(dir).empty()) {
      ADD_FAILURE() << name << ": not in the test data";
      continue;
    }
    ++total;
    absl::StatusOr<ImportResult> imported = ImportOnnxFile(dir + "/model.onnx");
    std::string bundle = work + "_" + name + ".tfn";
    if (!imported.ok() || !exporter::WriteBundle(bundle, {imported->signature}, {}).ok()) {
      ADD_FAILURE() << name << ": import failed: " << imported.status();
      continue;
    }
    auto aot = testing::AotSharedObject::Build(TFN_AOT_BIN, bundle, "serving_default", name, work);
    if (!aot.ok()) {
      ADD_FAILURE() << name << ": " << aot.status().ToString();
      continue;
    }
    const TfnAotSignature& sig = (*aot)->signature();
    std::vector<DType> input_dtypes;
    for (int32_t i = 0; i < sig.num_inputs; ++i) {
      input_dtypes.push_back(static_cast<DType>(sig.inputs[i].dtype));
    }
    Outcome o = Compare(dir, input_dtypes, [&](const std::vector<ConstTensor>& in) {
      return runtime::RunCompiled(sig, in);
    });
    EXPECT_TRUE(o.pass) << name << " through the AOT object: " << o.reason << " " << o.detail;
    passed += o.pass;
  }
  std::printf("AOT object subset: %d of %d cases pass\n", passed, total);
}

}  // namespace
}  // namespace tfn::onnx_import
