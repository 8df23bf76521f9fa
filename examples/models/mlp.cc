// The built-in model "mlp": a 784→512→512→10 multilayer perceptron for
// MNIST-sized inputs (ReLU hidden layers, softmax output), the smallest of
// the models tfn-export knows.
//
//   tfn-export mlp -o mlp.tfn                                    # x: f32[?,784]
//   tfn-export mlp -o mlp8.tfn --signature serving_default:x=f32[8,784]
//
// Signatures (sharing one set of variables, stored once in the bundle):
//   serving_default  x: f32[?,784] -> probabilities: f32[?,10]
//   classify         x: f32[?,784] -> class: int64[?]   (argmax of the logits)
#include <map>
#include <string>

#include "examples/models/layers.h"
#include "exporter/model_registry.h"
#include "tfn/tfn.h"

namespace tfn::examples {
namespace {

constexpr int64_t kInputs = 784, kHidden = 512, kClasses = 10;

class Mlp {
 public:
  // Fixed seeds: every export carries the same weights.
  Mlp()
      : hidden1_(kInputs, kHidden, /*seed=*/101, "mlp/dense1"),
        hidden2_(kHidden, kHidden, /*seed=*/102, "mlp/dense2"),
        logits_(kHidden, kClasses, /*seed=*/103, "mlp/logits") {}

  Tensor Logits(const Tensor& x) const {
    Tensor h = relu(hidden1_(x));
    h = relu(hidden2_(h));
    return logits_(h);
  }

 private:
  Dense hidden1_, hidden2_, logits_;
};

// One model per process: its Variables are made once, outside any trace, and
// shared by every signature and every export request. Never destroyed, so
// exit-time destruction order cannot matter.
const Mlp& Model() {
  static const Mlp* model = new Mlp;
  return *model;
}

std::map<std::string, ConcreteFunction> ExportMlp(const ExportRequest& request) {
  const Mlp* model = &Model();
  const std::vector<TensorSpec> defaults = {TensorSpec({kDynamic, kInputs}, DType::kFloat32, "x")};
  std::map<std::string, ConcreteFunction> signatures;

  std::vector<TensorSpec> specs = request.InputSpecs("serving_default", defaults);
  auto serve = function(
      [model](Tensor x) {
        return std::map<std::string, Tensor>{{"probabilities", softmax(model->Logits(x))}};
      },
      NamedOptions("mlp", specs, request));
  signatures["serving_default"] = serve.get_concrete_function(specs[0]);

  specs = request.InputSpecs("classify", defaults);
  auto classify = function(
      [model](Tensor x) {
        return std::map<std::string, Tensor>{{"class", argmax(model->Logits(x), /*axis=*/-1)}};
      },
      NamedOptions("mlp_classify", specs, request));
  signatures["classify"] = classify.get_concrete_function(specs[0]);
  return signatures;
}

}  // namespace
}  // namespace tfn::examples

TFN_REGISTER_MODEL(mlp, "784-512-512-10 perceptron (ReLU, softmax); x: f32[?,784]",
                   tfn::examples::ExportMlp);
