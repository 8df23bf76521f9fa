// Training a small CNN on scikit-learn's digits with tfn, end to end:
//
//  1. define the model with tfn's front end (Variables, conv2d, max_pool2d);
//  2. trace one training step (forward, GradientTape, cross-entropy, Adam)
//     as a tfn::function and train a few epochs; check held-out accuracy;
//  3. export a bundle with four signatures: train, infer, save, restore;
//  4. continue training from the bundle in the runtime (a C++ app with no
//     front end would do only this part), on the same batches as the traced
//     step continues on, and compare the two loss curves; write the
//     runtime's losses (runtime_losses.txt) for train_digits_aot.c, which
//     trains on in an AOT-compiled object.
//
//   train_digits DATA_DIR OUT_DIR [--report-only]
//                                     (DATA_DIR from make_digits_npy.py)
//
// Exits 1 when held-out accuracy is under 97% or the curves disagree
// (with --report-only, as the build runs it to make the bundle the AOT
// example compiles, it only says so: ctest's run is the check).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>

#include "runtime/npy.h"
#include "tfn/runtime.h"
#include "tfn/tfn.h"

namespace {

using namespace tfn;

constexpr int64_t kBatch = 32;

Tensor Load(const std::string& path) {
  Result<ConstTensor> t = runtime::ReadNpy(path);
  if (!t.ok()) throw Error(t.status());
  return Tensor::FromConst(*t);
}

// conv 3x3 (1 -> 16) relu, max pool -> conv 3x3 (16 -> 32) relu, max pool
// -> linear (128 -> 10). Weights He-initialized with fixed seeds.
struct Cnn {
  Variable c1{random_normal({3, 3, 1, 16}, 1, 0, std::sqrt(2.0 / 9)), "conv1/w"};
  Variable c1b{zeros({16}), "conv1/b"};
  Variable c2{random_normal({3, 3, 16, 32}, 2, 0, std::sqrt(2.0 / 144)), "conv2/w"};
  Variable c2b{zeros({32}), "conv2/b"};
  Variable w{random_normal({128, 10}, 3, 0, std::sqrt(1.0 / 128)), "dense/w"};
  Variable b{zeros({10}), "dense/b"};

  std::vector<Variable> variables() const { return {c1, c1b, c2, c2b, w, b}; }
  Tensor operator()(const Tensor& x) const {
    Conv2DOptions same;
    same.padding = "SAME";
    Tensor h = max_pool2d(relu(conv2d(x, c1, c1b, same)));  // 4x4x16
    h = max_pool2d(relu(conv2d(h, c2, c2b, same)));         // 2x2x32
    return matmul(reshape(h, {-1, 128}), w) + b;
  }
};

}  // namespace

