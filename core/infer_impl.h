// The shared driver of shape inference for both dim types: dtype checks and
// rule, then the op's shape rule. Internal to core/.
#pragma once

#include <functional>
#include <string>

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
  TFN_RETURN_IF_ERROR(rule(c));
  // One check for every rule: a dim that works out negative (a slice, pad,
  // window or reshape whose numbers do not fit the input) is the inputs'
  // error, said here, not a size a planner or a bundle would later misread
  // (a static -1 is the bundle's mark for a dynamic dim).
  for (int o = 0; o < num_outputs; ++o) {
    const ShapeT<D>& s = out_shapes[o];
    for (int d = 0; d < s.rank(); ++d) {
      if (IsKnown(s[d]) && KnownValue(s[d]) < 0) {
        std::string inputs;
        for (int i = 0; i < num_inputs; ++i) inputs += (i ? ", " : "") + c.TypeStr(i);
        return c.Error("output " + std::to_string(o) + " would have dim " + std::to_string(d) +
                       " = " + std::to_string(KnownValue(s[d])) + " (" + ShapeStr(s) +
                       ") from inputs " + inputs +
                       ": the attributes or shape inputs ask for more than the input holds; "
                       "check them against the input's shape");
      }
    }
  }
  return Status::Ok();
}

}  // namespace tfn
