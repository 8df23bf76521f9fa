// Tests of the resize reference kernel against ONNX's backend test data
// (nearest modes, linear, cubic with exclude_outside, align_corners with a
// given scale, tf_crop_and_resize with extrapolation), that resize is
// layout-free (NHWC == transposed NCHW), integer inputs and the rule's errors.
#include "kernels/testing/kernel_test_util.h"

namespace tfn::kernels::testing {
namespace {

using HT = HostTensor;

std::vector<float> Iota(int n) {
  std::vector<float> v(n);
  for (int i = 0; i < n; ++i) v[i] = static_cast<float>(i + 1);
  return v;
}

HT Sizes(std::vector<int64_t> v) {
  const int64_t n = static_cast<int64_t>(v.size());
  return HT::Of<int64_t>({n}, v);
}
HT Floats(std::vector<float> v) {
  const int64_t n = static_cast<int64_t>(v.size());
  return HT::Of<float>({n}, v);
}

Attrs Mode(const std::string& mode, const std::string& coord = "half_pixel") {
  return {{"mode", AttrValue::String(mode)},
          {"coordinate_transformation_mode", AttrValue::String(coord)}};
}

std::vector<float> Resize(std::vector<HT> in, Attrs attrs) {
  auto out = RunOp(OpId::kResize, std::move(in), std::move(attrs));
  return out.empty() ? std::vector<float>{} : out[0].values<float>();
}

void ExpectNear(const std::vector<float>& got, const std::vector<float>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-5) << "element " << i;
}

TEST(RefResize, OnnxNearest) {
  HT x = HT::Of<float>({1, 1, 2, 2}, {1, 2, 3, 4});
  // test_resize_upsample_scales_nearest: scales (2, 3), output 4x6.
  EXPECT_EQ(
      Resize({x, Sizes({1, 1, 4, 6}), Floats({1, 1, 2, 3})}, Mode("nearest")),
      (std::vector<float>{1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 3, 3, 3, 4, 4, 4}));
  // test_resize_downsample_scales_nearest: the given scale 0.6, not out/in, maps coordinates.
  HT y = HT::Of<float>({1, 1, 2, 4}, Iota(8));
  EXPECT_EQ(Resize({y, Sizes({1, 1, 1, 2}), Floats({1, 1, 0.6f, 0.6f})}, Mode("nearest")),
            (std::vector<float>{1, 3}));
  // test_resize_upsample_sizes_nearest_ceil_half_pixel, first two rows.
  HT z = HT::Of<float>({1, 1, 4, 4}, Iota(16));
  Attrs ceil = Mode("nearest");
  ceil.Set("nearest_mode", AttrValue::String("ceil"));
  std::vector<float> got = Resize({z, Sizes({1, 1, 8, 8})}, ceil);
  ASSERT_EQ(got.size(), 64u);
  EXPECT_EQ(std::vector<float>(got.begin(), got.begin() + 16),
            (std::vector<float>{1, 2, 2, 3, 3, 4, 4, 4, 5, 6, 6, 7, 7, 8, 8, 8}));
}

TEST(RefResize, OnnxLinearAndCubic) {
  HT x = HT::Of<float>({1, 1, 2, 2}, {1, 2, 3, 4});
  ExpectNear(
      Resize({x, Sizes({1, 1, 4, 4}), Floats({1, 1, 2, 2})}, Mode("linear")),
      {1, 1.25f, 1.75f, 2, 1.5f, 1.75f, 2.25f, 2.5f, 2.5f, 2.75f, 3.25f, 3.5f, 3, 3.25f, 3.75f, 4});
  // test_resize_downsample_scales_linear_align_corners: "the output length"
  // is scale * in = 2.4, not 2.
  HT y = HT::Of<float>({1, 1, 2, 4}, Iota(8));
  ExpectNear(
      Resize({y, Sizes({1, 1, 1, 2}), Floats({1, 1, 0.6f, 0.6f})}, Mode("linear", "align_corners")),
      {1, 3.142857f});
  HT z = HT::Of<float>({1, 1, 4, 4}, Iota(16));
  // test_resize_upsample_scales_cubic, first row.
  std::vector<float> cubic = Resize({z, Sizes({1, 1, 8, 8}), Floats({1, 1, 2, 2})}, Mode("cubic"));
  ASSERT_EQ(cubic.size(), 64u);
  ExpectNear(
      std::vector<float>(cubic.begin(), cubic.begin() + 8),
      {0.47265625f, 0.76953125f, 1.2460938f, 1.875f, 2.28125f, 2.9101562f, 3.3867188f, 3.6835938f});
  // test_resize_downsample_scales_cubic_A_n0p5_exclude_outside.
  Attrs excl = Mode("cubic");
  excl.Set("cubic_coeff_a", AttrValue::Float(-0.5));
  excl.Set("exclude_outside", AttrValue::Int(1));
  ExpectNear(Resize({z, Sizes({1, 1, 3, 3}), Floats({1, 1, 0.8f, 0.8f})}, excl),
             {1.3681267f, 2.6695013f, 4.0133367f, 6.573625f, 7.875f, 9.218835f, 11.948966f,
              13.250341f, 14.594176f});
}

TEST(RefResize, OnnxCropAndResize) {
  HT z = HT::Of<float>({1, 1, 4, 4}, Iota(16));
  Attrs attrs = Mode("linear", "tf_crop_and_resize");
  attrs.Set("extrapolation_value", AttrValue::Float(10));
  // scales 0 mean out/in; roi crops rows [0.4, 1.2] and columns [0.6, 1.7].
  ExpectNear(Resize({z, Sizes({1, 1, 3, 3}), Floats({0, 0, 0, 0}),
                     Floats({0, 0, 0.4f, 0.6f, 1, 1, 1.2f, 1.7f})},
                    attrs),
             {7.6f, 10, 10, 12.4f, 10, 10, 10, 10, 10});
}

TEST(RefResize, LayoutFreeAndIntegers) {
  // Resizing H and W of NHWC equals resizing them in NCHW.
  HT nchw = HT::Random(DType::kFloat32, {2, 3, 4, 5}, 7);
  HT nhwc;
  nhwc.dtype = DType::kFloat32;
  nhwc.shape = {2, 4, 5, 3};
  std::vector<float> src = nchw.values<float>(), dst(src.size());
  for (int n = 0; n < 2; ++n)
    for (int c = 0; c < 3; ++c)
      for (int h = 0; h < 4; ++h)
        for (int w = 0; w < 5; ++w)
          dst[((n * 4 + h) * 5 + w) * 3 + c] = src[((n * 3 + c) * 4 + h) * 5 + w];
  nhwc = HT::Of<float>(nhwc.shape, dst);
  std::vector<float> a = Resize({nchw, Sizes({2, 3, 7, 9})}, Mode("cubic"));
  std::vector<float> b = Resize({nhwc, Sizes({2, 7, 9, 3})}, Mode("cubic"));
  ASSERT_EQ(a.size(), b.size());
  for (int n = 0; n < 2; ++n)
    for (int c = 0; c < 3; ++c)
      for (int h = 0; h < 7; ++h)
        for (int w = 0; w < 9; ++w)
          EXPECT_NEAR(a[((n * 3 + c) * 7 + h) * 9 + w], b[((n * 7 + h) * 9 + w) * 3 + c], 1e-6);
  auto ints = RunOp(OpId::kResize, {HT::Of<int32_t>({2}, {10, 20}), Sizes({4})}, Mode("linear"));
  ASSERT_EQ(ints.size(), 1u);
  EXPECT_EQ(ints[0].values<int32_t>(), (std::vector<int32_t>{10, 12, 18, 20}));
}

TEST(RefResize, Errors) {
  std::string error;
  HT x = HT::Of<float>({1, 2}, {1, 2});
  RunOp(OpId::kResize, {x, Sizes({1, 2, 3})}, {}, Variant::kReference, &error);
  EXPECT_EQ(error, "resize: sizes must be [2] (one per axis of x) or [0], got int64[3]");
  RunOp(OpId::kResize, {x, Sizes({1, 4})}, Mode("area"), Variant::kReference, &error);
  EXPECT_EQ(error, "resize: mode 'area' is not one of nearest, linear, cubic");
  RunOp(OpId::kResize, {x, Sizes({1, 4})}, Mode("linear", "tf_crop_and_resize"),
        Variant::kReference, &error);
  EXPECT_EQ(error, "resize: tf_crop_and_resize needs the roi input");
}

}  // namespace
}  // namespace tfn::kernels::testing
