// The graph executor.
#include "runtime/executor.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "runtime/profile_step.h"
#include "runtime/small_buffer.h"

#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "core/format.h"

namespace tfn::runtime {

struct Executor::Arena {
  std::shared_ptr<void> memory;
  int64_t bytes = 0;
  // A run's value pointers and shapes, kept with the arena so that a warm
  // run reuses their capacity instead of allocating them.
  std::vector<void*> ptrs;
  std::vector<Shape> shapes;
};

namespace {

constexpr size_t kHugePage = size_t{2} << 20;

// 64-byte aligned memory; blocks of several MiB are 2 MiB aligned and asked
// to use transparent huge pages (far fewer page faults and TLB misses).
void* AllocateBlock(size_t bytes) {
  if (bytes >= 2 * kHugePage) {
    size_t rounded = (bytes + kHugePage - 1) / kHugePage * kHugePage;
    if (rounded < bytes) return nullptr;
    void* p = std::aligned_alloc(kHugePage, rounded);
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (p) madvise(p, rounded, MADV_HUGEPAGE);
#endif
    return p;
  }
  size_t rounded = (bytes + 63) / 64 * 64;
  if (rounded < bytes) return nullptr;
  return std::aligned_alloc(64, rounded == 0 ? 64 : rounded);
}

std::shared_ptr<void> SharedBlock(size_t bytes) {
  void* p = AllocateBlock(bytes);
  if (!p) return nullptr;
  return std::shared_ptr<void>(p, [](void* q) { std::free(q); });
}

}  // namespace

// Memory of output tensors: a block freed by its last owner is kept (a few,
// bounded in bytes) and serves a later output of about its size.
class Executor::OutputCache : public std::enable_shared_from_this<Executor::OutputCache> {
 public:
  static constexpr size_t kMinBytes = size_t{64} << 10;  // smaller ones: malloc is quick
  static constexpr size_t kMaxBlocks = 8;
  static constexpr size_t kMaxBytes = size_t{1} << 30;

  std::shared_ptr<void> Allocate(size_t bytes) {
    if (bytes < kMinBytes) return SharedBlock(bytes);
    void* p = nullptr;
    size_t capacity = 0;
    {
      std::lock_guard<std::mutex> lock(mu_);
      size_t best = free_.size();
      for (size_t i = 0; i < free_.size(); ++i) {
        const Block& b = free_[i];
        if (b.capacity >= bytes && b.capacity / 2 <= bytes &&
            (best == free_.size() || b.capacity < free_[best].capacity)) {
          best = i;
        }
      }
      if (best < free_.size()) {
        p = free_[best].p;
        capacity = free_[best].capacity;
        cached_bytes_ -= capacity;
        free_[best] = free_.back();
        free_.pop_back();
      }
    }
    if (!p) {
      p = AllocateBlock(bytes);
      capacity = bytes;
      if (!p) return nullptr;
    }
    std::shared_ptr<OutputCache> self = shared_from_this();
    return std::shared_ptr<void>(p, [self, capacity](void* q) { self->Release(q, capacity); });
  }

  ~OutputCache() {
    for (const Block& b : free_) std::free(b.p);
  }

 private:
  struct Block {
    void* p;
    size_t capacity;
  };
  void Release(void* p, size_t capacity) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (free_.size() < kMaxBlocks && cached_bytes_ + capacity <= kMaxBytes) {
        free_.push_back({p, capacity});
        cached_bytes_ += capacity;
        return;
      }
    }
    std::free(p);
  }
  std::mutex mu_;
  std::vector<Block> free_;
  size_t cached_bytes_ = 0;
};

struct Executor::RunState {
  const Program* program = nullptr;
  const Plan* plan = nullptr;
  char* arena = nullptr;
  std::vector<void*> ptrs;
  std::vector<Shape> shapes;
  std::vector<std::shared_ptr<const void>> keep;  // heap buffers, snapshots, sub-results
  VariableSlot* const* variables = nullptr;
  const RunOptions* options = nullptr;
  Clock::time_point deadline = Clock::time_point::max();  // from options->deadline_ms
  int64_t planned_bytes = 0;                              // charged against options->max_run_bytes
#if TFN_OPTIMIZED_KERNELS
  size_t step = 0;  // the step running (for ValueFacts::read_last_step)
#endif

  ConstTensor View(int32_t v) const {
    ConstTensor t;
    t.dtype = program->values[v].dtype;
    t.shape = shapes[v];
    t.data = ptrs[v];
    return t;
  }
};

