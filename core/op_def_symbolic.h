// Symbolic shape inference: the op table's shape rules instantiated with SymDim.
// Used by the IR and code generators; the runtime never links it.
#pragma once

#include <functional>

#include "core/op_def.h"
#include "core/sym_dim.h"

namespace tfn {

ShapeRule<SymDim> GetSymbolicRule(OpId id);

// Like InferOp, over symbolic dims. `fresh_dim` makes new unknown dims for
// data-dependent shapes (may be empty when the op has none).
Status InferOpSymbolic(const OpDef& def, const Attrs& attrs, int num_inputs, const DType* in_types,
                       const SymShape* in_shapes, const ConstTensor* const* in_values,
                       int num_outputs, DType* out_types, SymShape* out_shapes,
                       std::function<SymDim()> fresh_dim = {});

}  // namespace tfn
