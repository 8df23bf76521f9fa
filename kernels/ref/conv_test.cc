// Tests of the conv2d and pooling reference kernels: hand-computed values for
// each padding mode, strides, dilations, bias, groups and depthwise; many
// random configurations against naive loops written here over an explicitly
// zero-padded copy of the input; NaN and the shape rules' errors.
#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "kernels/testing/kernel_test_util.h"

namespace tfn::kernels::testing {
namespace {

using HT = HostTensor;

AttrValue Ints(std::vector<int64_t> v) { return AttrValue::Ints(std::move(v)); }

std::vector<float> Iota(int n, float start = 1) {
  std::vector<float> v(n);
  for (int i = 0; i < n; ++i) v[i] = start + static_cast<float>(i);
  return v;
}

std::vector<float> Conv(std::vector<HT> inputs, Attrs attrs) {
  auto out = RunOp(OpId::kConv2D, std::move(inputs), std::move(attrs));
  return out.empty() ? std::vector<float>{} : out[0].values<float>();
}

std::string ErrorOf(OpId op, std::vector<HT> inputs, Attrs attrs) {
  std::string error;
  RunOp(op, std::move(inputs), std::move(attrs), Variant::kReference, &error);
  return error;
}

TEST(RefConv2D, HandComputedPaddingModes) {
  // Input 3x3 = [[1,2,3],[4,5,6],[7,8,9]], a 2x2 filter of ones: window sums.
  HT x = HT::Of<float>({1, 3, 3, 1}, Iota(9));
  HT f = HT::Of<float>({2, 2, 1, 1}, {1, 1, 1, 1});
  EXPECT_EQ(Conv({x, f}, {}), (std::vector<float>{12, 16, 24, 28}));
  // SAME, stride 1: pad_total 1, all of it after (bottom/right).
  EXPECT_EQ(Conv({x, f}, {{"padding", AttrValue::String("SAME")}}),
            (std::vector<float>{12, 16, 9, 24, 28, 15, 15, 17, 9}));
  // SAME, stride 2: out 2x2, pad_total (2-1)*2+2-3 = 1, after.
  EXPECT_EQ(Conv({x, f}, {{"padding", AttrValue::String("SAME")}, {"strides", Ints({2, 2})}}),
            (std::vector<float>{12, 9, 15, 9}));
  // EXPLICIT: one row on top and one column on the left.
  EXPECT_EQ(
      Conv({x, f}, {{"padding", AttrValue::String("EXPLICIT")}, {"pads", Ints({1, 0, 1, 0})}}),
      (std::vector<float>{1, 3, 5, 5, 12, 16, 11, 24, 28}));
  // Dilation 2: the 2x2 filter touches the four corners.
  EXPECT_EQ(Conv({x, f}, {{"dilations", Ints({2, 2})}}), (std::vector<float>{20}));
  // Bias is added to every output of its channel.
  EXPECT_EQ(Conv({x, f, HT::Of<float>({1}, {0.5f})}, {}),
            (std::vector<float>{12.5f, 16.5f, 24.5f, 28.5f}));
  // SAME with a 3x3 filter: pad_total 2, one on each side (the centered case).
  HT f3 = HT::Of<float>({3, 3, 1, 1}, std::vector<float>(9, 1));
  EXPECT_EQ(Conv({x, f3}, {{"padding", AttrValue::String("SAME")}}),
            (std::vector<float>{12, 21, 16, 27, 45, 33, 24, 39, 28}));
}

TEST(RefConv2D, HandComputedChannelsAndGroups) {
  HT x = HT::Of<float>({1, 1, 1, 2}, {1, 2});
  // Full: out[o] = x0 * f[0][o] + x1 * f[1][o].
  EXPECT_EQ(Conv({x, HT::Of<float>({1, 1, 2, 3}, {1, 2, 3, 4, 5, 6})}, {}),
            (std::vector<float>{9, 12, 15}));
  // groups 2: output 0 sees channel 0 only, output 1 channel 1 only.
  EXPECT_EQ(Conv({x, HT::Of<float>({1, 1, 1, 2}, {10, 100})}, {{"groups", AttrValue::Int(2)}}),
            (std::vector<float>{10, 200}));
  // Depthwise with multiplier 2: outputs 0,1 from channel 0; 2,3 from channel 1.
  EXPECT_EQ(Conv({x, HT::Of<float>({1, 1, 1, 4}, {1, 2, 3, 4})}, {{"groups", AttrValue::Int(2)}}),
            (std::vector<float>{1, 2, 6, 8}));
}

struct ConvCase {
  int64_t n, h, w, c, kh, kw, out_c, sh, sw, dh, dw, groups;
  std::string padding;
  std::vector<int64_t> pads;  // EXPLICIT only
  bool bias;
};

// Output size and padding before/after of one spatial dim, from the padding
// rules stated in the task (TensorFlow SAME, VALID, EXPLICIT).
void SpatialPlan(const ConvCase& c, int64_t in, int64_t window, int64_t stride, int dim,
                 int64_t* out, int64_t* before, int64_t* after) {
  if (c.padding == "SAME") {
    *out = (in + stride - 1) / stride;
    int64_t total = std::max<int64_t>((*out - 1) * stride + window - in, 0);
    *before = total / 2;
    *after = total - *before;
  } else {
    *before = c.padding == "EXPLICIT" ? c.pads[2 * dim] : 0;
    *after = c.padding == "EXPLICIT" ? c.pads[2 * dim + 1] : 0;
    *out = (in + *before + *after - window) / stride + 1;
  }
}

// Naive conv2d: copy the input into a zero-padded buffer, then slide.
HT NaiveConv(const ConvCase& c, const HT& x, const HT& f, const HT* bias) {
  const int64_t eff_h = (c.kh - 1) * c.dh + 1, eff_w = (c.kw - 1) * c.dw + 1;
  int64_t oh, ow, top, bottom, left, right;
  SpatialPlan(c, c.h, eff_h, c.sh, 0, &oh, &top, &bottom);
  SpatialPlan(c, c.w, eff_w, c.sw, 1, &ow, &left, &right);
  const int64_t ph = c.h + top + bottom, pw = c.w + left + right;
  std::vector<double> padded(c.n * ph * pw * c.c, 0.0);
  for (int64_t n = 0; n < c.n; ++n) {
    for (int64_t i = 0; i < c.h; ++i) {
      for (int64_t j = 0; j < c.w; ++j) {
        for (int64_t ch = 0; ch < c.c; ++ch) {
          padded[((n * ph + i + top) * pw + j + left) * c.c + ch] =
              x.at(((n * c.h + i) * c.w + j) * c.c + ch);
        }
      }
    }
  }
  const int64_t cg = c.c / c.groups, og = c.out_c / c.groups;
  std::vector<double> y;
  for (int64_t n = 0; n < c.n; ++n) {
    for (int64_t i = 0; i < oh; ++i) {
      for (int64_t j = 0; j < ow; ++j) {
        for (int64_t o = 0; o < c.out_c; ++o) {
          const int64_t g = o / og;
          double acc = bias ? bias->at(o) : 0.0;
          for (int64_t a = 0; a < c.kh; ++a) {
            for (int64_t b = 0; b < c.kw; ++b) {
              for (int64_t ci = 0; ci < cg; ++ci) {
                double xv =
                    padded[((n * ph + i * c.sh + a * c.dh) * pw + j * c.sw + b * c.dw) * c.c +
                           g * cg + ci];
                acc += xv * f.at(((a * c.kw + b) * cg + ci) * c.out_c + o);
              }
            }
          }
          y.push_back(acc);
        }
      }
    }
  }
  HT out;
  out.dtype = x.dtype;
  out.shape = Shape{c.n, oh, ow, c.out_c};
  out.bytes.resize(y.size() * DTypeSize(x.dtype));
  for (size_t i = 0; i < y.size(); ++i) {
    VisitDType(x.dtype, [&](auto tag) {
      using T = decltype(tag);
      T v = static_cast<T>(y[i]);
      std::memcpy(out.bytes.data() + i * sizeof(T), &v, sizeof(T));
      return 0;
    });
  }
  return out;
}

Attrs ConvAttrs(const ConvCase& c) {
  Attrs a{{"strides", Ints({c.sh, c.sw})},
          {"dilations", Ints({c.dh, c.dw})},
          {"padding", AttrValue::String(c.padding)},
          {"groups", AttrValue::Int(c.groups)}};
  if (c.padding == "EXPLICIT") a.Set("pads", Ints(c.pads));
  return a;
}

TEST(RefConv2D, RandomConfigurationsAgainstNaiveLoop) {
  std::mt19937 rng(12345);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const char* paddings[] = {"VALID", "SAME", "EXPLICIT"};
  int tested = 0;
  for (int iter = 0; iter < 300 && tested < 120; ++iter) {
    ConvCase c;
    c.n = pick(1, 2);
    c.h = pick(1, 9);
    c.w = pick(1, 9);
    const int kind = pick(0, 2);  // 0 plain, 1 grouped, 2 depthwise
    c.groups = kind == 0 ? 1 : kind == 1 ? pick(2, 3) : 0;
    if (kind == 2) {
      c.c = pick(1, 4);
      c.groups = c.c;
      c.out_c = c.c * pick(1, 2);  // channel multiplier
    } else {
      c.c = c.groups * pick(1, 3);
      c.out_c = c.groups * pick(1, 3);
    }
    c.kh = pick(1, 3);
    c.kw = pick(1, 3);
    c.sh = pick(1, 3);
    c.sw = pick(1, 3);
    c.dh = pick(1, 2);
    c.dw = pick(1, 2);
    c.padding = paddings[pick(0, 2)];
    c.pads = {pick(0, 2), pick(0, 2), pick(0, 2), pick(0, 2)};
    c.bias = pick(0, 1) == 1;
    // Skip windows larger than the (padded) input under VALID/EXPLICIT.
    int64_t pad_h = c.padding == "EXPLICIT" ? c.pads[0] + c.pads[1] : 0;
    int64_t pad_w = c.padding == "EXPLICIT" ? c.pads[2] + c.pads[3] : 0;
    if (c.padding != "SAME" &&
        (c.h + pad_h < (c.kh - 1) * c.dh + 1 || c.w + pad_w < (c.kw - 1) * c.dw + 1)) {
      continue;
    }
    const DType dt = tested % 2 ? DType::kFloat64 : DType::kFloat32;
    HT x = HT::Random(dt, {c.n, c.h, c.w, c.c}, 100 + iter);
    HT f = HT::Random(dt, {c.kh, c.kw, c.c / c.groups, c.out_c}, 200 + iter);
    HT b = HT::Random(dt, {c.out_c}, 300 + iter);
    std::vector<HT> inputs = {x, f};
    if (c.bias) inputs.push_back(b);
    auto out = RunOp(OpId::kConv2D, inputs, ConvAttrs(c));
    ASSERT_EQ(out.size(), 1u);
    // Both sum in double and round once; 1e-5 covers the different order.
    EXPECT_TRUE(AllClose(out[0], NaiveConv(c, x, f, c.bias ? &b : nullptr), 1e-5, 1e-5))
        << "iter " << iter << " x[" << c.n << "," << c.h << "," << c.w << "," << c.c << "] k"
        << c.kh << "x" << c.kw << " o" << c.out_c << " s" << c.sh << "," << c.sw << " d" << c.dh
        << "," << c.dw << " g" << c.groups << " " << c.padding;
    ++tested;
  }
  EXPECT_EQ(tested, 120);
}

TEST(RefConv2D, EmptyBatch) {
  auto out = RunOp(OpId::kConv2D,
                   {HT::Of<float>({0, 3, 3, 1}, {}), HT::Of<float>({2, 2, 1, 2}, Iota(4))}, {});
  EXPECT_EQ(out[0].shape, (Shape{0, 2, 2, 2}));
}

TEST(RefConv2D, Errors) {
  HT x = HT::Of<float>({1, 3, 3, 2}, std::vector<float>(18));
  EXPECT_EQ(ErrorOf(OpId::kConv2D, {x, HT::Of<float>({1, 1, 3, 1}, {1, 1, 1})}, {}),
            "conv2d: filter f32[1,1,3,1] expects 3 x 1 (groups) input channels, input is "
            "f32[1,3,3,2]");
  EXPECT_EQ(ErrorOf(OpId::kConv2D, {x, HT::Of<float>({1, 1, 1, 3}, {1, 1, 1})},
                    {{"groups", AttrValue::Int(3)}}),
            "conv2d: input channels of f32[1,3,3,2] are not divisible by groups 3");
  EXPECT_EQ(ErrorOf(OpId::kConv2D, {x, HT::Of<float>({1, 1, 2, 1}, {1, 1})},
                    {{"padding", AttrValue::String("FULL")}}),
            "conv2d: padding 'FULL' is not one of SAME, VALID, EXPLICIT");
  EXPECT_EQ(ErrorOf(OpId::kConv2D, {x, HT::Of<float>({4, 1, 2, 1}, std::vector<float>(8))}, {}),
            "conv2d: the window (4) is larger than the padded input (3) of f32[1,3,3,2]");
  EXPECT_EQ(
      ErrorOf(OpId::kConv2D,
              {x, HT::Of<float>({1, 1, 2, 2}, {1, 1, 1, 1}), HT::Of<float>({3}, {1, 1, 1})}, {}),
      "conv2d: bias must be [2], got f32[3]");
  EXPECT_EQ(ErrorOf(OpId::kConv2D,
                    {HT::Of<int32_t>({1, 1, 1, 1}, {1}), HT::Of<int32_t>({1, 1, 1, 1}, {1})}, {}),
            "conv2d: argument 'input' must be f32 or f64, got int32");
  EXPECT_EQ(
      ErrorOf(OpId::kConv2D, {x, HT::Of<float>({1, 1, 2, 1}, {1, 1})}, {{"strides", Ints({0, 1})}}),
      "conv2d: 'strides' must be two positive ints (height, width), got [0,1]");
}

Attrs PoolAttrs(std::vector<int64_t> ksize, std::vector<int64_t> strides,
                const std::string& padding, std::vector<int64_t> pads = {},
                bool include_pad = false) {
  return {{"ksize", Ints(std::move(ksize))},
          {"strides", Ints(std::move(strides))},
          {"padding", AttrValue::String(padding)},
          {"pads", Ints(std::move(pads))},
          {"count_include_pad", AttrValue::Int(include_pad)}};
}

std::vector<float> Pool(OpId op, const HT& x, Attrs attrs) {
  auto out = RunOp(op, {x}, std::move(attrs));
  return out.empty() ? std::vector<float>{} : out[0].values<float>();
}

TEST(RefPool2D, HandComputed) {
  HT x = HT::Of<float>({1, 4, 4, 1}, Iota(16));
  EXPECT_EQ(Pool(OpId::kMaxPool2D, x, PoolAttrs({2, 2}, {2, 2}, "VALID")),
            (std::vector<float>{6, 8, 14, 16}));
  EXPECT_EQ(Pool(OpId::kAvgPool2D, x, PoolAttrs({2, 2}, {2, 2}, "VALID")),
            (std::vector<float>{3.5f, 5.5f, 11.5f, 13.5f}));
  // 3x3 windows over [[1,2,3],[4,5,6],[7,8,9]] with SAME padding: the
  // average counts only real cells, unless count_include_pad.
  HT y = HT::Of<float>({1, 3, 3, 1}, Iota(9));
  EXPECT_EQ(Pool(OpId::kAvgPool2D, y, PoolAttrs({3, 3}, {1, 1}, "SAME")),
            (std::vector<float>{3, 3.5f, 4, 4.5f, 5, 5.5f, 6, 6.5f, 7}));
  std::vector<float> with_pad =
      Pool(OpId::kAvgPool2D, y, PoolAttrs({3, 3}, {1, 1}, "SAME", {}, true));
  const std::vector<float> sums = {12, 21, 16, 27, 45, 33, 24, 39, 28};
  ASSERT_EQ(with_pad.size(), sums.size());
  for (size_t i = 0; i < sums.size(); ++i) EXPECT_FLOAT_EQ(with_pad[i], sums[i] / 9);
  EXPECT_EQ(Pool(OpId::kMaxPool2D, y, PoolAttrs({3, 3}, {1, 1}, "SAME")),
            (std::vector<float>{5, 6, 6, 8, 9, 9, 8, 9, 9}));
  // Max ignores padding: all-negative inputs never produce a padded 0.
  HT neg = HT::Of<float>({1, 3, 3, 1}, Iota(9, -9));  // -9 .. -1
  EXPECT_EQ(Pool(OpId::kMaxPool2D, neg, PoolAttrs({2, 2}, {2, 2}, "EXPLICIT", {1, 1, 1, 1})),
            (std::vector<float>{-9, -7, -3, -1}));
  // EXPLICIT average with and without the padded cells: window (0,0) holds
  // only cell -9 of its 4 cells.
  EXPECT_EQ(Pool(OpId::kAvgPool2D, neg, PoolAttrs({2, 2}, {2, 2}, "EXPLICIT", {1, 1, 1, 1})),
            (std::vector<float>{-9, -7.5f, -4.5f, -3}));
  EXPECT_EQ(Pool(OpId::kAvgPool2D, neg, PoolAttrs({2, 2}, {2, 2}, "EXPLICIT", {1, 1, 1, 1}, true)),
            (std::vector<float>{-2.25f, -3.75f, -2.25f, -3}));
  // Channels pool independently.
  HT c = HT::Of<double>({1, 1, 2, 2}, {1, 10, 3, -5});
  auto out = RunOp(OpId::kMaxPool2D, {c}, PoolAttrs({1, 2}, {1, 1}, "VALID"));
  EXPECT_EQ(out[0].values<double>(), (std::vector<double>{3, 10}));
}

TEST(RefPool2D, NaN) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  HT x = HT::Of<float>({1, 1, 4, 1}, {1, nan, 3, 4});
  auto m = Pool(OpId::kMaxPool2D, x, PoolAttrs({1, 2}, {1, 2}, "VALID"));
  EXPECT_TRUE(std::isnan(m[0]));
  EXPECT_EQ(m[1], 4);
  auto a = Pool(OpId::kAvgPool2D, x, PoolAttrs({1, 2}, {1, 2}, "VALID"));
  EXPECT_TRUE(std::isnan(a[0]));
  EXPECT_EQ(a[1], 3.5f);
}

// Naive pooling over an explicitly padded copy with a mask of real cells.
HT NaivePool(const HT& x, bool is_max, int64_t kh, int64_t kw, int64_t sh, int64_t sw,
             const std::string& padding, std::vector<int64_t> pads, bool include_pad) {
  const int64_t n = x.shape[0], h = x.shape[1], w = x.shape[2], c = x.shape[3];
  ConvCase plan{};
  plan.padding = padding;
  plan.pads = pads.empty() ? std::vector<int64_t>{0, 0, 0, 0} : pads;
  int64_t oh, ow, top, bottom, left, right;
  SpatialPlan(plan, h, kh, sh, 0, &oh, &top, &bottom);
  SpatialPlan(plan, w, kw, sw, 1, &ow, &left, &right);
  const int64_t ph = h + top + bottom, pw = w + left + right;
  std::vector<double> padded(n * ph * pw * c, 0);
  std::vector<bool> real(n * ph * pw * c, false);
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t i = 0; i < h; ++i) {
      for (int64_t j = 0; j < w; ++j) {
        for (int64_t ch = 0; ch < c; ++ch) {
          int64_t at = ((b * ph + i + top) * pw + j + left) * c + ch;
          padded[at] = x.at(((b * h + i) * w + j) * c + ch);
          real[at] = true;
        }
      }
    }
  }
  HT out;
  out.dtype = x.dtype;
  out.shape = Shape{n, oh, ow, c};
  std::vector<double> y;
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t i = 0; i < oh; ++i) {
      for (int64_t j = 0; j < ow; ++j) {
        for (int64_t ch = 0; ch < c; ++ch) {
          double best = -INFINITY, sum = 0;
          int count = 0;
          for (int64_t a = 0; a < kh; ++a) {
            for (int64_t e = 0; e < kw; ++e) {
              int64_t at = ((b * ph + i * sh + a) * pw + j * sw + e) * c + ch;
              if (!real[at]) continue;
              best = std::max(best, padded[at]);
              sum += padded[at];
              ++count;
            }
          }
          y.push_back(is_max ? best : sum / (include_pad ? static_cast<double>(kh * kw) : count));
        }
      }
    }
  }
  out.bytes.resize(y.size() * DTypeSize(x.dtype));
  for (size_t i = 0; i < y.size(); ++i) {
    VisitDType(x.dtype, [&](auto tag) {
      using T = decltype(tag);
      T v = static_cast<T>(y[i]);
      std::memcpy(out.bytes.data() + i * sizeof(T), &v, sizeof(T));
      return 0;
    });
  }
  return out;
}