Executor::Executor(std::shared_ptr<const Module> module, std::shared_ptr<ThreadPool> pool)
    : module_(std::move(module)),
      pool_(std::move(pool)),
      output_cache_(std::make_shared<OutputCache>()) {
  for (const Program& p : module_->programs) constants_.push_back(ConstantsByValue(p));
  plans_.resize(module_->programs.size());
  last_plan_.resize(module_->programs.size());
  base_ctx_.num_threads = 1;
  if (pool_) pool_->Fill(&base_ctx_);
}

Executor::~Executor() = default;

Result<std::shared_ptr<const Plan>> Executor::GetPlan(int program, const Shape* shapes,
                                                      int n) const {
  const std::vector<int32_t>& params = module_->programs[program].params;
  {
    std::lock_guard<std::mutex> lock(mu_);
    const std::shared_ptr<const Plan>& last = last_plan_[program];
    bool same = last != nullptr;
    for (int i = 0; same && i < n; ++i) same = last->shapes[params[i]] == shapes[i];
    if (same) return last;
  }
  std::vector<int64_t> key;
  for (int i = 0; i < n; ++i) {
    key.push_back(shapes[i].rank());
    key.insert(key.end(), shapes[i].begin(), shapes[i].end());
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = plans_[program].find(key);
    if (it != plans_[program].end()) {
      last_plan_[program] = it->second;
      return it->second;
    }
  }
  PlanOptions options;
  options.threads = base_ctx_.num_threads;
  Result<Plan> plan = MakePlan(*module_, program, shapes, options);
  if (!plan.ok()) return plan.status();
  auto shared = std::make_shared<const Plan>(std::move(plan).value());
  std::lock_guard<std::mutex> lock(mu_);
  auto& cache = plans_[program];
  if (cache.size() >= 64) cache.erase(cache.begin());  // bound memory for many shapes
  cache[key] = shared;
  last_plan_[program] = shared;
  return std::shared_ptr<const Plan>(shared);
}

std::unique_ptr<Executor::Arena> Executor::TakeArena(int64_t bytes) const {
  std::unique_ptr<Arena> arena;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!arenas_.empty()) {
      arena = std::move(arenas_.back());
      arenas_.pop_back();
    }
  }
  if (!arena) arena = std::make_unique<Arena>();
  if (arena->bytes < bytes) {
    arena->memory = SharedBlock(static_cast<size_t>(bytes));
    arena->bytes = arena->memory ? bytes : 0;
  }
  return arena;
}

void Executor::ReturnArena(std::unique_ptr<Arena> arena) const {
  std::lock_guard<std::mutex> lock(mu_);
  if (arenas_.size() < 8) arenas_.push_back(std::move(arena));
}

Status Executor::Charge(RunState& st, int64_t bytes, const std::string& what) {
  const int64_t limit = st.options->max_run_bytes;
  if (limit <= 0) return Status::Ok();
  if (bytes < 0 || __builtin_add_overflow(st.planned_bytes, bytes, &st.planned_bytes) ||
      st.planned_bytes > limit) {
    return ResourceExhausted(
        "'" + st.program->name + "': " + what + " of " + std::to_string(bytes) +
        " bytes would take the run to more than its limit of " + std::to_string(limit) +
        " bytes; raise RunOptions::max_run_bytes (tfn-run --max-run-bytes, "
        "TfnRtSessionOptions.max_run_bytes; 0: no limit) if the model needs it");
  }
  return Status::Ok();
}

Status Executor::NewOutput(const Program& p, int32_t v, const Shape& shape,
                           ConstTensor* out) const {
  *out = ConstTensor();
  out->dtype = p.values[v].dtype;
  out->shape = shape;
  const int64_t bytes = out->byte_size();
  std::shared_ptr<void> mem = output_cache_->Allocate(static_cast<size_t>(bytes));
  if (!mem) {
    return ResourceExhausted("'" + p.name + "': out of memory for an output of " +
                             std::to_string(bytes) + " bytes");
  }
  out->data = mem.get();
  out->owner = std::move(mem);
  return Status::Ok();
}

Status Executor::CheckDeadline(const RunState& st) {
  if (st.deadline == Clock::time_point::max() || Clock::now() < st.deadline) {
    return Status::Ok();
  }
  return ResourceExhausted("'" + st.program->name + "': the run passed its deadline of " +
                           std::to_string(st.options->deadline_ms) +
                           " ms; raise RunOptions::deadline_ms (tfn-run --deadline-ms, "
                           "TfnRtSessionOptions.deadline_ms; 0: none) if the model needs longer");
}

