// Tests of the optimized conv2d_transpose (opt/conv_transpose.cc) against the
// reference kernel: strides below, equal to and above the kernel (overlapping
// taps, U-Net's non-overlapping 2x2 stride 2, gaps), dilations, padding,
// output_padding (cells no tap reaches), groups, batch, with and without
// bias, empty inputs; every GEMM instruction set the CPU has; 1 and 2 threads (bitwise
// identical).
//
// Tolerance: the reference sums each output in double; the kernel in float,
// one GEMM dot product per tap and then one add per tap. With S the same
// transposed conv on |x|, |f| and |bias|, the dot-product bound of
// gemm_test.cc and one rounding per add give
//   |got - want| <= 2 (K + 8) u S,   K = KH*KW*Cin/groups, u = 2^-24.
#include <cmath>
#include <string>
#include <vector>

#include "kernels/opt/gemm.h"
#include "kernels/opt/opt_test_util.h"

namespace tfn::kernels::testing {
namespace {

constexpr double kU = 1.0 / (1 << 24);

struct Case {
  int64_t n, h, w, cin, cout, kh, kw, s, d;
  std::vector<int64_t> pads, output_padding;
  int64_t groups;
  bool bias;
};

HostTensor Abs(const HostTensor& t) {
  std::vector<float> v = t.values<float>();
  for (float& x : v) x = std::fabs(x);
  return HostTensor::Of<float>(t.shape, v);
}

void RunCase(const Case& c, uint32_t seed) {
  const std::string name = "n" + std::to_string(c.n) + " " + std::to_string(c.h) + "x" +
                           std::to_string(c.w) + "x" + std::to_string(c.cin) + " -> " +
                           std::to_string(c.cout) + " k" + std::to_string(c.kh) + "x" +
                           std::to_string(c.kw) + " s" + std::to_string(c.s) + " d" +
                           std::to_string(c.d) + " g" + std::to_string(c.groups);
  SCOPED_TRACE(name);
  Attrs attrs = {{"strides", AttrValue::Ints({c.s, c.s})},
                 {"dilations", AttrValue::Ints({c.d, c.d})},
                 {"groups", AttrValue::Int(c.groups)}};
  if (!c.pads.empty()) attrs.Set("pads", AttrValue::Ints(c.pads));
  if (!c.output_padding.empty()) attrs.Set("output_padding", AttrValue::Ints(c.output_padding));
  HostTensor x = HostTensor::Random(DType::kFloat32, Shape({c.n, c.h, c.w, c.cin}), seed);
  HostTensor f =
      HostTensor::Random(DType::kFloat32, Shape({c.kh, c.kw, c.cout / c.groups, c.cin}), seed + 1);
  std::vector<HostTensor> in = {x, f}, abs_in = {Abs(x), Abs(f)};
  if (c.bias) {
    in.push_back(HostTensor::Random(DType::kFloat32, Shape({c.cout}), seed + 2));
    abs_in.push_back(Abs(in.back()));
  }
  const HostTensor want = RunRef(OpId::kConv2DTranspose, in, attrs);
  ASSERT_GT(want.shape.rank(), 0) << "reference failed";
  const HostTensor sum_abs = RunRef(OpId::kConv2DTranspose, abs_in, attrs);
  const double k = static_cast<double>(c.kh * c.kw * c.cin / c.groups);
  for (GemmIsa isa : {GemmIsa::kPortable, GemmIsa::kAvx2, GemmIsa::kAvx512}) {
    if (!GemmIsaSupported(isa)) continue;
    GemmForceIsa(isa);
    std::vector<float> one_thread;
    for (int threads : {1, 2}) {
      SCOPED_TRACE(std::string(GemmIsaName(isa)) + ", " + std::to_string(threads) + " threads");
      HostTensor got = RunOpt(OpId::kConv2DTranspose, in, attrs, threads);
      ASSERT_EQ(got.shape, want.shape);
      for (int64_t i = 0; i < want.size(); ++i) {
        const double tol = 2 * (k + 8) * kU * sum_abs.at(i);
        ASSERT_LE(std::fabs(got.at(i) - want.at(i)), tol)
            << "element " << i << " got " << got.at(i) << " want " << want.at(i);
      }
      if (threads == 1) {
        one_thread = got.values<float>();
      } else {
        EXPECT_EQ(got.values<float>(), one_thread) << "results depend on the thread count";
      }
    }
  }
  GemmForceIsa(GemmIsa::kAuto);
}

TEST(OptConvTranspose, MatchesTheReference) {
  EXPECT_EQ(OptimizedSymbol(OpId::kConv2DTranspose, {}, {DType::kFloat32, DType::kFloat32}, {4, 4}),
            "tfn_opt_conv2d_transpose");
  const std::vector<Case> cases = {
      // n  h  w  cin cout kh kw s  d  pads           output_padding  g  bias
      {1, 8, 8, 16, 8, 2, 2, 2, 1, {}, {}, 1, true},               // U-Net: taps do not overlap
      {2, 5, 7, 3, 5, 3, 3, 2, 1, {1, 1, 1, 1}, {1, 1}, 1, true},  // overlap, padding,
                                                                   // output_padding
      {1, 6, 5, 4, 6, 3, 3, 1, 1, {0, 2, 1, 0}, {}, 1, false},     // stride 1, asymmetric pads
      {1, 4, 4, 6, 4, 2, 3, 3, 1, {}, {2, 1}, 2, true},            // gaps between taps, groups
      {1, 5, 5, 8, 8, 3, 3, 2, 2, {2, 2, 2, 2}, {}, 4, true},      // dilation, groups
      {1, 1, 1, 33, 17, 4, 4, 1, 1, {}, {}, 1, true},              // one pixel, channel tails
      {3, 9, 3, 5, 3, 5, 1, 2, 1, {}, {}, 1, false},
      // Empty inputs (fuzz_onnx: a row of no pixels formed pointers into a
      // null cols): the output is the bias, or 0.
      {1, 3, 0, 4, 6, 3, 3, 2, 1, {}, {}, 2, true},   // no columns
      {1, 0, 4, 4, 2, 2, 3, 1, 1, {}, {}, 1, false},  // no rows
      {2, 3, 3, 0, 4, 2, 2, 1, 1, {}, {}, 1, true},   // no input channels
  };
  uint32_t seed = 1;
  for (const Case& c : cases) RunCase(c, seed += 10);
}

}  // namespace
}  // namespace tfn::kernels::testing
