// The shared driver of shape inference for both dim types: dtype checks and
// rule, then the op's shape rule. Internal to core/.
#pragma once

#include <functional>

#include "core/op_def.h"

namespace tfn {

template <class D>
Status RunShapeRule(const OpDef& def, ShapeRule<D> rule, const Attrs& attrs, int num_inputs,
                    const DType* in_types, const ShapeT<D>* in_shapes,
                    const ConstTensor* const* in_values, int num_outputs, DType* out_types,
                    ShapeT<D>* out_shapes, std::function<D()> fresh_dim) {
  TFN_RETURN_IF_ERROR(InferTypes(def, attrs, num_inputs, in_types, num_outputs, out_types));
  for (int i = 0; i < num_inputs; ++i) {
    if (def.InputAt(i)->value_needed && !(in_values && in_values[i]) && !fresh_dim) {
      return InvalidArgument(std::string(def.name) + ": the value of input '" +
                             def.InputAt(i)->name + "' is needed to infer the output shape");
    }
  }
  InferContext<D> c;
  c.def = &def;
  c.attrs = &attrs;
  c.num_inputs = num_inputs;
  c.in_types = in_types;
  c.in_shapes = in_shapes;
  c.in_values = in_values;
  c.num_outputs = num_outputs;
  c.out_types = out_types;
  c.out_shapes = out_shapes;
  c.fresh_dim = std::move(fresh_dim);
  return rule(c);
}

}  // namespace tfn