TEST(RefPool2D, RandomConfigurationsAgainstNaiveLoop) {
  std::mt19937 rng(777);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const char* paddings[] = {"VALID", "SAME", "EXPLICIT"};
  int tested = 0;
  for (int iter = 0; iter < 400 && tested < 150; ++iter) {
    const int64_t kh = pick(1, 3), kw = pick(1, 3), sh = pick(1, 3), sw = pick(1, 3);
    const int64_t h = pick(1, 8), w = pick(1, 8);
    const std::string padding = paddings[pick(0, 2)];
    std::vector<int64_t> pads;
    if (padding == "EXPLICIT") {
      pads = {pick(0, static_cast<int>(kh) - 1), pick(0, static_cast<int>(kh) - 1),
              pick(0, static_cast<int>(kw) - 1), pick(0, static_cast<int>(kw) - 1)};
    }
    const int64_t extra_h = pads.empty() ? 0 : pads[0] + pads[1];
    const int64_t extra_w = pads.empty() ? 0 : pads[2] + pads[3];
    if (padding != "SAME" && (h + extra_h < kh || w + extra_w < kw)) continue;
    const bool is_max = pick(0, 1) == 1, include_pad = pick(0, 1) == 1;
    const DType dt = tested % 2 ? DType::kFloat64 : DType::kFloat32;
    HT x = HT::Random(dt, {pick(1, 2), h, w, pick(1, 3)}, 50 + iter, -5, 5);
    auto out = RunOp(is_max ? OpId::kMaxPool2D : OpId::kAvgPool2D, {x},
                     PoolAttrs({kh, kw}, {sh, sw}, padding, pads, include_pad));
    ASSERT_EQ(out.size(), 1u) << "iter " << iter;
    EXPECT_TRUE(AllClose(out[0], NaivePool(x, is_max, kh, kw, sh, sw, padding, pads, include_pad),
                         1e-6, 1e-6))
        << "iter " << iter << (is_max ? " max " : " avg ") << padding << " k" << kh << "x" << kw
        << " s" << sh << "," << sw << " in " << h << "x" << w << " include_pad " << include_pad;
    ++tested;
  }
  EXPECT_EQ(tested, 150);
}

