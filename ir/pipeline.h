// The optimization pipeline: one function that lists the passes in order.
// Every graph a tfn::function caches goes through it. Debugging switches
// (verify after each pass, print the graph after a pass, skip passes) are
// environment variables, listed at the top of pipeline.cc and in README.md.
#pragma once

#include <functional>
#include <string>

#include "absl/status/status.h"
#include "ir/graph.h"
#include "ir/passes/constant_folding.h"

namespace tfn::ir {

struct PipelineOptions {
  // Runs kernels on constants for folding; without it folding is skipped.
  ConstantEvaluator evaluator;
  // Runs Verify after every pass that changed the graph (the pass tests turn
  // this on). Without it, builds configured with TFN_VERIFY_PASSES=ON (Debug
  // and test builds) verify anyway, and the environment variable
  // TFN_VERIFY_PASSES=1 or =0 overrides the build's choice.
  bool verify_each_pass = false;
  // Called with the pass name and the graph after each pass that changed it
  // (and once with "input" before the first), e.g. to print them.
  // TFN_DUMP_PASSES prints them to stderr without this hook.
  std::function<void(const std::string& pass, const Graph& graph)> dump;
  // Rounds over the whole list; it stops earlier when nothing changes.
  // Layout transposes travel one pattern per round in places (ShuffleNet's
  // channel shuffle: a reshape can only move once the transposes before it
  // are composed), so a deep chain of such units needs several.
  int max_rounds = 10;
  // After the rounds, lower for tfn's kernels: fuse_epilogue, then
  // prepack_weights (fused_matmul / fused_conv2d with packed constants).
  // Only for graphs that tfn's own kernels will run (bundles for the
  // runtime, AOT); every kernel variant implements the fused ops.
  bool kernel_lowering = false;
};

absl::Status Optimize(Graph& graph, const PipelineOptions& options = {});

}  // namespace tfn::ir