Result<std::vector<Shape>> Executor::ResultShapes(int program,
                                                  const std::vector<Shape>& input_shapes) const {
  if (program < 0 || program >= static_cast<int>(module_->programs.size())) {
    return NotFound("no program " + std::to_string(program));
  }
  const Program& p = module_->programs[program];
  if (input_shapes.size() != p.params.size()) {
    return InvalidArgument("'" + p.name + "' takes " + std::to_string(p.params.size()) +
                           " input shapes, got " + std::to_string(input_shapes.size()));
  }
  Result<std::shared_ptr<const Plan>> plan =
      GetPlan(program, input_shapes.data(), static_cast<int>(input_shapes.size()));
  if (!plan.ok()) return plan.status();
  std::vector<Shape> out;
  for (int32_t v : p.results) {
    out.push_back((*plan)->dynamic[v] ? p.values[v].static_shape : (*plan)->shapes[v]);
  }
  return out;
}

Result<int64_t> Executor::ArenaBytes(int program, const std::vector<Shape>& input_shapes) const {
  if (program < 0 || program >= static_cast<int>(module_->programs.size())) {
    return NotFound("no program " + std::to_string(program));
  }
  if (input_shapes.size() != module_->programs[program].params.size()) {
    return InvalidArgument("expected " + std::to_string(module_->programs[program].params.size()) +
                           " input shapes, got " + std::to_string(input_shapes.size()));
  }
  Result<std::shared_ptr<const Plan>> plan =
      GetPlan(program, input_shapes.data(), static_cast<int>(input_shapes.size()));
  if (!plan.ok()) return plan.status();
  return (*plan)->arena_bytes;
}

Status Executor::Run(int program, const ConstTensor* inputs, int num_inputs,
                     VariableSlot* const* variables, std::vector<ConstTensor>* outputs,
                     const RunOptions& options) const {
  outputs->clear();
  if (program >= 0 && program < static_cast<int>(module_->programs.size()))
    outputs->resize(module_->programs[program].results.size());
  return Run(program, inputs, num_inputs, variables, outputs->data(),
             static_cast<int>(outputs->size()), options);
}

Status Executor::Run(int program, const ConstTensor* inputs, int num_inputs,
                     VariableSlot* const* variables, ConstTensor* outputs, int num_outputs,
                     const RunOptions& options) const {
  Clock::time_point deadline = Clock::time_point::max();
  if (options.deadline_ms > 0)
    deadline = Clock::now() + std::chrono::milliseconds(options.deadline_ms);
  if (options.profiler) options.profiler->CountRun();
  return RunUntil(program, inputs, num_inputs, variables, outputs, num_outputs, options, deadline);
}

