// Tests of the optimized convolutions (opt/conv.cc, conv_depthwise.cc) and
// fused_conv2d against the reference kernels over many shapes: batch, odd
// sizes, kernel sizes 1-7, strides, dilations, VALID/SAME/asymmetric
// EXPLICIT padding (also windows mostly in the padding), groups (depthwise,
// grouped, dense), channel tails,
// prepacked filters, bias, residual and every activation; every GEMM
// instruction set the CPU has; 1 and 2 threads (bitwise identical).
//
// Tolerance: the reference sums in double; the kernels in float with FMA, in
// another order. With S = sum_k |x_k f_k| (the same conv on |x|, |f|), the
// float dot-product bound of gemm_test.cc gives |err| <= 2 (K + 8) u S,
// u = 2^-24, K the taps x input channels of one output. Bias and residual
// add terms of the same kind, each add rounds (<= u |y|), and the
// activations are 1.5-Lipschitz (hard_swish at 3; gelu 1.13) plus their
// vec_math.h error (<= 8 ulp or 1e-7 absolute near zero). So
//   |got - want| <= 1.5 * 2 (K + 8) u (S + |bias| + |res|) + 8 u |want| + 1e-7 (vm acts).
#include <cmath>
#include <string>
#include <vector>

#include "kernels/opt/gemm.h"
#include "kernels/opt/opt_test_util.h"
#include "kernels/params.h"

