// ONNX's own backend test cases (../shared/onnx-tests: node/, simple/,
// pytorch-converted/, pytorch-operator/) through import -> bundle -> runtime,
// compared with the expected outputs (rtol 1e-3, atol 1e-7, as ONNX's
// runners; integers and bools exactly). Writes a report grouping the cases
// that do not pass by reason, and fails if fewer pass than the recorded floor
// (so a regression is caught).
#include <gtest/gtest.h>

#include <dirent.h>

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include "importers/onnx/onnx_importer.h"
#include "importers/onnx/tensor_proto.h"
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
  bool any = false;
  for (const std::string& set : List(dir)) {
    if (set.rfind("test_data_set_", 0) != 0) continue;
    std::vector<ConstTensor> inputs;
    for (size_t i = 0; i < (*bundle)->signatures()[0].inputs.size(); ++i) {
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
      inputs.push_back(*c);
    }
    auto out = session.Run("serving_default", inputs);
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

TEST(OnnxConformance, BackendTestSuites) {
  std::string root = TFN_ONNX_TESTS;
  std::ofstream report(std::string(TFN_ONNX_REPORT));
  report << "# ONNX backend test cases through tfn (import -> bundle -> runtime)\n\n";
  int total_pass = 0;
  std::map<std::string, int> floors = {{"node", TFN_ONNX_FLOOR_NODE}, {"simple", 0},
                                       {"pytorch-converted", 0}, {"pytorch-operator", 0}};
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

}  // namespace
}  // namespace tfn::onnx_import
