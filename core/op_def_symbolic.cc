// The symbolic instantiation of every op's shape rule (see op_list.inc).
#include "core/op_def_symbolic.h"

#include <iterator>

#include "core/infer_impl.h"
#include "core/op_sigs.h"
#include "core/rules/rules_fused.h"
#include "core/rules/rules_indexing.h"
#include "core/rules/rules_linalg.h"
#include "core/rules/rules_nn.h"
#include "core/rules/rules_quant.h"
#include "core/rules/rules_resize.h"

namespace tfn {
namespace {

using namespace rules;  // NOLINT: the rule names of op_list.inc

const ShapeRule<SymDim> kSymbolicRules[] = {
#define TFN_OP(id, name, sig, rule, flags) &rule<SymDim>,
#include "core/op_list.inc"
#undef TFN_OP
};
static_assert(std::size(kSymbolicRules) == static_cast<size_t>(OpId::kNumOps), "one rule per op");

}  // namespace

ShapeRule<SymDim> GetSymbolicRule(OpId id) {
  size_t i = static_cast<size_t>(id);
  return kSymbolicRules[i < std::size(kSymbolicRules) ? i : 0];
}

Status InferOpSymbolic(const OpDef& def, const Attrs& attrs, int num_inputs, const DType* in_types,
                       const SymShape* in_shapes, const ConstTensor* const* in_values,
                       int num_outputs, DType* out_types, SymShape* out_shapes,
                       std::function<SymDim()> fresh_dim) {
  return RunShapeRule<SymDim>(def, GetSymbolicRule(def.id), attrs, num_inputs, in_types, in_shapes,
                              in_values, num_outputs, out_types, out_shapes, std::move(fresh_dim));
}

}  // namespace tfn
