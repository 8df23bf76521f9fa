// Round trips: trace -> save -> load -> run gives the same outputs as the
// in-process function, bit for bit (both run the same kernels), over a broad
// set of op cases, static and dynamic dims, control flow and variables.
#include <gtest/gtest.h>

#include <cstring>
#include <functional>

#include "tfn/runtime.h"
#include "tfn/tfn.h"

namespace tfn {
namespace {

struct Case {
  std::string name;
  std::function<ConcreteFunction()> make;  // the traced function
  std::vector<Tensor> inputs;
};

std::shared_ptr<const runtime::Bundle> Load(const std::map<std::string, ConcreteFunction>& sigs,
                                            bool compress = false) {
  SaveOptions o;
  o.compress = compress;
  o.min_compress_bytes = 64;
  auto bytes = std::make_shared<std::string>(serialize(sigs, o));
  auto b = runtime::Bundle::FromMemory(bytes->data(), bytes->size(), bytes);
  EXPECT_TRUE(b.ok()) << b.status().ToString();
  return b.ok() ? *b : nullptr;
}

void ExpectSame(const std::vector<Tensor>& in_process, const std::vector<runtime::Tensor>& loaded,
                const std::string& what) {
  ASSERT_EQ(in_process.size(), loaded.size()) << what;
  for (size_t i = 0; i < loaded.size(); ++i) {
    const ConstTensor& a = in_process[i].value();
    const ConstTensor& b = loaded[i];
    ASSERT_EQ(a.dtype, b.dtype) << what << " output " << i;
    ASSERT_EQ(a.shape, b.shape) << what << " output " << i;
    EXPECT_EQ(std::memcmp(a.data, b.data, static_cast<size_t>(a.byte_size())), 0)
        << what << " output " << i << " differs";
  }
}

template <class F, class... Specs>
std::function<ConcreteFunction()> Traced(F f, Specs... specs) {
  return [f, specs...]() {
    auto fn = function(f);
    return fn.get_concrete_function(specs...);
  };
}

TensorSpec F32(Shape s) { return TensorSpec(s, DType::kFloat32); }

std::vector<Case> Cases() {
  Tensor a = random_normal({3, 4}, 1), b = random_normal({4}, 2), m = random_normal({4, 5}, 3);
  Tensor img = random_uniform({2, 8, 8, 3}, 4), filt = random_normal({3, 3, 3, 6}, 5);
  Tensor dw = random_normal({3, 3, 1, 3}, 6);
  Tensor pos = random_uniform({3, 4}, 7, 0.5, 2.0);
  std::vector<Case> cases = {
      {"unary_chain",
       Traced([](Tensor x) { return tanh(exp(x) * 0.5) + sigmoid(x) - sqrt(abs(x)) + gelu(x) + erf(x); },
              F32({3, 4})),
       {a}},
      {"more_unary",
       Traced([](Tensor x) { return floor(x) + ceil(x) + round(x) + sign(x) + sin(x) * cos(x) + relu(-x) + log(x) + rsqrt(x); },
              F32({3, 4})),
       {pos}},
      {"broadcast_binary",
       Traced([](Tensor x, Tensor y) {
         return maximum(x, y) * minimum(x, y) / (y + 3.0) - pow(abs(x), ScalarLike(x, 1.5)) + mod(x, y + 2.0);
       }, F32({3, 4}), F32({4})),
       {a, b}},
      {"compare_where",
       Traced([](Tensor x, Tensor y) {
         Tensor c = (x > y) | (x == y);
         return where(c & !(x < 0.0), x, y * 2.0);
       }, F32({3, 4}), F32({4})),
       {a, b}},
      {"matmul_softmax",
       Traced([](Tensor x, Tensor w) { return log_softmax(matmul(x, w), -1) + softmax(matmul(x, w), 0); },
              F32({3, 4}), F32({4, 5})),
       {a, m}},
      {"batched_matmul_transposed",
       Traced([](Tensor x) {
         Tensor t = reshape(x, {2, 3, 2});
         return matmul(t, t, true, false);
       }, F32({3, 4})),
       {a}},
      {"reductions",
       Traced([](Tensor x) {
         return concat({reduce_sum(x, {1}), reduce_mean(x, {1}), reduce_max(x, {-1}), reduce_min(x, {1}),
                        reduce_prod(x, {1})}, 0);
       }, F32({3, 4})),
       {a}},
      {"arg_and_cast",
       Traced([](Tensor x) { return cast(argmax(x, 1), DType::kFloat32) + cast(argmin(x, 1, true), DType::kFloat32); },
              F32({3, 4})),
       {a}},
      {"layer_norm",
       Traced([](Tensor x, Tensor g) { return layer_norm(x, g, g * 0.5, -1, 1e-5); }, F32({3, 4}), F32({4})),
       {a, b}},
      {"shape_ops",
       Traced([](Tensor x) {
         Tensor t = transpose(x, {1, 0});
         Tensor e = squeeze(expand_dims(t, 0), {0});
         std::vector<Tensor> parts = split(e, 2, 0);
         Tensor s = slice(x, {0, 3}, {kSliceEnd, -kSliceEnd}, {2, -2});
         Tensor p = pad(x, {{1, 0}, {0, 2}}, "reflect");
         Tensor g = gather(x, constant(std::vector<int64_t>{2, 0, -1}), 0);
         return std::make_tuple(parts[1], s, p, g, tile(x, {2, 1}), broadcast_to(reshape(x, {3, 1, 4}), {3, 2, 4}));
       }, F32({3, 4})),
       {a}},
      {"dynamic_dims",
       Traced([](Tensor x) {
         Tensor y = reshape(x, {-1, 2, 2});
         Tensor n = cast(size(x), DType::kFloat32);
         return std::make_tuple(reduce_sum(y, {1, 2}) / n, shape(x)[0]);
       }, F32({kDynamic, 4})),
       {a}},
      {"conv_pool",
       Traced([](Tensor x, Tensor f) {
         Conv2DOptions o;
         o.padding = "SAME";
         o.strides = {2, 1};
         Tensor c = relu(conv2d(x, f, o));
         Pool2DOptions p;
         p.padding = "SAME";
         return std::make_tuple(max_pool2d(c, p), avg_pool2d(c, p));
       }, F32({2, 8, 8, 3}), F32({3, 3, 3, 6})),
       {img, filt}},
      {"depthwise_dilated",
       Traced([](Tensor x, Tensor f) {
         Conv2DOptions o;
         o.groups = 3;
         o.dilations = {2, 2};
         o.padding = "EXPLICIT";
         o.pads = {1, 2, 2, 1};
         return conv2d(x, f, o);
       }, F32({2, 8, 8, 3}), F32({3, 3, 1, 3})),
       {img, dw}},
      {"cond",
       Traced([](Tensor x, Tensor p) {
         return cond(reduce_sum(p) > 0.0, [&] { return x * 2.0; }, [&] { return x - 1.0; });
       }, F32({3, 4}), F32({4})),
       {a, b}},
      {"while",
       Traced([](Tensor x) {
         auto out = while_loop([](const std::vector<Tensor>& v) { return v[1] < 5; },
                               [](const std::vector<Tensor>& v) {
                                 return std::vector<Tensor>{v[0] * 1.1 + 0.1, v[1] + 1};
                               },
                               {x, constant(0)});
         return out[0];
       }, F32({3, 4})),
       {a}},
      {"factories",
       Traced([](Tensor x) {
         return x + random_uniform({3, 4}, 11) + random_normal({4}, 12) + zeros_like(x) + range(0, 4, 1, DType::kFloat32) +
                fill({3, 1}, 0.25);
       }, F32({3, 4})),
       {a}},
      {"int_and_bool",
       Traced([](Tensor x) {
         Tensor i = cast(x * 10.0, DType::kInt32);
         Tensor j = (i / 3) * (i - 7) + mod(i, ScalarLike(i, 4)) + abs(i);
         return std::make_tuple(j, cast(j > 0, DType::kInt64) + cast(reduce_sum(j), DType::kInt64), logical_not(j == 0));
       }, F32({3, 4})),
       {a}},
  };
  return cases;
}

TEST(RoundTrip, EveryCaseMatchesInProcessExactly) {
  for (Case& c : Cases()) {
    SCOPED_TRACE(c.name);
    ConcreteFunction cf = c.make();
    std::vector<Tensor> expected = cf(c.inputs);
    for (bool compress : {false, true}) {
      std::shared_ptr<const runtime::Bundle> bundle = Load({{"serving_default", cf}}, compress);
      ASSERT_TRUE(bundle);
      runtime::Session session(bundle);
      std::vector<runtime::Tensor> in;
      for (const Tensor& t : c.inputs) in.push_back(t.value());
      auto out = session.Run("serving_default", in);
      ASSERT_TRUE(out.ok()) << out.status().ToString();
      ExpectSame(expected, *out, c.name + (compress ? " (zstd)" : ""));
    }
  }
}

}  // namespace
}  // namespace tfn
