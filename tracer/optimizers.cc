// SGD, Adam and AdamW: each update written with the front end's ops, so it
// runs eagerly or records into the traced training step.
#include "tracer/optimizers.h"

#include <cmath>
#include <cstring>

#include "tracer/ops.h"
#include "tracer/trace_context.h"
#include "tracer/variable_impl.h"

namespace tfn {
namespace {

Tensor C(const Tensor& like, double v) { return detail::ScalarOf(like.dtype(), v); }

}  // namespace

Optimizer::~Optimizer() = default;

Variable Optimizer::MakeSlot(const std::string& name, DType dtype, const Shape& shape) {
  for (const auto& [n, v] : slots_) {
    if (n == name) return v;
  }
  // Slots start at zero and are made on the first apply, which may be while
  // the training step is traced: their initial value is known then, so
  // (unlike a user's variable) they may be made there.
  void* data = nullptr;
  ConstTensor zeros = ConstTensor::Allocate(dtype, shape, &data);
  std::memset(data, 0, static_cast<size_t>(zeros.byte_size()));
  Variable v = Variable::FromImpl(std::make_shared<detail::VariableImpl>(name, zeros));
  slots_.emplace_back(name, v);
  return v;
}

Variable Optimizer::Slot(const Variable& v, const std::string& slot) {
  return MakeSlot(name_ + "/" + v.name() + "/" + slot, v.dtype(), v.shape());
}

Variable Optimizer::Counter() { return MakeSlot(name_ + "/step", DType::kInt64, Shape{}); }

std::vector<Variable> Optimizer::slots() const {
  std::vector<Variable> out;
  for (const auto& [n, v] : slots_) out.push_back(v);
  return out;
}

void Optimizer::apply(const std::vector<Tensor>& grads, const std::vector<Variable>& variables) {
  if (grads.size() != variables.size()) {
    throw Error(StatusCode::kInvalidArgument,
                name_ + ".apply: " + std::to_string(grads.size()) + " gradients for " +
                    std::to_string(variables.size()) + " variables; give one per variable");
  }
  for (size_t i = 0; i < grads.size(); ++i) {
    if (!grads[i].defined()) continue;
    if (!IsFloating(variables[i].dtype()) || grads[i].dtype() != variables[i].dtype() ||
        grads[i].rank() != variables[i].shape().rank()) {
      throw Error(StatusCode::kInvalidArgument,
                  name_ + ".apply: the gradient of variable '" + variables[i].name() + "' is " +
                      DTypeName(grads[i].dtype()) + ShapeToString(grads[i].shape()) +
                      ", the variable " + DTypeName(variables[i].dtype()) +
                      ShapeToString(variables[i].shape()));
    }
  }
  Variable counter = Counter();
  const Tensor step = counter.value() + Tensor::FromConst(ConstTensor::Scalar<int64_t>(1));
  Updates updates{{counter, step}};
  for (size_t i = 0; i < grads.size(); ++i) {
    if (grads[i].defined()) Update(grads[i], variables[i], step, &updates);
  }
  for (const auto& [var, value] : updates) var.assign(value);
}

SGD::SGD(SGDOptions options, std::string name) : Optimizer(std::move(name)), o_(options) {}

// torch.optim.SGD (dampening 0): buf = momentum * buf + g; the step is buf,
// or g + momentum * buf with Nesterov.
void SGD::Update(const Tensor& grad, const Variable& v, const Tensor&, Updates* updates) {
  const Tensor w = v.value();
  Tensor g = grad;
  if (o_.weight_decay != 0) g = g + C(w, o_.weight_decay) * w;
  if (o_.momentum != 0) {
    Variable buf = Slot(v, "momentum");
    const Tensor b = C(w, o_.momentum) * buf.value() + g;
    updates->emplace_back(buf, b);
    g = o_.nesterov ? g + C(w, o_.momentum) * b : b;
  }
  updates->emplace_back(v, w - C(w, o_.learning_rate) * g);
}

Adam::Adam(AdamOptions options, std::string name) : Adam(options, std::move(name), false) {}
Adam::Adam(AdamOptions options, std::string name, bool decoupled)
    : Optimizer(std::move(name)), o_(options), decoupled_(decoupled) {}
AdamW::AdamW(AdamOptions options, std::string name) : Adam(options, std::move(name), true) {}

// torch.optim.Adam / AdamW (amsgrad off): m and v are the moments' running
// averages; the step is lr / (1 - b1^t) * m / (sqrt(v) / sqrt(1 - b2^t) + eps).
void Adam::Update(const Tensor& grad, const Variable& v, const Tensor& step, Updates* updates) {
  Tensor w = v.value();
  Tensor g = grad;
  if (o_.weight_decay != 0) {
    if (decoupled_) {
      w = w * C(w, 1 - o_.learning_rate * o_.weight_decay);
    } else {
      g = g + C(w, o_.weight_decay) * w;
    }
  }
  Variable m = Slot(v, "m"), s = Slot(v, "v");
  const Tensor m1 = C(w, o_.beta1) * m.value() + C(w, 1 - o_.beta1) * g;
  const Tensor s1 = C(w, o_.beta2) * s.value() + C(w, 1 - o_.beta2) * (g * g);
  updates->emplace_back(m, m1);
  updates->emplace_back(s, s1);
  // The bias corrections in float64, as PyTorch computes them (in Python):
  // 1 - beta2^t is small early on, and float32 powers would shift every step.
  const Tensor t = cast(step, DType::kFloat64);
  const Tensor one = detail::ScalarOf(DType::kFloat64, 1);
  const Tensor step_size = cast(detail::ScalarOf(DType::kFloat64, o_.learning_rate) /
                                    (one - pow(detail::ScalarOf(DType::kFloat64, o_.beta1), t)),
                                w.dtype());
  const Tensor correction2_sqrt =
      cast(sqrt(one - pow(detail::ScalarOf(DType::kFloat64, o_.beta2), t)), w.dtype());
  const Tensor denom = sqrt(s1) / correction2_sqrt + C(w, o_.epsilon);
  updates->emplace_back(v, w - step_size * (m1 / denom));
}

}  // namespace tfn
