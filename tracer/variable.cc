// Variables: eager updates, and graph reads/updates while tracing.
#include "tracer/variable.h"

#include "runtime/variables.h"
#include "tracer/tape_hooks.h"
#include "tracer/trace_context.h"
#include "tracer/variable_impl.h"

namespace tfn {
namespace {

// A traced update must fit the variable: same dtype, and every static dim equal.
void CheckUpdate(const detail::VariableImpl& v, const Tensor& value, const char* op) {
  Shape given = value.shape();
  bool fits = value.dtype() == v.slot.dtype() && given.rank() == v.slot.shape().rank();
  for (int i = 0; fits && i < given.rank(); ++i) {
    fits = given[i] == kDynamic || given[i] == v.slot.shape()[i];
  }
  if (!fits) {
    throw Error(StatusCode::kInvalidArgument,
                std::string(op) + ": variable '" + v.name + "' is " +
                    TypeToString(static_cast<int>(v.slot.dtype()), v.slot.shape()) +
                    ", the value is " + TypeToString(static_cast<int>(value.dtype()), given) +
                    "; a variable keeps its dtype and shape");
  }
}

}  // namespace

Variable::Variable(const Tensor& initial_value, const std::string& name) {
  if (detail::TraceContext* ctx = detail::TraceContext::Current()) {
    (void)ctx;
    throw Error(StatusCode::kFailedPrecondition,
                "tfn::Variable '" + name +
                    "' was created while a function was being traced; variables must be created "
                    "outside functions (e.g. in your model's constructor) and only used inside them");
  }
  if (!initial_value.defined()) {
    throw Error(StatusCode::kInvalidArgument, "tfn::Variable '" + name + "': the initial value is undefined");
  }
  // The name as given: no process-wide registry, so what a bundle calls a
  // variable does not depend on what else the process created.
  impl_ = std::make_shared<detail::VariableImpl>(name.empty() ? "Variable" : name,
                                                 initial_value.value());
}

const std::string& Variable::name() const { return impl_->name; }
DType Variable::dtype() const { return impl_->slot.dtype(); }
Shape Variable::shape() const { return impl_->slot.shape(); }

Tensor Variable::value() const {
  Tensor read;
  if (detail::TraceContext* ctx = detail::TraceContext::Current()) {
    ctx->UseVariable(impl_);
    Shape s = impl_->slot.shape();
    read = detail::Apply1(OpId::kVarRead, {},
                          {{"name", AttrValue::String(impl_->name)},
                           {"dtype", AttrValue::Type(impl_->slot.dtype())},
                           {"shape", AttrValue::Ints(std::vector<int64_t>(s.begin(), s.end()))}});
  } else {
    read = Tensor::FromConst(impl_->slot.Read());
  }
  if (detail::TapesRecording()) detail::RecordVariableRead(impl_, read);
  return read;
}

void Variable::assign(const Tensor& value) const {
  if (detail::TraceContext* ctx = detail::TraceContext::Current()) {
    CheckUpdate(*impl_, value, "assign");
    ctx->UseVariable(impl_);
    detail::ApplyOp(OpId::kVarAssign, {value}, {{"name", AttrValue::String(impl_->name)}});
    return;
  }
  ThrowIfError(impl_->slot.Assign(value.value()).WithContext("variable '" + impl_->name + "'"));
}

void Variable::assign_add(const Tensor& delta) const {
  if (detail::TraceContext* ctx = detail::TraceContext::Current()) {
    CheckUpdate(*impl_, delta, "assign_add");
    ctx->UseVariable(impl_);
    detail::ApplyOp(OpId::kVarAssignAdd, {delta}, {{"name", AttrValue::String(impl_->name)}});
    return;
  }
  ThrowIfError(impl_->slot.AssignAdd(delta.value()).WithContext("variable '" + impl_->name + "'"));
}

}  // namespace tfn
