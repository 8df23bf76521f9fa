// Training with tfn against PyTorch 1.13 (tests/training/make_torch_reference.py):
// a 2-layer MLP and a small CNN on scikit-learn's digits, from the same
// initial weights on the same batches, 50 steps each of SGD with momentum,
// Adam and AdamW. The training step (forward, GradientTape, cross-entropy,
// optimizer update) runs eagerly and as one traced tfn::function (its graph
// optimized and run by the runtime); every step's loss must be within 1e-4
// relative of PyTorch's.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <memory>

#include "runtime/npy.h"
#include "tfn/tfn.h"

namespace tfn {
namespace {

Tensor Load(const std::string& name) {
  Result<ConstTensor> t = runtime::ReadNpy(std::string(TFN_TRAINING_DIR) + "/" + name + ".npy");
  if (!t.ok()) throw Error(t.status());
  return Tensor::FromConst(*t);
}

struct Model {
  std::vector<Variable> vars;
  std::function<Tensor(const Tensor&)> forward;
};

Model Mlp() {
  Model m;
  for (const char* n : {"w1", "b1", "w2", "b2"})
    m.vars.emplace_back(Load(std::string("mlp_") + n), n);
  std::vector<Variable> v = m.vars;
  m.forward = [v](const Tensor& x) {
    Tensor h = relu(matmul(x, v[0].value()) + v[1].value());
    return matmul(h, v[2].value()) + v[3].value();
  };
  return m;
}

Model Cnn() {
  Model m;
  for (const char* n : {"c1", "c1b", "c2", "c2b", "w", "b"}) {
    m.vars.emplace_back(Load(std::string("cnn_") + n), n);
  }
  std::vector<Variable> v = m.vars;
  m.forward = [v](const Tensor& x) {
    Conv2DOptions same;
    same.padding = "SAME";
    Tensor h = max_pool2d(relu(conv2d(x, v[0].value(), v[1].value(), same)));
    h = relu(conv2d(h, v[2].value(), v[3].value(), same));
    return matmul(reshape(h, {-1, 4 * 4 * 16}), v[4].value()) + v[5].value();
  };
  return m;
}

std::unique_ptr<Optimizer> MakeOptimizer(const std::string& name) {
  if (name == "sgd") {
    SGDOptions o;
    o.learning_rate = 0.05;
    o.momentum = 0.9;
    return std::make_unique<SGD>(o);
  }
  AdamOptions o;
  o.learning_rate = 0.01;
  if (name == "adam") return std::make_unique<Adam>(o);
  o.weight_decay = 0.05;
  return std::make_unique<AdamW>(o);
}

void FollowsPyTorch(const std::string& model_name, const std::string& optimizer, bool traced) {
  Model model = model_name == "mlp" ? Mlp() : Cnn();
  std::unique_ptr<Optimizer> opt = MakeOptimizer(optimizer);
  auto step = [&](const Tensor& x, const Tensor& y) {
    GradientTape tape;
    Tensor loss = losses::sparse_softmax_cross_entropy(model.forward(x), y);
    opt->apply(tape.gradient(loss, model.vars), model.vars);
    return loss;
  };
  auto traced_step = function([&](Tensor x, Tensor y) { return step(x, y); });
  const Tensor xs = Load(model_name + "_x"), ys = Load(model_name + "_y");
  const std::vector<float> want = Load(model_name + "_" + optimizer + "_losses").to_vector<float>();
  double worst = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    const Tensor x = xs[static_cast<int64_t>(i)], y = ys[static_cast<int64_t>(i)];
    const float got = (traced ? traced_step(x, y) : step(x, y)).item<float>();
    worst = std::max(worst, std::abs(static_cast<double>(got) - want[i]) / std::abs(want[i]));
    ASSERT_LE(std::abs(got - want[i]), 1e-4f * std::abs(want[i]))
        << model_name << " " << optimizer << (traced ? " traced" : " eager") << ", step " << i
        << ": tfn " << got << ", PyTorch " << want[i];
  }
  std::printf("%s %s %s: largest relative difference from PyTorch over %zu steps %.2g\n",
              model_name.c_str(), optimizer.c_str(), traced ? "traced" : "eager", want.size(),
              worst);
  if (traced) {
    EXPECT_EQ(traced_step.tracing_count(), 1);
  }
  if (optimizer != "sgd") {
    EXPECT_EQ(opt->slots().size(), 1 + 2 * model.vars.size());
  }
}

class Training : public ::testing::TestWithParam<std::tuple<const char*, const char*, bool>> {};

TEST_P(Training, LossesFollowPyTorch) {
  const auto& [model, optimizer, traced] = GetParam();
  FollowsPyTorch(model, optimizer, traced);
}

INSTANTIATE_TEST_SUITE_P(All, Training,
                         ::testing::Combine(::testing::Values("mlp", "cnn"),
                                            ::testing::Values("sgd", "adam", "adamw"),
                                            ::testing::Bool()));

TEST(TrainingErrors, LabelsOfTheWrongDtypeOrRange) {
  Tensor logits = zeros(Shape{2, 3});
  auto message = [](const std::function<void()>& f) {
    try {
      f();
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  EXPECT_NE(message([&] {
              losses::sparse_softmax_cross_entropy(logits, constant({1.f, 2.f}));
            }).find("labels must be int32 or int64 [batch] (class indices), got f32[2]; cast them"),
            std::string::npos);
  EXPECT_NE(message([&] {
              losses::sparse_softmax_cross_entropy(logits, constant({1, 3}));
            }).find("label 1 is 3, outside the 3 classes [0, 3)"),
            std::string::npos);
  // Inside a traced step the labels are known only when it runs.
  auto f = function([](Tensor l, Tensor y) { return losses::sparse_softmax_cross_entropy(l, y); });
  EXPECT_NE(message([&] { f(logits, constant({0, -1})); }), "(no error)");
  EXPECT_NE(message([&] { f(logits, constant({0, 3})); }), "(no error)");
  EXPECT_NEAR(f(logits, constant({0, 2})).item<float>(), std::log(3.f), 1e-6f);
}

}  // namespace
}  // namespace tfn
