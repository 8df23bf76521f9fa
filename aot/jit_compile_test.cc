// FunctionOptions::jit_compile: tfn::function runs its traced graphs through
// the LLVM JIT (the AOT code generator, in process) and gives what the
// interpreter gives: polymorphic traces, dynamic input signatures, Variables
// read and assigned between calls.
#include <gtest/gtest.h>

#include <cmath>

#include "tfn/tfn.h"

namespace tfn {
namespace {

void ExpectClose(const Tensor& got, const Tensor& want, double tol = 1e-5) {
  ASSERT_EQ(got.shape(), want.shape());
  ASSERT_EQ(got.dtype(), want.dtype());
  ConstTensor g = got.value(), w = want.value();
  for (int64_t i = 0; i < w.num_elements(); ++i) {
    EXPECT_NEAR(g.ElementAsDouble(i), w.ElementAsDouble(i),
                tol * (1 + std::fabs(w.ElementAsDouble(i))))
        << i;
  }
}

FunctionOptions Options(bool jit, std::vector<TensorSpec> signature = {}) {
  FunctionOptions o;
  o.name = jit ? "jitted" : "interpreted";
  o.jit_compile = jit;
  o.input_signature = std::move(signature);
  return o;
}

TEST(JitCompile, MatchesTheInterpreterAcrossTraces) {
  auto body = [](Tensor x, Tensor w) { return softmax(tanh(matmul(x, w) * 1.5) - x * 0.25); };
  auto jitted = function(body, Options(true));
  auto interpreted = function(body, Options(false));
  for (int64_t n : {1, 4, 9}) {
    Tensor x = random_uniform({n, 6}, 1 + n, -1, 1), w = random_uniform({6, 6}, 2, -1, 1);
    ExpectClose(jitted(x, w), interpreted(x, w));
  }
  EXPECT_EQ(jitted.tracing_count(), 3);  // one trace (and one compilation) per shape
}

// A node with more than 64 outputs: the code generator once cached value
// pointers under node * 64 + port, so a 65-way split (an RNN over 65 steps)
// read its 65th piece from the next node's buffer and wrote past its
// scratch. Pieces reversed and scaled, then joined: each lands where it must.
TEST(JitCompile, NodesWithManyOutputs) {
  constexpr int64_t n = 65;  // the first size the old key broke
  auto body = [](Tensor x) {
    std::vector<Tensor> parts = split(x * 2.0, n, 0);
    std::vector<Tensor> reversed(parts.rbegin(), parts.rend());
    return concat(reversed, 0) + 1.0;
  };
  auto jitted = function(body, Options(true));
  auto interpreted = function(body, Options(false));
  Tensor x = random_uniform({n, 3}, 7, -1, 1);
  ExpectClose(jitted(x), interpreted(x));
  const ConstTensor got = jitted(x).value(), in = x.value();
  for (int64_t i = 0; i < n; ++i) {  // by hand: row i is 2 * row n-1-i + 1
    EXPECT_NEAR(got.ElementAsDouble(i * 3), 2 * in.ElementAsDouble((n - 1 - i) * 3) + 1, 1e-6);
  }
}

TEST(JitCompile, DynamicInputSignatureCompilesOnce) {
  auto body = [](Tensor x) { return reduce_sum(x * x, {1}) + 1.0; };
  auto jitted = function(body, Options(true, {TensorSpec({kDynamic, 3}, DType::kFloat32)}));
  for (int64_t n : {1, 2, 17}) {
    Tensor x = random_uniform({n, 3}, n, -2, 2);
    Tensor want = reduce_sum(x * x, {1}) + 1.0;
    ExpectClose(jitted(x), want);
  }
  EXPECT_EQ(jitted.tracing_count(), 1);
}

TEST(JitCompile, VariablesAreReadAndAssignedBetweenCalls) {
  Variable v(constant({1.f, 2.f, 3.f}), "v");
  Variable steps(constant(0.f), "steps");
  auto step = function(
      [&](Tensor x) {
        Tensor before = v;
        v.assign_add(x);
        steps.assign(steps.value() + 1.f);
        return before * 10.0 + v.value();  // a read after the assignment sees it
      },
      Options(true));
  Tensor x = constant({0.5f, -1.f, 2.f});
  ExpectClose(step(x), constant({11.5f, 21.f, 35.f}));
  ExpectClose(v.value(), constant({1.5f, 1.f, 5.f}));
  ExpectClose(step(x), constant({17.f, 10.f, 57.f}));
  ExpectClose(v.value(), constant({2.f, 0.f, 7.f}));
  ExpectClose(steps.value(), constant(2.f));
  v.assign(constant({0.f, 0.f, 0.f}));  // assigned outside: the next call sees it
  ExpectClose(step(x), constant({0.5f, -1.f, 2.f}));
  EXPECT_EQ(step.tracing_count(), 1);
}

// A training step compiled by the code generator (jit_compile): the
// backward ops the gradient rules record (conv2d_transpose, the filter
// gradient's convolution, max pool's pads and strided slices, scatter-add)
// and Adam's update, against the interpreter on the same steps.
TEST(JitCompile, TrainingStepMatchesTheInterpreter) {
  struct Run {
    Variable c{random_normal({3, 3, 1, 4}, 1, 0, 0.5), "c"}, cb{zeros({4}), "cb"};
    Variable w{random_normal({16, 3}, 2, 0, 0.3), "w"};
    Adam adam{AdamOptions{0.01}};
    std::vector<Variable> vars() const { return {c, cb, w}; }
    Tensor Step(const Tensor& x, const Tensor& y) {
      GradientTape tape;
      Conv2DOptions same;
      same.padding = "SAME";
      Tensor h = max_pool2d(relu(conv2d(x, c, cb, same)));  // [n, 2, 2, 4]
      Tensor loss = losses::sparse_softmax_cross_entropy(matmul(reshape(h, {-1, 16}), w), y);
      adam.apply(tape.gradient(loss, vars()), vars());
      return loss;
    }
  } jit_run, ref_run;
  auto jitted = function([&](Tensor x, Tensor y) { return jit_run.Step(x, y); }, Options(true));
  auto interpreted =
      function([&](Tensor x, Tensor y) { return ref_run.Step(x, y); }, Options(false));
  for (int i = 0; i < 20; ++i) {
    Tensor x = random_uniform({8, 4, 4, 1}, 10 + i),
           y = cast(random_uniform({8}, 40 + i, 0, 2.99), DType::kInt64);
    ExpectClose(jitted(x, y), interpreted(x, y), 1e-4);
  }
  for (size_t k = 0; k < 3; ++k)
    ExpectClose(jit_run.vars()[k].value(), ref_run.vars()[k].value(), 1e-4);
  EXPECT_EQ(jitted.tracing_count(), 1);
}

// The gradient of a bounded while_loop compiled by the code generator: an
// RNN over a sequence whose length is a dynamic dim, the forward loop that
// keeps its iterations and the backward loop that replays them, against the
// interpreter and eager execution.
TEST(JitCompile, WhileLoopGradientMatchesTheInterpreter) {
  auto rnn_grads = [](Tensor xs, Tensor w, Tensor u) {
    GradientTape tape;
    tape.watch(std::vector<Tensor>{w, u});
    WhileOptions bound;
    bound.maximum_iterations = 16;
    const Tensor steps = gather(shape(xs), constant<int64_t>(0));
    const std::vector<Tensor> out =
        while_loop([&](const std::vector<Tensor>& v) { return v[0] < steps; },
                   [&](const std::vector<Tensor>& v) {
                     const Tensor x = reshape(gather(xs, v[0], 0), {1, 4});
                     return std::vector<Tensor>{v[0] + constant<int64_t>(1),
                                                tanh(matmul(x, w) + matmul(v[1], u))};
                   },
                   {constant<int64_t>(0), zeros({1, 4})}, bound);
    return tape.gradient(reduce_sum(out[1] * out[1]), {w, u}, Tensor(),
                         UnconnectedGradients::kZero);
  };
  const std::vector<TensorSpec> signature{TensorSpec({kDynamic, 4}, DType::kFloat32),
                                          TensorSpec({4, 4}, DType::kFloat32),
                                          TensorSpec({4, 4}, DType::kFloat32)};
  auto jitted = function(rnn_grads, Options(true, signature));
  auto interpreted = function(rnn_grads, Options(false, signature));
  const Tensor w = random_normal({4, 4}, 3, 0, 0.5), u = random_normal({4, 4}, 4, 0, 0.5);
  for (int64_t steps : {5, 9, 0}) {
    const Tensor xs = random_uniform({steps, 4}, 20 + static_cast<uint64_t>(steps));
    const std::vector<Tensor> eager = rnn_grads(xs, w, u);
    const std::vector<Tensor> got = jitted(xs, w, u), ref = interpreted(xs, w, u);
    for (size_t k = 0; k < 2; ++k) {
      ExpectClose(ref[k], eager[k]);
      ExpectClose(got[k], eager[k]);
    }
  }
  EXPECT_EQ(jitted.tracing_count(), 1);
}

}  // namespace
}  // namespace tfn
