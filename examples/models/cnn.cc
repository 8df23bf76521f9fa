// The built-in model "cnn": a small convolutional classifier for 28×28
// grey-scale images in NHWC layout (LeNet-sized):
//
//   x: f32[?,28,28,1]
//   conv2d 3×3, 1→16, SAME, + bias, relu   -> [?,28,28,16]
//   max_pool2d 2×2 / 2                     -> [?,14,14,16]
//   conv2d 3×3, 16→32, SAME, + bias, relu  -> [?,14,14,32]
//   max_pool2d 2×2 / 2                     -> [?,7,7,32]
//   reshape [-1, 7*7*32], dense → 10, softmax -> probabilities: f32[?,10]
//
//   tfn-export cnn -o cnn.tfn
//   tfn-export cnn -o cnn1.tfn --signature serving_default:x=f32[1,28,28,1]
#include <map>
#include <string>

#include "examples/models/layers.h"
#include "exporter/model_registry.h"
#include "tfn/tfn.h"

namespace tfn::examples {
namespace {

constexpr int64_t kSize = 28, kChannels1 = 16, kChannels2 = 32, kClasses = 10;
constexpr int64_t kFlat = (kSize / 4) * (kSize / 4) * kChannels2;  // 7*7*32 after two pools

class Cnn {
 public:
  // Filters are [KH, KW, C_in, C_out]; He scale over the receptive field.
  Cnn()
      : conv1_(HeNormal({3, 3, 1, kChannels1}, 3 * 3 * 1, /*seed=*/201, "cnn/conv1/filter")),
        bias1_(zeros({kChannels1}), "cnn/conv1/bias"),
        conv2_(HeNormal({3, 3, kChannels1, kChannels2}, 3 * 3 * kChannels1, /*seed=*/202,
                        "cnn/conv2/filter")),
        bias2_(zeros({kChannels2}), "cnn/conv2/bias"),
        dense_(kFlat, kClasses, /*seed=*/203, "cnn/dense", /*stddev=*/1.0 / 40) {}

  Tensor operator()(const Tensor& x) const {
    Conv2DOptions same;
    same.padding = "SAME";
    Tensor h = max_pool2d(relu(conv2d(x, conv1_, bias1_, same)));
    h = max_pool2d(relu(conv2d(h, conv2_, bias2_, same)));
    // The batch stays dynamic: -1 is inferred from the element count.
    h = reshape(h, {-1, kFlat});
    return softmax(dense_(h));
  }

 private:
  Variable conv1_, bias1_, conv2_, bias2_;
  Dense dense_;
};

// Made once per process, outside any trace; never destroyed (see mlp.cc).
const Cnn& Model() {
  static const Cnn* model = new Cnn;
  return *model;
}

std::map<std::string, ConcreteFunction> ExportCnn(const ExportRequest& request) {
  const Cnn* model = &Model();
  std::vector<TensorSpec> specs = request.InputSpecs(
      "serving_default", {TensorSpec({kDynamic, kSize, kSize, 1}, DType::kFloat32, "x")});
  auto serve = function(
      [model](Tensor x) {
        return std::map<std::string, Tensor>{{"probabilities", (*model)(x)}};
      },
      NamedOptions("cnn", specs, request));
  return {{"serving_default", serve.get_concrete_function(specs[0])}};
}

}  // namespace
}  // namespace tfn::examples

TFN_REGISTER_MODEL(cnn,
                   "small conv net on 28x28x1 NHWC images (2x conv+relu+pool, dense, softmax); "
                   "x: f32[?,28,28,1]",
                   tfn::examples::ExportCnn);
