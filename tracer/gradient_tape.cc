// GradientTape: recording ops on watched tensors, and the reverse walk that
// applies the gradient rules (tracer/gradients/) to what was recorded.
#include "tracer/gradient_tape.h"

#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "tracer/gradients/registry.h"
#include "tracer/ops.h"
#include "tracer/tape_hooks.h"
#include "tracer/trace_context.h"
#include "tracer/variable_impl.h"

namespace tfn {
namespace detail {

struct TapeImpl {
  GradientTapeOptions options;
  uint64_t trace_id = 0;  // the trace it records in; 0: eager
  int paused = 0;
  bool released = false;  // a non-persistent tape after gradient()
  std::unordered_set<const TensorImpl*> tracked;
  std::vector<Tensor> watched;  // keeps watched tensors (and their addresses) alive
  std::vector<RecordedOp> ops;
  std::vector<std::pair<std::shared_ptr<VariableImpl>, Tensor>> reads;
  std::vector<std::shared_ptr<VariableImpl>> variables;  // watched, first-seen order

  bool recording() const { return paused == 0 && !released; }
  bool Tracks(const Tensor& t) const { return t.defined() && tracked.count(t.impl().get()) > 0; }
  void Track(const Tensor& t) {
    if (t.defined() && IsFloating(t.dtype())) tracked.insert(t.impl().get());
  }
  bool WatchesVariable(const VariableImpl* v) const {
    for (const auto& w : variables) {
      if (w.get() == v) return true;
    }
    return false;
  }
};

namespace {

thread_local std::vector<TapeImpl*> g_tapes;
thread_local int g_stop_gradient = 0;

uint64_t CurrentTraceId() {
  TraceContext* c = TraceContext::Current();
  return c ? c->id() : 0;
}

[[noreturn]] void Fail(StatusCode code, const std::string& message) { throw Error(code, message); }

std::string TypeOf(const Tensor& t) {
  return std::string(DTypeName(t.dtype())) + ShapeToString(t.shape());
}

// "'conv2d' (f32[1,8,8,4], f32[3,3,4,8]), node 12 of the traced graph"
// (without the node eagerly).
std::string Describe(const RecordedOp& op) {
  std::string inputs;
  for (const Tensor& t : op.inputs) inputs += (inputs.empty() ? "" : ", ") + TypeOf(t);
  std::string s = "'" + std::string(OpName(op.op)) + "' (" + inputs + ")";
  if (!op.outputs.empty() && op.outputs[0].is_symbolic()) {
    s += ", node " + std::to_string(op.outputs[0].impl()->ref.node) + " of the traced graph";
  }
  return s;
}

struct PauseScope {
  explicit PauseScope(TapeImpl* t) : tape(t) { ++tape->paused; }
  ~PauseScope() { --tape->paused; }
  TapeImpl* tape;
};

}  // namespace

bool TapesRecording() { return !g_tapes.empty() && g_stop_gradient == 0; }

void RecordOnTapes(OpId op, const Attrs& attrs, const std::vector<Tensor>& inputs,
                   const std::vector<Tensor>& outputs,
                   std::shared_ptr<const std::vector<ir::Graph>> subgraphs,
                   std::vector<Tensor> saved) {
  if (g_stop_gradient) return;
  const uint64_t level = CurrentTraceId();
  for (TapeImpl* tape : g_tapes) {
    if (!tape->recording() || tape->trace_id != level) continue;
    bool any = false;
    for (const Tensor& t : inputs) any |= tape->Tracks(t);
    if (!any) continue;
    for (const Tensor& t : outputs) tape->Track(t);
    tape->ops.push_back(RecordedOp{op, attrs, inputs, outputs, subgraphs, saved});
  }
}

bool TapesWatch(const std::vector<Tensor>& inputs) {
  if (!TapesRecording()) return false;
  const uint64_t level = CurrentTraceId();
  for (TapeImpl* tape : g_tapes) {
    if (!tape->recording() || tape->trace_id != level) continue;
    for (const Tensor& t : inputs) {
      if (tape->Tracks(t)) return true;
    }
  }
  return false;
}

TapesSuspended::TapesSuspended() { ++g_stop_gradient; }
TapesSuspended::~TapesSuspended() { --g_stop_gradient; }

void RecordVariableRead(const std::shared_ptr<VariableImpl>& v, const Tensor& value) {
  if (g_stop_gradient) return;
  const uint64_t level = CurrentTraceId();
  for (TapeImpl* tape : g_tapes) {
    if (!tape->recording()) continue;
    const bool watched = tape->WatchesVariable(v.get());
    if (!watched && !tape->options.watch_accessed_variables) continue;
    if (tape->trace_id != level) {
      Fail(StatusCode::kUnimplemented,
           "variable '" + v->name +
               "' is read inside tfn::cond, tfn::while_loop or a tfn::function while a "
               "GradientTape records; gradients through those are not supported yet. Read it "
               "before the cond/loop/call and pass the value in, or create the tape with "
               "watch_accessed_variables = false");
    }
    if (!IsFloating(value.dtype())) continue;
    if (!watched) tape->variables.push_back(v);
    tape->Track(value);
    tape->reads.emplace_back(v, value);
  }
}

void RefuseUnrecordable(const std::vector<Tensor>& inputs, bool reads_variables,
                        const std::string& what) {
  if (!TapesRecording()) return;
  const uint64_t level = CurrentTraceId();
  for (TapeImpl* tape : g_tapes) {
    if (!tape->recording() || tape->trace_id != level) continue;
    bool any = reads_variables && tape->options.watch_accessed_variables;
    for (const Tensor& t : inputs) any |= tape->Tracks(t);
    if (any) {
      Fail(StatusCode::kUnimplemented,
           what +
               " on values a GradientTape records is not differentiated yet: the tape cannot "
               "see inside it, so gradients through it would be missing. Compute it directly "
               "inside the tape (or trace the whole step, tape included, as one tfn::function), "
               "or pass tfn::stop_gradient(x) if no gradient needs to flow through it");
    }
  }
}

}  // namespace detail

using detail::Fail;
using detail::RecordedOp;
using detail::TapeImpl;

GradientTape::GradientTape() : GradientTape(GradientTapeOptions{}) {}

GradientTape::GradientTape(GradientTapeOptions options) : impl_(std::make_unique<TapeImpl>()) {
  impl_->options = options;
  impl_->trace_id = detail::CurrentTraceId();
  detail::g_tapes.push_back(impl_.get());
}

GradientTape::~GradientTape() {
  auto& tapes = detail::g_tapes;
  for (size_t i = tapes.size(); i-- > 0;) {
    if (tapes[i] == impl_.get()) {
      tapes.erase(tapes.begin() + static_cast<std::ptrdiff_t>(i));
      break;
    }
  }
}

void GradientTape::watch(const Tensor& t) {
  if (!t.defined())
    Fail(StatusCode::kInvalidArgument, "GradientTape::watch: the tensor is undefined");
  if (!IsFloating(t.dtype())) {
    Fail(StatusCode::kInvalidArgument,
         "GradientTape::watch: only float tensors have gradients, got " + detail::TypeOf(t));
  }
  impl_->Track(t);
  impl_->watched.push_back(t);
}

void GradientTape::watch(const std::vector<Tensor>& ts) {
  for (const Tensor& t : ts) watch(t);
}

void GradientTape::watch(const Variable& v) {
  if (!impl_->WatchesVariable(v.impl().get())) impl_->variables.push_back(v.impl());
}

std::vector<Variable> GradientTape::watched_variables() const {
  std::vector<Variable> out;
  for (const auto& v : impl_->variables) out.push_back(Variable::FromImpl(v));
  return out;
}

GradientTape::Pause::Pause(TapeImpl* tape) : tape_(tape) { ++tape_->paused; }
GradientTape::Pause::~Pause() { --tape_->paused; }
GradientTape::Pause GradientTape::stop_recording() { return Pause(impl_.get()); }

namespace {

using GradMap = std::unordered_map<const detail::TensorImpl*, Tensor>;

void Accumulate(GradMap& grads, const Tensor& x, const Tensor& g) {
  auto [it, fresh] = grads.emplace(x.impl().get(), g);
  if (!fresh) it->second = it->second + g;
}

// The reverse walk: gradients of the targets (each seeded with its seed,
// summed when a tensor is several targets) for every tensor on a path from
// one of `sources` to them.
GradMap Backprop(TapeImpl& tape, const std::vector<Tensor>& targets,
                 const std::vector<Tensor>& seeds,
                 const std::unordered_set<const detail::TensorImpl*>& sources) {
  // Forward: what depends on a source (only those need gradients).
  std::unordered_set<const detail::TensorImpl*> reachable = sources;
  std::vector<bool> on_path(tape.ops.size(), false);
  for (size_t i = 0; i < tape.ops.size(); ++i) {
    for (const Tensor& t : tape.ops[i].inputs)
      on_path[i] = on_path[i] || reachable.count(t.impl().get());
    if (!on_path[i]) continue;
    for (const Tensor& t : tape.ops[i].outputs) reachable.insert(t.impl().get());
  }
  GradMap grads;
  for (size_t t = 0; t < targets.size(); ++t) {
    if (tape.Tracks(targets[t])) Accumulate(grads, targets[t], seeds[t]);
  }
  for (size_t i = tape.ops.size(); i-- > 0;) {
    if (!on_path[i]) continue;
    RecordedOp& op = tape.ops[i];
    op.needs_grad.resize(op.inputs.size());
    for (size_t k = 0; k < op.inputs.size(); ++k)
      op.needs_grad[k] = reachable.count(op.inputs[k].impl().get()) > 0;
    std::vector<Tensor> dys(op.outputs.size());
    bool any = false;
    for (size_t k = 0; k < op.outputs.size(); ++k) {
      auto it = grads.find(op.outputs[k].impl().get());
      if (it != grads.end()) {
        dys[k] = it->second;
        any = true;
      }
    }
    if (!any) continue;
    const detail::GradEntry& entry = detail::GetGradEntry(op.op);
    if (entry.kind == detail::GradKind::kNotDifferentiable) continue;
    if (entry.kind == detail::GradKind::kMissing) {
      Fail(StatusCode::kUnimplemented,
           "gradient: op " + detail::Describe(op) +
               " has no gradient rule. If no gradient needs to flow through it, wrap its inputs in "
               "tfn::stop_gradient(...); otherwise it cannot be differentiated yet");
    }
    for (size_t k = 0; k < dys.size(); ++k) {
      if (!dys[k].defined() && IsFloating(op.outputs[k].dtype()))
        dys[k] = zeros_like(op.outputs[k]);
    }
    std::vector<Tensor> dxs;
    try {
      dxs = entry.rule(op, dys);
    } catch (const Error& e) {
      throw Error(e.code(), "gradient of op " + detail::Describe(op) + ": " + e.what());
    }
    for (size_t k = 0; k < op.inputs.size() && k < dxs.size(); ++k) {
      const Tensor& x = op.inputs[k];
      if (!dxs[k].defined() || !IsFloating(x.dtype()) || !reachable.count(x.impl().get())) continue;
      Accumulate(grads, x, dxs[k]);
    }
  }
  return grads;
}

}  // namespace

std::vector<Tensor> GradientTape::gradient(const Tensor& target, const std::vector<Tensor>& sources,
                                           const Tensor& output_gradient,
                                           UnconnectedGradients unconnected) {
  return gradient(
      std::vector<Tensor>{target}, sources,
      output_gradient.defined() ? std::vector<Tensor>{output_gradient} : std::vector<Tensor>(),
      unconnected);
}

std::vector<Tensor> GradientTape::gradient(const std::vector<Tensor>& targets,
                                           const std::vector<Tensor>& sources,
                                           const std::vector<Tensor>& output_gradients,
                                           UnconnectedGradients unconnected) {
  TapeImpl& tape = *impl_;
  if (tape.released) {
    Fail(StatusCode::kFailedPrecondition,
         "GradientTape::gradient: this tape's recording was released by an earlier gradient() "
         "call; create it with GradientTapeOptions{.persistent = true} to call gradient() more "
         "than once");
  }
  if (detail::CurrentTraceId() != tape.trace_id) {
    Fail(StatusCode::kFailedPrecondition,
         "GradientTape::gradient: called inside a different trace than the tape recorded in (a "
         "tape made in a function's body must compute its gradients in that body)");
  }
  if (!output_gradients.empty() && output_gradients.size() != targets.size()) {
    Fail(StatusCode::kInvalidArgument,
         "GradientTape::gradient: " + std::to_string(output_gradients.size()) +
             " output gradients for " + std::to_string(targets.size()) +
             " targets; give one per target (or none: ones)");
  }
  for (const Tensor& target : targets) {
    if (!target.defined() || !IsFloating(target.dtype())) {
      Fail(StatusCode::kInvalidArgument,
           "GradientTape::gradient: the target must be a float tensor, got " +
               (target.defined() ? detail::TypeOf(target) : std::string("an undefined tensor")));
    }
  }
  std::unordered_set<const detail::TensorImpl*> source_set;
  for (size_t i = 0; i < sources.size(); ++i) {
    if (!tape.Tracks(sources[i])) {
      Fail(StatusCode::kInvalidArgument,
           "GradientTape::gradient: source " + std::to_string(i) + " (" +
               (sources[i].defined() ? detail::TypeOf(sources[i]) : std::string("undefined")) +
               ") is not watched by this tape; call tape.watch(x) before computing with x (or "
               "differentiate with respect to a Variable)");
    }
    source_set.insert(sources[i].impl().get());
  }
  std::vector<Tensor> result(sources.size());
  {
    detail::PauseScope pause(&tape);
    std::vector<Tensor> seeds = output_gradients;
    for (size_t t = 0; t < targets.size(); ++t) {
      if (seeds.size() <= t) {
        seeds.push_back(ones_like(targets[t]));
      } else if (!seeds[t].defined() || seeds[t].dtype() != targets[t].dtype() ||
                 seeds[t].shape() != targets[t].shape()) {
        Fail(StatusCode::kInvalidArgument,
             "GradientTape::gradient: output_gradient " + std::to_string(t) + " is " +
                 (seeds[t].defined() ? detail::TypeOf(seeds[t]) : std::string("undefined")) +
                 ", the target is " + detail::TypeOf(targets[t]) + "; they must match");
      }
    }
    GradMap grads = Backprop(tape, targets, seeds, source_set);
    for (size_t i = 0; i < sources.size(); ++i) {
      auto it = grads.find(sources[i].impl().get());
      if (it != grads.end()) {
        result[i] = it->second;
      } else if (unconnected == UnconnectedGradients::kZero) {
        result[i] = zeros_like(sources[i]);
      }
    }
  }
  if (!tape.options.persistent) {
    tape.released = true;
    tape.ops.clear();
    tape.reads.clear();
    tape.tracked.clear();
    tape.watched.clear();
  }
  return result;
}

Tensor GradientTape::gradient(const Tensor& target, const Tensor& source) {
  return gradient(target, std::vector<Tensor>{source})[0];
}

std::vector<Tensor> GradientTape::gradient(const Tensor& target,
                                           const std::vector<Variable>& sources,
                                           const Tensor& output_gradient,
                                           UnconnectedGradients unconnected) {
  // Each read of a variable is a source; its gradient is their sum.
  std::vector<Tensor> reads;
  std::vector<std::vector<size_t>> reads_of(sources.size());
  for (size_t i = 0; i < sources.size(); ++i) {
    if (!impl_->WatchesVariable(sources[i].impl().get())) {
      Fail(StatusCode::kInvalidArgument,
           "GradientTape::gradient: variable '" + sources[i].name() +
               "' is not watched by this tape; read it while the tape records (with "
               "watch_accessed_variables) or call tape.watch(variable) before reading it");
    }
    for (const auto& [var, value] : impl_->reads) {
      if (var.get() != sources[i].impl().get()) continue;
      reads_of[i].push_back(reads.size());
      reads.push_back(value);
    }
  }
  std::vector<Tensor> per_read =
      gradient(target, reads, output_gradient, UnconnectedGradients::kNone);
  std::vector<Tensor> result(sources.size());
  for (size_t i = 0; i < sources.size(); ++i) {
    for (size_t r : reads_of[i]) {
      if (!per_read[r].defined()) continue;
      result[i] = result[i].defined() ? result[i] + per_read[r] : per_read[r];
    }
    if (!result[i].defined() && unconnected == UnconnectedGradients::kZero) {
      result[i] = zeros(sources[i].shape(), sources[i].dtype());
    }
  }
  return result;
}

Tensor stop_gradient(const Tensor& x) {
  detail::TapesSuspended quiet;
  return identity(x);
}

ValueAndGrads value_and_grad(const std::function<Tensor(const std::vector<Tensor>&)>& f,
                             const std::vector<Tensor>& args) {
  GradientTape tape;
  tape.watch(args);
  ValueAndGrads out;
  out.value = f(args);
  out.grads = tape.gradient(out.value, args, Tensor(), UnconnectedGradients::kZero);
  return out;
}

std::vector<Tensor> grad(const std::function<Tensor(const std::vector<Tensor>&)>& f,
                         const std::vector<Tensor>& args) {
  return value_and_grad(f, args).grads;
}

}  // namespace tfn