Status Executor::RunUntil(int program, const ConstTensor* inputs, int num_inputs,
                          VariableSlot* const* variables, ConstTensor* outputs, int num_outputs,
                          const RunOptions& options, Clock::time_point deadline) const {
  if (program < 0 || program >= static_cast<int>(module_->programs.size())) {
    return NotFound("no program " + std::to_string(program));
  }
  const Program& p = module_->programs[program];
  if (num_inputs != static_cast<int>(p.params.size())) {
    return InvalidArgument("'" + p.name + "' takes " + std::to_string(p.params.size()) +
                           " inputs, got " + std::to_string(num_inputs));
  }
  const size_t num_results = p.results.size();
  if (num_outputs != static_cast<int>(num_results)) {
    return InvalidArgument("'" + p.name + "' returns " + std::to_string(num_results) +
                           " outputs, " + std::to_string(num_outputs) + " were given");
  }
  SmallBuffer<Shape, 64> in_shapes(static_cast<size_t>(num_inputs));
  for (int i = 0; i < num_inputs; ++i) {
    const ValueInfo& info = p.values[p.params[i]];
    if (inputs[i].dtype != info.dtype || !ShapeMatches(info.static_shape, inputs[i].shape)) {
      return InvalidArgument("'" + p.name + "': input " + std::to_string(i) + " expects " +
                             TypeToString(static_cast<int>(info.dtype), info.static_shape) +
                             ", got " +
                             TypeToString(static_cast<int>(inputs[i].dtype), inputs[i].shape));
    }
    in_shapes[i] = inputs[i].shape;
  }
  Result<std::shared_ptr<const Plan>> plan = GetPlan(program, in_shapes.data(), num_inputs);
  if (!plan.ok()) return plan.status();
  const Plan& pl = **plan;
  // Bound outputs: their dtype, and their shape where the plan knows it, are
  // checked before anything runs.
  auto bound_mismatch = [&](size_t r, const Shape& made) {
    const ConstTensor& b = outputs[r];
    return InvalidArgument(
        "'" + p.name + "': output " + std::to_string(r) + " is " +
        TypeToString(static_cast<int>(p.values[p.results[r]].dtype), made) +
        ", but the buffer bound to it is " + TypeToString(static_cast<int>(b.dtype), b.shape) +
        "; bind a buffer of the output's dtype and shape (Method::OutputShapes)");
  };
  SmallBuffer<uint8_t, 64> bound(num_results);  // 1: the caller bound output r
  for (size_t r = 0; r < num_results; ++r) {
    int32_t v = p.results[r];
    bound[r] = outputs[r].data != nullptr;
    if (bound[r] && (outputs[r].dtype != p.values[v].dtype ||
                     (!pl.dynamic[v] && outputs[r].shape != pl.shapes[v]))) {
      return bound_mismatch(r, pl.dynamic[v] ? p.values[v].static_shape : pl.shapes[v]);
    }
  }
  RunState st;
  st.program = &p;
  st.plan = &pl;
  st.options = &options;
  st.deadline = deadline;
  // The memory cap is checked on the plan, before anything is allocated.
  TFN_RETURN_IF_ERROR(Charge(st, pl.arena_bytes, "an arena"));
  for (size_t r = 0; r < num_results; ++r) {
    if (!pl.direct_results[r] || bound[r]) continue;
    int64_t count = 0;
    const Shape& s = pl.shapes[p.results[r]];
    if (!CheckedNumElements(s, &count) ||
        __builtin_mul_overflow(count, static_cast<int64_t>(DTypeSize(p.values[p.results[r]].dtype)),
                               &count)) {
      return ResourceExhausted("'" + p.name + "': result " + std::to_string(r) + " (" +
                               ShapeToString(s) + ") is too large");
    }
    TFN_RETURN_IF_ERROR(Charge(st, count, "result " + std::to_string(r) + " " + ShapeToString(s)));
  }
  std::unique_ptr<Arena> arena = TakeArena(pl.arena_bytes);
  if (pl.arena_bytes > 0 && !arena->memory) {
    return ResourceExhausted("'" + p.name + "': out of memory for an arena of " +
                             std::to_string(pl.arena_bytes) + " bytes");
  }
  st.arena = static_cast<char*>(arena->memory.get());
  st.ptrs.swap(arena->ptrs);
  st.shapes.swap(arena->shapes);
  st.ptrs.assign(p.values.size(), nullptr);
  st.shapes.assign(pl.shapes.begin(), pl.shapes.end());
  st.variables = variables;
  for (int i = 0; i < num_inputs; ++i) st.ptrs[p.params[i]] = const_cast<void*>(inputs[i].data);
  for (const auto& [v, c] : p.constants) st.ptrs[v] = const_cast<void*>(c.data);
  for (size_t v = 0; v < p.values.size(); ++v) {
    if (pl.offsets[v] >= 0) st.ptrs[v] = st.arena + pl.offsets[v];
  }
  // Results computed by this program are written into the returned tensors,
  // or into the bound ones.
  Status status;
  for (size_t r = 0; r < num_results; ++r) {
    if (!pl.direct_results[r]) continue;
    int32_t v = p.results[r];
    ConstTensor& out = outputs[r];
    if (bound[r]) {
      st.ptrs[v] = const_cast<void*>(out.data);
      continue;
    }
    status = NewOutput(p, v, st.shapes[v], &out);
    if (!status.ok()) break;
    st.ptrs[v] = const_cast<void*>(out.data);
  }
  for (size_t s = 0; s < st.plan->steps.size() && status.ok(); ++s) {
#if TFN_OPTIMIZED_KERNELS
    st.step = s;
#endif
    int32_t step = st.plan->steps[s];
    const int64_t start_ns = options.profiler ? options.profiler->NowNs() : 0;
    status = step >= 0 ? RunInstr(st, step) : RunChain(st, st.plan->chains[-step - 1]);
    if (options.profiler && status.ok()) {
      options.profiler->record_step_(
          *options.profiler, StepView{st.program, st.plan, st.shapes.data()}, step, start_ns);
    }
    if (status.ok()) status = CheckDeadline(st);
  }
  // The other results (inputs, constants, views, variable snapshots, values
  // of data-dependent shape, repeats) are copied: into a bound buffer, or a
  // new tensor.
  for (size_t r = 0; r < num_results && status.ok(); ++r) {
    int32_t v = p.results[r];
    ConstTensor& out = outputs[r];
    if (out.data && out.data == st.ptrs[v] && out.shape == st.shapes[v]) continue;
    if (bound[r]) {
      if (out.shape != st.shapes[v]) {
        status = bound_mismatch(r, st.shapes[v]);
        break;
      }
      if (out.byte_size() > 0)
        std::memcpy(const_cast<void*>(out.data), st.ptrs[v], static_cast<size_t>(out.byte_size()));
      continue;
    }
    status = NewOutput(p, v, st.shapes[v], &out);
    if (!status.ok()) break;
    if (out.byte_size() > 0) {
      std::memcpy(const_cast<void*>(out.data), st.ptrs[v], static_cast<size_t>(out.byte_size()));
    }
  }
  st.ptrs.swap(arena->ptrs);
  st.shapes.swap(arena->shapes);
  ReturnArena(std::move(arena));
  return status;
}

