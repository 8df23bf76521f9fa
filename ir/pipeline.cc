// The pass pipeline, and its debugging switches from the environment (read
// on every call, so a test or a shell flips them without a rebuild):
//   TFN_VERIFY_PASSES=1|0   Verify after every pass that changed the graph,
//                           or not (default: the CMake option of the same name)
//   TFN_DUMP_PASSES=1|all|PASS[,PASS...]
//                           print the graph to stderr after every (or each
//                           named) pass that changed it; "input" names the
//                           graph before the first pass
//   TFN_DISABLE_PASSES=all|PASS[,PASS...]
//                           skip passes, to bisect a wrong rewrite
#include "ir/pipeline.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "ir/passes/algebraic_simplify.h"
#include "ir/passes/conv_affine_fold.h"
#include "ir/passes/conv_dead_taps.h"
#include "ir/passes/cse.h"
#include "ir/passes/dead_node_elimination.h"
#include "ir/passes/fuse_elementwise.h"
#include "ir/passes/fuse_epilogue.h"
#include "ir/passes/fuse_qdq.h"
#include "ir/passes/pad_folding.h"
#include "ir/passes/prepack_weights.h"
#include "ir/passes/rematerialize.h"
#include "ir/passes/transpose_sinking.h"
#include "ir/text.h"
#include "ir/verify.h"

// Set by the build (CMake option TFN_VERIFY_PASSES, on in Debug and test
// builds): verify after every pass unless TFN_VERIFY_PASSES=0 says otherwise.
#ifndef TFN_VERIFY_PASSES_BY_DEFAULT
#define TFN_VERIFY_PASSES_BY_DEFAULT 0
#endif

namespace tfn::ir {
namespace {

// Pass names from a comma-separated environment variable. "all" (and, for
// TFN_DUMP_PASSES, "1") matches every pass; unset or empty matches none.
struct PassFilter {
  const char* var = "";
  bool all = false;
  std::vector<std::string> names;

