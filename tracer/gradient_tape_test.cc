// GradientTape's semantics (tf.GradientTape's): what is recorded, watched
// tensors and variables, persistence, stop_gradient, unconnected sources,
// gradients of gradients, tapes inside traced functions, and the errors that
// say what to do. Each op's rule is checked in gradients/gradcheck_test.cc.
#include <gtest/gtest.h>

#include "tfn/tfn.h"
#include "tracer/trace_context.h"

namespace tfn {
namespace {

template <class F>
std::string ErrorOf(F f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

#define EXPECT_HAS(text, part) EXPECT_NE(std::string(text).find(part), std::string::npos) << (text)

TEST(GradientTape, SquareAndChainRule) {
  Tensor x = constant({1.f, 2.f, 3.f});
  GradientTape tape;
  tape.watch(x);
  Tensor y = reduce_sum(x * x * constant(3.f));  // sum 3x^2: 6x
  EXPECT_EQ(tape.gradient(y, x).to_vector<float>(), (std::vector<float>{6, 12, 18}));
}

TEST(GradientTape, VariablesAreWatchedWhenRead) {
  Variable w(constant({2.f, -1.f}), "w");
  Variable unused(constant({1.f}), "unused");
  GradientTape tape;
  Tensor loss = reduce_sum(w.value() * w.value() + w.value());  // 2w + 1, read three times
  std::vector<Tensor> g = tape.gradient(loss, std::vector<Variable>{w});
  EXPECT_EQ(g[0].to_vector<float>(), (std::vector<float>{5, -1}));
  ASSERT_EQ(tape.watched_variables().size(), 1u);
  EXPECT_EQ(tape.watched_variables()[0].name(), "w");
}

TEST(GradientTape, UnwatchedSourcesAreErrorsThatSayWhatToDo) {
  Tensor x = constant({1.f});
  Variable v(constant({1.f}), "v");
  {
    GradientTape tape;
    Tensor y = x * x;
    EXPECT_HAS(ErrorOf([&] { tape.gradient(y, x); }), "call tape.watch(x)");
  }
  {
    GradientTapeOptions o;
    o.watch_accessed_variables = false;
    GradientTape tape(o);
    Tensor y = v.value() * x;
    EXPECT_HAS(ErrorOf([&] { tape.gradient(y, std::vector<Variable>{v}); }),
               "variable 'v' is not watched");
  }
}

TEST(GradientTape, NonPersistentTapesAnswerOnce) {
  Tensor x = constant({2.f});
  GradientTape tape;
  tape.watch(x);
  Tensor y = x * x;
  EXPECT_EQ(tape.gradient(y, x).item<float>(), 4.f);
  EXPECT_HAS(ErrorOf([&] { tape.gradient(y, x); }), "persistent = true");

  GradientTapeOptions o;
  o.persistent = true;
  GradientTape kept(o);
  kept.watch(x);
  Tensor z = x * x * x;
  EXPECT_EQ(kept.gradient(z, x).item<float>(), 12.f);
  EXPECT_EQ(kept.gradient(z, x).item<float>(), 12.f);
}

TEST(GradientTape, StopGradientAndStopRecording) {
  Tensor x = constant({3.f});
  GradientTapeOptions o;
  o.persistent = true;
  GradientTape tape(o);
  tape.watch(x);
  Tensor y = x * stop_gradient(x);  // d/dx = the stopped factor only
  EXPECT_EQ(tape.gradient(y, x).item<float>(), 3.f);
  Tensor z;
  {
    GradientTape::Pause pause = tape.stop_recording();
    z = x * x;
  }
  EXPECT_FALSE(tape.gradient(z, x).defined());  // not recorded: unconnected
}

TEST(GradientTape, UnconnectedSourcesAreUndefinedOrZero) {
  Tensor x = constant({1.f, 2.f}), other = constant({5.f});
  GradientTapeOptions o;
  o.persistent = true;
  GradientTape tape(o);
  tape.watch({x, other});
  Tensor y = reduce_sum(x);
  std::vector<Tensor> g = tape.gradient(y, {x, other});
  EXPECT_TRUE(g[0].defined());
  EXPECT_FALSE(g[1].defined());
  g = tape.gradient(y, {x, other}, Tensor(), UnconnectedGradients::kZero);
  EXPECT_EQ(g[1].to_vector<float>(), (std::vector<float>{0}));
  // Integer paths carry no gradient: argmax's output is not differentiable.
  Tensor via_int = cast(argmax(x), DType::kFloat32);
  EXPECT_FALSE(tape.gradient(via_int, x).defined());
}

TEST(GradientTape, OutputGradientWeightsTheTarget) {
  Tensor x = constant({1.f, 2.f});
  GradientTape tape;
  tape.watch(x);
  Tensor y = x * x;
  EXPECT_EQ(tape.gradient(y, {x}, constant({1.f, 10.f}))[0].to_vector<float>(),
            (std::vector<float>{2, 40}));
}

TEST(GradientTape, SecondDerivativeThroughNestedTapes) {
  Tensor x = constant(std::vector<double>{2.0});
  GradientTape outer;
  outer.watch(x);
  Tensor dy;
  {
    GradientTape inner;
    inner.watch(x);
    Tensor y = x * x * x;  // 3x^2, then 6x
    dy = inner.gradient(y, x);
  }
  EXPECT_EQ(dy.item<double>(), 12.0);
  EXPECT_EQ(outer.gradient(dy, x).item<double>(), 12.0);
}

TEST(GradientTape, GradAndValueAndGrad) {
  auto f = [](const std::vector<Tensor>& a) { return reduce_sum(a[0] * a[1]); };
  ValueAndGrads r = value_and_grad(f, {constant({1.f, 2.f}), constant({3.f, 4.f})});
  EXPECT_EQ(r.value.item<float>(), 11.f);
  EXPECT_EQ(r.grads[0].to_vector<float>(), (std::vector<float>{3, 4}));
  EXPECT_EQ(grad(f, {constant({1.f, 2.f}), constant({3.f, 4.f})})[1].to_vector<float>(),
            (std::vector<float>{1, 2}));
}

TEST(GradientTape, MissingRuleNamesTheOpAndTheWayOut) {
  // fused_matmul has no rule: passes make it after differentiation, so the
  // front end has no call for it; the op dispatch runs it here.
  Tensor a = constant({1.f, 2.f, 3.f, 4.f}, Shape{2, 2});
  GradientTape tape;
  tape.watch(a);
  Tensor y = reduce_sum(detail::ApplyOp(OpId::kFusedMatMul, {a, a})[0]);
  const std::string e = ErrorOf([&] { tape.gradient(y, a); });
  EXPECT_HAS(e, "'fused_matmul' (f32[2,2], f32[2,2])");
  EXPECT_HAS(e, "has no gradient rule");
  EXPECT_HAS(e, "tfn::stop_gradient");
}

// dequantize_linear: (x - zero_point) * scale; only the scale (float) gets a
// gradient, sum(dy * (x - zero_point)) over what it multiplies, by hand.
TEST(GradientTape, DequantizeLinearScalesGetGradients) {
  const Tensor q = constant(std::vector<int8_t>{1, -2, 3, 4, 0, -6}, Shape{2, 3});
  const Tensor dy = constant({1.f, 2.f, 3.f, 4.f, 5.f, 6.f}, Shape{2, 3});
  Tensor scale = constant(0.5f);
  GradientTape tape(GradientTapeOptions{true});
  tape.watch(scale);
  Tensor per_tensor = reduce_sum(dequantize_linear(q, scale, constant(int8_t{1})) * dy);
  // (1-1)*1 + (-2-1)*2 + (3-1)*3 + (4-1)*4 + (0-1)*5 + (-6-1)*6 = 0-6+6+12-5-42 = -35
  EXPECT_EQ(tape.gradient(per_tensor, scale).to_vector<float>(), std::vector<float>{-35.f});
  Tensor scales = constant({0.5f, 0.25f, 2.f});
  tape.watch(scales);
  Tensor per_axis = reduce_sum(
      dequantize_linear(q, scales, constant(std::vector<int8_t>{0, 1, -1}, Shape{3}), 1) * dy);
  // column 0: 1*1 + 4*4 = 17; column 1: (-3)*2 + (-1)*5 = -11; column 2: 4*3 + (-5)*6 = -18
  EXPECT_EQ(tape.gradient(per_axis, scales).to_vector<float>(),
            (std::vector<float>{17.f, -11.f, -18.f}));
  // The same rule traced: recorded into the graph and run by the runtime.
  auto traced = function([&](Tensor s) {
    GradientTape inner;
    inner.watch(s);
    return inner.gradient(reduce_sum(dequantize_linear(q, s, constant(int8_t{1})) * dy), s);
  });
  EXPECT_EQ(traced(constant(0.5f)).to_vector<float>(), std::vector<float>{-35.f});
}

TEST(GradientTape, TracedTrainingStepUpdatesVariables) {
  // y = w x + b fitted by SGD in one traced function: the backward pass and
  // the update are graph ops, optimized with the forward pass and run by the
  // runtime on every call. The same steps run eagerly agree.
  Tensor x = constant({1.f, 2.f, 3.f, 4.f});
  Tensor y = x * constant(2.f) + constant(1.f);
  auto sgd_step = [](const Variable& w, const Variable& b, const Tensor& xs, const Tensor& ys) {
    GradientTape tape;
    Tensor err = w.value() * xs + b.value() - ys;
    Tensor loss = reduce_mean(err * err);
    std::vector<Tensor> g = tape.gradient(loss, std::vector<Variable>{w, b});
    w.assign(w.value() - constant(0.05f) * g[0]);
    b.assign(b.value() - constant(0.05f) * g[1]);
    return loss;
  };
  Variable w(constant({0.f}), "w"), b(constant({0.f}), "b");
  Variable we(constant({0.f}), "w"), be(constant({0.f}), "b");
  auto step = function([&](Tensor xs, Tensor ys) { return sgd_step(w, b, xs, ys); });
  for (int i = 0; i < 300; ++i) {
    const float traced = step(x, y).item<float>();
    const float eager = sgd_step(we, be, x, y).item<float>();
    ASSERT_NEAR(traced, eager, 1e-4f * (1 + eager)) << "step " << i;
  }
  EXPECT_EQ(step.tracing_count(), 1);
  EXPECT_NEAR(w.value().to_vector<float>()[0], 2.f, 1e-2f);
  EXPECT_NEAR(b.value().to_vector<float>()[0], 1.f, 3e-2f);
}

TEST(GradientTape, TracedWhileLoopsRunTheirGradientAsALoop) {
  // y = x * 2^k for the first k with sum(y) >= 8 (at most `bound`
  // iterations): dy/dx = 2^k, counted by the loop at run time.
  auto doubling = [](int64_t bound) {
    return function([bound](Tensor x) {
      GradientTape tape;
      tape.watch(x);
      WhileOptions options;
      options.maximum_iterations = bound;
      Tensor y =
          while_loop([](const std::vector<Tensor>& v) { return reduce_sum(v[0]) < constant(8.f); },
                     [](const std::vector<Tensor>& v) { return std::vector<Tensor>{v[0] * 2.f}; },
                     {x}, options)[0];
      return tape.gradient(reduce_sum(y), x);
    });
  };
  auto f = doubling(50);
  EXPECT_EQ(f(constant({1.f})).to_vector<float>(), std::vector<float>{8.f});  // k = 3
  EXPECT_EQ(f(constant({9.f})).to_vector<float>(), std::vector<float>{1.f});  // k = 0
  // The bound stops the loop too (after 2 iterations: 4).
  EXPECT_EQ(doubling(2)(constant({1.f})).to_vector<float>(), std::vector<float>{4.f});
}

TEST(GradientTape, WhatTheTapeCannotSeeIsRefused) {
  // A traced while_loop without a bound on watched values: its iterations
  // could not be kept.
  auto f = function([](Tensor x) {
    GradientTape tape;
    tape.watch(x);
    Tensor y = while_loop(
        [](const std::vector<Tensor>& v) { return reduce_sum(v[0]) < constant(8.f); },
        [](const std::vector<Tensor>& v) { return std::vector<Tensor>{v[0] * 2.f}; }, {x})[0];
    return tape.gradient(reduce_sum(y), x);
  });
  EXPECT_HAS(ErrorOf([&] { f(constant({1.f})); }),
             "differentiating it needs a bound: pass WhileOptions{maximum_iterations}");
  // A bounded one whose loop variable grows: its iterations do not stack.
  auto grows = function([](Tensor x) {
    GradientTape tape;
    tape.watch(x);
    WhileOptions bound;
    bound.maximum_iterations = 4;
    Tensor y =
        while_loop([](const std::vector<Tensor>& v) { return reduce_sum(v[0]) < constant(8.f); },
                   [](const std::vector<Tensor>& v) {
                     return std::vector<Tensor>{concat({v[0], v[0]}, 0)};
                   },
                   {x}, bound)[0];
    return tape.gradient(reduce_sum(y), x);
  });
  EXPECT_HAS(ErrorOf([&] { grows(constant({1.f})); }),
             "loop variable 0 changes shape between iterations");
  // A loop inside a bounded loop's body: its gradient has no rule yet.
  auto nested = function([](Tensor x) {
    GradientTape tape;
    tape.watch(x);
    WhileOptions bound;
    bound.maximum_iterations = 3;
    auto twice = [](const std::vector<Tensor>& v) {
      return while_loop([](const std::vector<Tensor>& w) { return w[1] < constant(2); },
                        [](const std::vector<Tensor>& w) {
                          return std::vector<Tensor>{w[0] * 2.f, w[1] + constant(1)};
                        },
                        {v[0], constant(0)});
    };
    Tensor y = while_loop([](const std::vector<Tensor>& v) { return v[1] < constant(3); },
                          [&](const std::vector<Tensor>& v) {
                            return std::vector<Tensor>{twice(v)[0], v[1] + constant(1)};
                          },
                          {x, constant(0)}, bound)[0];
    return tape.gradient(reduce_sum(y), x);
  });
  EXPECT_HAS(ErrorOf([&] { nested(constant({1.f})); }),
             "a while_loop inside a while_loop body or a cond branch");
  // A tfn::function called on watched tensors.
  auto square = function([](Tensor t) { return t * t; });
  Tensor x = constant({1.f});
  GradientTape tape;
  tape.watch(x);
  EXPECT_HAS(ErrorOf([&] { square(x); }), "calling tfn::function");
  // A variable created inside a traced step.
  auto make = function([](Tensor t) {
    Variable v(t, "inside");
    return v.value();
  });
  EXPECT_HAS(ErrorOf([&] { make(constant({1.f})); }), "must be created outside functions");
}

}  // namespace
}  // namespace tfn