Status Executor::RunInstr(RunState& st, int index) const {
  const Program& p = *st.program;
  const Instr& in = p.instrs[index];
  if (GetOpDef(in.op).has(kControlFlow)) return RunControlFlow(st, in);
  int n_in = static_cast<int>(in.inputs.size());
  int n_out = static_cast<int>(in.outputs.size());
  bool dynamic = false;
  for (int32_t v : in.outputs) dynamic |= st.plan->dynamic[v] != 0;
  if (dynamic && in.op != OpId::kVarRead) {
    std::vector<Shape> in_shapes;
    std::vector<ConstTensor> values;
    std::vector<const ConstTensor*> value_ptrs;
    values.reserve(n_in);
    for (int32_t v : in.inputs) {
      in_shapes.push_back(st.shapes[v]);
      values.push_back(st.View(v));
      value_ptrs.push_back(&values.back());
    }
    std::vector<Shape> outs;
    TFN_RETURN_IF_ERROR(InferInstr(p, in, in_shapes.data(), value_ptrs.data(), &outs));
    for (int o = 0; o < n_out; ++o) {
      int32_t v = in.outputs[o];
      st.shapes[v] = outs[o];
      if (in.alias) continue;
      int64_t bytes = 0;
      if (!CheckedNumElements(outs[o], &bytes) ||
          __builtin_mul_overflow(bytes, static_cast<int64_t>(DTypeSize(p.values[v].dtype)),
                                 &bytes)) {
        return ResourceExhausted("'" + p.name + "': " + OpName(in.op) + " (instruction " +
                                 std::to_string(index) + "): a result of shape " +
                                 ShapeToString(outs[o]) + " is too large");
      }
      TFN_RETURN_IF_ERROR(Charge(st, bytes,
                                 std::string("the ") + OpName(in.op) + " result (instruction " +
                                     std::to_string(index) + ", data-dependent shape " +
                                     ShapeToString(outs[o]) + ")"));
      std::shared_ptr<void> buf = AllocateAligned(static_cast<size_t>(bytes));
      if (!buf) return ResourceExhausted("'" + p.name + "': out of memory");
      st.ptrs[v] = buf.get();
      st.keep.push_back(std::move(buf));
    }
  }
  switch (in.op) {
    case OpId::kVarRead: {
      ConstTensor snap = st.variables[in.variable]->Read();
      st.ptrs[in.outputs[0]] = const_cast<void*>(snap.data);
      st.shapes[in.outputs[0]] = snap.shape;
      st.keep.push_back(snap.owner);
      return Status::Ok();
    }
    case OpId::kVarAssign:
#if TFN_OPTIMIZED_KERNELS
      // Drop this run's snapshots of reads of the variable that no later
      // step uses (ValueFacts::read_last_step): then Assign writes in place, as a
      // training step's update should, instead of copying the variable.
      for (const Instr& r : st.program->instrs) {
        if (r.op != OpId::kVarRead || r.variable != in.variable) continue;
        const int32_t v = r.outputs[0], last = st.plan->facts[v].read_last_step;
        if (last < 0 || static_cast<size_t>(last) >= st.step) continue;
        for (std::shared_ptr<const void>& k : st.keep) {
          if (k && k.get() == st.ptrs[v]) {
            k.reset();
            break;
          }
        }
      }
#endif
      return st.variables[in.variable]->Assign(st.View(in.inputs[0]));
    case OpId::kVarAssignAdd:
      return st.variables[in.variable]->AssignAdd(st.View(in.inputs[0]));
    case OpId::kPrint: {
      std::vector<ConstTensor> values;
      for (int32_t v : in.inputs) values.push_back(st.View(v));
      std::string text = FormatPrintMessage(in.attrs.GetString("message"), values,
                                            static_cast<int>(in.attrs.GetInt("summarize", 3)));
      text += "\n";
      if (st.options->print) {
        st.options->print(text);
      } else {
        std::fwrite(text.data(), 1, text.size(), stdout);
        std::fflush(stdout);
      }
      return Status::Ok();
    }
    default:
      break;
  }
  if (in.alias) {
    st.ptrs[in.outputs[0]] = st.ptrs[in.inputs[0]];
    return Status::Ok();
  }
#if TFN_OPTIMIZED_KERNELS      // the minimal runtime makes no views (planner.cc)
  if (IsView(*st.plan, in)) {  // outputs are byte ranges of input 0
    char* whole = static_cast<char*>(st.ptrs[in.inputs[0]]);
    for (int32_t v : in.outputs) st.ptrs[v] = whole + st.plan->facts[v].view_offset;
    return Status::Ok();
  }
#endif
  TfnTensor ins[16], outs[16];
  std::vector<TfnTensor> many_in, many_out;
  TfnTensor* in_views = ins;
  TfnTensor* out_views = outs;
  if (n_in > 16) {
    many_in.resize(n_in);
    in_views = many_in.data();
  }
  if (n_out > 16) {
    many_out.resize(n_out);
    out_views = many_out.data();
  }
  for (int i = 0; i < n_in; ++i) {
    int32_t v = in.inputs[i];
    kernels::FillTensor(&in_views[i], st.ptrs[v], p.values[v].dtype, st.shapes[v]);
  }
  for (int o = 0; o < n_out; ++o) {
    int32_t v = in.outputs[o];
    kernels::FillTensor(&out_views[o], st.ptrs[v], p.values[v].dtype, st.shapes[v]);
  }
  TfnKernelContext ctx = base_ctx_;
  std::shared_ptr<void> dynamic_scratch;
  if (in.kernel.scratch) {
    int64_t need = st.plan->scratch[index];
    if (dynamic || need == 0) {
      need = kernels::ScratchBytes(in.kernel, in_views, n_in, out_views, n_out);
      if (need > 0) {
        TFN_RETURN_IF_ERROR(Charge(st, need,
                                   std::string("the scratch of ") + OpName(in.op) +
                                       " (instruction " + std::to_string(index) + ")"));
        dynamic_scratch = AllocateAligned(static_cast<size_t>(need));
        if (!dynamic_scratch) return ResourceExhausted("out of memory for kernel scratch");
        ctx.scratch = dynamic_scratch.get();
      }
    } else {
      ctx.scratch = st.arena + st.plan->scratch_offset;
    }
    ctx.scratch_bytes = need;
  }
  int32_t code = in.kernel.fn(in.kernel.params, in_views, n_in, out_views, n_out, &ctx);
  if (code != TFN_KERNEL_OK) {
    return kernels::KernelError(code, in.op, in_views, n_in).WithContext("'" + p.name + "'");
  }
  return Status::Ok();
}

