// libFuzzer target: ONNX protobuf bytes through the importer, as
// `tfn-export --onnx` runs it (kernel lowering on). A model that imports
// must also export and load: the importer promises never to produce a
// bundle that fails later (importers/README.md), so an export or load
// failure of an imported model aborts like a crash. A loaded bundle then
// runs its signature once.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string_view>

#include "exporter/bundle_writer.h"
#include "fuzz/run_signatures.h"
#include "importers/onnx/onnx_importer.h"
#include "runtime/tfn_runtime.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  tfn::onnx_import::ImportOptions options;
  options.kernel_lowering = true;
  // External data is looked up in a folder that does not exist: the fuzzer
  // must not read files of the machine it runs on.
  auto imported =
      tfn::onnx_import::ImportOnnxBytes(std::string_view(reinterpret_cast<const char*>(data), size),
                                        "/nonexistent/tfn-fuzz", options);
  if (!imported.ok()) return 0;
  auto bytes = tfn::exporter::SerializeBundle({imported->signature}, {});
  if (!bytes.ok()) {
    std::fprintf(stderr, "fuzz_onnx: an imported model does not export: %s\n",
                 std::string(bytes.status().message()).c_str());
    __builtin_trap();
  }
  TfnRtBundle* bundle = nullptr;
  char error[512];
  if (tfn_rt_bundle_from_memory(bytes->data(), bytes->size(), &bundle, error, sizeof error) !=
      TFN_RT_OK) {
    std::fprintf(stderr, "fuzz_onnx: the runtime refuses an imported model's bundle: %s\n", error);
    __builtin_trap();
  }
  tfn::fuzz::RunEverySignature(bundle, tfn::fuzz::HashBytes(data, size));
  tfn_rt_bundle_free(bundle);
  return 0;
}
