// The op table: one definition per op, used by the IR, the runtime and aot.
//
// An op is one line of core/op_list.inc: its enum, its name, its signature
// (inputs with allowed dtypes, attributes with defaults, output count and
// dtype rule; core/op_sigs.h) and its shape rule, a template over the
// dimension type (core/rules/*.h). The IR instantiates the rule with SymDim,
// the runtime with int64_t. The table is immutable and safe to read from any
// thread.
#pragma once

#include <cstdarg>

#include "core/str_format.h"

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "core/attrs.h"
#include "core/dtype.h"
#include "core/shape.h"
#include "core/status.h"
#include "core/sym_dim.h"

namespace tfn {

enum class OpId : uint16_t {
#define TFN_OP(id, name, sig, rule, flags) id,
#include "core/op_list.inc"
#undef TFN_OP
  kNumOps
};

// Bit masks of allowed dtypes (bit = dtype value).
using TypeMask = uint32_t;
constexpr TypeMask TypeBit(DType t) { return 1u << static_cast<int>(t); }
inline constexpr TypeMask kBoolTypes = TypeBit(DType::kBool);
inline constexpr TypeMask kIntTypes = TypeBit(DType::kInt32) | TypeBit(DType::kInt64);
inline constexpr TypeMask kFloatTypes = TypeBit(DType::kFloat32) | TypeBit(DType::kFloat64);
inline constexpr TypeMask kNumericTypes = kIntTypes | kFloatTypes;
// The dtypes arithmetic kernels compute on.
inline constexpr TypeMask kAnyType = kNumericTypes | kBoolTypes;
// float16, bfloat16 and the small and unsigned integers: stored, moved and
// cast everywhere; computed on only by the ops that list them (quantize_linear,
// dequantize_linear). Importers compute other ops on them in a wider dtype.
inline constexpr TypeMask kStorageTypes = TypeBit(DType::kFloat16) | TypeBit(DType::kBFloat16) |
                                          TypeBit(DType::kInt8) | TypeBit(DType::kUInt8) |
                                          TypeBit(DType::kInt16) | TypeBit(DType::kUInt16) |
                                          TypeBit(DType::kUInt32) | TypeBit(DType::kUInt64);
// Every dtype: ops that only move, select or cast elements.
inline constexpr TypeMask kAllTypes = kAnyType | kStorageTypes;
// "f32, f64" style list of a mask, for messages.
std::string TypeMaskToString(TypeMask mask);

struct InputDef {
  const char* name;
  TypeMask types;
  bool optional;      // may be omitted (only trailing inputs)
  bool variadic;      // the last input may repeat (>= 1 times)
  bool value_needed;  // the shape rule reads this input's values (data-dependent shape)
};

struct AttrDef {
  const char* name;
  AttrType type;
  bool required;
  // Defaults for optional attributes (lists default to empty, which the op's
  // rule reads as its documented default).
  int64_t int_default;
  double float_default;
  const char* string_default;
};

enum class TypeRule : uint8_t {
  kSameAsInput0,   // every output has input 0's dtype
  kSameAsInput1,   // every output has input 1's dtype (where)
  kBool,           // every output is bool
  kInt64,          // every output is int64
  kFromAttr,       // every output has attribute "dtype"
  kNoOutputs,      // the op has no outputs (print, assign)
  kExternal,       // outputs are given by the graph (parameter, cond, while_loop)
  kByShapeRule,    // the shape rule sets the dtypes too (constant)
};

struct OpSig {
  const InputDef* inputs;
  int num_inputs;
  const AttrDef* attrs;
  int num_attrs;
  int num_outputs;  // -1: computed by num_outputs_fn
  int (*num_outputs_fn)(const Attrs& attrs, int num_inputs);
  TypeRule type_rule;
  uint32_t same_type_mask;  // inputs (bit i = input i; the variadic tail counts as its index)
                            // that must all share one dtype
};

// Op properties the passes and the executor rely on.
enum OpFlags : uint32_t {
  kNoFlags = 0,
  kElementwise = 1u << 0,  // output[i] depends only on input[i] (after broadcasting): fusable
  kCommutative = 1u << 1,  // binary op with op(a,b) == op(b,a)
  kStateful = 1u << 2,     // reads or writes state or has side effects: never CSE'd, folded,
                           // reordered, or removed when it has effects
  kSideEffect = 1u << 3,   // kept even when its outputs are unused (print, assign)
  kControlFlow = 1u << 4,  // owns subgraphs (cond, while_loop)
  kNoKernel = 1u << 5,     // executed by the graph executor itself, not by a kernel
  kAliasInput0 = 1u << 6,  // output 0 has input 0's bytes in the same order (reshape-likes):
                           // the runtime shares the buffer instead of copying
};

template <class D>
struct InferContext;
template <class D>
using ShapeRule = Status (*)(InferContext<D>& ctx);

struct OpDef {
  OpId id;
  const char* name;
  const OpSig* sig;
  ShapeRule<int64_t> infer;  // concrete shapes (runtime); symbolic rules: op_def_symbolic.h
  uint32_t flags;

