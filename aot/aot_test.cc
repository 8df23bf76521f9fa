// Tests of the code generator through the JIT: compiled signatures give the
// interpreter's results (within the tolerances of the optimized math), for
// static and dynamic dims.
#include <gtest/gtest.h>

#include <cmath>

#include "aot/aot.h"
#include "loader/compiled.h"
#include "tfn/tfn.h"

namespace tfn {
namespace {

::testing::AssertionResult Close(const ConstTensor& got, const ConstTensor& want, double rtol = 2e-5,
                                 double atol = 1e-6) {
  if (got.dtype != want.dtype || got.shape != want.shape) {
    return ::testing::AssertionFailure() << "type " << TypeToString(static_cast<int>(got.dtype), got.shape)
                                         << " vs " << TypeToString(static_cast<int>(want.dtype), want.shape);
  }
  for (int64_t i = 0; i < got.num_elements(); ++i) {
    double g = got.ElementAsDouble(i), w = want.ElementAsDouble(i);
    if (std::isnan(g) && std::isnan(w)) continue;
    if (std::isinf(w) && g == w) continue;
    if (!(std::fabs(g - w) <= atol + rtol * std::fabs(w))) {
      return ::testing::AssertionFailure() << "element " << i << ": " << g << " vs " << w;
    }
  }
  return ::testing::AssertionSuccess();
}

// JIT-compiles a concrete function and checks it against the interpreter.
void CheckJit(const ConcreteFunction& cf, const std::vector<std::vector<Tensor>>& input_sets) {
  aot::CompileOptions options;
  options.name = "test";
  auto lib = aot::JitCompile({aot::SignatureToCompile{"f", cf.graph()}}, options);
  ASSERT_TRUE(lib.ok()) << lib.status();
  const TfnAotSignature* sig = (*lib)->signature("f");
  ASSERT_NE(sig, nullptr);
  for (const std::vector<Tensor>& inputs : input_sets) {
    std::vector<Tensor> want = cf(inputs);
    std::vector<ConstTensor> in;
    for (const Tensor& t : inputs) in.push_back(t.value());
    auto got = runtime::RunCompiled(*sig, in);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    ASSERT_EQ(got->size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) EXPECT_TRUE(Close((*got)[i], want[i].value())) << "output " << i;
  }
}

TEST(Jit, ElementwiseChain) {
  auto f = function([](Tensor x) { return tanh(x * 1.5 + 0.5) * sigmoid(x) - x / 3.0; });
  CheckJit(f.get_concrete_function(TensorSpec({kDynamic}, DType::kFloat32)),
           {{random_normal({1}, 1)}, {random_normal({1000}, 2)}, {random_normal({17}, 3)}});
}

TEST(Jit, BroadcastingAndKernels) {
  auto f = function([](Tensor x, Tensor w, Tensor b) { return softmax(relu(matmul(x, w) + b)); });
  CheckJit(f.get_concrete_function(TensorSpec({kDynamic, 8}, DType::kFloat32), TensorSpec({8, 4}, DType::kFloat32),
                                   TensorSpec({4}, DType::kFloat32)),
           {{random_normal({3, 8}, 1), random_normal({8, 4}, 2), random_normal({4}, 3)},
            {random_normal({1, 8}, 4), random_normal({8, 4}, 5), random_normal({4}, 6)}});
}

}  // namespace
}  // namespace tfn
