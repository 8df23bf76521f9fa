// OptimizeGraph: builds the pipeline's options with tfn's kernels as the
// constant evaluator and runs ir::Optimize.
#include "optimizer/optimize.h"

#include <vector>

#include "ir/pipeline.h"
#include "kernels/evaluate.h"

namespace tfn::optimizer {
namespace {

// Folds with the kernels the graph runs with (Variant::kOptimized, as eager
// execution does), so a folded constant holds what the op would have
// computed at run time.
absl::StatusOr<std::vector<ConstTensor>> Evaluate(OpId op, const Attrs& attrs,
                                                  const std::vector<ConstTensor>& inputs) {
  std::vector<ConstTensor> out;
  Status s = kernels::EvaluateOp(op, attrs, inputs, &out);
  if (!s.ok()) return ir::ToAbsl(s);
  return out;
}

}  // namespace

absl::Status OptimizeGraph(ir::Graph& graph, const OptimizeOptions& options) {
  ir::PipelineOptions po;
  po.evaluator = Evaluate;
  po.kernel_lowering = options.kernel_lowering;
  return ir::Optimize(graph, po);
}

}  // namespace tfn::optimizer
