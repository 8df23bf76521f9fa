// The op table (generated from op_list.inc) and the generic parts of inference:
// arity and dtype checks, dtype rules, attribute normalization.
#include <cstring>
#include <string>

#include "core/infer_impl.h"
#include "core/op_def.h"
#include "core/op_sigs.h"
#include "core/rules/rules_fused.h"
#include "core/rules/rules_indexing.h"
#include "core/rules/rules_linalg.h"
#include "core/rules/rules_nn.h"
#include "core/rules/rules_quant.h"
#include "core/rules/rules_resize.h"

namespace tfn {
namespace {

using namespace sigs;   // NOLINT: the signature names of op_list.inc
using namespace rules;  // NOLINT: the rule names of op_list.inc

const OpDef kOpDefs[] = {
#define TFN_OP(id, name, sig, rule, flags) \
  {OpId::id, name, &sig, &rule<int64_t>, static_cast<uint32_t>(flags)},
#include "core/op_list.inc"
#undef TFN_OP
};
static_assert(std::size(kOpDefs) == static_cast<size_t>(OpId::kNumOps), "one def per op");

}  // namespace

const OpDef& GetOpDef(OpId id) {
  size_t i = static_cast<size_t>(id);
  return kOpDefs[i < std::size(kOpDefs) ? i : 0];
}

const OpDef* FindOpDef(std::string_view name) {
  for (const OpDef& d : kOpDefs) {
    if (name == d.name) return &d;
  }
  return nullptr;
}

std::string TypeMaskToString(TypeMask mask) {
  std::string s;
  for (int v = 0; v < kNumDTypeValues; ++v) {
    if (IsValidDType(v) && (mask & (1u << v))) {
      s += std::string(s.empty() ? "" : ", ") + DTypeName(static_cast<DType>(v));
    }
  }
  size_t last = s.rfind(", ");
  if (last != std::string::npos) s.replace(last, 2, " or ");
  return s;
}

int OpDef::min_inputs() const {
  int n = 0;
  for (int i = 0; i < sig->num_inputs; ++i) {
    if (!sig->inputs[i].optional) ++n;
  }
  return n;
}

int OpDef::max_inputs() const {
  if (sig->num_inputs > 0 && sig->inputs[sig->num_inputs - 1].variadic) return -1;
  return sig->num_inputs;
}

int OpDef::NumOutputs(const Attrs& attrs, int num_inputs) const {
  if (sig->num_outputs >= 0) return sig->num_outputs;
  if (sig->num_outputs_fn) return sig->num_outputs_fn(attrs, num_inputs);
  return -1;
}

const AttrDef* OpDef::FindAttr(std::string_view name) const {
  for (int i = 0; i < sig->num_attrs; ++i) {
    if (name == sig->attrs[i].name) return &sig->attrs[i];
  }
  return nullptr;
}

const InputDef* OpDef::InputAt(int i) const {
  static const InputDef kExtra = {"input", kAnyType, false, false, false};
  if (sig->num_inputs == 0) return &kExtra;
  if (i < sig->num_inputs) return &sig->inputs[i];
  const InputDef& last = sig->inputs[sig->num_inputs - 1];
  return last.variadic ? &last : &kExtra;
}

Status NormalizeAttrs(const OpDef& def, Attrs* attrs) {
  for (const auto& [name, value] : *attrs) {
    const AttrDef* a = def.FindAttr(name);
    if (!a) {
      std::string known;
      for (int i = 0; i < def.sig->num_attrs; ++i) {
        known += std::string(i ? ", " : "") + def.sig->attrs[i].name;
      }
      return InvalidArgument(std::string(def.name) + ": unknown attribute '" + name + "'" +
                             (known.empty() ? "; it takes none" : "; it takes " + known));
    }
    bool int_for_float = a->type == AttrType::kFloat && value.type() == AttrType::kInt;
    if (value.type() != a->type && !int_for_float) {
      return InvalidArgument(std::string(def.name) + ": attribute '" + name + "' must be " +
                             AttrTypeName(a->type) + ", got " + AttrTypeName(value.type()));
    }
  }
  for (int i = 0; i < def.sig->num_attrs; ++i) {
    const AttrDef& a = def.sig->attrs[i];
    const AttrValue* v = attrs->Find(a.name);
    if (v) {
      if (a.type == AttrType::kFloat && v->type() == AttrType::kInt) {
        attrs->Set(a.name, AttrValue::Float(static_cast<double>(v->i())));
      }
      if (a.type == AttrType::kDType && !IsValidDType(static_cast<int>(v->dtype()))) {
        return InvalidArgument(std::string(def.name) + ": attribute '" + a.name +
                               "' is not a valid dtype");
      }
      continue;
    }
    if (a.required) {
      return InvalidArgument(std::string(def.name) + ": missing required attribute '" + a.name +
                             "' (" + AttrTypeName(a.type) + ")");
    }
    switch (a.type) {
      case AttrType::kInt: attrs->Set(a.name, AttrValue::Int(a.int_default)); break;
      case AttrType::kFloat: attrs->Set(a.name, AttrValue::Float(a.float_default)); break;
      case AttrType::kString: attrs->Set(a.name, AttrValue::String(a.string_default)); break;
      case AttrType::kInts: attrs->Set(a.name, AttrValue::Ints({})); break;
      case AttrType::kFloats: attrs->Set(a.name, AttrValue::Floats({})); break;
      case AttrType::kDType:
        attrs->Set(a.name, AttrValue::Type(static_cast<DType>(a.int_default)));
        break;
      case AttrType::kTensor: break;
    }
  }
  return Status::Ok();
}

Status InferTypes(const OpDef& def, const Attrs& attrs, int num_inputs, const DType* in_types,
                  int num_outputs, DType* out_types) {
  int min_in = def.min_inputs(), max_in = def.max_inputs();
  if (num_inputs < min_in || (max_in >= 0 && num_inputs > max_in)) {
    std::string expected = max_in < 0           ? "at least " + std::to_string(min_in)
                           : min_in == max_in ? std::to_string(min_in)
                                              : std::to_string(min_in) + " to " +
                                                    std::to_string(max_in);
    return InvalidArgument(std::string(def.name) + ": expected " + expected + " inputs, got " +
                           std::to_string(num_inputs));
  }
  int group_first = -1;
  for (int i = 0; i < num_inputs; ++i) {
    const InputDef* in = def.InputAt(i);
    if (!IsValidDType(static_cast<int>(in_types[i]))) {
      return InvalidArgument(std::string(def.name) + ": input " + std::to_string(i) +
                             " has an invalid dtype");
    }
    if (!(in->types & TypeBit(in_types[i]))) {
      return InvalidArgument(std::string(def.name) + ": argument '" + in->name + "' must be " +
                             TypeMaskToString(in->types) + ", got " + DTypeName(in_types[i]));
    }
    int sig_index = i < def.sig->num_inputs ? i : def.sig->num_inputs - 1;
    if (def.sig->same_type_mask & (1u << sig_index)) {
      if (group_first < 0) {
        group_first = i;
      } else if (in_types[i] != in_types[group_first]) {
        return InvalidArgument(std::string(def.name) + ": argument '" + in->name + "' (input " +
                               std::to_string(i) + ") is " + DTypeName(in_types[i]) +
                               " but argument '" + def.InputAt(group_first)->name + "' is " +
                               DTypeName(in_types[group_first]) +
                               "; they must have the same dtype (cast one of them)");
      }
    }
  }
  for (int o = 0; o < num_outputs; ++o) {
    switch (def.sig->type_rule) {
      case TypeRule::kSameAsInput0: out_types[o] = in_types[0]; break;
      case TypeRule::kSameAsInput1: out_types[o] = in_types[1]; break;
      case TypeRule::kBool: out_types[o] = DType::kBool; break;
      case TypeRule::kInt64: out_types[o] = DType::kInt64; break;
      case TypeRule::kFromAttr: out_types[o] = attrs.GetType("dtype"); break;
      case TypeRule::kNoOutputs:
      case TypeRule::kExternal:
      case TypeRule::kByShapeRule: out_types[o] = DType::kInvalid; break;
    }
  }
  return Status::Ok();
}

Status InferOp(const OpDef& def, const Attrs& attrs, int num_inputs, const DType* in_types,
               const Shape* in_shapes, const ConstTensor* const* in_values, int num_outputs,
               DType* out_types, Shape* out_shapes) {
  return RunShapeRule<int64_t>(def, def.infer, attrs, num_inputs, in_types, in_shapes, in_values,
                               num_outputs, out_types, out_shapes, nullptr);
}

}  // namespace tfn
