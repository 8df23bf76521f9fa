// A training step in a tfn-aot object: tfn-aot compiles a signature that
// assigns variables with its variables as inputs and their new values as
// outputs (var_NAME), so the app owns the state. The state starts from the
// bundle's "save" signature, compiled too (it embeds the saved values);
// then the compiled "train" steps, the state passed in and out, must follow
// the runtime's losses on the same batches (1e-4 relative).
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <memory>
#include <vector>

#include "ir/functionalize_variables.h"
#include "tests/testing/aot_shared_object.h"
#include "tfn/runtime.h"
#include "tfn/tfn.h"

namespace tfn {
namespace {

using Bytes = std::vector<char>;

int64_t ByteSize(const TfnAotTensorDesc& d) {
  int64_t n = DTypeSize(static_cast<DType>(d.dtype));
  for (int i = 0; i < d.rank; ++i) n *= d.size[i];
  return n;
}

// Runs a compiled signature of static shapes on named inputs; outputs by name.
std::map<std::string, Bytes> RunCompiled(const TfnAotSignature& sig,
                                         const std::map<std::string, const void*>& inputs) {
  std::vector<const void*> in;
  for (int i = 0; i < sig.num_inputs; ++i) {
    auto it = inputs.find(sig.inputs[i].name);
    EXPECT_NE(it, inputs.end()) << "no value for input " << sig.inputs[i].name;
    in.push_back(it == inputs.end() ? nullptr : it->second);
  }
  std::vector<Bytes> out(static_cast<size_t>(sig.num_outputs));
  std::vector<void*> out_ptrs;
  for (int i = 0; i < sig.num_outputs; ++i) {
    out[static_cast<size_t>(i)].resize(static_cast<size_t>(ByteSize(sig.outputs[i])));
    out_ptrs.push_back(out[static_cast<size_t>(i)].data());
  }
  Bytes scratch(static_cast<size_t>(sig.scratch_bytes(nullptr)) + 64);
  EXPECT_EQ(sig.run(in.data(), nullptr, out_ptrs.data(), scratch.data()), 0);
  std::map<std::string, Bytes> named;
  for (int i = 0; i < sig.num_outputs; ++i)
    named[sig.outputs[i].name] = out[static_cast<size_t>(i)];
  return named;
}

TEST(AotTraining, CompiledStepsFollowTheRuntime) {
  const std::string dir =
      (std::filesystem::temp_directory_path() / ("tfn_aot_training_" + std::to_string(::getpid())))
          .string();
  std::filesystem::create_directories(dir);
  // A small CNN with Adam (float moments and an int64 step count).
  Variable c(random_normal({3, 3, 1, 4}, 1, 0, 0.5), "conv/w"), cb(zeros({4}), "conv/b");
  Variable w(random_normal({16, 3}, 2, 0, 0.3), "dense/w");
  auto adam = std::make_shared<Adam>(AdamOptions{0.01});
  std::vector<Variable> vars = {c, cb, w};
  auto step = function([=](Tensor x, Tensor y) {
    GradientTape tape;
    Conv2DOptions same;
    same.padding = "SAME";
    Tensor h = max_pool2d(relu(conv2d(x, c, cb, same)));
    Tensor loss = losses::sparse_softmax_cross_entropy(matmul(reshape(h, {-1, 16}), w), y);
    adam->apply(tape.gradient(loss, vars), vars);
    return loss;
  });
  auto batch = [](int i) {
    return std::make_pair(random_uniform({8, 4, 4, 1}, 100 + i),
                          cast(random_uniform({8}, 200 + i, 0, 2.99), DType::kInt64));
  };
  step(batch(0).first, batch(0).second);  // trains once: the slots exist and are saved
  ConcreteFunction train = step.get_concrete_function(TensorSpec({8, 4, 4, 1}, DType::kFloat32),
                                                      TensorSpec({8}, DType::kInt64));
  std::map<std::string, ConcreteFunction> sigs = checkpoint_signatures(train.variables());
  sigs["train"] = train;
  const std::string bundle = dir + "/step.tfn";
  save(bundle, sigs);

  auto saver = testing::AotSharedObject::Build(TFN_AOT_BIN, bundle, "save", "step_save", dir);
  ASSERT_TRUE(saver.ok()) << saver.status().ToString();
  auto trainer = testing::AotSharedObject::Build(TFN_AOT_BIN, bundle, "train", "step_train", dir);
  ASSERT_TRUE(trainer.ok()) << trainer.status().ToString();
  const TfnAotSignature& compiled = (*trainer)->signature();
  EXPECT_EQ(compiled.num_inputs, 2 + static_cast<int>(train.variables().size()));

  std::map<std::string, Bytes> state;
  for (auto& [name, bytes] : RunCompiled((*saver)->signature(), {}))
    state[ir::StateName(name)] = bytes;

  runtime::Session session(*runtime::Bundle::Load(bundle));
  for (int i = 1; i <= 12; ++i) {
    auto [x, y] = batch(i);
    auto want = session.Run("train", std::vector<runtime::Tensor>{x.value(), y.value()});
    ASSERT_TRUE(want.ok()) << want.status().ToString();
    std::map<std::string, const void*> inputs = {{"arg0", x.data()}, {"arg1", y.data()}};
    for (const auto& [name, bytes] : state) inputs[name] = bytes.data();
    std::map<std::string, Bytes> out = RunCompiled(compiled, inputs);
    float got = 0;
    std::memcpy(&got, out.at(compiled.outputs[0].name).data(), sizeof(float));
    const double loss = (*want)[0].ElementAsDouble(0);
    EXPECT_NEAR(got, loss, 1e-4 * std::abs(loss)) << "step " << i;
    for (auto& [name, bytes] : out) {
      if (state.count(name)) state[name] = bytes;  // the new state
    }
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace tfn
