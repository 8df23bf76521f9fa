// tfn::GradientTape, tfn::stop_gradient, tfn::grad and tfn::value_and_grad:
// reverse-mode differentiation, as tf.GradientTape.
//
// A tape records the ops that run on the tensors it watches while it is
// alive (from construction to destruction), eagerly or inside a traced
// function, and gradient() walks them backwards with the rules of
// tracer/gradients/. Gradients are ordinary tensors: eager outside a trace,
// graph values inside one (so a training step traced with tfn::function is
// one graph, optimized and exported with its backward pass). Variables read
// while a tape records are watched automatically (watch_accessed_variables).
// Gradients of gradients: a tape records the ops another tape's gradient()
// runs, when that tape was created first and is still recording. A traced
// tfn::cond is differentiated as graph control flow: a cond of its branches'
// gradients (only the taken branch's runs).
//
// Not differentiated, with an error naming the op and what to do: ops
// without a rule (from gradient()), and what the tape cannot see into (when
// it runs on watched values): tfn::while_loop inside a trace, calls of a
// tfn::function, variable reads inside cond branches. Thread-safety: a tape
// belongs to the thread that made it and records only that thread's ops; it
// must be destroyed on that thread.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "tracer/tensor.h"
#include "tracer/variable.h"

namespace tfn {

namespace detail {
struct TapeImpl;
}

// What gradient() returns for a source the target does not depend on.
enum class UnconnectedGradients {
  kNone,  // an undefined Tensor (tf.UnconnectedGradients.NONE)
  kZero,  // zeros of the source's dtype and shape
};

struct GradientTapeOptions {
  // A persistent tape allows several gradient() calls; otherwise its
  // recording is released by the first.
  bool persistent = false;
  // Watch every Variable read while the tape records.
  bool watch_accessed_variables = true;
};

class GradientTape {
 public:
  GradientTape();
  explicit GradientTape(GradientTapeOptions options);
  ~GradientTape();
  GradientTape(const GradientTape&) = delete;
  GradientTape& operator=(const GradientTape&) = delete;

  // Ops on `t` (and on what is computed from it) are recorded from now on.
  void watch(const Tensor& t);
  void watch(const std::vector<Tensor>& ts);
  // Reads of `v` from now on are recorded.
  void watch(const Variable& v);

  // d target / d source for each source, summed over target's elements (or
  // weighted by output_gradient, of target's dtype and shape). Sources must
  // be watched (or computed from watched tensors while recording); a
  // Variable's gradient sums over every read of it the tape recorded.
  std::vector<Tensor> gradient(const Tensor& target, const std::vector<Tensor>& sources,
                               const Tensor& output_gradient = Tensor(),
                               UnconnectedGradients unconnected = UnconnectedGradients::kNone);
  Tensor gradient(const Tensor& target, const Tensor& source);
  // The gradient of several targets at once: sum over t of
  // d targets[t] / d source, each weighted by output_gradients[t] (one per
  // target, or none for ones), as tf.GradientTape.gradient of a list.
  std::vector<Tensor> gradient(const std::vector<Tensor>& targets,
                               const std::vector<Tensor>& sources,
                               const std::vector<Tensor>& output_gradients,
                               UnconnectedGradients unconnected = UnconnectedGradients::kNone);
  std::vector<Tensor> gradient(const Tensor& target, const std::vector<Variable>& sources,
                               const Tensor& output_gradient = Tensor(),
                               UnconnectedGradients unconnected = UnconnectedGradients::kNone);

  // The variables this tape watches, in the order it first saw them.
  std::vector<Variable> watched_variables() const;

  // While the returned object lives, this tape records nothing
  // (tf.GradientTape.stop_recording).
  class Pause {
   public:
    explicit Pause(detail::TapeImpl* tape);
    ~Pause();
    Pause(const Pause&) = delete;
    Pause& operator=(const Pause&) = delete;

   private:
    detail::TapeImpl* tape_;
  };
  [[nodiscard]] Pause stop_recording();

 private:
  std::unique_ptr<detail::TapeImpl> impl_;
};

// x, with no gradient flowing back through it (tf.stop_gradient).
Tensor stop_gradient(const Tensor& x);

// f(args) and its gradients with respect to each of args (f returns a
// float tensor; gradients sum over its elements).
struct ValueAndGrads {
  Tensor value;
  std::vector<Tensor> grads;
};
ValueAndGrads value_and_grad(const std::function<Tensor(const std::vector<Tensor>&)>& f,
                             const std::vector<Tensor>& args);
std::vector<Tensor> grad(const std::function<Tensor(const std::vector<Tensor>&)>& f,
                         const std::vector<Tensor>& args);

}  // namespace tfn
