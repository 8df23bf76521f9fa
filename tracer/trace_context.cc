// The trace stack and op dispatch (record or compute).
#include "tracer/trace_context.h"

#include <atomic>
#include <utility>

#include "kernels/evaluate.h"
#include "tracer/tape_hooks.h"
#include "tracer/variable_impl.h"

namespace tfn::detail {
namespace {

thread_local TraceContext* g_current = nullptr;
std::atomic<uint64_t> g_next_trace_id{1};

[[noreturn]] void ThrowAbsl(const absl::Status& s) {
  throw Error(s.code() == absl::StatusCode::kInvalidArgument ? StatusCode::kInvalidArgument
                                                             : StatusCode::kInternal,
              std::string(s.message()));
}

}  // namespace

TraceContext::TraceContext(ir::Graph* graph, std::string function_name)
    : graph_(graph),
      parent_(g_current),
      id_(g_next_trace_id++),
      function_name_(std::move(function_name)) {
  g_current = this;
}

TraceContext::~TraceContext() { g_current = parent_; }

TraceContext* TraceContext::Current() { return g_current; }

void TraceContext::UseVariable(const std::shared_ptr<VariableImpl>& v) {
  // Every level records it, not only the outermost: a tfn::function traced
  // inside another trace is a level of its own and needs its variables.
  // Check all levels before recording, so that a clash records nothing.
  auto type = [](const VariableImpl& x) {
    return TypeToString(static_cast<int>(x.slot.dtype()), x.slot.shape());
  };
  for (TraceContext* c = this; c; c = c->parent_) {
    auto it = c->variables_.find(v->name);
    if (it == c->variables_.end() || it->second == v) continue;
    TraceContext* named = c;
    while (named->function_name_.empty() && named->parent_) named = named->parent_;
    const std::string fn = named->function_name_.empty()
                               ? "a traced function"
                               : "function '" + named->function_name_ + "'";
    throw Error(StatusCode::kInvalidArgument,
                fn + " uses two different variables named '" + v->name + "' (" + type(*it->second) +
                    " and " + type(*v) +
                    "); a graph refers to variables by name, so give them distinct names");
  }
  for (TraceContext* c = this; c; c = c->parent_) c->variables_.emplace(v->name, v);
}

ir::ValueRef TraceContext::Capture(const Tensor& t) {
  if (!t.defined())
    throw Error(StatusCode::kInvalidArgument, "an undefined tensor was used in an op");
  const TensorImpl* impl = t.impl().get();
  if (impl->trace_id == 0) return graph_->AddConstant(impl->value);
  if (impl->trace_id == id_) return impl->ref;
  auto it = capture_map_.find(impl);
  if (it != capture_map_.end()) return it->second;
  bool enclosing = false;
  for (TraceContext* c = parent_; c; c = c->parent_) enclosing |= c->id_ == impl->trace_id;
  if (!enclosing) {
    throw Error(StatusCode::kFailedPrecondition,
                "a symbolic tensor from another trace was used; symbolic tensors live only "
                "while their function is being traced (do not store them outside the body)");
  }
  // Make sure the enclosing trace can name it too (it may itself be nested).
  if (parent_ && impl->trace_id != parent_->id_) parent_->Capture(t);
  ir::ValueRef param = graph_->AddParameter(ir::TensorType{impl->dtype, impl->sym_shape});
  capture_map_[impl] = param;
  captures_.push_back(t);
  return param;
}

Tensor TraceContext::Wrap(ir::ValueRef v) {
  auto impl = std::make_shared<TensorImpl>();
  const ir::TensorType& type = graph_->type(v);
  impl->dtype = type.dtype;
  impl->trace_id = id_;
  impl->ref = v;
  impl->sym_shape = type.shape;
  return Tensor(std::move(impl));
}

std::vector<Tensor> ApplyOp(OpId op, const std::vector<Tensor>& inputs, Attrs attrs) {
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i].defined()) {
      throw Error(StatusCode::kInvalidArgument,
                  std::string(OpName(op)) + ": argument '" +
                      GetOpDef(op).InputAt(static_cast<int>(i))->name + "' is an undefined tensor");
    }
  }
  // Gradient tapes record the op with its attributes (gradient_tape.h).
  const bool taped = TapesRecording();
  Attrs taped_attrs;  // normalized once, for every tape that records the op
  if (taped) {
    taped_attrs = attrs;
    (void)NormalizeAttrs(GetOpDef(op), &taped_attrs);  // bad ones fail just below
  }
  std::vector<Tensor> result;
  if (TraceContext* ctx = TraceContext::Current()) {
    std::vector<ir::ValueRef> refs;
    for (const Tensor& t : inputs) refs.push_back(ctx->Capture(t));
    absl::StatusOr<std::vector<ir::ValueRef>> outs =
        ctx->graph().AddNode(op, refs, std::move(attrs));
    if (!outs.ok()) ThrowAbsl(outs.status());
    for (ir::ValueRef v : *outs) result.push_back(ctx->Wrap(v));
  } else {
    ThrowIfError(NormalizeAttrs(GetOpDef(op), &attrs));
    std::vector<ConstTensor> values;
    values.reserve(inputs.size());
    for (const Tensor& t : inputs) values.push_back(t.value());
    std::vector<ConstTensor> outputs;
    ThrowIfError(kernels::EvaluateOp(op, attrs, values, &outputs));
    for (ConstTensor& c : outputs) result.push_back(Tensor::FromConst(std::move(c)));
  }
  if (taped) RecordOnTapes(op, taped_attrs, inputs, result);
  return result;
}

Tensor Apply1(OpId op, const std::vector<Tensor>& inputs, Attrs attrs) {
  std::vector<Tensor> r = ApplyOp(op, inputs, std::move(attrs));
  return r.empty() ? Tensor() : r[0];
}

Tensor ScalarOf(DType dtype, double value) {
  void* data = nullptr;
  ConstTensor c = ConstTensor::Allocate(dtype, Shape{}, &data);
  VisitDType(dtype, [&](auto tag) {
    using T = decltype(tag);
    *static_cast<T*>(data) = static_cast<T>(value);
    return 0;
  });
  return Tensor::FromConst(std::move(c));
}

}  // namespace tfn::detail
