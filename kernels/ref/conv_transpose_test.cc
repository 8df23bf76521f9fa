// Tests of the conv2d_transpose reference kernel: ONNX's hand-made examples,
// random configurations (strides, dilations, pads, output_padding, groups,
// bias) against a naive scatter into a zeroed full-size buffer, the adjoint
// identity with conv2d, and the shape rule's errors.
#include <random>

#include "kernels/testing/kernel_test_util.h"

namespace tfn::kernels::testing {
namespace {

using HT = HostTensor;

AttrValue Ints(std::vector<int64_t> v) { return AttrValue::Ints(std::move(v)); }

TEST(RefConv2DTranspose, OnnxExamples) {
  // ONNX's ConvTranspose example: x = 0..8 (3x3), a 3x3 filter of ones, two
  // output channels. In NHWC with filter [KH, KW, out, in].
  std::vector<float> iota(9);
  for (int i = 0; i < 9; ++i) iota[i] = static_cast<float>(i);
  HT x = HT::Of<float>({1, 3, 3, 1}, iota);
  HT f = HT::Of<float>({3, 3, 2, 1}, std::vector<float>(18, 1));
  auto out = RunOp(OpId::kConv2DTranspose, {x, f}, {});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].shape, (Shape{1, 5, 5, 2}));
  const std::vector<float> plane = {0,  1,  3, 3,  2,  3,  8,  15, 12, 7,  9,  21, 36,
                                    27, 15, 9, 20, 33, 24, 13, 6,  13, 21, 15, 8};
  std::vector<float> got = out[0].values<float>();
  for (int i = 0; i < 25; ++i) {
    EXPECT_EQ(got[2 * i], plane[i]) << i;
    EXPECT_EQ(got[2 * i + 1], plane[i]) << i;
  }
  // strides (3, 2), ONNX pads [1, 2, 1, 2] = {top 1, bottom 1, left 2, right 2}:
  // ONNX's test_convtranspose_pads.
  out = RunOp(OpId::kConv2DTranspose, {x, f},
              {{"strides", Ints({3, 2})}, {"pads", Ints({1, 1, 2, 2})}});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].shape, (Shape{1, 7, 3, 2}));
  const std::vector<float> cropped = {1, 1, 3, 1, 1,  3, 7,  4,  9, 7, 4,
                                      9, 7, 4, 9, 13, 7, 15, 13, 7, 15};
  got = out[0].values<float>();
  for (int i = 0; i < 21; ++i) EXPECT_EQ(got[2 * i], cropped[i]) << i;
  // dilations 2: ONNX's test_convtranspose_dilations.
  HT xd = HT::Of<float>({1, 3, 3, 1}, {3, 8, 1, 9, 5, 7, 3, 2, 6});
  HT fd = HT::Of<float>({2, 2, 1, 1}, {7, 2, 1, 9});
  out = RunOp(OpId::kConv2DTranspose, {xd, fd}, {{"dilations", Ints({2, 2})}});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].values<float>(),
            (std::vector<float>{21, 56, 13, 16, 2,  63, 35, 67, 10, 14, 24, 22, 76,
                                76, 21, 9,  5,  88, 45, 63, 3,  2,  33, 18, 54}));
}

// Naive scatter: every input cell adds value * filter into a full-size
// buffer, then pads crop and output_padding extends it.
HT Naive(const HT& x, const HT& f, const HT* bias, int64_t sh, int64_t sw, int64_t dh, int64_t dw,
         const std::vector<int64_t>& pads, int64_t oph, int64_t opw, int64_t groups) {
  const int64_t n = x.shape[0], h = x.shape[1], w = x.shape[2], c = x.shape[3];
  const int64_t kh = f.shape[0], kw = f.shape[1], go = f.shape[2], oc = go * groups;
  const int64_t fh = (h - 1) * sh + (kh - 1) * dh + 1 + oph,
                fw = (w - 1) * sw + (kw - 1) * dw + 1 + opw;
  std::vector<double> full(n * fh * fw * oc, 0);
  for (int64_t b = 0; b < n; ++b)
    for (int64_t i = 0; i < h; ++i)
      for (int64_t j = 0; j < w; ++j)
        for (int64_t ci = 0; ci < c; ++ci) {
          const int64_t g = ci / (c / groups);
          for (int64_t a = 0; a < kh; ++a)
            for (int64_t e = 0; e < kw; ++e)
              for (int64_t o = 0; o < go; ++o) {
                const int64_t r = i * sh + a * dh, q = j * sw + e * dw;
                full[((b * fh + r) * fw + q) * oc + g * go + o] +=
                    x.at(((b * h + i) * w + j) * c + ci) * f.at(((a * kw + e) * go + o) * c + ci);
              }
        }
  const int64_t yh = fh - pads[0] - pads[1], yw = fw - pads[2] - pads[3];
  std::vector<float> y;
  for (int64_t b = 0; b < n; ++b)
    for (int64_t i = 0; i < yh; ++i)
      for (int64_t j = 0; j < yw; ++j)
        for (int64_t o = 0; o < oc; ++o) {
          double v = full[((b * fh + i + pads[0]) * fw + j + pads[2]) * oc + o];
          y.push_back(static_cast<float>(v + (bias ? bias->at(o) : 0)));
        }
  return HT::Of<float>({n, yh, yw, oc}, y);
}

