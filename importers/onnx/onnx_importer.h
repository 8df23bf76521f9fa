// Importing ONNX models (opsets 7 to 17) as ordinary tfn graphs: the
// graph's inputs become the parameters of signature serving_default,
// initializers become constants (weights), dim_params and unknown dims become
// dynamic dims, and every node becomes tfn ops (ops ONNX defines as
// functions of other ops are expanded). A model that uses an op or
// attribute tfn does not support is refused with every unsupported op named.
//
// Thread-safe: imports share no state except the converter registry.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "exporter/bundle_writer.h"

namespace tfn::onnx_import {

inline constexpr int kMinOpset = 7;
inline constexpr int kMaxOpset = 17;

struct ImportOptions {
  std::string signature_name = "serving_default";
  // Run tfn's optimization pipeline on the imported graph.
  bool optimize = true;
  // Then lower it for tfn's kernels (optimizer::OptimizeOptions::kernel_lowering:
  // fused ops, prepacked weights), as tfn-export does for bundles.
  bool kernel_lowering = false;
};

struct ImportResult {
  exporter::SignatureToExport signature;
  int opset = 0;
  std::string producer;  // "pytorch 1.13", ...
};

absl::StatusOr<ImportResult> ImportOnnxFile(const std::string& path, const ImportOptions& options = {});
// `base_dir` is where external data files are looked up.
absl::StatusOr<ImportResult> ImportOnnxBytes(std::string_view bytes, const std::string& base_dir,
                                             const ImportOptions& options = {});

}  // namespace tfn::onnx_import
