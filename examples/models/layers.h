// Small Keras-like building blocks shared by the built-in example models
// (examples/models/*.cc): deterministic weight initialisation and a dense
// layer. Weights are tfn::Variables, created when a model is constructed
// (outside any traced function, as tfn requires), and filled with
// tfn::random_normal from fixed seeds so that every export of a model, on
// every machine, carries the same weights (the tools' tests compare an
// exported bundle's outputs with an in-process run bit for bit).
#pragma once

#include <cmath>
#include <cstdint>
#include <string>

#include "exporter/model_registry.h"
#include "tfn/tfn.h"

namespace tfn::examples {

// N(0, stddev) weights from `seed`.
inline Variable NormalVariable(const Shape& shape, uint64_t seed, double stddev,
                               const std::string& name) {
  return Variable(random_normal(shape, seed, /*mean=*/0, stddev), name);
}

// He initialisation, N(0, sqrt(2 / fan_in)): keeps the variance of ReLU
// activations steady from layer to layer, so softmax outputs stay sensible.
inline Variable HeNormal(const Shape& shape, int64_t fan_in, uint64_t seed,
                         const std::string& name) {
  return NormalVariable(shape, seed, std::sqrt(2.0 / static_cast<double>(fan_in)), name);
}

// y = x @ kernel + bias, with kernel [in, out] and bias [out].
class Dense {
 public:
  Dense(int64_t in, int64_t out, uint64_t seed, const std::string& name)
      : kernel_(HeNormal({in, out}, in, seed, name + "/kernel")),
        bias_(zeros({out}), name + "/bias") {}
  // Glorot-style scale 1/sqrt(in) for layers not followed by a ReLU.
  Dense(int64_t in, int64_t out, uint64_t seed, const std::string& name, double stddev)
      : kernel_(NormalVariable({in, out}, seed, stddev, name + "/kernel")),
        bias_(zeros({out}), name + "/bias") {}

  Tensor operator()(const Tensor& x) const { return matmul(x, kernel_) + bias_; }

 private:
  Variable kernel_;
  Variable bias_;
};

// Function options whose argument names are the specs' names, so that
// "--signature serving_default:image=f32[?,784]" renames the bundle's input.
inline FunctionOptions NamedOptions(const std::string& name, const std::vector<TensorSpec>& specs,
                                    const ExportRequest& request) {
  FunctionOptions options;
  options.name = name;
  options.optimize = request.optimize;
  for (const TensorSpec& s : specs) options.arg_names.push_back(s.name);
  return options;
}

}  // namespace tfn::examples
