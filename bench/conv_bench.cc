// Convolution benchmark: the optimized float32 NHWC convolutions
// (kernels/opt/conv.cc, conv_depthwise.cc) run through the kernel ABI as the
// runtime runs them, as fused_conv2d with the filter prepacked (what the
// pipeline's prepack_weights makes), bias and relu fused, on the layers of
// the comparison models (bench/compare): the convstack layer, ResNet-18's
// stem and 3x3/1x1 layers, MobileNet-v2's expand/depthwise/project layers
// (three, and each distinct conv of the model as mv2_*, fused only),
// MobileNet-v3's 5x5 and ConvNeXt's 7x7 depthwise layers;
// plus conv2d with an unpacked filter (packed per call) and the reference
// kernel for scale. GFLOP/s = 2 * outputs * KH*KW*Cin/groups / time. 1 and 2
// threads (the bench's own spinning pool). See bench/RESULTS.md.
#include <benchmark/benchmark.h>

#include <atomic>
#include <cstdlib>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "bench/spin_pool.h"
#include "core/op_def.h"
#include "kernels/kernels.h"
#include "kernels/opt/gemm.h"

namespace {

using tfn::AttrValue;
using tfn::DType;
using tfn::OpId;
using tfn::Shape;
using namespace tfn::kernels;

using tfn::bench::SpinPool;

struct Layer {
  const char* name;
  int64_t h, w, cin, cout, k, stride, groups;
};

// The layers (NHWC, batch 1, SAME-style padding k/2).
const Layer kLayers[] = {
    {"convstack_3x3_32", 56, 56, 32, 32, 3, 1, 1},
    {"resnet_stem_7x7s2_3_64", 224, 224, 3, 64, 7, 2, 1},
    {"resnet_3x3_56_64", 56, 56, 64, 64, 3, 1, 1},
    {"resnet_3x3_28_128", 28, 28, 128, 128, 3, 1, 1},
    {"resnet_3x3_14_256", 14, 14, 256, 256, 3, 1, 1},
    {"resnet_3x3_7_512", 7, 7, 512, 512, 3, 1, 1},
    {"resnet_1x1s2_56_64_128", 56, 56, 64, 128, 1, 2, 1},
    {"mobilenet_1x1_56_24_144", 56, 56, 24, 144, 1, 1, 1},
    {"mobilenet_dw3x3_56_144", 56, 56, 144, 144, 3, 1, 144},
    {"mobilenet_dw3x3s2_112_96", 112, 112, 96, 96, 3, 2, 96},
    {"mobilenet_1x1_56_144_24", 56, 56, 144, 24, 1, 1, 1},
    // Every distinct conv of MobileNet-v2 (torchvision, 224x224), in order.
    {"mv2_stem", 224, 224, 3, 32, 3, 2, 1},
    {"mv2_b0dw", 112, 112, 32, 32, 3, 1, 32},
    {"mv2_b0pw", 112, 112, 32, 16, 1, 1, 1},
    {"mv2_b1ex", 112, 112, 16, 96, 1, 1, 1},
    {"mv2_b1dw", 112, 112, 96, 96, 3, 2, 96},
    {"mv2_b1pj", 56, 56, 96, 24, 1, 1, 1},
    {"mv2_b2ex", 56, 56, 24, 144, 1, 1, 1},
    {"mv2_b2dw", 56, 56, 144, 144, 3, 1, 144},
    {"mv2_b2pj", 56, 56, 144, 24, 1, 1, 1},
    {"mv2_b3ex", 56, 56, 24, 144, 1, 1, 1},
    {"mv2_b3dw", 56, 56, 144, 144, 3, 2, 144},
    {"mv2_b3pj", 28, 28, 144, 32, 1, 1, 1},
    {"mv2_b4ex", 28, 28, 32, 192, 1, 1, 1},
    {"mv2_b4dw", 28, 28, 192, 192, 3, 1, 192},
    {"mv2_b4pj", 28, 28, 192, 32, 1, 1, 1},
    {"mv2_b6dw", 28, 28, 192, 192, 3, 2, 192},
    {"mv2_b6pj", 14, 14, 192, 64, 1, 1, 1},
    {"mv2_b7ex", 14, 14, 64, 384, 1, 1, 1},
    {"mv2_b7dw", 14, 14, 384, 384, 3, 1, 384},
    {"mv2_b7pj", 14, 14, 384, 64, 1, 1, 1},
    {"mv2_b10pj", 14, 14, 384, 96, 1, 1, 1},
    {"mv2_b11ex", 14, 14, 96, 576, 1, 1, 1},
    {"mv2_b11dw", 14, 14, 576, 576, 3, 1, 576},
    {"mv2_b11pj", 14, 14, 576, 96, 1, 1, 1},
    {"mv2_b13dw", 14, 14, 576, 576, 3, 2, 576},
    {"mv2_b13pj", 7, 7, 576, 160, 1, 1, 1},
    {"mv2_b14ex", 7, 7, 160, 960, 1, 1, 1},
    {"mv2_b14dw", 7, 7, 960, 960, 3, 1, 960},
    {"mv2_b14pj", 7, 7, 960, 160, 1, 1, 1},
    {"mv2_b16pj", 7, 7, 960, 320, 1, 1, 1},
    {"mv2_last", 7, 7, 320, 1280, 1, 1, 1},
    // Depthwise windows other than 3x3 (conv_depthwise_any_avx512.cc):
    // MobileNet-v3's 5x5 layers, ConvNeXt-T's first 7x7.
    {"mv3_dw5x5_14_240", 14, 14, 240, 240, 5, 1, 240},
    {"mv3_dw5x5_7_576", 7, 7, 576, 576, 5, 1, 576},
    {"mv3_dw5x5s2_28_96", 28, 28, 96, 96, 5, 2, 96},
    {"convnext_dw7x7_56_96", 56, 56, 96, 96, 7, 1, 96},
    // Grouped 3x3 convs with 16 and 32 channels per group (RegNet-X-400MF's
    // group width 16; ResNeXt-50 32x4d's last two stages), and a dense 1x1
    // of the same map for scale.
    {"regnetx_g16_56s2_32", 112, 112, 32, 32, 3, 2, 2},
    {"regnetx_g16_14_160", 14, 14, 160, 160, 3, 1, 10},
    {"regnetx_g16_7_400", 7, 7, 400, 400, 3, 1, 25},
    {"regnetx_1x1_7_400", 7, 7, 400, 400, 1, 1, 1},
    // RegNet-X-800MF's first stage at 112x112: a 1x1 over 32 channels and
    // the grouped stride-2 3x3 after it (ORT: 276 and 386 us).
    {"regnetx800_1x1_112_32_64", 112, 112, 32, 64, 1, 1, 1},
    {"regnetx800_g16_112s2_64", 112, 112, 64, 64, 3, 2, 4},
    {"resnext_g16_14_512", 14, 14, 512, 512, 3, 1, 32},
    {"resnext_g32_7_1024", 7, 7, 1024, 1024, 3, 1, 32},
    // Convs whose pixels are 4 KiB apart (conv.cc Aliased): FCN's and
    // ResNet-50's 1x1 over 2048 and 1024 channels, stride 2 over 512, and
    // FCN's 3x3 head over 2048 (on a 14x14 map here; 28x28 in the model).
    {"fcn_1x1_28_2048_512", 28, 28, 2048, 512, 1, 1, 1},
    {"fcn_head_3x3_14_2048_512", 14, 14, 2048, 512, 3, 1, 1},
    {"resnet50_1x1_14_1024_256", 14, 14, 1024, 256, 1, 1, 1},
    {"resnet50_1x1s2_28_512_1024", 28, 28, 512, 1024, 1, 2, 1},
};

std::vector<float> Random(int64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v) x = d(rng);
  return v;
}

