// Writes the bundle of aot_bench's small signatures; the build compiles it
// with tfn-aot (tfn_aot_library bench_aot_kernels) into the object aot_bench
// links, and aot_bench also runs it through the interpreter.
//
//   chain    x: f32[?] -> tanh(x*1.5+0.5)*sigmoid(x) - x/3   (the elementwise
//            chain of issue 5, which AOT must fuse into one loop)
//   add_one  x: f32[4] -> x + 1                               (a tiny call)
//
// Traced with tfn::function, as a user would write them.
// Usage: aot_bench_bundle OUT.tfn
#include <cstdio>
#include <exception>
#include <map>
#include <string>

#include "tfn/tfn.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: aot_bench_bundle OUT.tfn\n");
    return 2;
  }
  try {
    tfn::FunctionOptions chain_options;
    chain_options.name = "chain";
    chain_options.arg_names = {"x"};
    auto chain = tfn::function(
        [](tfn::Tensor x) { return tfn::tanh(x * 1.5f + 0.5f) * tfn::sigmoid(x) - x / 3.0f; }, chain_options);
    tfn::FunctionOptions add_options;
    add_options.name = "add_one";
    add_options.arg_names = {"x"};
    auto add_one = tfn::function([](tfn::Tensor x) { return x + 1.0f; }, add_options);
    std::map<std::string, tfn::ConcreteFunction> signatures = {
        {"chain", chain.get_concrete_function(tfn::TensorSpec({tfn::kDynamic}, tfn::DType::kFloat32, "x"))},
        {"add_one", add_one.get_concrete_function(tfn::TensorSpec({4}, tfn::DType::kFloat32, "x"))},
    };
    tfn::save(argv[1], signatures);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "aot_bench_bundle: %s\n", e.what());
    return 1;
  }
  return 0;
}
