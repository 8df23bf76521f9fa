// Tests of the pooling attributes added for ONNX's MaxPool/AveragePool:
// ceil_mode (output sizes, the dropped last window, overhanging windows that
// count only real and padded cells) and dilated windows, against ONNX's
// examples and a naive loop over dilated taps.
#include <cmath>
#include <random>

#include "kernels/testing/kernel_test_util.h"

namespace tfn::kernels::testing {
namespace {

using HT = HostTensor;

AttrValue Ints(std::vector<int64_t> v) { return AttrValue::Ints(std::move(v)); }

std::vector<float> Iota(int n) {
  std::vector<float> v(n);
  for (int i = 0; i < n; ++i) v[i] = static_cast<float>(i + 1);
  return v;
}

TEST(RefPool2DCeilMode, OnnxExamples) {
  // test_maxpool_2d_ceil / test_averagepool_2d_ceil: 4x4, k3, s2.
  HT x = HT::Of<float>({1, 4, 4, 1}, Iota(16));
  Attrs attrs{{"ksize", Ints({3, 3})}, {"strides", Ints({2, 2})}, {"ceil_mode", AttrValue::Int(1)}};
  auto out = RunOp(OpId::kMaxPool2D, {x}, attrs);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].shape, (Shape{1, 2, 2, 1}));
  EXPECT_EQ(out[0].values<float>(), (std::vector<float>{11, 12, 15, 16}));
  out = RunOp(OpId::kAvgPool2D, {x}, attrs);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].values<float>(), (std::vector<float>{6, 7.5f, 12, 13.5f}));
  // Without ceil_mode the last window does not fit.
  attrs.Set("ceil_mode", AttrValue::Int(0));
  out = RunOp(OpId::kMaxPool2D, {x}, attrs);
  EXPECT_EQ(out[0].shape, (Shape{1, 1, 1, 1}));
}

TEST(RefPool2DCeilMode, DropsAWindowStartingInThePadding) {
  // in 5, k2, s2, pads (1, 1): ceil((7-2)/2)+1 = 4, but window 3 would start
  // at padded index 6 = past the input (5 + 1 leading pad): dropped.
  HT x = HT::Of<float>({1, 1, 5, 1}, Iota(5));
  Attrs attrs{{"ksize", Ints({1, 2})},
              {"strides", Ints({1, 2})},
              {"padding", AttrValue::String("EXPLICIT")},
              {"pads", Ints({0, 0, 1, 1})},
              {"ceil_mode", AttrValue::Int(1)},
              {"count_include_pad", AttrValue::Int(1)}};
  auto out = RunOp(OpId::kAvgPool2D, {x}, attrs);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].shape, (Shape{1, 1, 3, 1}));
  // Windows: {pad, 1}, {2, 3}, {4, 5}: the padded cell counts with count_include_pad.
  EXPECT_EQ(out[0].values<float>(), (std::vector<float>{0.5f, 2.5f, 4.5f}));
  // An overhanging window counts only the cells inside the padded input.
  HT y = HT::Of<float>({1, 1, 4, 1}, Iota(4));
  Attrs over{{"ksize", Ints({1, 3})},
             {"strides", Ints({1, 2})},
             {"ceil_mode", AttrValue::Int(1)},
             {"count_include_pad", AttrValue::Int(1)}};
  out = RunOp(OpId::kAvgPool2D, {y}, over);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].values<float>(), (std::vector<float>{2, 3.5f}));
}

TEST(RefPool2DDilations, AgainstNaiveLoop) {
  std::mt19937 rng(99);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  int tested = 0;
  for (int iter = 0; iter < 200 && tested < 60; ++iter) {
    const int64_t kh = pick(1, 3), kw = pick(1, 3), dh = pick(1, 3), dw = pick(1, 3);
    const int64_t sh = pick(1, 2), sw = pick(1, 2), h = pick(1, 9), w = pick(1, 9);
    const int64_t eh = (kh - 1) * dh + 1, ew = (kw - 1) * dw + 1;
    const int64_t pt = pick(0, static_cast<int>(eh) - 1), pl = pick(0, static_cast<int>(ew) - 1);
    const bool ceil_mode = pick(0, 1) == 1, is_max = pick(0, 1) == 1;
    if (h + pt < eh || w + pl < ew) continue;
    HT x = HT::Random(DType::kFloat64, {1, h, w, 2}, iter, -3, 3);
    Attrs attrs{{"ksize", Ints({kh, kw})},      {"strides", Ints({sh, sw})},
                {"dilations", Ints({dh, dw})},  {"padding", AttrValue::String("EXPLICIT")},
                {"pads", Ints({pt, 0, pl, 0})}, {"ceil_mode", AttrValue::Int(ceil_mode)}};
    auto out = RunOp(is_max ? OpId::kMaxPool2D : OpId::kAvgPool2D, {x}, attrs);
    ASSERT_EQ(out.size(), 1u) << iter;
    const int64_t oh = out[0].shape[1], ow = out[0].shape[2];
    auto size = [&](int64_t in, int64_t e, int64_t s, int64_t p) {
      int64_t n = ceil_mode ? (in + p - e + s - 1) / s + 1 : (in + p - e) / s + 1;
      if (ceil_mode && (n - 1) * s >= in + p) --n;
      return n;
    };
    ASSERT_EQ(oh, size(h, eh, sh, pt)) << iter;
    ASSERT_EQ(ow, size(w, ew, sw, pl)) << iter;
    for (int64_t i = 0; i < oh; ++i) {
      for (int64_t j = 0; j < ow; ++j) {
        for (int64_t c = 0; c < 2; ++c) {
          double best = -INFINITY, sum = 0;
          int count = 0;
          for (int64_t a = 0; a < kh; ++a) {
            for (int64_t e = 0; e < kw; ++e) {
              const int64_t r = i * sh - pt + a * dh, q = j * sw - pl + e * dw;
              if (r < 0 || r >= h || q < 0 || q >= w) continue;
              const double v = x.at((r * w + q) * 2 + c);
              best = std::max(best, v);
              sum += v;
              ++count;
            }
          }
          if (count == 0) continue;  // dilated taps that all miss the input: no defined value
          EXPECT_NEAR(out[0].at((i * ow + j) * 2 + c), is_max ? best : sum / count, 1e-12) << iter;
        }
      }
    }
    ++tested;
  }
  EXPECT_EQ(tested, 60);
}

}  // namespace
}  // namespace tfn::kernels::testing
