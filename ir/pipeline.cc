// The pass pipeline.
#include "ir/pipeline.h"

#include <cstdlib>

#include "ir/passes/algebraic_simplify.h"
#include "ir/passes/cse.h"
#include "ir/passes/dead_node_elimination.h"
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
  const Pass passes[] = {
      {"algebraic_simplify", SimplifyAlgebra},
      {"constant_folding",
       [&](Graph& g) -> absl::StatusOr<bool> {
         if (!options.evaluator) return false;
         return FoldConstants(g, options.evaluator);
       }},
      {"cse", EliminateCommonSubexpressions},
      {"dead_node_elimination", EliminateDeadNodes},
  };
  for (int round = 0; round < options.max_rounds; ++round) {
    bool any = false;
    for (const Pass& pass : passes) {
      absl::StatusOr<bool> changed = pass.run(graph);
      if (!changed.ok()) {
        return absl::Status(changed.status().code(), std::string("pass ") + pass.name + ": " +
                                                         std::string(changed.status().message()));
      }
      if (!*changed) continue;
      any = true;
      if (verify) {
        absl::Status st = Verify(graph);
        if (!st.ok()) {
          return absl::InternalError(std::string("after pass ") + pass.name + ": " +
                                     std::string(st.message()));
        }
      }
      if (options.dump) options.dump(pass.name, graph);
    }
    if (!any) break;
  }
  return absl::OkStatus();
}

}  // namespace tfn::ir
