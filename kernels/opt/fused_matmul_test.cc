// Tests of fused_matmul: the optimized kernel (opt/fused_matmul.cc, the GEMM
// with its epilogue) against the reference kernel (ref/fused.cc), and the
// reference of the fused op against the chain of ops it replaces
// (matmul, add bias, add residual, activation: bit-identical). Shapes cover
// the skinny path (M <= 4), small M up to one tile (5..14), tiles with
// tails, K across the kc blocks, N tails; b plain, transposed and
// prepacked; every GEMM instruction set the CPU has; 1 and 2 threads
// (bitwise identical).
//
// Tolerance (see matmul_test.cc): entries are uniform in [-1, 1), so
// |err| <= 2 (K + 8) u K for the product; the epilogue adds <= 2 u |y| per
// add, activations are at most 1.5-Lipschitz (hard_swish at 3; gelu 1.13)
// and within 8 ulp (or 1e-7 absolute near zero) of the reference.
#include <cmath>
#include <string>
#include <vector>

#include "core/half.h"
#include "kernels/opt/bf16_gemm.h"
#include "kernels/opt/gemm.h"
#include "kernels/opt/opt_test_util.h"

namespace tfn::kernels::testing {
namespace {

constexpr double kU = 1.0 / (1 << 24);
// Indexed by FusedActivation (kernels/params.h).
const char* const kActs[] = {"none", "relu",      "clip",         "sigmoid",    "tanh",
                             "gelu", "gelu_tanh", "hard_sigmoid", "hard_swish", "silu"};
constexpr int kNumActs = sizeof(kActs) / sizeof(kActs[0]);

HostTensor Pack(const HostTensor& b, bool transposed) {
  const int64_t K = transposed ? b.shape[1] : b.shape[0], N = transposed ? b.shape[0] : b.shape[1];
  std::vector<float> src = b.values<float>(), dst(GemmPackedBBytes(K, N) / 4);
  GemmPackB(K, N, src.data(), transposed ? K : N, transposed, dst.data());
  return HostTensor::Of<float>(Shape({(N + 31) / 32, K, 32}), dst);
}

Attrs FusedAttrs(int act, bool tb, int64_t packed_n) {
  Attrs a = {{"activation", AttrValue::String(kActs[act])},
             {"transpose_b", AttrValue::Int(tb)},
             {"packed_n", AttrValue::Int(packed_n)}};
  if (act == 2) {
    a.Set("clip_min", AttrValue::Float(-0.5));
    a.Set("clip_max", AttrValue::Float(6.0));
  }
  if (act == kActHardSigmoid || act == kActHardSwish) {  // ONNX HardSwish's
    a.Set("act_alpha", AttrValue::Float(1.0 / 6));
    a.Set("act_beta", AttrValue::Float(0.5));
  }
  return a;
}

TEST(FusedMatMulOpt, AgainstReference) {
  struct Dims {
    std::vector<int64_t> batch;
    int64_t M, K, N;
  };
  const Dims dims[] = {{{}, 1, 784, 512},  {{}, 1, 512, 10},   {{}, 2, 33, 31},
                       {{}, 3, 7, 100},    {{}, 4, 385, 33},   {{}, 5, 64, 64},
                       {{}, 8, 256, 1024}, {{}, 13, 17, 1},    {{}, 14, 384, 32},
                       {{}, 15, 400, 65},  {{2, 3}, 5, 9, 40}, {{1}, 128, 256, 256},
                       {{}, 64, 784, 512}, {{}, 0, 5, 7},      {{}, 6, 0, 9}};
  uint32_t seed = 11;
  for (const Dims& d : dims) {
    std::vector<int64_t> a_dims = d.batch, y_dims = d.batch;
    a_dims.push_back(d.M);
    a_dims.push_back(d.K);
    y_dims.push_back(d.M);
    y_dims.push_back(d.N);
    const HostTensor a = HostTensor::Random(DType::kFloat32, Shape(a_dims), seed++);
    const HostTensor b = HostTensor::Random(DType::kFloat32, Shape({d.K, d.N}), seed++);
    const HostTensor bt = HostTensor::Random(DType::kFloat32, Shape({d.N, d.K}), seed++);
    const HostTensor bias = HostTensor::Random(DType::kFloat32, Shape({d.N}), seed++);
    const HostTensor res = HostTensor::Random(DType::kFloat32, Shape(y_dims), seed++);
    for (int act = 0; act < kNumActs; ++act) {
      for (int form = 0; form < 4; ++form) {  // plain, transposed, packed, packed from transposed
        const bool tb = form % 2 == 1, packed = form >= 2;
        const HostTensor& bm = tb ? bt : b;
        std::vector<HostTensor> in = {a, packed ? Pack(bm, tb) : bm};
        const int terms = (act + form) % 3;  // 0: none, 1: bias, 2: bias and residual
        if (terms >= 1) in.push_back(bias);
        if (terms >= 2) in.push_back(res);
        const Attrs attrs = FusedAttrs(act, tb && !packed, packed ? d.N : 0);
        std::vector<HostTensor> ref_in = in;
        ref_in[1] = bm;
        const HostTensor want = RunRef(OpId::kFusedMatMul, ref_in, FusedAttrs(act, tb, 0));
        ASSERT_EQ(want.shape, Shape(y_dims));
        SCOPED_TRACE("M=" + std::to_string(d.M) + " K=" + std::to_string(d.K) +
                     " N=" + std::to_string(d.N) + " act=" + kActs[act] +
                     " form=" + std::to_string(form) + " terms=" + std::to_string(terms));
        if (packed) {
          EXPECT_TRUE(BitEqual(RunRef(OpId::kFusedMatMul, in, attrs), want));
        }
        const double tol = 1.5 * 2.0 * (d.K + 8) * kU * d.K + (act >= 3 ? 1e-7 : 0);
        for (GemmIsa isa : {GemmIsa::kPortable, GemmIsa::kAvx2, GemmIsa::kAvx512}) {
          if (!GemmIsaSupported(isa)) continue;
          GemmForceIsa(isa);
          std::vector<float> one_thread;
          for (int threads : {1, 2}) {
            const HostTensor got = RunOpt(OpId::kFusedMatMul, in, attrs, threads);
            ASSERT_EQ(got.shape, want.shape) << GemmIsaName(isa);
            for (int64_t i = 0; i < want.size(); ++i) {
              const double w = want.at(i);
              ASSERT_LE(std::fabs(got.at(i) - w), tol + 12 * kU * std::fabs(w))
                  << GemmIsaName(isa) << " threads=" << threads << " element " << i;
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
    }
  }
}

// The reference fused op rounds exactly like the chain of ops it replaces.
TEST(FusedMatMulRef, MatchesTheUnfusedChain) {
  const HostTensor a = HostTensor::Random(DType::kFloat32, Shape({7, 19}), 1);
  const HostTensor b = HostTensor::Random(DType::kFloat32, Shape({19, 13}), 2);
  const HostTensor bias = HostTensor::Random(DType::kFloat32, Shape({13}), 3);
  const HostTensor res = HostTensor::Random(DType::kFloat32, Shape({7, 13}), 4);
  HostTensor chain = RunRef(OpId::kMatMul, {a, b});
  chain = RunRef(OpId::kAdd, {chain, bias});
  chain = RunRef(OpId::kAdd, {chain, res});
  const HostTensor relu = RunRef(OpId::kRelu, {chain});
  const HostTensor gelu = RunRef(OpId::kGelu, {chain});
  EXPECT_TRUE(
      BitEqual(RunRef(OpId::kFusedMatMul, {a, b, bias, res}, FusedAttrs(1, false, 0)), relu));
  EXPECT_TRUE(
      BitEqual(RunRef(OpId::kFusedMatMul, {a, b, bias, res}, FusedAttrs(5, false, 0)), gelu));
  // hard_sigmoid and hard_swish as ONNX's HardSwish expands, silu as x * sigmoid(x).
  auto scalar = [](float v) { return HostTensor::Of<float>(Shape({}), {v}); };
  HostTensor hs = RunRef(OpId::kMul, {chain, scalar(1.0f / 6)});
  hs = RunRef(OpId::kAdd, {hs, scalar(0.5f)});
  hs = RunRef(OpId::kMinimum, {hs, scalar(1)});
  hs = RunRef(OpId::kMaximum, {hs, scalar(0)});
  const HostTensor swish = RunRef(OpId::kMul, {chain, hs});
  const HostTensor silu = RunRef(OpId::kMul, {chain, RunRef(OpId::kSigmoid, {chain})});
  const auto fused = [&](int act) {
    return RunRef(OpId::kFusedMatMul, {a, b, bias, res}, FusedAttrs(act, false, 0));
  };
  EXPECT_TRUE(BitEqual(fused(kActHardSigmoid), hs));
  EXPECT_TRUE(BitEqual(fused(kActHardSwish), swish));
  EXPECT_TRUE(BitEqual(fused(kActSilu), silu));
  // A hard sigmoid whose affine part is -0 (alpha -1, beta -0, a product of
  // 0): maximum(-0, 0) is +0, in the fused reference, the optimized kernel
  // and the chain alike.
  const HostTensor zero = HostTensor::Of<float>(Shape({1, 1}), {0.0f});
  const HostTensor one = HostTensor::Of<float>(Shape({1, 1}), {1.0f});
  Attrs attrs = FusedAttrs(kActHardSigmoid, false, 0);
  attrs.Set("act_alpha", AttrValue::Float(-1));
  attrs.Set("act_beta", AttrValue::Float(-0.0));
  HostTensor z = RunRef(OpId::kMul, {RunRef(OpId::kMatMul, {zero, one}), scalar(-1)});
  z = RunRef(OpId::kAdd, {z, scalar(-0.0f)});
  z = RunRef(OpId::kMaximum, {RunRef(OpId::kMinimum, {z, scalar(1)}), scalar(0)});
  ASSERT_FALSE(std::signbit(z.at(0)));
  EXPECT_TRUE(BitEqual(RunRef(OpId::kFusedMatMul, {zero, one}, attrs), z));
  EXPECT_TRUE(BitEqual(RunOpt(OpId::kFusedMatMul, {zero, one}, attrs, 1), z));
}

// A bfloat16 b: the reference equals the unfused chain it stands for
// (matmul of a cast to bfloat16 and back, times the widened b; bias; relu)
// bit for bit, prepacked or not; the optimized kernel (the bf16 GEMM, on
// vdpbf16ps and portable) is within float32 summation error of it, the same
// for 1 and 2 threads.
TEST(FusedMatMulBf16, ReferenceIsTheChainAndOptimizedIsClose) {
  const int64_t M = 19, K = 37, N = 45;
  const HostTensor a = HostTensor::Random(DType::kFloat32, Shape({M, K}), 21);
  const HostTensor bias = HostTensor::Random(DType::kFloat32, Shape({N}), 22);
  const std::vector<float> bf =
      HostTensor::Random(DType::kFloat32, Shape({K, N}), 23).values<float>();
  std::vector<uint16_t> bits(bf.size());
  for (size_t i = 0; i < bf.size(); ++i) bits[i] = FloatToBFloat16Bits(bf[i]);
  HostTensor b = HostTensor::Of<uint16_t>(Shape({K, N}), bits);
  b.dtype = DType::kBFloat16;
  std::vector<uint16_t> packed_bits(Bf16PackedBElems(K, N));
  Bf16PackB(K, N, bits.data(), N, 1, packed_bits.data());
  HostTensor packed =
      HostTensor::Of<uint16_t>(Shape({(N + 31) / 32, (K + 1) / 2, 64}), packed_bits);
  packed.dtype = DType::kBFloat16;

  const Attrs to_bf16 = {{"dtype", AttrValue::Type(DType::kBFloat16)}};
  const Attrs to_f32 = {{"dtype", AttrValue::Type(DType::kFloat32)}};
  HostTensor chain =
      RunRef(OpId::kMatMul, {RunRef(OpId::kCast, {RunRef(OpId::kCast, {a}, to_bf16)}, to_f32),
                             RunRef(OpId::kCast, {b}, to_f32)});
  chain = RunRef(OpId::kRelu, {RunRef(OpId::kAdd, {chain, bias})});
  const HostTensor want = RunRef(OpId::kFusedMatMul, {a, b, bias}, FusedAttrs(1, false, 0));
  EXPECT_TRUE(BitEqual(want, chain));
  const Attrs packed_attrs = FusedAttrs(1, false, N);
  EXPECT_TRUE(BitEqual(RunRef(OpId::kFusedMatMul, {a, packed, bias}, packed_attrs), want));

  const double tol = 2.0 * (K + 8) * kU * K;
  for (opt::Isa cap : SupportedIsas()) {
    const opt::Isa old = opt::SetIsaCapForTesting(cap);
    std::vector<float> one_thread;
    for (int threads : {1, 2}) {
      const HostTensor got = RunOpt(OpId::kFusedMatMul, {a, packed, bias}, packed_attrs, threads);
      ASSERT_EQ(got.shape, want.shape);
      for (int64_t i = 0; i < want.size(); ++i) {
        ASSERT_NEAR(got.at(i), want.at(i), tol) << Bf16GemmKernelName() << " element " << i;
      }
      if (threads == 1) {
        one_thread = got.values<float>();
      } else {
        EXPECT_EQ(got.values<float>(), one_thread) << "results depend on the thread count";
      }
    }
    opt::SetIsaCapForTesting(old);
  }
}

}  // namespace
}  // namespace tfn::kernels::testing