TEST(RefConv2DTranspose, RandomConfigurationsAgainstNaiveScatter) {
  std::mt19937 rng(4242);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int iter = 0; iter < 120; ++iter) {
    const int64_t groups = pick(1, 2), in_per = pick(1, 3), out_per = pick(1, 3);
    const int64_t kh = pick(1, 3), kw = pick(1, 3), sh = pick(1, 3), sw = pick(1, 3);
    const int64_t dh = pick(1, 2), dw = pick(1, 2), h = pick(1, 4), w = pick(1, 4);
    const int64_t oph = pick(0, 1), opw = pick(0, 1);
    std::vector<int64_t> pads = {pick(0, 1), pick(0, 1), pick(0, 1), pick(0, 1)};
    HT x = HT::Random(DType::kFloat32, {pick(1, 2), h, w, groups * in_per}, iter, -2, 2);
    HT f = HT::Random(DType::kFloat32, {kh, kw, out_per, groups * in_per}, 1000 + iter, -2, 2);
    HT b = HT::Random(DType::kFloat32, {groups * out_per}, 2000 + iter, -2, 2);
    const bool with_bias = iter % 2 == 0;
    const int64_t fh = (h - 1) * sh + (kh - 1) * dh + 1 + oph,
                  fw = (w - 1) * sw + (kw - 1) * dw + 1 + opw;
    if (fh - pads[0] - pads[1] <= 0 || fw - pads[2] - pads[3] <= 0) continue;
    Attrs attrs{{"strides", Ints({sh, sw})},
                {"dilations", Ints({dh, dw})},
                {"pads", Ints(pads)},
                {"output_padding", Ints({oph, opw})},
                {"groups", AttrValue::Int(groups)}};
    std::vector<HT> in = {x, f};
    if (with_bias) in.push_back(b);
    auto out = RunOp(OpId::kConv2DTranspose, in, attrs);
    ASSERT_EQ(out.size(), 1u) << "iter " << iter;
    EXPECT_TRUE(AllClose(
        out[0], Naive(x, f, with_bias ? &b : nullptr, sh, sw, dh, dw, pads, oph, opw, groups), 1e-5,
        1e-5))
        << "iter " << iter;
  }
}

// <conv2d(u, f), v> == <u, conv2d_transpose(v, f)>: the two ops are adjoint
// when they share the filter (conv2d reads it as HWIO, from v's channels to u's).
TEST(RefConv2DTranspose, AdjointOfConv2D) {
  HT u = HT::Random(DType::kFloat64, {2, 7, 6, 3}, 1);
  HT f = HT::Random(DType::kFloat64, {3, 2, 3, 4}, 2);
  Attrs attrs{{"strides", Ints({2, 1})}, {"dilations", Ints({1, 2})}};
  auto cu = RunOp(OpId::kConv2D, {u, f}, attrs);
  ASSERT_EQ(cu.size(), 1u);
  HT v = HT::Random(DType::kFloat64, cu[0].shape, 3);
  // conv2d_transpose maps v's 4 channels back to u's 3: filter [KH, KW, 3, 4] is f as is.
  attrs.Set("output_padding", Ints({0, 0}));
  auto tv = RunOp(OpId::kConv2DTranspose, {v, f}, attrs);
  ASSERT_EQ(tv.size(), 1u);
  ASSERT_EQ(tv[0].shape, (Shape{2, 7, 6, 3}));  // the rows conv2d's stride skipped get nothing
  double lhs = 0, rhs = 0;
  for (int64_t i = 0; i < v.size(); ++i) lhs += cu[0].at(i) * v.at(i);
  for (int64_t i = 0; i < u.size(); ++i) rhs += u.at(i) * tv[0].at(i);
  EXPECT_NEAR(lhs, rhs, 1e-9 * std::abs(lhs) + 1e-9);
}

TEST(RefConv2DTranspose, Errors) {
  std::string error;
  HT x = HT::Of<float>({1, 2, 2, 2}, std::vector<float>(8, 1));
  RunOp(OpId::kConv2DTranspose, {x, HT::Of<float>({1, 1, 1, 3}, {1, 1, 1})}, {},
        Variant::kReference, &error);
  EXPECT_EQ(error,
            "conv2d_transpose: filter f32[1,1,1,3] expects 3 input channels, input is "
            "f32[1,2,2,2]");
  RunOp(OpId::kConv2DTranspose,
        {x, HT::Of<float>({1, 1, 1, 2}, {1, 1}), HT::Of<float>({2}, {1, 1})}, {},
        Variant::kReference, &error);
  EXPECT_EQ(error, "conv2d_transpose: bias must be [1], got f32[2]");
  RunOp(OpId::kConv2DTranspose, {x, HT::Of<float>({1, 1, 1, 2}, {1, 1})},
        {{"pads", Ints({1, 1, 0, 0})}}, Variant::kReference, &error);
  EXPECT_EQ(error, "conv2d_transpose: pads [1,1,0,0] crop the whole output of f32[1,2,2,2]");
}

}  // namespace
}  // namespace tfn::kernels::testing