namespace {

// One run of a chain: its tiles, split into chunks that each take a slot of
// tile buffers while they run.
struct ChainJob {
  const FusedChain* chain;
  const Program* program;
  void* const* ptrs;
  char* slots;
  std::atomic<uint64_t> free_slots;
  std::atomic<int32_t> code{TFN_KERNEL_OK};
  std::atomic<int32_t> failed{-1};  // index into chain->instrs
};

inline void* Resolve(const ChainArg& a, char* slot, void* const* ptrs, int64_t first_row) {
  if (a.value < 0) return slot + a.buffer_offset;
  return static_cast<char*>(ptrs[a.value]) + first_row * a.row_bytes;
}

void RunTiles(void* arg, int64_t begin, int64_t end) {
  ChainJob& job = *static_cast<ChainJob*>(arg);
  const FusedChain& c = *job.chain;
  int slot = 0;
  for (uint64_t m = job.free_slots.load(std::memory_order_acquire);;) {
    if (m == 0) {  // more chunks at once than slots: wait for one
      std::this_thread::yield();
      m = job.free_slots.load(std::memory_order_acquire);
      continue;
    }
    slot = __builtin_ctzll(m);
    if (job.free_slots.compare_exchange_weak(m, m & ~(uint64_t{1} << slot),
                                             std::memory_order_acquire))
      break;
  }
  char* base = job.slots + slot * c.slot_bytes;
  TfnKernelContext ctx{};
  ctx.num_threads = 1;  // tiles are the parallel unit
  TfnTensor ins[kMaxChainInputs];
  TfnTensor out;
  for (int64_t t = begin; t < end; ++t) {
    if (job.code.load(std::memory_order_relaxed) != TFN_KERNEL_OK) break;
    const int64_t r0 = t * c.tile_rows;
    const int64_t rows = c.rows - r0 < c.tile_rows ? c.rows - r0 : c.tile_rows;
    for (size_t j = 0; j < c.instrs.size(); ++j) {
      const ChainInstr& ci = c.instrs[j];
#if TFN_OPTIMIZED_KERNELS  // reference kernels have no row forms
      if (ci.row) {
        const void* data[kMaxChainInputs];
        for (int k = 0; k < ci.num_inputs; ++k) data[k] = Resolve(ci.in[k], base, job.ptrs, r0);
        ci.row(job.program->instrs[ci.instr].kernel.params, data, ci.strides,
               Resolve(ci.out, base, job.ptrs, r0), rows * c.row_elements);
        continue;
      }
#endif
      for (int k = 0; k < ci.num_inputs; ++k) {
        ins[k] = ci.in[k].view;
        ins[k].data = Resolve(ci.in[k], base, job.ptrs, r0);
        if (ci.in[k].rows_dim) ins[k].dims[0] = rows;
      }
      out = ci.out.view;
      out.data = Resolve(ci.out, base, job.ptrs, r0);
      out.dims[0] = rows;
      const kernels::KernelPlan& k = job.program->instrs[ci.instr].kernel;
      int32_t code = k.fn(k.params, ins, ci.num_inputs, &out, 1, &ctx);
      if (code != TFN_KERNEL_OK) {
        int32_t ok = TFN_KERNEL_OK;
        if (job.code.compare_exchange_strong(ok, code)) job.failed.store(static_cast<int32_t>(j));
        break;
      }
    }
  }
  job.free_slots.fetch_or(uint64_t{1} << slot, std::memory_order_release);
}

}  // namespace

