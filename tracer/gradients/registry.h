// Internal: the gradient registry, one entry per op of the op table.
//
// Each op is one of three kinds (GradKind): it has a rule that builds the
// gradients of its inputs from those of its outputs; it is not
// differentiable (its inputs get no gradient from it: comparisons, shape,
// argmax, floor); or its rule is missing, and differentiating through it
// fails with an error that names the op and the node. Ops whose outputs are
// all non-float need no entry: no gradient can reach them.
//
// Rules are written with the front end's ops (tracer/ops.h), so one rule
// serves eager tapes (it computes), traced functions (it records nodes that
// the pass pipeline optimizes with the forward graph, then the runtime or an
// AOT object runs) and gradients of gradients (an outer tape records the
// rule's ops). One file per op family registers its rules; the table is
// built once, on first use, and is read-only afterwards (thread-safe).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/attrs.h"
#include "core/op_def.h"
#include "ir/graph.h"
#include "tracer/tensor.h"

namespace tfn::detail {

// One recorded op: what the rule sees. attrs are normalized (defaults set).
struct RecordedOp {
  OpId op = OpId::kIdentity;
  Attrs attrs;
  std::vector<Tensor> inputs;
  std::vector<Tensor> outputs;
  // A traced cond's branches {then, else} (closed graphs of its operands),
  // a traced while_loop's {condition, body}.
  std::shared_ptr<const std::vector<ir::Graph>> subgraphs;
  // What the op kept for its gradient beyond its inputs and outputs: a
  // traced while_loop's iteration count and per-iteration loop variables.
  std::vector<Tensor> saved;
  // Per input: whether the gradient being computed needs it (it depends on
  // a source). Rules may compute the others anyway (dead code the passes
  // remove); control flow's rules skip them, as loop-carried sums of
  // unneeded gradients would not be dead.
  std::vector<bool> needs_grad;
};

// Returns one gradient per input (undefined where none flows: integer
// inputs, indices, shapes). `dys` has one gradient per output, of the
// output's dtype and shape; undefined ones are given as zeros.
using GradRule = std::vector<Tensor> (*)(const RecordedOp& op, const std::vector<Tensor>& dys);

enum class GradKind { kMissing, kNotDifferentiable, kRule };

struct GradEntry {
  GradKind kind = GradKind::kMissing;
  GradRule rule = nullptr;
};

const GradEntry& GetGradEntry(OpId op);

// The registration of each family (tracer/gradients/*.cc), called once by
// the registry. `table` has one entry per op id.
using GradTable = std::vector<GradEntry>;
void RegisterElementwiseGrads(GradTable& table);
void RegisterMathGrads(GradTable& table);
void RegisterShapeGrads(GradTable& table);
void RegisterNnGrads(GradTable& table);
void RegisterResizeGrads(GradTable& table);
void RegisterScatterGrads(GradTable& table);
void RegisterControlFlowGrads(GradTable& table);
void RegisterQuantGrads(GradTable& table);

// Registers `rule` as op's gradient (for the Register*Grads functions).
inline void SetRule(GradTable& table, OpId op, GradRule rule) {
  table[static_cast<size_t>(op)] = GradEntry{GradKind::kRule, rule};
}

// Helpers the rules share (tracer/gradients/grad_helpers.cc).
// Throws kUnimplemented: "OP: no gradient rule for WHAT".
[[noreturn]] void NoRuleFor(OpId op, const std::string& what);
// Sums `grad` (the shape a broadcast made) back to `like`'s shape: over the
// leading dims `like` lacks and the dims where `like` has 1.
Tensor SumToShapeOf(const Tensor& grad, const Tensor& like);
// Reshapes x to like's shape, at run time when like has dynamic dims.
Tensor ReshapeLike(const Tensor& x, const Tensor& like);
// Broadcasts x to like's shape (at run time when like has dynamic dims).
Tensor BroadcastLike(const Tensor& x, const Tensor& like);
// The gradient of slice(x, begin, end, strides) for its output's gradient
// dy: dy where the slice took its elements from, zeros elsewhere.
Tensor SliceAdjoint(const Tensor& dy, const Tensor& x, const std::vector<int64_t>& begin,
                    const std::vector<int64_t>& end, const std::vector<int64_t>& strides);
// The permutation that undoes `perm` (transpose by one, then the other).
std::vector<int64_t> InversePermutation(const std::vector<int64_t>& perm);
// A scalar of x's dtype.
Tensor ScalarLikeOf(const Tensor& x, double value);

}  // namespace tfn::detail
