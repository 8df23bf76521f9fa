// Shape inference over programs, and their arena plans (core/memory_plan.h
// decides which buffers share memory).
#include "runtime/planner.h"

#include <algorithm>
#include <string>
#include <vector>

#include "core/memory_plan.h"

namespace tfn::runtime {
namespace {

int64_t AlignUp(int64_t n) { return (n + kArenaAlignment - 1) / kArenaAlignment * kArenaAlignment; }

Status Mismatch(const Program& p, const Instr& in, int32_t v, const Shape& got, DType got_type) {
  const ValueInfo& info = p.values[v];
  return InvalidArgument("'" + p.name + "', " + OpName(in.op) + ": computes " +
                         TypeToString(static_cast<int>(got_type), got) + " where " +
                         TypeToString(static_cast<int>(info.dtype), info.static_shape) +
                         " was expected");
}

}  // namespace

std::vector<const ConstTensor*> ConstantsByValue(const Program& program) {
  std::vector<const ConstTensor*> out(program.values.size(), nullptr);
  for (const auto& [v, c] : program.constants) out[v] = &c;
  return out;
}

namespace {

#if TFN_OPTIMIZED_KERNELS
// Values a plan computes itself: at most this many elements per output
// (shape vectors and scalars, never tensors of data).
constexpr int64_t kMaxPlanValueElements = 64;

// Shape(x) and the arithmetic PyTorch exports on it (Gather, Concat,
// Unsqueeze, Range...) follow from the input shapes a plan is made for.
// Evaluating them here settles the shapes they feed (ConstantOfShape,
// Expand, Reshape, Slice) once per plan, instead of making those, and all
// that follows them, inferred and allocated on every run (an LSTM's zero
// initial state made every step of its recurrence so). `in` is evaluated
// when every input is a known value (a constant or one evaluated here) or
// only its shape is read (shape, size), its op is a pure kernel and each
// output is small; its outputs then become known values. What cannot be
// done here (scratch, no memory, a kernel error) is left to the run, which
// computes it and says what is wrong. The minimal runtime, which trades
// speed for size throughout (cmake/TfnHelpers.cmake), leaves all of it to
// the run: the same results, inferred per run.
void EvaluateAtPlanTime(const Program& p, const Instr& in, const Shape* in_shapes,
                        const std::vector<Shape>& outs, std::vector<ConstTensor>* evaluated,
                        std::vector<const ConstTensor*>* known) {
  const int n_in = static_cast<int>(in.inputs.size()), n_out = static_cast<int>(in.outputs.size());
  if ((GetOpDef(in.op).flags & (kStateful | kSideEffect | kControlFlow | kNoKernel)) || n_in > 8 ||
      n_out > 8 || (!in.alias && !in.kernel.fn)) {
    return;
  }
  const bool shape_only = in.op == OpId::kShape || in.op == OpId::kSize;
  TfnTensor args[8], results[8];
  for (int i = 0; i < n_in; ++i) {
    const ConstTensor* v = (*known)[in.inputs[i]];
    if (!v && !shape_only) return;
    args[i] = kernels::MakeTensor(v ? const_cast<void*>(v->data) : nullptr,
                                  p.values[in.inputs[i]].dtype, in_shapes[i]);
  }
  for (int o = 0; o < n_out; ++o) {
    int64_t count = 0;
    if (!CheckedNumElements(outs[o], &count) || count > kMaxPlanValueElements) return;
    ConstTensor& made = (*evaluated)[in.outputs[o]];
    void* data = nullptr;
    if (in.alias) {  // shares its input's bytes
      made = *(*known)[in.inputs[0]];
      made.shape = outs[o];
    } else {
      made = ConstTensor::Allocate(p.values[in.outputs[o]].dtype, outs[o], &data);
      results[o] = kernels::MakeTensor(data, made.dtype, outs[o]);
    }
  }
  if (!in.alias) {
    TfnKernelContext ctx{};
    ctx.num_threads = 1;
    if (kernels::ScratchBytes(in.kernel, args, n_in, results, n_out) > 0 ||
        in.kernel.fn(in.kernel.params, args, n_in, results, n_out, &ctx) != TFN_KERNEL_OK) {
      return;
    }
  }
  for (int o = 0; o < n_out; ++o) (*known)[in.outputs[o]] = &(*evaluated)[in.outputs[o]];
}
#endif  // TFN_OPTIMIZED_KERNELS

}  // namespace

Status InferInstr(const Program& program, const Instr& instr, const Shape* in_shapes,
                  const ConstTensor* const* in_values, std::vector<Shape>* out_shapes) {
  const OpDef& def = GetOpDef(instr.op);
  int n_in = static_cast<int>(instr.inputs.size());
  int n_out = static_cast<int>(instr.outputs.size());
  out_shapes->assign(n_out, Shape());
  if (instr.op == OpId::kVarRead) {
    (*out_shapes)[0] = program.values[instr.outputs[0]].static_shape;
    return Status::Ok();
  }
  // One buffer for both (an unrolled recurrence's split and concat have a
  // step each: hundreds of operands).
  std::vector<DType> types(static_cast<size_t>(n_in) + n_out);
  DType* in_types = types.data();
  DType* out_types = in_types + n_in;
  for (int i = 0; i < n_in; ++i) in_types[i] = program.values[instr.inputs[i]].dtype;
  TFN_RETURN_IF_ERROR(InferOp(def, instr.attrs, n_in, in_types, in_shapes, in_values, n_out,
                              out_types, out_shapes->data()));
  for (int o = 0; o < n_out; ++o) {
    int32_t v = instr.outputs[o];
    DType t = def.sig->type_rule == TypeRule::kNoOutputs ? program.values[v].dtype : out_types[o];
    if (t != program.values[v].dtype || !ShapeMatches(program.values[v].static_shape, (*out_shapes)[o])) {
      return Mismatch(program, instr, v, (*out_shapes)[o], t);
    }
  }
  return Status::Ok();
}

Status InferProgramShapes(const Module& module, int program, const Shape* input_shapes,
                          std::vector<Shape>* shapes, std::vector<uint8_t>* dynamic) {
  const Program& p = module.programs[program];
  size_t n = p.values.size();
  shapes->assign(n, Shape());
  dynamic->assign(n, 0);
  std::vector<const ConstTensor*> consts = ConstantsByValue(p);
#if TFN_OPTIMIZED_KERNELS
  std::vector<ConstTensor> evaluated(n);  // EvaluateAtPlanTime's values (consts points at them)
#endif
  for (size_t i = 0; i < p.params.size(); ++i) (*shapes)[p.params[i]] = input_shapes[i];
  for (const auto& [v, c] : p.constants) (*shapes)[v] = c.shape;
  std::vector<Shape> in_shapes, outs;
  std::vector<const ConstTensor*> in_values;
  for (const Instr& in : p.instrs) {
    bool is_dynamic = false;
    in_shapes.clear();
    in_values.clear();
    for (int32_t v : in.inputs) {
      is_dynamic |= (*dynamic)[v] != 0;
      in_shapes.push_back((*shapes)[v]);
      in_values.push_back(consts[v]);
    }
    const OpDef& def = GetOpDef(in.op);
    for (size_t i = 0; i < in.inputs.size(); ++i) {
      is_dynamic |= def.InputAt(static_cast<int>(i))->value_needed && !in_values[i];
    }
    if (is_dynamic) {
      for (int32_t v : in.outputs) (*dynamic)[v] = 1;
      continue;
    }
    if (in.op == OpId::kCond) {
      // Known only when both branches give the same shapes.
      std::vector<Shape> a, b;
      std::vector<uint8_t> da, db;
      TFN_RETURN_IF_ERROR(InferProgramShapes(module, in.subprograms[0], in_shapes.data() + 1, &a, &da));
      TFN_RETURN_IF_ERROR(InferProgramShapes(module, in.subprograms[1], in_shapes.data() + 1, &b, &db));
      const Program& pa = module.programs[in.subprograms[0]];
      const Program& pb = module.programs[in.subprograms[1]];
      for (size_t o = 0; o < in.outputs.size(); ++o) {
        int32_t ra = pa.results[o], rb = pb.results[o];
        bool same = !da[ra] && !db[rb] && a[ra] == b[rb];
        (*dynamic)[in.outputs[o]] = !same;
        if (same) (*shapes)[in.outputs[o]] = a[ra];
      }
      continue;
    }
    if (in.op == OpId::kWhileLoop) {
      // Known when the body keeps every loop variable's shape.
      std::vector<Shape> b;
      std::vector<uint8_t> db;
      TFN_RETURN_IF_ERROR(InferProgramShapes(module, in.subprograms[1], in_shapes.data(), &b, &db));
      const Program& body = module.programs[in.subprograms[1]];
      bool keeps = true;
      for (size_t o = 0; o < in.outputs.size(); ++o) {
        keeps &= !db[body.results[o]] && b[body.results[o]] == in_shapes[o];
      }
      for (size_t o = 0; o < in.outputs.size(); ++o) {
        (*dynamic)[in.outputs[o]] = !keeps;
        if (keeps) (*shapes)[in.outputs[o]] = in_shapes[o];
      }
      continue;
    }
    TFN_RETURN_IF_ERROR(InferInstr(p, in, in_shapes.data(), in_values.data(), &outs));
    for (size_t o = 0; o < outs.size(); ++o) (*shapes)[in.outputs[o]] = outs[o];
#if TFN_OPTIMIZED_KERNELS
    EvaluateAtPlanTime(p, in, in_shapes.data(), outs, &evaluated, &consts);
#endif
  }
  return Status::Ok();
}

#if TFN_OPTIMIZED_KERNELS
namespace {

// When `in` is a split whose outputs are consecutive byte ranges of its
// input (every dim before the axis is 1), sets their ValueFacts::view_offset.
// (The minimal runtime, which trades speed for size, copies every split.)
void SplitIntoRanges(const Program& p, const Instr& in, const std::vector<Shape>& shapes,
                     const std::vector<uint8_t>& dynamic, std::vector<Plan::ValueFacts>* facts) {
  if (in.op != OpId::kSplit || in.inputs.empty() || dynamic[in.inputs[0]]) return;
  const Shape& whole = shapes[in.inputs[0]];
  int axis = 0;
  if (!NormalizeAxis(in.attrs.GetInt("axis"), whole.rank(), &axis)) return;
  for (int d = 0; d < axis; ++d) {
    if (whole[d] != 1) return;
  }
  for (int32_t v : in.outputs) {
    if (dynamic[v]) return;
  }
  int64_t at = 0;
  for (int32_t v : in.outputs) {
    (*facts)[v].view_offset = at;
    at += NumElements(shapes[v]) * DTypeSize(p.values[v].dtype);
  }
}

// Aliases (reshape-like ops) and split views of a value in the arena are in
// the arena too: their offsets are set here and their steps dropped, so a
// run sets their pointers with all the others instead of running a step for
// each (an unrolled recurrence has hundreds). Views of inputs, constants and
// variables keep their steps (those pointers change per run).
void ResolveViewSteps(const Program& p, Plan* plan) {
  std::vector<int32_t> kept;
  kept.reserve(plan->steps.size());
  for (int32_t step : plan->steps) {
    const Instr* in = step >= 0 ? &p.instrs[step] : nullptr;
    const bool view = in && IsView(*plan, *in);
    if (!in || (!in->alias && !view) || plan->offsets[in->inputs[0]] < 0 ||
        plan->dynamic[in->outputs[0]]) {
      kept.push_back(step);
      continue;
    }
    const int64_t base = plan->offsets[in->inputs[0]];
    for (int32_t v : in->outputs) plan->offsets[v] = base + (view ? plan->facts[v].view_offset : 0);
  }
  plan->steps.swap(kept);
}

}  // namespace
#endif  // TFN_OPTIMIZED_KERNELS

Result<Plan> MakePlan(const Module& module, int program, const Shape* input_shapes,
                      const PlanOptions& options) {
  const Program& p = module.programs[program];
  Plan plan;
  TFN_RETURN_IF_ERROR(InferProgramShapes(module, program, input_shapes, &plan.shapes, &plan.dynamic));
  size_t n = p.values.size();
  int num_instrs = static_cast<int>(p.instrs.size());
  Schedule schedule = MakeSchedule(p, plan.shapes, plan.dynamic,
                                   options.fuse_elementwise && module.fuse_elementwise, options.threads);
  plan.steps = std::move(schedule.steps);
  plan.chains = std::move(schedule.chains);
  int num_steps = static_cast<int>(plan.steps.size());
#if TFN_OPTIMIZED_KERNELS
  plan.facts.assign(n, Plan::ValueFacts{});
  for (const Instr& in : p.instrs) SplitIntoRanges(p, in, plan.shapes, plan.dynamic, &plan.facts);
#endif
  // Lifetimes in steps: [def, last use]. Aliases and views extend the
  // lifetime of the buffer they share. The members of a chain all run at its
  // step.
  std::vector<int> def(n, -1), last(n, -1), root(n);
  for (size_t v = 0; v < n; ++v) root[v] = static_cast<int>(v);
  std::vector<bool> planned(n, false);
  auto visit = [&](int step, const Instr& in) {
    for (int32_t v : in.inputs) last[root[v]] = std::max(last[root[v]], step);
    for (int32_t v : in.outputs) def[v] = step;
    if (in.alias) {
      root[in.outputs[0]] = root[in.inputs[0]];
      return;
    }
#if TFN_OPTIMIZED_KERNELS
    if (IsView(plan, in)) {
      for (int32_t v : in.outputs) root[v] = root[in.inputs[0]];
      return;
    }
#endif
    bool arena = in.op != OpId::kVarRead;  // variable reads share the variable's bytes
    for (int32_t v : in.outputs) planned[v] = arena && !plan.dynamic[v] && !schedule.in_tiles[v];
  };
  for (int s = 0; s < num_steps; ++s) {
    int32_t step = plan.steps[s];
    if (step >= 0) {
      visit(s, p.instrs[step]);
    } else {
      for (const ChainInstr& ci : plan.chains[-step - 1].instrs) visit(s, p.instrs[ci.instr]);
    }
  }
  for (int32_t v : p.results) last[root[v]] = num_steps;
#if TFN_OPTIMIZED_KERNELS
  for (const Instr& in : p.instrs) {
    if (in.op == OpId::kVarRead) plan.facts[in.outputs[0]].read_last_step = last[in.outputs[0]];
  }
#endif
  // Results computed here go straight into the tensors Run returns.
  plan.direct_results.assign(p.results.size(), 0);
  for (size_t r = 0; r < p.results.size(); ++r) {
    int32_t v = p.results[r];
    if (planned[v]) {
      plan.direct_results[r] = 1;
      planned[v] = false;  // also makes a repeated result a copy of the first
    }
  }
  // core/memory_plan.h's planner, on this run's sizes (the code generator
  // runs it on symbolic sizes).
  std::vector<int32_t> planned_values;
  std::vector<BufferLifetime<int64_t>> buffers;
  for (size_t v = 0; v < n; ++v) {
    if (!planned[v]) continue;
    int64_t count = 0;
    if (!CheckedNumElements(plan.shapes[v], &count) || count > (int64_t{1} << 56)) {
      return ResourceExhausted("'" + p.name + "': a value of shape " +
                               ShapeToString(plan.shapes[v]) + " is too large to allocate");
    }
    if (last[v] < 0) last[v] = def[v];  // unused outputs still need a buffer
    planned_values.push_back(static_cast<int32_t>(v));
    buffers.push_back({def[v], last[v], AlignUp(count * DTypeSize(p.values[v].dtype))});
  }
  BufferPlacement<int64_t> placement = PlaceBuffers(buffers);
  plan.offsets.assign(n, -1);
  for (size_t b = 0; b < buffers.size(); ++b) plan.offsets[planned_values[b]] = placement.offset[b];
#if TFN_OPTIMIZED_KERNELS
  ResolveViewSteps(p, &plan);
#endif
  int64_t total = placement.total;
  // Kernel scratch: one region after the buffers, as large as the largest need.
  plan.scratch.assign(num_instrs, 0);
  int64_t max_scratch = 0;
  for (int i = 0; i < num_instrs; ++i) {
    const Instr& in = p.instrs[i];
    if (!in.kernel.scratch || in.alias) continue;
    bool known = true;
    for (int32_t v : in.inputs) known &= !plan.dynamic[v];
    for (int32_t v : in.outputs) known &= !plan.dynamic[v];
    if (!known) continue;  // computed at run time
    std::vector<TfnTensor> ins, outs;
    for (int32_t v : in.inputs) ins.push_back(kernels::MakeTensor(nullptr, p.values[v].dtype, plan.shapes[v]));
    for (int32_t v : in.outputs) outs.push_back(kernels::MakeTensor(nullptr, p.values[v].dtype, plan.shapes[v]));
    plan.scratch[i] = AlignUp(kernels::ScratchBytes(in.kernel, ins.data(), static_cast<int>(ins.size()),
                                                    outs.data(), static_cast<int>(outs.size())));
    max_scratch = std::max(max_scratch, plan.scratch[i]);
  }
  for (const FusedChain& c : plan.chains) max_scratch = std::max(max_scratch, c.slots * c.slot_bytes);
  plan.scratch_offset = total;
  plan.arena_bytes = total + max_scratch;
  return plan;
}

}  // namespace tfn::runtime