Status Executor::RunChain(RunState& st, const FusedChain& chain) const {
  ChainJob job;
  job.chain = &chain;
  job.program = st.program;
  job.ptrs = st.ptrs.data();
  job.slots = st.arena + st.plan->scratch_offset;
  job.free_slots.store(chain.slots >= 64 ? ~uint64_t{0} : (uint64_t{1} << chain.slots) - 1,
                       std::memory_order_relaxed);
  if (pool_ && chain.slots > 1) {
    const int64_t tile = chain.tile_rows * chain.row_elements;
    pool_->ParallelFor(chain.num_tiles, (kMinParallelChainElements + tile - 1) / tile, RunTiles,
                       &job);
  } else {
    RunTiles(&job, 0, chain.num_tiles);
  }
  int32_t code = job.code.load();
  if (code == TFN_KERNEL_OK) return Status::Ok();
  const Instr& in = st.program->instrs[chain.instrs[job.failed.load()].instr];
  TfnTensor views[kMaxChainInputs];
  for (size_t i = 0; i < in.inputs.size(); ++i) {
    views[i] = kernels::MakeTensor(st.ptrs[in.inputs[i]], st.program->values[in.inputs[i]].dtype,
                                   st.shapes[in.inputs[i]]);
  }
  return kernels::KernelError(code, in.op, views, static_cast<int>(in.inputs.size()))
      .WithContext("'" + st.program->name + "'");
}

#if TFN_OPTIMIZED_KERNELS
namespace {

// How a while_loop body's result r may reuse loop variable r's buffer
// instead of coming back in a new one: kInvariant when it is the variable
// itself (a loop invariant), kInPlace when it is a scatter into the variable
// that nothing else reads (the scatter then updates the buffer in place, if
// the loop holds the only reference to it). A loop a GradientTape
// differentiates keeps its iterations so: copying its [iterations, ...]
// buffers every iteration would make it quadratic. (aot/codegen_graph.cc's
// EmitWhile makes the same choice for compiled code.)
enum LoopResultReuse : uint8_t { kCopied, kInvariant, kInPlace };
std::vector<uint8_t> LoopResultReuses(const Program& body) {
  std::vector<uint8_t> reuse(body.results.size(), kCopied);
  std::vector<int32_t> uses(body.values.size(), 0), producer(body.values.size(), -1);
  for (size_t i = 0; i < body.instrs.size(); ++i) {
    for (int32_t v : body.instrs[i].inputs) ++uses[v];
    for (int32_t v : body.instrs[i].outputs) producer[v] = static_cast<int32_t>(i);
  }
  for (int32_t v : body.results) ++uses[v];
  for (size_t r = 0; r < body.results.size() && r < body.params.size(); ++r) {
    const int32_t param = body.params[r], made = producer[body.results[r]];
    if (body.results[r] == param) {
      reuse[r] = kInvariant;
    } else if (made >= 0 && body.instrs[made].op == OpId::kScatterND &&
               body.instrs[made].inputs[0] == param && uses[param] == 1) {
      reuse[r] = kInPlace;
    }
  }
  return reuse;
}

}  // namespace
#endif