  bool has(OpFlags f) const { return (flags & f) != 0; }
  int min_inputs() const;
  int max_inputs() const;  // -1: unbounded (variadic)
  // Output count for these attrs and inputs; -1 for kExternal ops.
  int NumOutputs(const Attrs& attrs, int num_inputs) const;
  const AttrDef* FindAttr(std::string_view name) const;
  // The input definition that applies to input i (the variadic tail repeats).
  const InputDef* InputAt(int i) const;
};

const OpDef& GetOpDef(OpId id);
inline const char* OpName(OpId id) { return GetOpDef(id).name; }
// nullptr when no op has this name.
const OpDef* FindOpDef(std::string_view name);

// Checks attributes against the op's definition and fills in defaults:
// unknown names, wrong types and missing required attributes are errors.
Status NormalizeAttrs(const OpDef& def, Attrs* attrs);

// Everything a shape rule sees. Arrays are owned by the caller.
template <class D>
struct InferContext {
  const OpDef* def = nullptr;
  const Attrs* attrs = nullptr;
  int num_inputs = 0;
  const DType* in_types = nullptr;
  const ShapeT<D>* in_shapes = nullptr;
  // Per input, its constant value when known (always for value_needed inputs
  // at run time); may be null as a whole.
  const ConstTensor* const* in_values = nullptr;
  int num_outputs = 0;
  DType* out_types = nullptr;  // already set by the dtype rule when the shape rule runs
  ShapeT<D>* out_shapes = nullptr;
  // A new unknown dim for data-dependent shapes (symbolic inference only).
  std::function<D()> fresh_dim;

  const ShapeT<D>& in(int i) const { return in_shapes[i]; }
  DType type(int i) const { return in_types[i]; }
  ShapeT<D>& out(int i) { return out_shapes[i]; }
  const ConstTensor* value(int i) const { return in_values ? in_values[i] : nullptr; }
  // "f32[2,3]" for input i.
  std::string TypeStr(int i) const;
  // "<op>: <message>" as an invalid-argument error.
  Status Error(const std::string& message) const;
  // The same with a printf-style message (core/str_format.h: one call, not
  // a chain of string appends, for the size-bound minimal runtime).
  Status Errorf(const char* format, ...) const __attribute__((format(printf, 2, 3)));
  const char* InputName(int i) const { return def->InputAt(i)->name; }
};

// Runs the dtype checks, the dtype rule and the shape rule. `in_values` may
// be null. Output arrays must hold NumOutputs entries.
Status InferOp(const OpDef& def, const Attrs& attrs, int num_inputs, const DType* in_types,
               const Shape* in_shapes, const ConstTensor* const* in_values, int num_outputs,
               DType* out_types, Shape* out_shapes);

// The dtype part alone, shared by both instantiations.
Status InferTypes(const OpDef& def, const Attrs& attrs, int num_inputs, const DType* in_types,
                  int num_outputs, DType* out_types);

template <class D>
std::string ShapeStr(const ShapeT<D>& s) {
  std::string r = "[";
  for (int i = 0; i < s.rank(); ++i) {
    if (i) r += ",";
    r += DimToString(s[i]);
  }
  return r + "]";
}

template <class D>
std::string InferContext<D>::TypeStr(int i) const {
  return std::string(DTypeName(in_types[i])) + ShapeStr(in_shapes[i]);
}

template <class D>
Status InferContext<D>::Error(const std::string& message) const {
  return InvalidArgument(std::string(def->name) + ": " + message);
}

template <class D>
Status InferContext<D>::Errorf(const char* format, ...) const {
  va_list args;
  va_start(args, format);
  std::string message = StrFormatV(format, args);
  va_end(args);
  return Error(message);
}

}  // namespace tfn