// mode 0: fused_conv2d, prepacked filter, bias + relu; 1: conv2d, filter packed
// per call; 2: the reference conv2d; 3: as 0 with the Winograd F(2x2, 3x3) filter.
void BM_Conv(benchmark::State& state) {
  static SpinPool pool;
  const Layer& l = kLayers[state.range(0)];
  const int mode = static_cast<int>(state.range(1));
  const int threads = static_cast<int>(state.range(2));
  const int64_t cg = l.cin / l.groups, cout_g = l.cout / l.groups;
  const int64_t oh = (l.h + l.stride - 1) / l.stride, ow = (l.w + l.stride - 1) / l.stride;
  const bool depthwise = cg == 1 && cout_g == 1;
  const bool wino = mode == 3;
  const bool packed = (mode == 0 && !depthwise) || wino;
  std::vector<float> x = Random(l.h * l.w * l.cin, 1), f = Random(l.k * l.k * cg * l.cout, 2);
  std::vector<float> bias = Random(l.cout, 3), y(static_cast<size_t>(oh * ow * l.cout));
  std::vector<float> fp;
  const int64_t K = l.k * l.k * cg, panels = (cout_g + 31) / 32;
  if (wino) {  // U = G g G^T per (ci, co), packed per tile position (16 matrices Cin x Cout)
    std::vector<float> u(static_cast<size_t>(16 * cg * l.cout));
    for (int64_t ci = 0; ci < cg; ++ci) {
      for (int64_t co = 0; co < l.cout; ++co) {
        double g[3][3], t[4][3];
        for (int r = 0; r < 3; ++r) {
          for (int c = 0; c < 3; ++c) g[r][c] = f[((r * 3 + c) * cg + ci) * l.cout + co];
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
          for (int c = 0; c < 4; ++c) {
            u[static_cast<size_t>(((4 * r + c) * cg + ci) * l.cout + co)] =
                static_cast<float>(v[c]);
          }
        }
      }
    }
    fp.resize(static_cast<size_t>(16 * panels * cg * 32));
    for (int xi = 0; xi < 16; ++xi) {
      GemmPackB(cg, l.cout, u.data() + xi * cg * l.cout, l.cout, false,
                fp.data() + xi * panels * cg * 32);
    }
  } else if (packed) {
    fp.resize(static_cast<size_t>(l.groups * panels * K * 32));
    for (int64_t g = 0; g < l.groups; ++g) {
      GemmPackB(K, cout_g, f.data() + g * cout_g, l.cout, false, fp.data() + g * panels * K * 32);
    }
  }
  tfn::Attrs attrs;
  attrs.Set("strides", AttrValue::Ints({l.stride, l.stride}));
  attrs.Set("padding", AttrValue::String("SAME"));
  attrs.Set("groups", AttrValue::Int(l.groups));
  const OpId op = mode == 0 || wino ? OpId::kFusedConv2D : OpId::kConv2D;
  if (op == OpId::kFusedConv2D) {
    attrs.Set("activation", AttrValue::String("relu"));
    if (packed) attrs.Set("packed_out_channels", AttrValue::Int(l.cout));
    if (wino) attrs.Set("winograd", AttrValue::Int(1));
  }
  if (!tfn::NormalizeAttrs(tfn::GetOpDef(op), &attrs).ok()) std::abort();
  const DType types[3] = {DType::kFloat32, DType::kFloat32, DType::kFloat32};
  const int ranks[3] = {4, packed && !wino ? 6 : 4, 1}, out_rank = 4;
  NodeSignature node{op, &attrs, 3, types, ranks, 1, types, &out_rank};
  KernelPlan plan;
  if (!PrepareKernel(node, mode == 2 ? Variant::kReference : Variant::kOptimized, &plan).ok()) {
    std::abort();
  }
  TfnTensor in[3] = {
      MakeTensor(x.data(), DType::kFloat32, Shape{1, l.h, l.w, l.cin}),
      wino     ? MakeTensor(fp.data(), DType::kFloat32, Shape{16, panels, cg, 32})
      : packed ? MakeTensor(fp.data(), DType::kFloat32, Shape{l.groups, panels, l.k, l.k, cg, 32})
               : MakeTensor(f.data(), DType::kFloat32, Shape{l.k, l.k, cg, l.cout}),
      MakeTensor(bias.data(), DType::kFloat32, Shape{l.cout})};
  TfnTensor out = MakeTensor(y.data(), DType::kFloat32, Shape{1, oh, ow, l.cout});
  const int64_t scratch_bytes = ScratchBytes(plan, in, 3, &out, 1);
  std::vector<unsigned char> scratch(static_cast<size_t>(scratch_bytes) + 64);
  TfnKernelContext ctx{};
  ctx.scratch = scratch.data();
  ctx.scratch_bytes = scratch_bytes;
  ctx.num_threads = threads;
  if (threads > 1) {
    ctx.parallel_for = SpinPool::ParallelFor;
    ctx.pool = &pool;
  }
  for (auto _ : state) {
    if (plan.fn(plan.params, in, 3, &out, 1, &ctx) != TFN_KERNEL_OK) std::abort();
    benchmark::ClobberMemory();
  }
  const double flops = 2.0 * oh * ow * l.cout * K;
  state.counters["GFLOP/s"] = benchmark::Counter(
      flops * static_cast<double>(state.iterations()) * 1e-9, benchmark::Counter::kIsRate);
  state.SetLabel(std::string(l.name) + (mode == 0   ? (packed ? " fused prepacked" : " fused")
                                        : mode == 1 ? " conv2d"
                                        : mode == 3 ? " fused winograd"
                                                    : " reference"));
}

void Args(benchmark::internal::Benchmark* b) {
  const int n = static_cast<int>(sizeof(kLayers) / sizeof(kLayers[0]));
  for (int i = 0; i < n; ++i) {
    b->Args({i, 0, 1});
    b->Args({i, 0, 2});
    const Layer& l = kLayers[i];
    if (std::string(l.name).rfind("mv2_", 0) == 0) continue;  // the model's layers: fused only
    b->Args({i, 1, 1});
    if (l.k == 3 && l.stride == 1 && l.groups == 1 && l.cin >= 16) {
      b->Args({i, 3, 1});
      b->Args({i, 3, 2});
    }
  }
  b->Args({0, 2, 1});  // the reference kernel on the convstack layer
}
BENCHMARK(BM_Conv)->Apply(Args)->Unit(benchmark::kMicrosecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
