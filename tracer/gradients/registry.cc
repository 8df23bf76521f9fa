// The gradient table: every family registers its rules once, on first use.
#include "tracer/gradients/registry.h"

namespace tfn::detail {
namespace {

GradTable BuildTable() {
  GradTable table(static_cast<size_t>(OpId::kNumOps));
  // Ops that make values without depending on any input's value, ops whose
  // outputs are piecewise constant (their derivative is zero where it
  // exists), and comparisons and predicates: no gradient flows through them.
  for (OpId op :
       {OpId::kParameter,      OpId::kConstant,      OpId::kSign,         OpId::kFloor,
        OpId::kCeil,           OpId::kRound,         OpId::kFill,         OpId::kFillLike,
        OpId::kRange,          OpId::kRandomUniform, OpId::kRandomNormal, OpId::kShape,
        OpId::kSize,           OpId::kArgMax,        OpId::kArgMin,       OpId::kVarRead,
        OpId::kVarAssign,      OpId::kVarAssignAdd,  OpId::kPrint,        OpId::kNonZero,
        OpId::kQuantizeLinear, OpId::kEqual,         OpId::kNotEqual,     OpId::kLess,
        OpId::kLessEqual,      OpId::kGreater,       OpId::kGreaterEqual, OpId::kLogicalAnd,
        OpId::kLogicalOr,      OpId::kLogicalXor,    OpId::kLogicalNot,   OpId::kIsInf,
        OpId::kIsNan}) {
    table[static_cast<size_t>(op)].kind = GradKind::kNotDifferentiable;
  }
  RegisterElementwiseGrads(table);
  RegisterMathGrads(table);
  RegisterShapeGrads(table);
  RegisterNnGrads(table);
  RegisterResizeGrads(table);
  RegisterScatterGrads(table);
  RegisterControlFlowGrads(table);
  RegisterQuantGrads(table);
  return table;
}

}  // namespace

const GradEntry& GetGradEntry(OpId op) {
  static const GradTable table = BuildTable();  // thread-safe initialization
  return table[static_cast<size_t>(op)];
}

}  // namespace tfn::detail
