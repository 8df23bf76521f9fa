// The runtime's form of a graph: a Module of Programs (one per function and
// per control-flow subgraph) whose instructions have their kernels already
// chosen and their params decoded. The tracer lowers ir::Graphs to it and
// the bundle loader builds it from a file, so both run through the same
// executor (executor.h).
//
// A Module is immutable once built and may be shared by any number of
// threads and executors.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/attrs.h"
#include "core/op_def.h"
#include "core/status.h"
#include "kernels/kernels.h"

namespace tfn::runtime {

struct ValueInfo {
  DType dtype = DType::kInvalid;
  Shape static_shape;  // rank is exact; kDynamic where the dim is known only at run time
};

struct Instr {
  OpId op = OpId::kIdentity;
  std::vector<int32_t> inputs;   // value ids
  std::vector<int32_t> outputs;  // value ids
  Attrs attrs;                   // normalized; run-time shape inference reads them
  kernels::KernelPlan kernel;    // unused for kNoKernel and alias ops
  std::vector<int32_t> subprograms;  // cond: {then, else}; while_loop: {cond, body}
  int32_t variable = -1;         // var ops: index into Module::variables
  bool alias = false;            // output 0 shares input 0's bytes (no kernel call)
  // The elementwise fusion group (ir/passes/fuse_elementwise.h) the
  // scheduler may run this in (fused_chain.h); -1: none.
  int32_t fusion_group = -1;
};

struct Program {
  std::string name;
  std::vector<ValueInfo> values;
  std::vector<int32_t> params;   // value ids of the inputs, in order
  std::vector<int32_t> results;  // value ids of the outputs, in order
  std::vector<Instr> instrs;     // program order
  // Constant values (weights): value id -> bytes (shared, possibly mapped).
  std::vector<std::pair<int32_t, ConstTensor>> constants;
};

struct VariableInfo {
  std::string name;
  DType dtype = DType::kInvalid;
  Shape shape;
  ConstTensor initial_value;
};

struct Module {
  std::vector<Program> programs;
  std::vector<VariableInfo> variables;
  // Run chains of elementwise instructions tile by tile (fused_chain.h). Off
  // for modules on the reference kernels, which stay the simple oracle.
  bool fuse_elementwise = true;
};

// Builds one instruction for `op`: normalizes attrs and prepares its kernel.
// `in`/`out` are value ids of `program`, whose ValueInfos must be set.
Status MakeInstr(const Program& program, OpId op, std::vector<int32_t> in,
                 std::vector<int32_t> out, Attrs attrs, kernels::Variant variant, Instr* instr);

// Checks the structure of a module: value ids in range, values defined before
// use, subprogram and variable indices valid, control-flow arities. The
// bundle loader runs it on untrusted input.
Status ValidateModule(const Module& module);

}  // namespace tfn::runtime
