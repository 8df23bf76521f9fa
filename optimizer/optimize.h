// OptimizeGraph: the one way tfn optimizes a graph it will run. It is
// ir::Optimize with tfn's kernels bound: ir/ does not link kernels/, so the
// pipeline takes constant folding's evaluator as a callback, and this is the
// one place that passes kernels::EvaluateOp. The tracer, the ONNX importer
// and tfn-aot call it; whether to optimize at all stays with them
// (FunctionOptions::optimize, ImportOptions::optimize). Debugging switches
// (TFN_DUMP_PASSES, TFN_DISABLE_PASSES, TFN_VERIFY_PASSES) are read by
// ir::Optimize on every call, as before.
#pragma once

#include "absl/status/status.h"
#include "ir/graph.h"

namespace tfn::optimizer {

struct OptimizeOptions {
  // After the passes, lower for tfn's kernels (fused_matmul / fused_conv2d
  // with prepacked weights: ir::PipelineOptions::kernel_lowering). On for
  // graphs tfn's kernels run (traced functions, bundles, AOT objects); the
  // importer passes ImportOptions::kernel_lowering.
  bool kernel_lowering = true;
};

// Optimizes `graph` in place. Calls on different graphs may run at once (the
// tracer traces on many threads); nothing is shared between them.
absl::Status OptimizeGraph(ir::Graph& graph, const OptimizeOptions& options = {});

}  // namespace tfn::optimizer
