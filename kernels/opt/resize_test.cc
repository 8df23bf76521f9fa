// Tests of the optimized resize (opt/resize.cc) against the reference kernel:
// random ranks 1-5, NCHW- and NHWC-like patterns (the resized axes first,
// last or in the middle, several at once), up- and downscales, sizes-only
// and given scales, every mode, coordinate transformation and nearest mode,
// exclude_outside, cubic coefficients, every instruction set, 1 and 2
// threads. Tolerance: nearest is exact (a
// copy; -0 and +0 compare equal); linear and cubic sum in float where the reference sums in double,
// so each element may differ by 4 ulps or 1e-6 * max |x| (the sums' rounding).
#include <random>
#include <string>

#include "kernels/opt/opt_test_util.h"

namespace tfn::kernels::testing {
namespace {

const char* const kModes[] = {"nearest", "linear", "cubic"};
const char* const kCoords[] = {"half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric",
                               "tf_half_pixel_for_nn"};
const char* const kNearest[] = {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"};

double MaxAbs(const HostTensor& t) {
  double m = 0;
  for (int64_t i = 0; i < t.size(); ++i) {
    if (std::isfinite(t.at(i))) m = std::max(m, std::fabs(t.at(i)));
  }
  return m;
}

TEST(ResizeOpt, RandomCasesMatchTheReference) {
  std::mt19937 rng(19);
  int run = 0;
  for (int i = 0; i < 400; ++i) {
    const int rank = 1 + static_cast<int>(rng() % 5);
    Shape in, out;
    for (int d = 0; d < rank; ++d) in.push_back(1 + static_cast<int64_t>(rng() % 9));
    out = in;
    std::vector<float> scales(rank, 1.f);
    // Resize one to three axes (the rest keep their size).
    const int resized = 1 + static_cast<int>(rng() % std::min(rank, 3));
    for (int k = 0; k < resized; ++k) {
      const int d = static_cast<int>(rng() % rank);
      const float s = std::vector<float>{0.5f, 0.6f, 1.5f, 2.f, 3.f, 0.75f}[rng() % 6];
      scales[d] = s;
      out[d] = std::max<int64_t>(1, static_cast<int64_t>(std::floor(in[d] * s)));
    }
    const std::string mode = kModes[rng() % 3];
    Attrs attrs = {{"mode", AttrValue::String(mode)},
                   {"coordinate_transformation_mode", AttrValue::String(kCoords[rng() % 5])},
                   {"nearest_mode", AttrValue::String(kNearest[rng() % 4])},
                   {"exclude_outside", AttrValue::Int(static_cast<int64_t>(rng() % 2))},
                   {"cubic_coeff_a", AttrValue::Float(rng() % 2 ? -0.75 : -0.5)}};
    // Cubic weights exceed 1, so huge values may overflow float sums where
    // the reference's double ones do not: special values only for the others.
    const HostTensor x = Mixed(DType::kFloat32, in, 100 + i, -5, 5, mode == "cubic" ? 0.0 : 0.03);
    std::vector<HostTensor> inputs = {
        x, HostTensor::Of<int64_t>({rank}, std::vector<int64_t>(out.begin(), out.end()))};
    if (rng() % 2) inputs.push_back(HostTensor::Of<float>({rank}, scales));  // scales given
    std::string error;
    auto want = RunOp(OpId::kResize, inputs, attrs, Variant::kReference, &error);
    ASSERT_FALSE(want.empty()) << error;
    ++run;
    const double tol = 1e-6 * MaxAbs(x);
    {
      ForEachConfig([&](const std::string& label) {
        const int threads = label.find(", 2 threads") != std::string::npos ? 2 : 1;
        HostTensor got = RunOpt(OpId::kResize, inputs, attrs, threads);
        const std::string what = "case " + std::to_string(i) + " (" + label + ", mode " + mode +
                                 ", " + ShapeToString(in) + " -> " + ShapeToString(out) + ")";
        if (mode == "nearest") {
          EXPECT_TRUE(Near(got, want[0], 0)) << what;
        } else {
          EXPECT_TRUE(Near(got, want[0], 4, [&](int64_t, double) { return tol; })) << what;
        }
      });
    }
  }
  EXPECT_EQ(run, 400);
}

// The layouts models use, at sizes where rows split over threads: bilinear
// 2x upsampling of NCHW and NHWC feature maps, nearest 2x, a downscale.
TEST(ResizeOpt, ModelShapes) {
  struct Case {
    Shape in, out;
    const char* mode;
    const char* coord;
  } cases[] = {
      {{1, 21, 28, 28}, {1, 21, 224, 224}, "linear", "half_pixel"},  // a segmentation head
      {{2, 64, 17, 23}, {2, 64, 34, 46}, "linear", "align_corners"},
      {{1, 28, 28, 40}, {1, 56, 56, 40}, "linear", "pytorch_half_pixel"},  // NHWC
      {{1, 28, 28, 21}, {1, 224, 224, 21}, "linear", "half_pixel"},        // NHWC, a vector tail
      {{1, 9, 7, 16}, {1, 20, 15, 16}, "cubic", "half_pixel"},             // NHWC, one vector
      {{2, 5, 6, 7}, {2, 10, 12, 7}, "linear", "align_corners"},           // NHWC, under a vector
      {{1, 32, 40, 40}, {1, 32, 80, 80}, "nearest", "asymmetric"},         // a U-Net / FPN
      {{1, 3, 224, 224}, {1, 3, 112, 112}, "cubic", "half_pixel"},
  };
  int k = 0;
  for (const Case& c : cases) {
    Attrs attrs = {{"mode", AttrValue::String(c.mode)},
                   {"coordinate_transformation_mode", AttrValue::String(c.coord)}};
    const HostTensor x = Mixed(DType::kFloat32, c.in, 7 + k++, -3, 3, 0);
    const int64_t rank = c.in.rank();
    std::vector<HostTensor> inputs = {
        x, HostTensor::Of<int64_t>({rank}, std::vector<int64_t>(c.out.begin(), c.out.end()))};
    auto want = RunOp(OpId::kResize, inputs, attrs, Variant::kReference);
    ASSERT_FALSE(want.empty());
    const double tol = 1e-6 * MaxAbs(x);
    ForEachConfig([&](const std::string& label) {
      const int threads = label.find(", 2 threads") != std::string::npos ? 2 : 1;
      EXPECT_TRUE(Near(RunOpt(OpId::kResize, inputs, attrs, threads), want[0], 4,
                       [&](int64_t, double) { return tol; }))
          << label << ", " << c.mode << " " << ShapeToString(c.in) << " -> "
          << ShapeToString(c.out);
    });
  }
}

// What the optimized kernel hands back to the reference: other dtypes and
// tf_crop_and_resize. The results are the reference's, bit for bit.
TEST(ResizeOpt, TheRestIsTheReference) {
  const HostTensor xi = HostTensor::Random(DType::kInt32, Shape({1, 2, 5, 5}), 3, -50, 50);
  Attrs linear = {{"mode", AttrValue::String("linear")}};
  std::vector<HostTensor> in = {xi, HostTensor::Of<int64_t>({4}, {1, 2, 9, 7})};
  EXPECT_TRUE(BitEqual(RunOpt(OpId::kResize, in, linear, 2), RunRef(OpId::kResize, in, linear)));
  const HostTensor xf = Mixed(DType::kFloat32, Shape({1, 1, 6, 6}), 4, -1, 1, 0);
  Attrs crop = {{"mode", AttrValue::String("linear")},
                {"coordinate_transformation_mode", AttrValue::String("tf_crop_and_resize")},
                {"extrapolation_value", AttrValue::Float(10)}};
  std::vector<HostTensor> cin = {xf, HostTensor::Of<int64_t>({4}, {1, 1, 3, 3}),
                                 HostTensor::Of<float>({4}, {1, 1, 0.5f, 0.5f}),
                                 HostTensor::Of<float>({8}, {0, 0, 0.4f, 0.6f, 1, 1, 1.2f, 1.7f})};
  EXPECT_TRUE(BitEqual(RunOpt(OpId::kResize, cin, crop, 1), RunRef(OpId::kResize, cin, crop)));
}

}  // namespace
}  // namespace tfn::kernels::testing
