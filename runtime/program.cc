// Building and validating runtime modules.
#include "runtime/program.h"

#include "core/str_format.h"

#include <cstdarg>
#include <cstdio>
#include <string>

namespace tfn::runtime {
namespace {

std::string ValueIndexError(const char* what, int32_t v, int n) {
  return std::string("an ") + what + " refers to value " + std::to_string(v) +
         ", but the program has values 0 to " + std::to_string(n - 1);
}

}  // namespace

Status MakeInstr(const Program& program, OpId op, std::vector<int32_t> in, std::vector<int32_t> out,
                 Attrs attrs, kernels::Variant variant, Instr* instr) {
  const OpDef& def = GetOpDef(op);
  TFN_RETURN_IF_ERROR(NormalizeAttrs(def, &attrs));
  instr->op = op;
  instr->inputs = std::move(in);
  instr->outputs = std::move(out);
  instr->attrs = std::move(attrs);
  instr->alias = def.has(kAliasInput0);
  std::vector<DType> in_types, out_types;
  std::vector<int> in_ranks, out_ranks;
  const int num_values = static_cast<int>(program.values.size());
  for (int32_t v : instr->inputs) {
    if (v < 0 || v >= num_values) return OutOfRange(ValueIndexError("input", v, num_values));
    in_types.push_back(program.values[v].dtype);
    in_ranks.push_back(program.values[v].static_shape.rank());
  }
  for (int32_t v : instr->outputs) {
    if (v < 0 || v >= num_values) return OutOfRange(ValueIndexError("output", v, num_values));
    out_types.push_back(program.values[v].dtype);
    out_ranks.push_back(program.values[v].static_shape.rank());
  }
  kernels::NodeSignature node{op,
                              &instr->attrs,
                              static_cast<int>(in_types.size()),
                              in_types.data(),
                              in_ranks.data(),
                              static_cast<int>(out_types.size()),
                              out_types.data(),
                              out_ranks.data()};
  // Every node, kernel or not, is checked before anything reads it: by
  // PrepareKernel (its first step) for the nodes it prepares, here for the rest.
  if (def.has(kNoKernel) || instr->alias) return CheckNode(node);
  return kernels::PrepareKernel(node, variant, &instr->kernel);
}

namespace {

// "program 'P' is malformed: <message>", the message printf-formatted: one
// call per check instead of a chain of string appends (the minimal runtime
// links every one of them).
__attribute__((format(printf, 2, 3))) Status Bad(const Program& p, const char* format, ...) {
  va_list args;
  va_start(args, format);
  std::string message = StrFormatV(format, args);
  va_end(args);
  return DataLoss("program '" + p.name + "' is malformed: " + message);
}

std::string TypeOf(const Program& p, int32_t v) {
  return TypeToString(static_cast<int>(p.values[v].dtype), p.values[v].static_shape);
}

// The executor copies subprogram results into the parent's buffers and reads
// a while_loop's condition as one bool: dtypes and ranks must agree. (Value
// ids are checked first by the caller.)
Status CheckControlFlowTypes(const Program& p, const Instr& in, const Program& a, const Program& b,
                             const char* where) {
  // what: "result" or "loop variable", with index i.
  auto same = [&](const Program& sp, int32_t sv, int32_t v, const char* what, size_t i) -> Status {
    const int n = static_cast<int>(sp.values.size());
    if (sv < 0 || sv >= n) return Bad(p, "%s: %s %zu is not a value", where, what, i);
    const ValueInfo& s = sp.values[sv];
    const ValueInfo& t = p.values[v];
    if (s.dtype == t.dtype && s.static_shape.rank() == t.static_shape.rank()) return Status::Ok();
    return Bad(p, "%s: %s %zu is %s in '%s' but %s here; expected the same dtype and rank", where,
               what, i, TypeToString(static_cast<int>(s.dtype), s.static_shape).c_str(),
               sp.name.c_str(), TypeOf(p, v).c_str());
  };
  const int n = static_cast<int>(p.values.size());
  for (int32_t v : in.inputs) {
    if (v < 0 || v >= n) return Bad(p, "%s reads value %d of %d", where, v, n);
  }
  for (int32_t v : in.outputs) {
    if (v < 0 || v >= n) return Bad(p, "%s defines value %d of %d", where, v, n);
  }
  if (in.op == OpId::kCond) {
    for (size_t i = 0; i < in.outputs.size(); ++i) {
      TFN_RETURN_IF_ERROR(same(a, a.results[i], in.outputs[i], "result", i));
      TFN_RETURN_IF_ERROR(same(b, b.results[i], in.outputs[i], "result", i));
    }
    return Status::Ok();
  }
  const int32_t c = a.results[0];
  if (c < 0 || c >= static_cast<int>(a.values.size()) || a.values[c].dtype != DType::kBool ||
      a.values[c].static_shape.rank() != 0) {
    const std::string got =
        c >= 0 && c < static_cast<int>(a.values.size())
            ? TypeToString(static_cast<int>(a.values[c].dtype), a.values[c].static_shape)
            : std::string("no value");
    return Bad(p, "%s: its condition '%s' must return one bool (bool[]), got %s", where,
               a.name.c_str(), got.c_str());
  }
  for (size_t i = 0; i < in.inputs.size(); ++i) {
    TFN_RETURN_IF_ERROR(same(b, b.results[i], in.inputs[i], "loop variable", i));
    if (i < in.outputs.size()) {
      const ValueInfo& o = p.values[in.outputs[i]];
      const ValueInfo& x = p.values[in.inputs[i]];
      if (o.dtype != x.dtype || o.static_shape.rank() != x.static_shape.rank()) {
        return Bad(p, "%s: output %zu is %s but loop variable %zu is %s", where, i,
                   TypeOf(p, in.outputs[i]).c_str(), i, TypeOf(p, in.inputs[i]).c_str());
      }
    }
  }
  return Status::Ok();
}

}  // namespace

Status ValidateModule(const Module& module) {
  int num_programs = static_cast<int>(module.programs.size());
  for (int pi = 0; pi < num_programs; ++pi) {
    const Program& p = module.programs[pi];
    int n = static_cast<int>(p.values.size());
    std::vector<bool> defined(n, false);
    auto define = [&](int32_t v, const char* what) -> Status {
      if (v < 0 || v >= n) return Bad(p, "%s refers to value %d of %d", what, v, n);
      if (defined[v]) return Bad(p, "value %d is defined twice", v);
      defined[v] = true;
      return Status::Ok();
    };
    for (const ValueInfo& v : p.values) {
      if (!IsValidDType(static_cast<int>(v.dtype)))
        return Bad(p, "%s", "a value has an invalid dtype");
      for (int64_t d : v.static_shape) {
        if (d < kDynamic) return Bad(p, "%s", "a value has a negative dim");
      }
    }
    for (int32_t v : p.params) TFN_RETURN_IF_ERROR(define(v, "a parameter"));
    for (const auto& [v, c] : p.constants) {
      TFN_RETURN_IF_ERROR(define(v, "a constant"));
      if (c.dtype != p.values[v].dtype || c.shape != p.values[v].static_shape) {
        return Bad(p, "constant %d does not match its value's type", v);
      }
    }
    for (size_t ii = 0; ii < p.instrs.size(); ++ii) {
      const Instr& in = p.instrs[ii];
      if (in.op >= OpId::kNumOps) return Bad(p, "%s", "unknown op");
      const OpDef& def = GetOpDef(in.op);
      char where[96];  // "instruction 3 (matmul)"
      std::snprintf(where, sizeof where, "instruction %zu (%s)", ii, def.name);
      int ni = static_cast<int>(in.inputs.size());
      if (ni < def.min_inputs() || (def.max_inputs() >= 0 && ni > def.max_inputs())) {
        return Bad(p, "%s has %d inputs", where, ni);
      }
      for (int32_t v : in.inputs) {
        if (v < 0 || v >= n || !defined[v])
          return Bad(p, "%s reads a value not yet defined", where);
      }
      int expected_out = def.NumOutputs(in.attrs, ni);
      if (in.op == OpId::kParameter || in.op == OpId::kConstant) {
        return Bad(p, "%s may not appear as an instruction", where);
      }
      if (def.has(kControlFlow)) {
        if (in.subprograms.size() != 2) return Bad(p, "%s needs two subprograms", where);
        for (int32_t s : in.subprograms) {
          // Subprograms come after their parent, so recursion is impossible.
          if (s <= pi || s >= num_programs) return Bad(p, "%s names an invalid subprogram", where);
        }
        expected_out = in.op == OpId::kCond ? static_cast<int>(in.outputs.size()) : ni;
        const Program& a = module.programs[in.subprograms[0]];
        const Program& b = module.programs[in.subprograms[1]];
        size_t nin = static_cast<size_t>(ni), nout = in.outputs.size();
        bool arity_ok = in.op == OpId::kCond
                            ? ni >= 1 && a.params.size() == nin - 1 && b.params.size() == nin - 1 &&
                                  a.results.size() == nout && b.results.size() == nout
                            : a.params.size() == nin && a.results.size() == 1 &&
                                  b.params.size() == nin && b.results.size() == nin;
        if (!arity_ok) return Bad(p, "%s and its subprograms disagree on arity", where);
        TFN_RETURN_IF_ERROR(CheckControlFlowTypes(p, in, a, b, where));
      } else if (!in.subprograms.empty()) {
        return Bad(p, "%s has subprograms", where);
      }
      if (static_cast<int>(in.outputs.size()) != expected_out) {
        return Bad(p, "%s has %zu outputs, expected %d", where, in.outputs.size(), expected_out);
      }
      bool var_op =
          in.op == OpId::kVarRead || in.op == OpId::kVarAssign || in.op == OpId::kVarAssignAdd;
      if (var_op && (in.variable < 0 || in.variable >= static_cast<int>(module.variables.size()))) {
        return Bad(p, "%s names an invalid variable", where);
      }
      if (in.alias && (in.inputs.empty() || in.outputs.size() != 1))
        return Bad(p, "%s cannot alias", where);
      for (int32_t v : in.outputs) TFN_RETURN_IF_ERROR(define(v, where));
    }
    for (int32_t v : p.results) {
      if (v < 0 || v >= n || !defined[v]) return Bad(p, "%s", "a result is not a defined value");
    }
  }
  return Status::Ok();
}

}  // namespace tfn::runtime
