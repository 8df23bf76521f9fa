// The fuzzer's hostile bundles (tests/runtime/testdata/hostile/) through the
// tools as processes: `tfn-inspect FILE --verify` and `tfn-run FILE
// --random-inputs 1` must each exit non-zero with one error line, never die
// from a signal (before the loader's node checks, 01 killed both with
// SIGSEGV and 12 kept tfn-run running).
#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "tools/tool_test_util.h"

namespace tfn::tools::testing {
namespace {

std::vector<std::string> HostileFiles() {
  std::vector<std::string> paths;
  for (const auto& e : std::filesystem::directory_iterator(TFN_HOSTILE_DIR)) {
    if (e.path().extension() == ".tfn") paths.push_back(e.path().string());
  }
  std::sort(paths.begin(), paths.end());
  return paths;
}

TEST_F(ToolTest, HostileBundlesFailCleanly) {
  std::vector<std::string> files = HostileFiles();
  ASSERT_EQ(files.size(), 12u);
  for (const std::string& f : files) {
    SCOPED_TRACE(f);
    ToolResult inspect = Run(kInspect, f + " --verify");
    ExpectOneLineError(inspect, "tfn-inspect", "");
    ToolResult run = Run(kRun, f + " --random-inputs 1 --deadline-ms 60000");
    ExpectOneLineError(run, "tfn-run", "");
  }
  // 12 fails its checksum in the default load, before anything runs.
  ExpectOneLineError(Run(kRun, files.back() + " --random-inputs 1"), "tfn-run",
                     "fails its checksum");
}

TEST_F(ToolTest, RunLimitFlags) {
  Ok(kExport, "mlp -o mlp.tfn");
  Ok(kRun, "mlp.tfn --random-inputs 1 --max-run-bytes 0 --deadline-ms 0 --max-while-iterations 0");
  ExpectOneLineError(Run(kRun, "mlp.tfn --random-inputs 4 --max-run-bytes 16"), "tfn-run",
                     "raise RunOptions::max_run_bytes (tfn-run --max-run-bytes");
  ExpectOneLineError(Run(kRun, "mlp.tfn --random-inputs 1 --deadline-ms -1"), "tfn-run",
                     "--deadline-ms");
}

}  // namespace
}  // namespace tfn::tools::testing
