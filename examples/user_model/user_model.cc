// A user's model library: one model, "user_regressor", registered with
// TFN_REGISTER_MODEL and exported by tfn-export without rebuilding tfn:
//
//   tfn-export user_regressor --library ./libuser_model.so -o regressor.tfn
//
// Build it as a shared library against tfn's headers only (see
// CMakeLists.txt and README.md): the tfn functions it calls are taken from
// the tfn-export process that loads it.
//
// The model: y = scale * (tanh(x @ W1 + b1) @ W2 + b2), with two inputs,
// x: f32[?,4] (a batch of feature vectors) and scale: f32[] (a scalar).
#include <map>
#include <string>

#include "exporter/model_registry.h"
#include "tfn/tfn.h"

namespace {

class Regressor {
 public:
  // Weights are Variables, made once, outside the traced function; fixed
  // seeds make every export identical.
  Regressor()
      : w1_(tfn::random_normal({4, 8}, /*seed=*/7, 0, 0.5), "regressor/w1"),
        b1_(tfn::zeros({8}), "regressor/b1"),
        w2_(tfn::random_normal({8, 1}, /*seed=*/8, 0, 0.35), "regressor/w2"),
        b2_(tfn::fill({1}, 0.25), "regressor/b2") {}

  tfn::Tensor operator()(const tfn::Tensor& x, const tfn::Tensor& scale) const {
    tfn::Tensor h = tfn::tanh(tfn::matmul(x, w1_) + b1_);
    return (tfn::matmul(h, w2_) + b2_) * scale;
  }

 private:
  tfn::Variable w1_, b1_, w2_, b2_;
};

std::map<std::string, tfn::ConcreteFunction> ExportRegressor(const tfn::ExportRequest& request) {
  // Leaked on purpose: the library may be unloaded in any order at exit.
  static const Regressor* model = new Regressor;
  // The command line may override these (--signature serving_default:x=f32[16,4],scale=f32[]).
  std::vector<tfn::TensorSpec> specs = request.InputSpecs(
      "serving_default", {tfn::TensorSpec({tfn::kDynamic, 4}, tfn::DType::kFloat32, "x"),
                          tfn::TensorSpec({}, tfn::DType::kFloat32, "scale")});
  tfn::FunctionOptions options;
  options.name = "user_regressor";
  options.arg_names = {specs[0].name, specs[1].name};
  options.optimize = request.optimize;
  auto serve = tfn::function(
      [](tfn::Tensor x, tfn::Tensor scale) {
        return std::map<std::string, tfn::Tensor>{{"y", (*model)(x, scale)}};
      },
      options);
  return {{"serving_default", serve.get_concrete_function(specs[0], specs[1])}};
}

}  // namespace

TFN_REGISTER_MODEL(user_regressor, "a user's model: y = scale * mlp(x); x: f32[?,4], scale: f32[]",
                   ExportRegressor);