Status Executor::RunControlFlow(RunState& st, const Instr& in) const {
  // Subprograms run under the caller's options and deadline.
  auto run = [&](int program, const std::vector<ConstTensor>& args,
                 std::vector<ConstTensor>* outs) {
    outs->assign(module_->programs[program].results.size(), ConstTensor());
    return RunUntil(program, args.data(), static_cast<int>(args.size()), st.variables, outs->data(),
                    static_cast<int>(outs->size()), *st.options, st.deadline);
  };
  std::vector<ConstTensor> results;
  if (in.op == OpId::kCond) {
    bool pred = *static_cast<const bool*>(st.ptrs[in.inputs[0]]);
    std::vector<ConstTensor> operands;
    for (size_t i = 1; i < in.inputs.size(); ++i) operands.push_back(st.View(in.inputs[i]));
    TFN_RETURN_IF_ERROR(run(in.subprograms[pred ? 0 : 1], operands, &results));
  } else {
    std::vector<ConstTensor> vars;
    for (int32_t v : in.inputs) vars.push_back(st.View(v));
#if TFN_OPTIMIZED_KERNELS
    const std::vector<uint8_t> reuse = LoopResultReuses(module_->programs[in.subprograms[1]]);
#endif
    for (int64_t iteration = 0;; ++iteration) {
      if (st.options->max_while_iterations > 0 && iteration >= st.options->max_while_iterations) {
        return ResourceExhausted(
            "'" + st.program->name + "': the while_loop at instruction " +
            std::to_string(&in - st.program->instrs.data()) + " (body '" +
            module_->programs[in.subprograms[1]].name + "') did not end after " +
            std::to_string(st.options->max_while_iterations) +
            " iterations, the limit; raise RunOptions::max_while_iterations (tfn-run "
            "--max-while-iterations, "
            "TfnRtSessionOptions.max_while_iterations; 0: no limit) if the model needs more");
      }
      if (iteration > 0) TFN_RETURN_IF_ERROR(CheckDeadline(st));
      std::vector<ConstTensor> cond;
      TFN_RETURN_IF_ERROR(run(in.subprograms[0], vars, &cond));
      if (!*static_cast<const bool*>(cond[0].data)) break;
      std::vector<ConstTensor> next;
#if TFN_OPTIMIZED_KERNELS
      // Invariants keep their buffer; a variable the body updates in place
      // too, when the loop holds the only reference to it (from the second
      // iteration on).
      next.assign(vars.size(), ConstTensor());
      for (size_t j = 0; j < reuse.size(); ++j) {
        if (reuse[j] == kInvariant ||
            (reuse[j] == kInPlace && vars[j].owner && vars[j].owner.use_count() == 1))
          next[j] = vars[j];
      }
      TFN_RETURN_IF_ERROR(RunUntil(in.subprograms[1], vars.data(), static_cast<int>(vars.size()),
                                   st.variables, next.data(), static_cast<int>(next.size()),
                                   *st.options, st.deadline));
#else
      TFN_RETURN_IF_ERROR(run(in.subprograms[1], vars, &next));
#endif
      vars = std::move(next);
    }
    results = std::move(vars);
  }
  for (size_t o = 0; o < in.outputs.size(); ++o) {
    int32_t v = in.outputs[o];
    const ConstTensor& r = results[o];
    if (st.ptrs[v] && !st.plan->dynamic[v] &&
        r.shape == st.shapes[v]) {  // an arena or output buffer
      if (r.byte_size() > 0) std::memcpy(st.ptrs[v], r.data, static_cast<size_t>(r.byte_size()));
    } else {
      st.ptrs[v] = const_cast<void*>(r.data);
      st.shapes[v] = r.shape;
      st.keep.push_back(r.owner);
    }
  }
  return Status::Ok();
}

}  // namespace tfn::runtime
