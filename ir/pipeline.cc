// The pass pipeline.
#include "ir/pipeline.h"

#include <cstdlib>

#include "ir/passes/algebraic_simplify.h"
#include "ir/passes/conv_affine_fold.h"
#include "ir/passes/conv_dead_taps.h"
#include "ir/passes/cse.h"
#include "ir/passes/dead_node_elimination.h"
#include "ir/passes/fuse_epilogue.h"
#include "ir/passes/prepack_weights.h"
#include "ir/passes/transpose_sinking.h"
#include "ir/verify.h"

namespace tfn::ir {

absl::Status Optimize(Graph& graph, const PipelineOptions& options) {
  const char* env = std::getenv("TFN_VERIFY_PASSES");
  bool verify = options.verify_each_pass || (env && env[0] == '1');
  if (options.dump) options.dump("input", graph);
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
  // are dropped once the filter is a constant.
  const Pass passes[] = {
      {"algebraic_simplify", SimplifyAlgebra},
      {"transpose_sinking", SinkTransposes},
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
  // Runs one pass (verify, dump); *any is set when it changed the graph.
  auto run = [&](const Pass& pass, bool* any) -> absl::Status {
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
    if (options.dump) options.dump(pass.name, graph);
    return absl::OkStatus();
  };
  for (int round = 0; round < options.max_rounds; ++round) {
    bool any = false;
    for (const Pass& pass : passes) {
      absl::Status st = run(pass, &any);
      if (!st.ok()) return st;
    }
    if (!any) break;
  }
  // Lowering for the kernels, once the graph is in canonical form: fused ops
  // (matmul/conv2d with their bias, residual and activation), then their
  // constant weights packed ahead of time.
  if (options.kernel_lowering) {
    const Pass lowering[] = {
        {"fuse_epilogue", FuseEpilogues},
        {"prepack_weights", PrepackWeights},
        {"dead_node_elimination", EliminateDeadNodes},
    };
    bool any = false;
    for (const Pass& pass : lowering) {
      absl::Status st = run(pass, &any);
      if (!st.ok()) return st;
    }
  }
  return absl::OkStatus();
}

}  // namespace tfn::ir
