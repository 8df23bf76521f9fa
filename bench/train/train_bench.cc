// Training-step speed of tfn (issue 16): a traced training step (forward,
// GradientTape, cross-entropy, SGD with momentum) of the MLP 784-512-512-10
// at batch 64 (also with a written-out GELU), of the digits CNN at batch 32,
// of LeNet-5 and of an RNN written as a while_loop
// (bench/train/torch_train.py has the same models),
// run by the runtime's interpreter in process on one thread. Prints the minimum and median step
// time; bench/train/run.sh runs it interleaved with PyTorch's eager and TorchScript steps.
//
// usage: train_bench [--model mlp|cnn|lenet|rnn|gelu] [--seconds S] [--save STEP.tfn]
//                    [--jit 1 | --aot TFN_AOT]
// --jit: the step compiled in process by tfn's LLVM code generator (the one
// tfn-aot uses) instead of interpreted. --aot: the step exported, compiled
// by the tfn-aot tool at TFN_AOT into an object linked into a shared
// library, and run as an app runs it: the variables (the model's and the
// optimizer's) are the app's buffers, passed in and out (var_NAME).
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "ir/functionalize_variables.h"
#include "tests/testing/aot_shared_object.h"
#include "tfn/tfn.h"

namespace {

using namespace tfn;

struct Model {
  std::vector<Variable> vars;
  Tensor x, y;
  std::function<Tensor(const Tensor&)> forward;
};

Tensor Init(Shape s, uint64_t seed, double scale) { return random_uniform(s, seed, -scale, scale); }

using Activation = Tensor (*)(const Tensor&);

// 784-512-512-10 with `activation` after the hidden layers.
Model Mlp(Activation activation) {
  Model m;
  const int64_t dims[] = {784, 512, 512, 10};
  for (int i = 0; i < 3; ++i) {
    m.vars.emplace_back(Init(Shape{dims[i], dims[i + 1]}, 10 + i, 1 / std::sqrt(double(dims[i]))),
                        "w" + std::to_string(i));
    m.vars.emplace_back(zeros(Shape{dims[i + 1]}), "b" + std::to_string(i));
  }
  std::vector<Variable> v = m.vars;
  m.forward = [v, activation](const Tensor& x) {
    Tensor h = activation(matmul(x, v[0].value()) + v[1].value());
    h = activation(matmul(h, v[2].value()) + v[3].value());
    return matmul(h, v[4].value()) + v[5].value();
  };
  m.x = random_uniform(Shape{64, 784}, 1);
  m.y = cast(random_uniform(Shape{64}, 2, 0, 9.99), DType::kInt64);
  return m;
}

Model Cnn() {
  Model m;
  m.vars.emplace_back(Init(Shape{3, 3, 1, 8}, 20, 1 / 3.0), "c1");
  m.vars.emplace_back(zeros(Shape{8}), "c1b");
  m.vars.emplace_back(Init(Shape{3, 3, 8, 16}, 21, 1 / std::sqrt(72.0)), "c2");
  m.vars.emplace_back(zeros(Shape{16}), "c2b");
  m.vars.emplace_back(Init(Shape{256, 10}, 22, 1 / 16.0), "w");
  m.vars.emplace_back(zeros(Shape{10}), "b");
  std::vector<Variable> v = m.vars;
  m.forward = [v](const Tensor& x) {
    Conv2DOptions same;
    same.padding = "SAME";
    Tensor h = max_pool2d(relu(conv2d(x, v[0].value(), v[1].value(), same)));
    h = relu(conv2d(h, v[2].value(), v[3].value(), same));
    return matmul(reshape(h, {-1, 256}), v[4].value()) + v[5].value();
  };
  m.x = random_uniform(Shape{32, 8, 8, 1}, 1);
  m.y = cast(random_uniform(Shape{32}, 2, 0, 9.99), DType::kInt64);
  return m;
}

// GELU's tanh approximation (GPT-2's) written out with elementwise ops: in
// the MLP, its backward pass reads many forward intermediates, the case the
// rematerialize pass is for.
Tensor WrittenOutGelu(const Tensor& x) {
  const Tensor inner = (x + x * x * x * 0.044715) * 0.7978845608;
  return x * 0.5 * (tanh(inner) + 1.0);
}

// LeNet-5 on 28x28 images, batch 64: 5x5 VALID convs, an average pool, two
// dense layers. Not a model the training path was tuned on (bench/RESULTS.md).
Model LeNet() {
  Model m;
  m.vars.emplace_back(Init(Shape{5, 5, 1, 6}, 30, 1 / 5.0), "c1");
  m.vars.emplace_back(zeros(Shape{6}), "c1b");
  m.vars.emplace_back(Init(Shape{5, 5, 6, 16}, 31, 1 / std::sqrt(150.0)), "c2");
  m.vars.emplace_back(zeros(Shape{16}), "c2b");
  m.vars.emplace_back(Init(Shape{256, 120}, 32, 1 / 16.0), "w1");
  m.vars.emplace_back(zeros(Shape{120}), "b1");
  m.vars.emplace_back(Init(Shape{120, 10}, 33, 1 / std::sqrt(120.0)), "w2");
  m.vars.emplace_back(zeros(Shape{10}), "b2");
  std::vector<Variable> v = m.vars;
  m.forward = [v](const Tensor& x) {
    Tensor h = avg_pool2d(relu(conv2d(x, v[0].value(), v[1].value())));  // 12x12x6
    h = max_pool2d(relu(conv2d(h, v[2].value(), v[3].value())));         // 4x4x16
    h = relu(matmul(reshape(h, {-1, 256}), v[4].value()) + v[5].value());
    return matmul(h, v[6].value()) + v[7].value();
  };
  m.x = random_uniform(Shape{64, 28, 28, 1}, 1);
  m.y = cast(random_uniform(Shape{64}, 2, 0, 9.99), DType::kInt64);
  return m;
}

// An Elman RNN (32 -> 128, tanh) over 50 time steps, batch 32, written as a
// bounded tfn::while_loop, and a dense layer on its last state: the loop's
// gradient is a backward loop over the iterations the forward one kept.
Model Rnn() {
  Model m;
  m.vars.emplace_back(Init(Shape{32, 128}, 40, 1 / std::sqrt(32.0)), "wx");
  m.vars.emplace_back(Init(Shape{128, 128}, 41, 1 / std::sqrt(128.0)), "wh");
  m.vars.emplace_back(zeros(Shape{128}), "bh");
  m.vars.emplace_back(Init(Shape{128, 10}, 42, 1 / std::sqrt(128.0)), "w");
  m.vars.emplace_back(zeros(Shape{10}), "b");
  std::vector<Variable> v = m.vars;
  m.forward = [v](const Tensor& xs) {  // xs: [steps, batch, 32]
    const Tensor wx = v[0].value(), wh = v[1].value(), bh = v[2].value();
    const Tensor steps = gather(shape(xs), constant<int64_t>(0));
    WhileOptions bound;
    bound.maximum_iterations = 50;
    const Tensor h =
        while_loop([&](const std::vector<Tensor>& s) { return s[0] < steps; },
                   [&](const std::vector<Tensor>& s) {
                     const Tensor x = gather(xs, s[0], 0);
                     return std::vector<Tensor>{s[0] + constant<int64_t>(1),
                                                tanh(matmul(x, wx) + matmul(s[1], wh) + bh)};
                   },
                   {constant<int64_t>(0), zeros(Shape{32, 128})}, bound)[1];
    return matmul(h, v[3].value()) + v[4].value();
  };
  m.x = random_uniform(Shape{50, 32, 32}, 1, -1, 1);
  m.y = cast(random_uniform(Shape{32}, 2, 0, 9.99), DType::kInt64);
  return m;
}

int64_t ByteSize(const TfnAotTensorDesc& d) {
  int64_t n = DTypeSize(static_cast<DType>(d.dtype));
  for (int i = 0; i < d.rank; ++i) n *= d.size[i];
  return n;
}

// Times the step compiled by tfn-aot, its state starting from the traced
// step's variables; returns the step times (us) and the last loss.
std::vector<double> TimeAotObject(const std::string& tfn_aot, const ConcreteFunction& step,
                                  const Model& m, double seconds, float* loss) {
  const std::string dir =
      (std::filesystem::temp_directory_path() / ("tfn_train_bench_" + std::to_string(::getpid())))
          .string();
  std::filesystem::create_directories(dir);
  tfn::save(dir + "/step.tfn", {{"train", step}});
  auto object = testing::AotSharedObject::Build(tfn_aot, dir + "/step.tfn", "train", "step", dir);
  if (!object.ok()) throw Error(object.status());
  const TfnAotSignature& sig = (*object)->signature();
  std::map<std::string, Tensor> start;
  for (const Variable& v : step.variables()) start[ir::StateName(v.name())] = v.value();
  // Two sets of state buffers, swapped after each step.
  std::vector<std::vector<char>> state[2];
  std::vector<const void*> in(static_cast<size_t>(sig.num_inputs));
  std::vector<void*> out(static_cast<size_t>(sig.num_outputs));
  std::vector<int> in_state(in.size(), -1), out_state(out.size(), -1);
  std::map<std::string, int> slot;
  for (int i = 0; i < sig.num_inputs; ++i) {
    const std::string name = sig.inputs[i].name;
    if (name == "arg0" || name == "arg1") {
      in[static_cast<size_t>(i)] = (name == "arg0" ? m.x : m.y).data();
      continue;
    }
    const Tensor& value = start.at(name);
    slot[name] = static_cast<int>(state[0].size());
    in_state[static_cast<size_t>(i)] = slot[name];
    for (auto& set : state) {
      const char* bytes = static_cast<const char*>(value.data());
      set.emplace_back(bytes, bytes + ByteSize(sig.inputs[i]));
    }
  }
  for (int o = 0; o < sig.num_outputs; ++o) {
    auto it = slot.find(sig.outputs[o].name);
    if (it != slot.end()) out_state[static_cast<size_t>(o)] = it->second;
  }
  std::vector<char> scratch(static_cast<size_t>(sig.scratch_bytes(nullptr)) + 64);
  void* aligned = scratch.data() + (64 - reinterpret_cast<uintptr_t>(scratch.data()) % 64) % 64;
  int current = 0;
  auto run = [&] {
    for (size_t i = 0; i < in.size(); ++i) {
      if (in_state[i] >= 0) in[i] = state[current][static_cast<size_t>(in_state[i])].data();
    }
    for (size_t o = 0; o < out.size(); ++o) {
      out[o] = out_state[o] >= 0 ? state[1 - current][static_cast<size_t>(out_state[o])].data()
                                 : static_cast<void*>(loss);
    }
    if (sig.run(in.data(), nullptr, out.data(), aligned) != 0)
      throw Error(StatusCode::kInternal, "the compiled step failed");
    current = 1 - current;
  };
  for (int i = 0; i < 5; ++i) run();
  std::vector<double> times;
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < end) {
    const auto t0 = std::chrono::steady_clock::now();
    run();
    times.push_back(
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
  }
  std::filesystem::remove_all(dir);
  return times;
}

}  // namespace