  bool Matches(std::string_view pass) const {
    if (all) return true;
    for (const std::string& n : names) {
      if (n == pass) return true;
    }
    return false;
  }
};

PassFilter ReadFilter(const char* var, bool one_means_all) {
  PassFilter f;
  f.var = var;
  const char* env = std::getenv(var);
  std::string_view text = env ? env : "";
  while (!text.empty()) {
    size_t comma = text.find(',');
    std::string_view name = text.substr(0, comma);
    if (name == "all" || (one_means_all && name == "1")) {
      f.all = true;
    } else if (!name.empty()) {
      f.names.emplace_back(name);
    }
    text = comma == std::string_view::npos ? "" : text.substr(comma + 1);
  }
  return f;
}

// A misspelt pass name would silently print or skip nothing: say so, once per
// variable and process (the pipeline runs once per traced function).
void WarnUnknown(const PassFilter& f, const std::vector<std::string_view>& known,
                 std::atomic<bool>& warned) {
  for (const std::string& n : f.names) {
    if (std::find(known.begin(), known.end(), n) != known.end() || warned.exchange(true)) continue;
    std::string list;
    for (std::string_view k : known) list += (list.empty() ? "" : ", ") + std::string(k);
    std::fprintf(stderr, "tfn: %s: no pass is named '%s' (passes: %s)\n", f.var, n.c_str(),
                 list.c_str());
  }
}

bool VerifyEachPass(const PipelineOptions& options) {
  if (options.verify_each_pass) return true;
  const char* env = std::getenv("TFN_VERIFY_PASSES");
  if (env && env[0] == '1') return true;
  if (env && env[0] == '0') return false;
  return TFN_VERIFY_PASSES_BY_DEFAULT != 0;
}

}  // namespace

absl::Status Optimize(Graph& graph, const PipelineOptions& options) {
  bool verify = VerifyEachPass(options);
  PassFilter print = ReadFilter("TFN_DUMP_PASSES", /*one_means_all=*/true);
  PassFilter skip = ReadFilter("TFN_DISABLE_PASSES", /*one_means_all=*/false);
  std::string when;  // "round 2", "lowering": a pass runs more than once
  auto dump = [&](const char* pass) {
    if (options.dump) options.dump(pass, graph);
    if (!print.Matches(pass)) return;
    std::fprintf(stderr, "// TFN_DUMP_PASSES: %s%s%s\n%s", pass, when.empty() ? "" : ", ",
                 when.c_str(), PrintGraph(graph).c_str());
  };
  // Groups are only valid on the graph the last pass saw (a bundle tfn-aot
  // reads carries them): every pass before it works on a graph without them.
  ClearFusionGroups(graph);
  dump("input");
  struct Pass {
    const char* name;
    std::function<absl::StatusOr<bool>(Graph&)> run;
  };
  // The order matters: simplification exposes constants, folding exposes
  // duplicates, and dead-node elimination cleans up after all of them.
  // Transpose sinking brings layout transposes together (the next round's
  // simplification cancels them) and next to the per-channel scale/shift a
  // conv's batchnorm became, which conv affine folding then merges into the
  // conv's filter and bias. Dead conv taps (those that read only padding)
  // are dropped once the filter is a constant. Zero pads in front of convs
  // and counted average pools become their padding once sinking has moved
  // them onto the NHWC value.
  const Pass passes[] = {
      {"algebraic_simplify", SimplifyAlgebra},
      {"transpose_sinking", SinkTransposes},
      {"pad_folding", FoldPads},
      {"conv_affine_fold", FoldConvAffine},
      {"conv_dead_taps", DropDeadConvTaps},
      {"constant_folding",
       [&](Graph& g) -> absl::StatusOr<bool> {
         if (!options.evaluator) return false;
         return FoldConstants(g, options.evaluator);
       }},
      {"cse", EliminateCommonSubexpressions},
      {"dead_node_elimination", EliminateDeadNodes},
  };
  // Lowering for the kernels, once the graph is in canonical form: int8 ops
  // for the QDQ islands, then the dequantized constants no island took
  // become float constants; elementwise values a training step's backward
  // pass reads again recomputed there instead of kept; fused ops
  // (matmul/conv2d with their bias, residual and activation), then their
  // constant weights packed ahead of time, then the elementwise fusion
  // groups both backends run (last: any later rewrite would stale them).
  const Pass lowering[] = {
      {"fuse_qdq", FuseQdq},
      {"fold_dequantized",
       [&](Graph& g) -> absl::StatusOr<bool> {
         if (!options.evaluator) return false;
         return FoldConstants(g, options.evaluator, /*fold_dequantize=*/true);
       }},
      {"rematerialize", Rematerialize},
      {"fuse_epilogue", FuseEpilogues},
      {"prepack_weights", PrepackWeights},
      {"dead_node_elimination", EliminateDeadNodes},
      {"fuse_elementwise", FuseElementwise},
  };
  if (!print.names.empty() || !skip.names.empty()) {
    static std::atomic<bool> warned_print{false}, warned_skip{false};
    std::vector<std::string_view> known;
    for (const Pass& p : passes) known.push_back(p.name);
    for (const Pass& p : lowering) {
      if (std::find(known.begin(), known.end(), p.name) == known.end()) known.push_back(p.name);
    }
    WarnUnknown(skip, known, warned_skip);
    known.insert(known.begin(), "input");
    WarnUnknown(print, known, warned_print);
  }
  // Runs one pass (verify, dump); *any is set when it changed the graph.
  auto run = [&](const Pass& pass, bool* any) -> absl::Status {
    if (skip.Matches(pass.name)) return absl::OkStatus();
    absl::StatusOr<bool> changed = pass.run(graph);
    if (!changed.ok()) {
      return absl::Status(changed.status().code(), std::string("pass ") + pass.name + ": " +
                                                       std::string(changed.status().message()));
    }
    if (!*changed) return absl::OkStatus();
    *any = true;
    if (verify) {
      absl::Status st = Verify(graph);
      if (!st.ok()) {
        return absl::InternalError(std::string("after pass ") + pass.name + ": " +
                                   std::string(st.message()));
      }
    }
    dump(pass.name);
    return absl::OkStatus();
  };
  for (int round = 0; round < options.max_rounds; ++round) {
    when = "round " + std::to_string(round + 1);
    bool any = false;
    for (const Pass& pass : passes) {
      absl::Status st = run(pass, &any);
      if (!st.ok()) return st;
    }
    if (!any) break;
  }
  if (options.kernel_lowering) {
    when = "lowering";
    bool any = false;
    for (const Pass& pass : lowering) {
      absl::Status st = run(pass, &any);
      if (!st.ok()) return st;
    }
  }
  return absl::OkStatus();
}

}  // namespace tfn::ir
