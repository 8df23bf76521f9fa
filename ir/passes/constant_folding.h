// Constant folding: evaluates nodes whose inputs are all constants and
// replaces them by constants; shape/size of statically shaped values become
// constants; a cond with a constant predicate becomes its chosen branch.
// Stateful ops (variables, print) are never folded. Folding does not grow
// the graph much: an output is folded only when it is at most
// max(kMaxGrowBytes, bytes of its inputs), so fill/broadcast/tile of a
// scalar into a large tensor stay ops.
//
// The IR cannot run kernels itself (it does not depend on kernels/): the
// caller passes an evaluator. Needs nothing before it.
#pragma once

#include <functional>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/graph.h"

namespace tfn::ir {

using ConstantEvaluator = std::function<absl::StatusOr<std::vector<ConstTensor>>(
    OpId op, const Attrs& attrs, const std::vector<ConstTensor>& inputs)>;

inline constexpr int64_t kMaxGrowBytes = 64 * 1024;

// Whether a node whose constant inputs take in_bytes and whose output takes
// out_bytes is folded (the rule above). tfn-quantize asks it too: a weight
// stored narrow behind a cast that folds is widened back.
inline bool FoldsWithin(int64_t out_bytes, int64_t in_bytes) {
  return out_bytes <= (in_bytes > kMaxGrowBytes ? in_bytes : kMaxGrowBytes);
}

// Returns true when the graph changed. dequantize_linear is folded only with
// fold_dequantize: until the quantized lowering (fuse_qdq.h) has run, a
// dequantized constant marks 8-bit weights that must stay 8-bit.
absl::StatusOr<bool> FoldConstants(Graph& graph, const ConstantEvaluator& evaluate,
                                   bool fold_dequantize = false);

}  // namespace tfn::ir