int main(int argc, char** argv) try {
  std::string model = "mlp", save_to, tfn_aot;
  double seconds = 2;
  bool jit = false;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--model")) model = argv[i + 1];
    if (!std::strcmp(argv[i], "--seconds")) seconds = std::atof(argv[i + 1]);
    if (!std::strcmp(argv[i], "--save")) save_to = argv[i + 1];
    if (!std::strcmp(argv[i], "--jit")) jit = std::strcmp(argv[i + 1], "0") != 0;
    if (!std::strcmp(argv[i], "--aot")) tfn_aot = argv[i + 1];
  }
  Model m = model == "cnn"     ? Cnn()
            : model == "lenet" ? LeNet()
            : model == "rnn"   ? Rnn()
            : model == "gelu"  ? Mlp(WrittenOutGelu)
                               : Mlp(relu);
  SGDOptions o;
  o.learning_rate = 0.01;
  o.momentum = 0.9;
  SGD opt(o);
  FunctionOptions fo;
  fo.name = "train";
  fo.jit_compile = jit;  // the step compiled by tfn's code generator (as tfn-aot does)
  auto step = function(
      [&](Tensor x, Tensor y) {
        GradientTape tape;
        Tensor loss = losses::sparse_softmax_cross_entropy(m.forward(x), y);
        opt.apply(tape.gradient(loss, m.vars), m.vars);
        return loss;
      },
      fo);
  for (int i = 0; i < 5; ++i) step(m.x, m.y);  // trace and warm up
  if (!save_to.empty()) {  // the step as a bundle's "train" signature (for tfn-run --profile)
    tfn::save(save_to, {{"train", step.get_concrete_function(m.x, m.y)}});
  }
  std::vector<double> times;
  float loss = 0;
  if (!tfn_aot.empty()) {
    times = TimeAotObject(tfn_aot, step.get_concrete_function(m.x, m.y), m, seconds, &loss);
  } else {
    const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (std::chrono::steady_clock::now() < end) {
      const auto t0 = std::chrono::steady_clock::now();
      loss = step(m.x, m.y).item<float>();
      times.push_back(
          std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
    }
  }
  std::sort(times.begin(), times.end());
  std::printf("tfn %s %s: min %.1f us, median %.1f us, %zu steps, loss %.4f\n",
              !tfn_aot.empty() ? "aot"
              : jit            ? "jit"
                               : "traced",
              model.c_str(), times[0], times[times.size() / 2], times.size(), loss);
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "train_bench: %s\n", e.what());
  return 1;
}
