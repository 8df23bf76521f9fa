// The quick-start example: eager ops compute at once; a tfn::function traces
// its body into an optimized graph once and replays it.
#include <iostream>

#include "tfn/tfn.h"

int main() {
  // Eager: every op runs immediately.
  tfn::Tensor x = tfn::constant(std::vector<float>{1, 2, 3, 4, 5, 6}, tfn::Shape{2, 3});
  tfn::Tensor w = tfn::random_normal({3, 4}, /*seed=*/42);
  tfn::Tensor y = tfn::softmax(tfn::matmul(x, w) + 0.5);
  std::cout << "x = " << x << "\n";
  std::cout << "softmax(x @ w + 0.5) = " << y << "\n";

  // Traced: one graph for any batch size.
  tfn::FunctionOptions options;
  options.name = "dense";
  options.arg_names = {"x"};
  options.input_signature = {tfn::TensorSpec({tfn::kDynamic, 3}, tfn::DType::kFloat32)};
  auto dense = tfn::function([&w](tfn::Tensor in) { return tfn::relu(tfn::matmul(in, w)); },
                             options);
  std::cout << "dense(x) = " << dense(x) << "\n";
  std::cout << "dense(ones[5,3]) has shape "
            << tfn::ShapeToString(dense(tfn::ones({5, 3})).shape()) << "\n";
  std::cout << "traces: " << dense.tracing_count() << "\n";
  std::cout << "graph:\n"
            << dense.get_concrete_function(tfn::TensorSpec({tfn::kDynamic, 3}, tfn::DType::kFloat32))
                   .graph_text();
  return 0;
}
