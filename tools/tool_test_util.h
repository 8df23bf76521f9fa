// Helpers for the tools' integration tests: run tfn-export, tfn-inspect and
// tfn-run as separate processes (paths come from CMake), capture their exit
// code, stdout and stderr, and work in a fresh temporary folder per test.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace tfn::tools::testing {

inline const std::string kExport = TFN_EXPORT_BIN;
inline const std::string kInspect = TFN_INSPECT_BIN;
inline const std::string kRun = TFN_RUN_BIN;
inline const std::string kUserLibrary = TFN_USER_MODEL_LIB;

struct ToolResult {
  int code = -1;  // the exit status; -1 when the tool died from a signal (a crash)
  std::string out, err;
};

inline std::string ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline void WriteText(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

// A fresh folder for each test, removed afterwards.
class ToolTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (std::filesystem::temp_directory_path() / "tfn_tools_test_XXXXXX").string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  std::string Path(const std::string& name) const { return dir_ + "/" + name; }

  // Runs `tool` with `args` (shell words; the paths used here need no quoting).
  ToolResult Run(const std::string& tool, const std::string& args) const {
    std::string out = Path(".stdout"), err = Path(".stderr");
    std::string cmd = "cd " + dir_ + " && " + tool + " " + args + " >" + out + " 2>" + err;
    int status = std::system(cmd.c_str());
    ToolResult r;
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = ReadText(out);
    r.err = ReadText(err);
    return r;
  }

  // Runs a tool that must succeed and says why when it does not.
  ToolResult Ok(const std::string& tool, const std::string& args) const {
    ToolResult r = Run(tool, args);
    EXPECT_EQ(r.code, 0) << tool << " " << args << "\nstderr: " << r.err << "\nstdout: " << r.out;
    return r;
  }

  std::string dir_;
};

// The tool failed cleanly: a non-zero exit (no crash) and exactly one line
// on stderr, "TOOL: error: ...", which mentions `needle`.
inline void ExpectOneLineError(const ToolResult& r, const std::string& tool,
                               const std::string& needle) {
  EXPECT_GT(r.code, 0) << "stderr: " << r.err;
  EXPECT_EQ(r.err.rfind(tool + ": error: ", 0), 0u) << r.err;
  ASSERT_FALSE(r.err.empty());
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "more than one line:\n" << r.err;
  EXPECT_NE(r.err.find(needle), std::string::npos) << "no '" << needle << "' in: " << r.err;
}

}  // namespace tfn::tools::testing
