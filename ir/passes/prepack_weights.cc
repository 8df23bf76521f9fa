// Implementation of weight prepacking.
#include "ir/passes/prepack_weights.h"

#include <cstring>
#include <vector>

#include "core/packed_layout.h"
#include "ir/rewriter.h"

namespace tfn::ir {
namespace {

constexpr int64_t kPanel = kGemmPanelWidth;

// Packs column block [col0, col0 + n) of the K x ld row-major matrix w (or,
// transposed, w(k, j) = w[j * K + k]) into dst: (j/32 * K + k) * 32 + j%32.
void PackPanels(const float* w, int64_t K, int64_t n, int64_t ld, int64_t col0, bool transposed,
                float* dst) {
  for (int64_t k = 0; k < K; ++k) {
    for (int64_t j = 0; j < n; ++j) {
      const float v = transposed ? w[(col0 + j) * K + k] : w[k * ld + col0 + j];
      dst[((j / kPanel) * K + k) * kPanel + j % kPanel] = v;
    }
  }
}

// Whether a fused_conv2d with this filter runs as Winograd F(2x2, 3x3): 3x3,
// stride 1, no dilation, one group and enough channels that the transforms
// cost little next to the 16 GEMMs (2.25x fewer multiplies than direct).
bool UseWinograd(const Node& n, const Shape& f) {
  auto ones = [&](const char* name) {
    for (int64_t v : n.attrs.GetInts(name)) {
      if (v != 1) return false;
    }
    return true;
  };
  return f[0] == 3 && f[1] == 3 && n.attrs.GetInt("groups") == 1 && ones("strides") &&
         ones("dilations") && f[2] >= 16 && f[3] >= 16;
}

// U = G g G^T of every 3x3 filter g (input ci, output co) of w [3, 3, Cin, Cout],
// packed per position xi of the 4x4 tile: [16][ceil(Cout/32)][Cin][32].
void PackWinograd(const float* w, int64_t cin, int64_t cout, float* dst) {
  const int64_t panels = (cout + kPanel - 1) / kPanel;
  std::vector<float> u(static_cast<size_t>(16 * cin * cout));
  for (int64_t ci = 0; ci < cin; ++ci) {
    for (int64_t co = 0; co < cout; ++co) {
      double g[3][3], t[4][3];
      for (int r = 0; r < 3; ++r) {
        for (int c = 0; c < 3; ++c) g[r][c] = w[((r * 3 + c) * cin + ci) * cout + co];
      }
      for (int c = 0; c < 3; ++c) {  // G g, G = [1 0 0; .5 .5 .5; .5 -.5 .5; 0 0 1]
        t[0][c] = g[0][c];
        t[1][c] = 0.5 * (g[0][c] + g[1][c] + g[2][c]);
        t[2][c] = 0.5 * (g[0][c] - g[1][c] + g[2][c]);
        t[3][c] = g[2][c];
      }
      for (int r = 0; r < 4; ++r) {  // (G g) G^T
        const double v[4] = {t[r][0], 0.5 * (t[r][0] + t[r][1] + t[r][2]),
                             0.5 * (t[r][0] - t[r][1] + t[r][2]), t[r][2]};
        for (int c = 0; c < 4; ++c) {
          u[static_cast<size_t>(((4 * r + c) * cin + ci) * cout + co)] = static_cast<float>(v[c]);
        }
      }
    }
  }
  for (int xi = 0; xi < 16; ++xi) {
    PackPanels(u.data() + xi * cin * cout, cin, cout, cout, 0, false,
               dst + xi * panels * cin * kPanel);
  }
}

// Packs the 8-bit weights of a quantized linear node (qlinear_conv2d's
// HWIO filter, qlinear_matmul's [K, N] b) per group into the int8 panels of
// core/packed_layout.h: uint8 sign-flipped, each panel's column sums last.
ConstTensor PackInt8(const ConstTensor& w, int64_t groups, int64_t K, int64_t N_total) {
  const int64_t n = N_total / groups, panels = (n + kInt8PanelWidth - 1) / kInt8PanelWidth;
  const int64_t rows = (K + 3) / 4 + 1;
  void* data = nullptr;
  ConstTensor packed =
      ConstTensor::Allocate(DType::kInt8, Shape{groups, panels, rows, kInt8PanelRowBytes}, &data);
  auto* dst = static_cast<int8_t*>(data);
  const auto* src = static_cast<const uint8_t*>(w.data);
  const uint8_t flip = w.dtype == DType::kUInt8 ? 0x80 : 0;
  for (int64_t g = 0; g < groups; ++g) {
    for (int64_t p = 0; p < panels; ++p) {
      int8_t* panel = dst + (g * panels + p) * rows * kInt8PanelRowBytes;
      int32_t sums[kInt8PanelWidth] = {};
      for (int64_t j = 0; j < kInt8PanelWidth && p * kInt8PanelWidth + j < n; ++j) {
        const int64_t col = g * n + p * kInt8PanelWidth + j;
        for (int64_t k = 0; k < K; ++k) {
          const auto v = static_cast<int8_t>(src[k * N_total + col] ^ flip);
          panel[(k / 4) * kInt8PanelRowBytes + j * 4 + k % 4] = v;
          sums[j] += v;
        }
      }
      std::memcpy(panel + (rows - 1) * kInt8PanelRowBytes, sums, sizeof(sums));
    }
  }
  return packed;
}

// The prepacked replacement of a qlinear node, or invalid (weights not
// constant, already packed, or a depthwise conv, which reads HWIO).
absl::StatusOr<ValueRef> PackQLinear(Graph& g, const Node& n, std::vector<ValueRef> in) {
  const ConstTensor* w = g.ConstantValue(in[3]);
  if (!w || (w->dtype != DType::kInt8 && w->dtype != DType::kUInt8)) return ValueRef{};
  Attrs attrs = n.attrs;
  if (n.op == OpId::kQLinearMatMul) {
    if (!n.attrs.GetInts("packed_b").empty() || w->shape.rank() != 2) return ValueRef{};
    in[3] = g.AddConstant(PackInt8(*w, 1, w->shape[0], w->shape[1]));
    attrs.Set("packed_b", AttrValue::Ints({w->shape[0], w->shape[1]}));
    return g.Add(n.op, in, attrs);
  }
  const int64_t groups = n.attrs.GetInt("groups");
  if (!n.attrs.GetInts("packed_filter").empty() || w->shape.rank() != 4 || groups <= 0 ||
      w->shape[3] % groups != 0) {
    return ValueRef{};
  }
  const int64_t cg = w->shape[2], cout = w->shape[3];
  if (cg == 1 && cout == groups && groups > 1) return ValueRef{};  // depthwise
  in[3] = g.AddConstant(PackInt8(*w, groups, w->shape[0] * w->shape[1] * cg, cout));
  attrs.Set("packed_filter", AttrValue::Ints({w->shape[0], w->shape[1], cg, cout}));
  return g.Add(n.op, in, attrs);
}

// The packed replacement of node n (inputs mapped to `in`), or invalid.
absl::StatusOr<ValueRef> Pack(Graph& g, const Node& n, std::vector<ValueRef> in) {
  const ConstTensor* w = g.ConstantValue(in[1]);
  if (!w || w->dtype != DType::kFloat32) return ValueRef{};
  const float* src = w->as<float>();
  Attrs attrs = n.attrs;
  void* data = nullptr;
  if (n.op == OpId::kFusedMatMul) {
    if (n.attrs.GetInt("packed_n") != 0 || w->shape.rank() != 2) return ValueRef{};
    const bool tb = n.attrs.GetInt("transpose_b") != 0;
    const int64_t K = tb ? w->shape[1] : w->shape[0], N = tb ? w->shape[0] : w->shape[1];
    const int64_t panels = (N + kPanel - 1) / kPanel;
    ConstTensor packed = ConstTensor::Allocate(DType::kFloat32, Shape{panels, K, kPanel}, &data);
    PackPanels(src, K, N, N, 0, tb, static_cast<float*>(data));
    attrs.Set("packed_n", AttrValue::Int(N));
    attrs.Set("transpose_b", AttrValue::Int(0));
    in[1] = g.AddConstant(std::move(packed));
    return g.Add(n.op, in, attrs);
  }
  if (n.op != OpId::kFusedConv2D || n.attrs.GetInt("packed_out_channels") != 0 ||
      w->shape.rank() != 4) {
    return ValueRef{};
  }
  const int64_t groups = n.attrs.GetInt("groups");
  const int64_t kh = w->shape[0], kw = w->shape[1], cg = w->shape[2], cout = w->shape[3];
  if (groups <= 0 || cout % groups != 0) return ValueRef{};
  const int64_t cout_g = cout / groups, K = kh * kw * cg, panels = (cout_g + kPanel - 1) / kPanel;
  if (cg == 1 && cout_g == 1) return ValueRef{};  // depthwise: read as HWIO
  // Few channels per group: the direct grouped kernel reads HWIO too
  // (kernels/opt/conv_grouped_avx512.cc; without AVX-512 the GEMM packs per call).
  if (groups > 1 && cg == cout_g && (cg == 2 || cg == 4 || cg == 8) && cout % 16 == 0 &&
      cout == groups * cg) {
    return ValueRef{};
  }
  if (UseWinograd(n, w->shape)) {
    ConstTensor packed =
        ConstTensor::Allocate(DType::kFloat32, Shape{16, panels, cg, kPanel}, &data);
    PackWinograd(src, cg, cout, static_cast<float*>(data));
    attrs.Set("packed_out_channels", AttrValue::Int(cout));
    attrs.Set("winograd", AttrValue::Int(1));
    in[1] = g.AddConstant(std::move(packed));
    return g.Add(n.op, in, attrs);
  }
  const int64_t packed_bytes = groups * panels * K * kPanel * 4;
  if (packed_bytes > 2 * w->byte_size() + 65536) return ValueRef{};
  ConstTensor packed =
      ConstTensor::Allocate(DType::kFloat32, Shape{groups, panels, kh, kw, cg, kPanel}, &data);
  for (int64_t gi = 0; gi < groups; ++gi) {
    PackPanels(src, K, cout_g, cout, gi * cout_g, false,
               static_cast<float*>(data) + gi * panels * K * kPanel);
  }
  attrs.Set("packed_out_channels", AttrValue::Int(cout));
  in[1] = g.AddConstant(std::move(packed));
  return g.Add(n.op, in, attrs);
}

}  // namespace

absl::StatusOr<bool> PrepackWeights(Graph& graph) {
  return RewriteNodes(graph, PrepackWeights,
                      [](Rewriter& rw, const Node& n) -> absl::StatusOr<ValueRef> {
                        if (n.op == OpId::kQLinearConv2D || n.op == OpId::kQLinearMatMul) {
                          return PackQLinear(rw.dst(), n, rw.MapAll(n.inputs));
                        }
                        if (n.op != OpId::kFusedMatMul && n.op != OpId::kFusedConv2D)
                          return ValueRef{};
                        return Pack(rw.dst(), n, rw.MapAll(n.inputs));
                      });
}

}  // namespace tfn::ir
