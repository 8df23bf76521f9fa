// Golden text tests of the passes. Each file in testdata/ holds
//   # pass: <name>            (a pass, or "pipeline" for the whole pipeline)
//   # input
//   graph { ... }
//   # expected
//   graph { ... }
// The test parses the input, runs the pass with Verify after it, prints the
// result and compares it with the expected text exactly. Set
// TFN_UPDATE_GOLDEN=1 to rewrite the expected sections (review the diff!).
#include <gtest/gtest.h>

#include <dirent.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "ir/passes/algebraic_simplify.h"
#include "ir/passes/constant_folding.h"
#include "ir/passes/cse.h"
#include "ir/passes/dead_node_elimination.h"
#include "ir/pipeline.h"
#include "ir/text.h"
#include "ir/verify.h"
#include "kernels/evaluate.h"

namespace tfn::ir {
namespace {

absl::StatusOr<std::vector<ConstTensor>> Evaluate(OpId op, const Attrs& attrs,
                                                  const std::vector<ConstTensor>& inputs) {
  std::vector<ConstTensor> out;
  Status s = kernels::EvaluateOp(op, attrs, inputs, &out, kernels::Variant::kReference);
  if (!s.ok()) return ToAbsl(s);
  return out;
}

absl::Status RunPass(const std::string& name, Graph& g) {
  absl::StatusOr<bool> changed = false;
  if (name == "algebraic_simplify") {
    changed = SimplifyAlgebra(g);
  } else if (name == "constant_folding") {
    changed = FoldConstants(g, Evaluate);
  } else if (name == "cse") {
    changed = EliminateCommonSubexpressions(g);
  } else if (name == "dead_node_elimination") {
    changed = EliminateDeadNodes(g);
  } else if (name == "pipeline") {
    PipelineOptions options;
    options.evaluator = Evaluate;
    options.verify_each_pass = true;
    return Optimize(g, options);
  } else {
    return absl::InvalidArgumentError("unknown pass '" + name + "'");
  }
  if (!changed.ok()) return changed.status();
  return Verify(g);
}

struct Golden {
  std::string path, pass, input, expected;
};

Golden Load(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  Golden g{path, "", "", ""};
  std::string* section = nullptr;
  while (std::getline(in, line)) {
    if (line.rfind("# pass: ", 0) == 0) {
      g.pass = line.substr(8);
    } else if (line == "# input") {
      section = &g.input;
    } else if (line == "# expected") {
      section = &g.expected;
    } else if (section) {
      *section += line + "\n";
    }
  }
  return g;
}

std::vector<std::string> GoldenFiles() {
  std::vector<std::string> files;
  DIR* dir = opendir(TFN_IR_TESTDATA);
  if (!dir) return files;
  while (dirent* e = readdir(dir)) {
    std::string name = e->d_name;
    if (name.size() > 4 && name.substr(name.size() - 4) == ".txt") {
      files.push_back(std::string(TFN_IR_TESTDATA) + "/" + name);
    }
  }
  closedir(dir);
  std::sort(files.begin(), files.end());
  return files;
}

TEST(PassGolden, AllFiles) {
  std::vector<std::string> files = GoldenFiles();
  ASSERT_GE(files.size(), 8u) << "golden files missing in " << TFN_IR_TESTDATA;
  bool update = std::getenv("TFN_UPDATE_GOLDEN") != nullptr;
  for (const std::string& path : files) {
    SCOPED_TRACE(path);
    Golden golden = Load(path);
    absl::StatusOr<Graph> g = ParseGraph(golden.input);
    ASSERT_TRUE(g.ok()) << g.status();
    absl::Status st = RunPass(golden.pass, *g);
    ASSERT_TRUE(st.ok()) << st;
    std::string actual = PrintGraph(*g);
    if (update) {
      std::ofstream out(path);
      out << "# pass: " << golden.pass << "\n# input\n" << golden.input << "# expected\n" << actual;
      continue;
    }
    EXPECT_EQ(actual, golden.expected);
    // The expected text itself parses and is stable under the pass.
    absl::StatusOr<Graph> again = ParseGraph(golden.expected);
    ASSERT_TRUE(again.ok()) << again.status();
    EXPECT_EQ(PrintGraph(*again), golden.expected);
  }
}

}  // namespace
}  // namespace tfn::ir