int main(int argc, char** argv) try {
  const bool report_only = argc == 4 && std::string(argv[3]) == "--report-only";
  if (argc != 3 && !report_only) {
    std::fprintf(stderr, "usage: train_digits DATA_DIR OUT_DIR [--report-only]\n");
    return 2;
  }
  const std::string data = argv[1], out = argv[2];
  const Tensor x_train = Load(data + "/x_train.npy"), y_train = Load(data + "/y_train.npy");
  const Tensor x_test = Load(data + "/x_test.npy"), y_test = Load(data + "/y_test.npy");
  const int64_t batches = x_train.shape()[0] / kBatch;

  Cnn model;
  Adam adam(AdamOptions{0.01});
  auto train_step = function([&](Tensor x, Tensor y) {
    GradientTape tape;
    Tensor loss = losses::sparse_softmax_cross_entropy(model(x), y);
    adam.apply(tape.gradient(loss, model.variables()), model.variables());
    return loss;
  });
  auto infer = function([&](Tensor x) { return argmax(model(x), 1); });
  auto batch = [&](const Tensor& t, int64_t i) {
    std::vector<int64_t> begin(static_cast<size_t>(t.rank()), 0),
        end(static_cast<size_t>(t.rank()), kSliceEnd);
    begin[0] = (i % batches) * kBatch;
    end[0] = begin[0] + kBatch;
    return slice(t, begin, end);
  };

  // 2. Train 12 epochs as a traced function.
  const int64_t steps = 12 * batches;
  float loss = 0;
  for (int64_t i = 0; i < steps; ++i) {
    loss = train_step(batch(x_train, i), batch(y_train, i)).item<float>();
    if ((i + 1) % batches == 0)
      std::printf("epoch %lld: loss %.4f\n", (long long)((i + 1) / batches), loss);
  }
  const Tensor predicted = infer(x_test);
  const double accuracy =
      reduce_mean(cast(equal(predicted, y_test), DType::kFloat32)).item<float>();
  std::printf("held-out accuracy: %.2f%% of %lld digits (traced %d time)\n", 100 * accuracy,
              (long long)x_test.shape()[0], train_step.tracing_count());

  // 3. The bundle: train, infer, save and restore, sharing the variables
  // (the model's and Adam's moments and step count, which train uses).
  ConcreteFunction train = train_step.get_concrete_function(
      TensorSpec({kBatch, 8, 8, 1}, DType::kFloat32), TensorSpec({kBatch}, DType::kInt64));
  std::map<std::string, ConcreteFunction> signatures = checkpoint_signatures(train.variables());
  signatures["train"] = train;
  signatures["infer"] =
      infer.get_concrete_function(TensorSpec({kDynamic, 8, 8, 1}, DType::kFloat32));
  const std::string bundle_path = out + "/digits.tfn";
  save(bundle_path, signatures);
  std::printf("wrote %s: train, infer, save, restore\n", bundle_path.c_str());

  // 4. The runtime continues from the bundle's weights (and Adam's moments
  // and step count) while the traced step continues in process: the same
  // batches, the same losses.
  auto bundle = runtime::Bundle::Load(bundle_path);
  if (!bundle.ok()) throw Error(bundle.status());
  runtime::Session session(*bundle, runtime::SessionOptions{1, nullptr});
  // The runtime's losses, one per step, for the compiled object to follow
  // (train_digits_aot.c).
  std::FILE* losses = std::fopen((out + "/runtime_losses.txt").c_str(), "w");
  if (!losses) throw Error(StatusCode::kInvalidArgument, "cannot write " + out);
  double worst = 0;
  for (int64_t i = steps; i < steps + 2 * batches; ++i) {
    const Tensor x = batch(x_train, i), y = batch(y_train, i);
    const float traced = train_step(x, y).item<float>();
    auto r = session.Run("train", std::vector<runtime::Tensor>{x.value(), y.value()});
    if (!r.ok()) throw Error(r.status());
    const float runtime_loss = static_cast<float>((*r)[0].ElementAsDouble(0));
    std::fprintf(losses, "%.9g\n", runtime_loss);
    worst = std::max(worst, std::abs(static_cast<double>(runtime_loss) - traced) / (1e-3 + traced));
    if ((i + 1) % batches == 0) {
      std::printf("epoch %lld: loss %.5f traced, %.5f runtime\n", (long long)((i + 1) / batches),
                  traced, runtime_loss);
    }
  }
  if (std::fclose(losses) != 0) throw Error(StatusCode::kInvalidArgument, "cannot write " + out);
  auto runtime_pred = session.Run("infer", std::vector<runtime::Tensor>{x_test.value()});
  if (!runtime_pred.ok()) throw Error(runtime_pred.status());
  const double runtime_accuracy =
      reduce_mean(cast(equal(Tensor::FromConst((*runtime_pred)[0]), y_test), DType::kFloat32))
          .item<float>();
  std::printf("runtime: held-out accuracy %.2f%%; largest relative loss difference %.2g\n",
              100 * runtime_accuracy, worst);
  if (Status s = session.SaveCheckpoint(out + "/digits.ckpt"); !s.ok()) throw Error(s);
  std::printf(
      "wrote %s/digits.ckpt (tfn-run %s --signature train --restore-checkpoint ... "
      "continues from it)\n",
      out.c_str(), bundle_path.c_str());
  if (accuracy < 0.97 || runtime_accuracy < 0.97 || worst > 1e-4) {
    std::fprintf(stderr, "train_digits: accuracy under 97%% or the loss curves disagree\n");
    return report_only ? 0 : 1;
  }
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "train_digits: %s\n", e.what());
  return 1;
}
