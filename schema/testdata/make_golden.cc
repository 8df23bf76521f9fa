// Writes the golden bundle of the current format version with its inputs and
// expected outputs (schema/testdata/vN/). Run once per format version; the
// files are committed and must keep loading forever (schema/README.md).
// From version 3 on the model also carries the reduced-precision dtypes: a
// float16 input, int8 quantization, a bfloat16 round trip, a float16 output.
//   make_golden OUT_DIR
#include <cstdio>

#include "runtime/npy.h"
#include "tfn/tfn.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_golden OUT_DIR\n");
    return 2;
  }
  std::string dir = argv[1];
  tfn::Variable w(tfn::random_normal({6, 4}, 7), "w");
  tfn::Variable steps(tfn::constant(0), "steps");
  auto model = tfn::function([&](tfn::Tensor x16, tfn::Tensor flag) {
    tfn::Tensor x = tfn::cast(x16, tfn::DType::kFloat32);
    tfn::Tensor h = tfn::gelu(tfn::matmul(x, w.value()) + 0.25);
    tfn::Tensor y = tfn::cond(flag, [&] { return tfn::softmax(h); }, [&] { return tfn::layer_norm(h, tfn::ones({4}), tfn::zeros({4})); });
    auto loop = tfn::while_loop([](const std::vector<tfn::Tensor>& v) { return tfn::reduce_max(v[0]) < 10.f; },
                                [](const std::vector<tfn::Tensor>& v) { return std::vector<tfn::Tensor>{v[0] * 2.f + 1.f}; },
                                {tfn::abs(y)});
    steps.assign_add(tfn::constant(1));
    tfn::Tensor scale = tfn::constant(std::vector<float>{0.02f, 0.05f, 0.1f, 0.2f});
    tfn::Tensor zero_point = tfn::constant(std::vector<int8_t>{3, -2, 0, 1});
    tfn::Tensor q = tfn::quantize_linear(h, scale, zero_point, 1);
    tfn::Tensor bf =
        tfn::cast(tfn::cast(tfn::dequantize_linear(q, scale, zero_point, 1), tfn::DType::kBFloat16),
                  tfn::DType::kFloat32);
    return std::make_tuple(
        y, loop[0],
        tfn::concat({tfn::reshape(x, {-1}),
                     tfn::cast(steps.value(), tfn::DType::kFloat32) + tfn::zeros({1})},
                    0),
        q, tfn::cast(tfn::transpose(bf, {1, 0}), tfn::DType::kFloat16));
  });
  tfn::FunctionOptions o;
  auto cf = model.get_concrete_function(tfn::TensorSpec({tfn::kDynamic, 6}, tfn::DType::kFloat16),
                                        tfn::TensorSpec({}, tfn::DType::kBool));
  tfn::SaveOptions so;
  so.compress = true;
  so.min_compress_bytes = 64;
  tfn::save(dir + "/model.tfn", {{"serving_default", cf}}, so);
  tfn::Tensor x = tfn::cast(tfn::random_uniform({3, 6}, 11, -1, 1), tfn::DType::kFloat16);
  tfn::Tensor flag = tfn::constant(false);
  std::vector<tfn::Tensor> out = cf({x, flag});
  int status = 0;
  auto write = [&](const std::string& name, const tfn::Tensor& t) {
    tfn::Status s = tfn::runtime::WriteNpy(dir + "/" + name + ".npy", t.value());
    if (!s.ok()) {
      std::fprintf(stderr, "make_golden: %s\n", s.message().c_str());
      status = 1;
    }
  };
  write("input_0", x);
  write("input_1", flag);
  for (size_t i = 0; i < out.size(); ++i) write("output_" + std::to_string(i), out[i]);
  return status;
}
