// Optimizers whose update is part of the traced training step: SGD with
// momentum (and Nesterov), Adam and AdamW, with PyTorch 1.13's arithmetic
// (torch.optim.SGD, Adam, AdamW with their defaults), so a model trained by
// tfn follows the loss curve PyTorch gives from the same weights and batches.
//
// apply(grads, variables) computes every new value from the current ones,
// then assigns them all (so the runtime can write each variable in place:
// no read of it is left by then): eagerly at once, inside a trace as assign
// ops that run on every call. Slot variables (momentum buffers, Adam's
// moments, the step count) are ordinary Variables named
// "<prefix>/<variable>/<slot>", made on the first apply
// (also while tracing: they start at zero, as PyTorch's), so a bundle saved
// from the step carries them. An optimizer is one training run's state: use
// it from one thread (or one traced function) at a time.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "tracer/tensor.h"
#include "tracer/variable.h"

namespace tfn {

class Optimizer {
 public:
  virtual ~Optimizer();
  // One update of each variable by its gradient (an undefined gradient
  // leaves that variable as it is). grads[i] belongs to variables[i].
  void apply(const std::vector<Tensor>& grads, const std::vector<Variable>& variables);
  // The slot variables made so far, in order of creation.
  std::vector<Variable> slots() const;
  const std::string& name() const { return name_; }

 protected:
  explicit Optimizer(std::string name) : name_(std::move(name)) {}
  // The slot `slot` of `v` (starting as zeros of v's dtype and shape).
  Variable Slot(const Variable& v, const std::string& slot);
  Variable Counter();  // int64 scalar: the number of steps applied
  // The new values of v and of its slots, from its gradient and the step
  // count (int64, from 1), appended to `updates`.
  using Updates = std::vector<std::pair<Variable, Tensor>>;
  virtual void Update(const Tensor& grad, const Variable& v, const Tensor& step,
                      Updates* updates) = 0;

 private:
  // The slot of this name, made (zeros of dtype and shape) on first use.
  Variable MakeSlot(const std::string& name, DType dtype, const Shape& shape);
  std::string name_;
  std::vector<std::pair<std::string, Variable>> slots_;
};

struct SGDOptions {
  double learning_rate = 0.01;
  double momentum = 0;
  bool nesterov = false;
  double weight_decay = 0;  // L2: added to the gradient as weight_decay * w
};
class SGD : public Optimizer {
 public:
  explicit SGD(SGDOptions options = {}, std::string name = "sgd");

 private:
  void Update(const Tensor& grad, const Variable& v, const Tensor& step, Updates* updates) override;
  SGDOptions o_;
};

struct AdamOptions {
  double learning_rate = 0.001;
  double beta1 = 0.9;
  double beta2 = 0.999;
  double epsilon = 1e-8;
  // Adam: L2 added to the gradient. AdamW: decoupled, w *= 1 - lr * decay
  // (AdamW's default decay is 0.01, as PyTorch's).
  double weight_decay = 0;
};
class Adam : public Optimizer {
 public:
  explicit Adam(AdamOptions options = {}, std::string name = "adam");

 protected:
  Adam(AdamOptions options, std::string name, bool decoupled);

 private:
  void Update(const Tensor& grad, const Variable& v, const Tensor& step, Updates* updates) override;
  AdamOptions o_;
  bool decoupled_;
};
class AdamW : public Adam {
 public:
  explicit AdamW(AdamOptions options = WithDecay(), std::string name = "adamw");
  static AdamOptions WithDecay() {
    AdamOptions o;
    o.weight_decay = 0.01;
    return o;
  }
};

}  // namespace tfn