namespace tfn::kernels::testing {
namespace {

constexpr double kU = 1.0 / (1 << 24);
// Winograd F(2x2, 3x3)'s error against the direct bound: the transforms add
// up to 4 inputs and 9 partial sums, and U is rounded to float.
constexpr double kWinogradFactor = 8;

struct ConvCase {
  int64_t n, h, w, cin, cout, kh, kw;
  int64_t sh, sw, dh, dw;
  std::string padding;
  std::vector<int64_t> pads;
  int64_t groups;
};

Attrs ConvAttrs(const ConvCase& c) {
  Attrs a = {{"strides", AttrValue::Ints({c.sh, c.sw})},
             {"dilations", AttrValue::Ints({c.dh, c.dw})},
             {"padding", AttrValue::String(c.padding)},
             {"groups", AttrValue::Int(c.groups)}};
  if (!c.pads.empty()) a.Set("pads", AttrValue::Ints(c.pads));
  return a;
}

HostTensor Abs(HostTensor t) {
  std::vector<float> v = t.values<float>();
  for (float& x : v) x = std::fabs(x);
  return HostTensor::Of<float>(t.shape, v);
}

// The filter HWIO [KH, KW, Cg, Cout] packed per group as fused_conv2d's
// packed_out_channels expects: [G, P, KH, KW, Cg, 32].
HostTensor PackFilter(const HostTensor& f, int64_t groups) {
  const int64_t kh = f.shape[0], kw = f.shape[1], cg = f.shape[2], cout = f.shape[3];
  const int64_t cout_g = cout / groups, k = kh * kw * cg, panels = (cout_g + 31) / 32;
  std::vector<float> src = f.values<float>(), dst(groups * panels * k * 32);
  for (int64_t g = 0; g < groups; ++g) {
    GemmPackB(k, cout_g, src.data() + g * cout_g, cout, false, dst.data() + g * panels * k * 32);
  }
  return HostTensor::Of<float>(Shape({groups, panels, kh, kw, cg, 32}), dst);
}

// The Winograd F(2x2, 3x3) filter of fused_conv2d's winograd=1: U = G g G^T
// per (ci, co), packed per tile position xi: [16, P, Cin, 32] (as
// ir/passes/prepack_weights makes it; passes_test.cc checks that one).
HostTensor PackWinograd(const HostTensor& f) {
  const int64_t cin = f.shape[2], cout = f.shape[3], panels = (cout + 31) / 32;
  std::vector<float> w = f.values<float>(), u(16 * cin * cout), dst(16 * panels * cin * 32);
  for (int64_t ci = 0; ci < cin; ++ci) {
    for (int64_t co = 0; co < cout; ++co) {
      double g[3][3], t[4][3];
      for (int r = 0; r < 3; ++r) {
        for (int c = 0; c < 3; ++c) g[r][c] = w[((r * 3 + c) * cin + ci) * cout + co];
      }
      for (int c = 0; c < 3; ++c) {
        t[0][c] = g[0][c];
        t[1][c] = 0.5 * (g[0][c] + g[1][c] + g[2][c]);
        t[2][c] = 0.5 * (g[0][c] - g[1][c] + g[2][c]);
        t[3][c] = g[2][c];
      }
      for (int r = 0; r < 4; ++r) {
        const double v[4] = {t[r][0], 0.5 * (t[r][0] + t[r][1] + t[r][2]),
                             0.5 * (t[r][0] - t[r][1] + t[r][2]), t[r][2]};
        for (int c = 0; c < 4; ++c)
          u[((4 * r + c) * cin + ci) * cout + co] = static_cast<float>(v[c]);
      }
    }
  }
  for (int xi = 0; xi < 16; ++xi) {
    GemmPackB(cin, cout, u.data() + xi * cin * cout, cout, false,
              dst.data() + xi * panels * cin * 32);
  }
  return HostTensor::Of<float>(Shape({16, panels, cin, 32}), dst);
}

bool WinogradFits(const ConvCase& c) {
  return c.kh == 3 && c.kw == 3 && c.sh == 1 && c.sw == 1 && c.dh == 1 && c.dw == 1 &&
         c.groups == 1;
}

// Indexed by FusedActivation (kernels/params.h).
const char* const kActs[] = {"none", "relu",      "clip",         "sigmoid",    "tanh",
                             "gelu", "gelu_tanh", "hard_sigmoid", "hard_swish", "silu"};
constexpr int kNumActs = sizeof(kActs) / sizeof(kActs[0]);

void CheckClose(const HostTensor& got, const HostTensor& want, const HostTensor& sum_abs, double k,
                bool vm_act, const std::string& what) {
  ASSERT_EQ(got.shape, want.shape) << what;
  for (int64_t i = 0; i < want.size(); ++i) {
    const double g = got.at(i), w = want.at(i);
    const double tol =
        1.5 * 2 * (k + 8) * kU * sum_abs.at(i) + 8 * kU * std::fabs(w) + (vm_act ? 1e-7 : 0);
    ASSERT_LE(std::fabs(g - w), tol) << what << ": element " << i << " got " << g << " want " << w;
  }
}

// Runs the case through conv2d (ref vs opt) and fused_conv2d variants.
void RunCase(const ConvCase& c, uint32_t seed, bool fused_variants) {
  const std::string name = "conv n" + std::to_string(c.n) + " " + std::to_string(c.h) + "x" +
                           std::to_string(c.w) + "x" + std::to_string(c.cin) + " -> " +
                           std::to_string(c.cout) + " k" + std::to_string(c.kh) + "x" +
                           std::to_string(c.kw) + " s" + std::to_string(c.sh) +
                           std::to_string(c.sw) + " d" + std::to_string(c.dh) +
                           std::to_string(c.dw) + " " + c.padding + " g" + std::to_string(c.groups);
  SCOPED_TRACE(name);
  HostTensor x = HostTensor::Random(DType::kFloat32, Shape({c.n, c.h, c.w, c.cin}), seed);
  HostTensor f =
      HostTensor::Random(DType::kFloat32, Shape({c.kh, c.kw, c.cin / c.groups, c.cout}), seed + 1);
  HostTensor bias = HostTensor::Random(DType::kFloat32, Shape({c.cout}), seed + 2);
  const Attrs attrs = ConvAttrs(c);
  const HostTensor want = RunRef(OpId::kConv2D, {x, f, bias}, attrs);
  ASSERT_GT(want.shape.rank(), 0) << "reference failed";
  HostTensor zero_bias = HostTensor::Of<float>(Shape({c.cout}), std::vector<float>(c.cout, 0.f));
  const HostTensor sum_abs = RunRef(OpId::kConv2D, {Abs(x), Abs(f), Abs(bias)}, attrs);
  const double k = static_cast<double>(c.kh * c.kw * c.cin / c.groups);
  const GemmIsa isas[] = {GemmIsa::kPortable, GemmIsa::kAvx2, GemmIsa::kAvx512};
  for (GemmIsa isa : isas) {
    if (!GemmIsaSupported(isa)) continue;
    GemmForceIsa(isa);
    const opt::Isa old_cap =
        opt::SetIsaCapForTesting(isa == GemmIsa::kAvx512 ? opt::Isa::kAvx512
                                 : isa == GemmIsa::kAvx2 ? opt::Isa::kAvx2
                                                         : opt::Isa::kPortable);
    std::vector<float> one_thread;
    for (int threads : {1, 2}) {
      SCOPED_TRACE(std::string(GemmIsaName(isa)) + ", " + std::to_string(threads) + " threads");
      HostTensor got = RunOpt(OpId::kConv2D, {x, f, bias}, attrs, threads);
      CheckClose(got, want, sum_abs, k, false, "conv2d");
      if (threads == 1) {
        one_thread = got.values<float>();
      } else {
        EXPECT_EQ(got.values<float>(), one_thread) << "results depend on the thread count";
      }
    }
    if (fused_variants) {
      HostTensor res = HostTensor::Random(DType::kFloat32, want.shape, seed + 3);
      const HostTensor sum_res = RunRef(OpId::kConv2D, {Abs(x), Abs(f), Abs(bias)}, attrs);
      std::vector<float> s = sum_res.values<float>(), r = res.values<float>();
      for (size_t i = 0; i < s.size(); ++i) s[i] += std::fabs(r[i]);
      const HostTensor sum_abs_res = HostTensor::Of<float>(sum_res.shape, s);
      const bool depthwise = c.cin == c.groups && c.cout == c.groups;
      for (int variant = 0; variant < kNumActs; ++variant) {
        Attrs fa = attrs;
        fa.Set("activation", AttrValue::String(kActs[variant]));
        if (variant == 2) {
          fa.Set("clip_min", AttrValue::Float(-0.25));
          fa.Set("clip_max", AttrValue::Float(0.5));
        }
        if (variant == kActHardSigmoid || variant == kActHardSwish) {  // ONNX HardSwish's
          fa.Set("act_alpha", AttrValue::Float(1.0 / 6));
          fa.Set("act_beta", AttrValue::Float(0.5));
        }
        const bool packed = variant % 2 == 1 && !depthwise;
        const bool wino = WinogradFits(c) && variant % 3 != 1;
        HostTensor filter = wino ? PackWinograd(f) : packed ? PackFilter(f, c.groups) : f;
        if (packed || wino) fa.Set("packed_out_channels", AttrValue::Int(c.cout));
        if (wino) fa.Set("winograd", AttrValue::Int(1));
        std::vector<HostTensor> in = {x, filter, bias, res};
        // The reference of the unpacked filter is the oracle for both.
        Attrs ref_attrs = fa;
        ref_attrs.Set("packed_out_channels", AttrValue::Int(0));
        ref_attrs.Set("winograd", AttrValue::Int(0));
        const HostTensor fwant = RunRef(OpId::kFusedConv2D, {x, f, bias, res}, ref_attrs);
        ASSERT_EQ(fwant.shape, want.shape);
        const HostTensor fref = RunRef(OpId::kFusedConv2D, in, fa);
        // Winograd sums in another order (and U is rounded): kWinogradFactor.
        const double factor = wino ? kWinogradFactor : 1;
        if (wino) {
          CheckClose(fref, fwant, sum_abs_res, factor * k, variant >= 3, "winograd reference");
        } else {
          EXPECT_TRUE(BitEqual(fref, fwant)) << "packed reference, " << kActs[variant];
        }
        std::vector<float> one;
        for (int threads : {1, 2}) {
          HostTensor got = RunOpt(OpId::kFusedConv2D, in, fa, threads);
          CheckClose(got, fwant, sum_abs_res, factor * k, variant >= 3,
                     std::string("fused ") + kActs[variant] +
                         (wino     ? " winograd"
                          : packed ? " packed"
                                   : ""));
          if (threads == 1) {
            one = got.values<float>();
          } else {
            EXPECT_EQ(got.values<float>(), one) << "results depend on the thread count";
          }
        }
      }
    }
    opt::SetIsaCapForTesting(old_cap);
  }
  GemmForceIsa(GemmIsa::kAuto);
}

TEST(ConvOpt, ManyShapesAgainstReference) {
  const ConvCase cases[] = {
      // n  h   w  cin cout kh kw sh sw dh dw padding pads groups
      {1, 8, 8, 32, 32, 3, 3, 1, 1, 1, 1, "SAME", {}, 1},
      {2, 9, 7, 16, 33, 3, 3, 1, 1, 1, 1, "SAME", {}, 1},
      {1, 13, 11, 17, 70, 3, 3, 2, 2, 1, 1, "EXPLICIT", {1, 0, 2, 1}, 1},
      {1, 12, 12, 3, 64, 7, 7, 2, 2, 1, 1, "EXPLICIT", {3, 3, 3, 3}, 1},
      {1, 10, 10, 5, 7, 5, 5, 1, 1, 1, 1, "VALID", {}, 1},
      {2, 7, 9, 40, 48, 1, 1, 1, 1, 1, 1, "VALID", {}, 1},
      {1, 9, 9, 24, 40, 1, 1, 2, 2, 1, 1, "VALID", {}, 1},
      {1, 11, 10, 20, 20, 3, 3, 1, 1, 2, 2, "SAME", {}, 1},
      {1, 6, 15, 8, 16, 2, 3, 1, 3, 1, 1, "SAME", {}, 1},
      {1, 10, 10, 32, 64, 3, 3, 1, 1, 1, 1, "SAME", {}, 2},
      {1, 9, 8, 12, 12, 3, 3, 1, 1, 1, 1, "SAME", {}, 4},
      {1, 9, 9, 6, 4, 3, 3, 2, 2, 1, 1, "SAME", {}, 2},
      {2, 11, 13, 19, 19, 3, 3, 1, 1, 1, 1, "SAME", {}, 19},  // depthwise, channel tail
      // Tails of 8 after the 3x3 rows kernel (stride 2) and after two blocks
      // (5x5): the last block ends at C and redoes channels (conv_depthwise.cc).
      {1, 12, 11, 24, 24, 3, 3, 2, 2, 1, 1, "EXPLICIT", {1, 1, 1, 1}, 24},
      {1, 9, 10, 40, 40, 5, 5, 1, 1, 1, 1, "SAME", {}, 40},
      {1, 12, 12, 48, 48, 3, 3, 2, 2, 1, 1, "EXPLICIT", {1, 1, 1, 1}, 48},
      {1, 9, 10, 32, 32, 5, 5, 1, 1, 2, 1, "SAME", {}, 32},
      // depthwise 3x3 (conv_depthwise_avx512.cc): 8 + 4 + 1 pixel chunks,
      // stride 2 SAME and VALID, unequal strides, rows cut at the top and
      // bottom (H = 2), one row, no interior column (W = 2)
      {1, 16, 23, 32, 32, 3, 3, 1, 1, 1, 1, "SAME", {}, 32},
      {1, 15, 17, 64, 64, 3, 3, 2, 2, 1, 1, "SAME", {}, 64},
      {1, 13, 21, 32, 32, 3, 3, 2, 2, 1, 1, "VALID", {}, 32},
      {1, 9, 12, 16, 16, 3, 3, 2, 1, 1, 1, "SAME", {}, 16},
      {2, 2, 9, 16, 16, 3, 3, 1, 1, 1, 1, "SAME", {}, 16},
      {1, 1, 20, 16, 16, 3, 3, 1, 1, 1, 1, "SAME", {}, 16},
      {1, 5, 2, 16, 16, 3, 3, 1, 1, 1, 1, "SAME", {}, 16},
      {1, 5, 5, 16, 32, 3, 3, 1, 1, 1, 1, "SAME", {}, 16},  // channel multiplier 2
      // Any other depthwise window (conv_depthwise_any_avx512.cc): 5x5 on a
      // 7x7 map (two checked chunks, a masked tail of 8), 5x5 stride 2, 7x7
      // (ConvNeXt) with 8- and 4-pixel chunks at batch 2, dilation along w
      // and a 4-wide window at stride 3 (the any-width body), fewer than 16
      // channels (one masked block, no 3x3 kernel).
      {1, 7, 7, 40, 40, 5, 5, 1, 1, 1, 1, "SAME", {}, 40},
      {1, 14, 15, 24, 24, 5, 5, 2, 2, 1, 1, "SAME", {}, 24},
      {2, 9, 20, 48, 48, 7, 7, 1, 1, 1, 1, "EXPLICIT", {3, 3, 3, 3}, 48},
      {1, 12, 13, 20, 20, 3, 3, 1, 1, 2, 2, "EXPLICIT", {2, 2, 2, 2}, 20},
      {1, 9, 17, 16, 16, 3, 4, 3, 3, 1, 1, "SAME", {}, 16},
      {1, 10, 11, 8, 8, 3, 3, 1, 1, 1, 1, "SAME", {}, 8},
      // Few channels per group (conv_grouped_avx512.cc: 2, 4 or 8 in and out,
      // C % 16 == 0): ResNeXt's 3x3 (4 per group, SAME, stride 2), RegNet's 8,
      // 2 per group with dilation and asymmetric pads, a 5x5 wider than the
      // map, batch 2 with W = 5 (one 4-pixel step and a tail); 4 per group
      // with C = 24 takes the implicit GEMM.
      {1, 9, 11, 128, 128, 3, 3, 1, 1, 1, 1, "SAME", {}, 32},
      {1, 13, 12, 64, 64, 3, 3, 2, 2, 1, 1, "SAME", {}, 16},
      {1, 8, 10, 48, 48, 3, 3, 2, 1, 1, 1, "EXPLICIT", {1, 1, 1, 1}, 6},
      {1, 7, 9, 32, 32, 3, 3, 1, 1, 2, 2, "EXPLICIT", {2, 1, 0, 3}, 16},
      {2, 3, 5, 16, 16, 5, 5, 1, 1, 1, 1, "SAME", {}, 4},
      {1, 6, 6, 24, 24, 3, 3, 1, 1, 1, 1, "SAME", {}, 6},
      {1, 1, 1, 64, 10, 1, 1, 1, 1, 1, 1, "VALID", {}, 1},
      {3, 4, 4, 1, 1, 3, 3, 1, 1, 1, 1, "SAME", {}, 1},
      {1, 15, 4, 64, 96, 3, 3, 1, 1, 1, 1, "EXPLICIT", {0, 2, 1, 0}, 1},
      {2, 7, 7, 40, 20, 3, 3, 1, 1, 1, 1, "SAME", {}, 1},  // odd sizes: partial tiles
      {1, 30, 30, 16, 16, 3, 3, 1, 1, 1, 1, "EXPLICIT", {1, 1, 1, 1}, 1},  // many blocks
      {1, 9, 12, 33, 48, 3, 3, 1, 1, 1, 1, "VALID", {}, 1},
      // Padding-dominated windows (no padded copy; tiles skip the taps that
      // read only padding): ASPP's rate 12 on a small map (one run per tap),
      // a tall dilation with dense rows (one run per window row), a window
      // larger than the map, and a tile whose pixels all sit in the padding.
      {1, 14, 14, 24, 20, 3, 3, 1, 1, 12, 12, "EXPLICIT", {12, 12, 12, 12}, 1},
      {1, 6, 9, 8, 40, 3, 3, 1, 1, 5, 1, "EXPLICIT", {5, 5, 1, 1}, 1},
      {2, 3, 4, 16, 16, 7, 7, 1, 1, 1, 1, "EXPLICIT", {3, 3, 3, 3}, 1},
      {1, 2, 2, 16, 8, 3, 3, 1, 1, 1, 1, "EXPLICIT", {6, 6, 6, 6}, 1},
      // Pixels 4 KiB apart (read from a copy with pixels spread apart,
      // conv.cc Aliased): 1x1 over 1024 channels, 1x1 stride 2 over 512, a
      // dilated 3x3 over 1024, 32 channels per group over 1024, a dense 3x3
      // SAME over 1024 (one run per tap instead of per window row).
      {1, 5, 7, 1024, 40, 1, 1, 1, 1, 1, 1, "VALID", {}, 1},
      {1, 5, 6, 1024, 24, 3, 3, 1, 1, 1, 1, "SAME", {}, 1},
      {2, 6, 5, 512, 48, 1, 1, 2, 2, 1, 1, "VALID", {}, 1},
      {1, 6, 6, 1024, 32, 3, 3, 1, 1, 2, 2, "SAME", {}, 1},
      {1, 5, 6, 1024, 1024, 3, 3, 1, 1, 1, 1, "SAME", {}, 32},
  };
  uint32_t seed = 100;
  for (const ConvCase& c : cases) {
    RunCase(c, seed, true);
    seed += 10;
  }
}

TEST(ConvOpt, RandomShapes) {
  std::mt19937 rng(7);
  auto pick = [&](std::initializer_list<int64_t> v) { return *(v.begin() + rng() % v.size()); };
  for (int i = 0; i < 40; ++i) {
    ConvCase c{};
    c.n = pick({1, 2});
    c.h = pick({1, 3, 6, 11, 16});
    c.w = pick({1, 2, 5, 9, 17});
    c.kh = pick({1, 2, 3, 5});
    c.kw = pick({1, 3, 4});
    c.sh = pick({1, 1, 2, 3});
    c.sw = pick({1, 2});
    c.dh = pick({1, 1, 2});
    c.dw = pick({1, 2});
    c.groups = pick({1, 1, 2, 3});
    c.cin = c.groups * pick({1, 2, 5, 16, 33});
    c.cout = c.groups * pick({1, 3, 16, 31, 40});
    const int pad = static_cast<int>(rng() % 3);
    c.padding = pad == 0 ? "VALID" : pad == 1 ? "SAME" : "EXPLICIT";
    if (pad == 2) {
      c.pads = {pick({0, 1, 2}), pick({0, 1}), pick({0, 1, 3}), pick({0, 2})};
    }
    // VALID windows must fit.
    const int64_t eh = (c.kh - 1) * c.dh + 1, ew = (c.kw - 1) * c.dw + 1;
    const int64_t ph = pad == 2 ? c.pads[0] + c.pads[1] : 0,
                  pw = pad == 2 ? c.pads[2] + c.pads[3] : 0;
    if (pad != 1 && (c.h + ph < eh || c.w + pw < ew)) continue;
    RunCase(c, 1000 + i * 7, i % 4 == 0);
  }
}

TEST(ConvOpt, NaNPropagatesAndInfinities) {
  ConvCase c{1, 6, 6, 16, 32, 3, 3, 1, 1, 1, 1, "SAME", {}, 1};
  HostTensor x = Mixed(DType::kFloat32, Shape({1, 6, 6, 16}), 3, -1, 1, 0.05);
  HostTensor f = HostTensor::Random(DType::kFloat32, Shape({3, 3, 16, 32}), 4);
  const HostTensor want = RunRef(OpId::kConv2D, {x, f}, ConvAttrs(c));
  const HostTensor got = RunOpt(OpId::kConv2D, {x, f}, ConvAttrs(c), 1);
  for (int64_t i = 0; i < want.size(); ++i) {
    if (std::isnan(want.at(i)) || std::isinf(want.at(i))) {
      EXPECT_TRUE(std::isnan(got.at(i)) || got.at(i) == want.at(i)) << i;
    }
  }
}

TEST(ConvOpt, SelectedForFloat32) {
  for (OpId op : {OpId::kConv2D, OpId::kFusedConv2D}) {
    for (DType t : {DType::kFloat32, DType::kFloat64}) {
      Attrs attrs;
      ASSERT_TRUE(NormalizeAttrs(GetOpDef(op), &attrs).ok());
      const DType types[3] = {t, t, t};
      const int ranks[3] = {4, 4, 1};
      NodeSignature node{op, &attrs, 3, types, ranks, 1, types, ranks};
      KernelPlan plan;
      ASSERT_TRUE(PrepareKernel(node, Variant::kOptimized, &plan).ok());
      const std::string want = std::string(t == DType::kFloat32 ? "tfn_opt_" : "tfn_ref_") +
                               (op == OpId::kConv2D ? "conv2d" : "fused_conv2d");
      EXPECT_EQ(plan.symbol, want);
    }
  }
}

}  // namespace
}  // namespace tfn::kernels::testing