TEST(RefPool2D, Errors) {
  HT x = HT::Of<float>({1, 3, 3, 1}, Iota(9));
  EXPECT_EQ(ErrorOf(OpId::kMaxPool2D, {x}, PoolAttrs({2, 2}, {1, 1}, "EXPLICIT", {2, 0, 0, 0})),
            "max_pool2d: pads must be smaller than the window");
  EXPECT_EQ(ErrorOf(OpId::kAvgPool2D, {x}, {}),
            "avg_pool2d: missing required attribute 'ksize' (int list)");
  EXPECT_EQ(ErrorOf(OpId::kAvgPool2D, {x}, PoolAttrs({4, 1}, {1, 1}, "VALID")),
            "avg_pool2d: the window (4) is larger than the padded input (3) of f32[1,3,3,1]");
  EXPECT_EQ(ErrorOf(OpId::kMaxPool2D, {HT::Of<float>({3, 3}, Iota(9))},
                    PoolAttrs({1, 1}, {1, 1}, "VALID")),
            "max_pool2d: input must be NHWC (rank 4), got f32[3,3]");
  EXPECT_EQ(ErrorOf(OpId::kMaxPool2D, {HT::Of<int64_t>({1, 1, 1, 1}, {1})},
                    PoolAttrs({1, 1}, {1, 1}, "VALID")),
            "max_pool2d: argument 'x' must be f32 or f64, got int64");
}

}  // namespace
}  // namespace tfn::kernels::testing
