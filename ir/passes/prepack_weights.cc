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
// T: float, or the 16-bit pattern of a weight stored narrow.
template <class T>
void PackPanels(const T* w, int64_t K, int64_t n, int64_t ld, int64_t col0, bool transposed,
                T* dst) {
  for (int64_t k = 0; k < K; ++k) {
    for (int64_t j = 0; j < n; ++j) {
      const T v = transposed ? w[(col0 + j) * K + k] : w[k * ld + col0 + j];
      dst[((j / kPanel) * K + k) * kPanel + j % kPanel] = v;
    }
  }
}

// The weight of a fused op as its constant and, for a weight stored narrow
// (cast(float16 or bfloat16 constant) to float32: tfn-quantize's
// --fp16-weights and --bf16), the narrow constant. Packing moves elements
// without arithmetic, so the narrow one is packed and the cast stays after it
// (the runtime widens cast constants once, when it loads a bundle).
struct Weight {
  const ConstTensor* value = nullptr;
  bool narrow = false;  // value is float16 / bfloat16, cast to float32 after packing
};

Weight FindWeight(const Graph& g, ValueRef v) {
  if (const ConstTensor* c = g.ConstantValue(v)) {
    return c->dtype == DType::kFloat32 ? Weight{c, false} : Weight{};
  }
  const Node& cast = g.node(v.node);
  if (cast.op != OpId::kCast || g.type(v).dtype != DType::kFloat32) return Weight{};
  const ConstTensor* c = g.ConstantValue(cast.inputs[0]);
  if (!c || (c->dtype != DType::kFloat16 && c->dtype != DType::kBFloat16)) return Weight{};
  return Weight{c, true};
}

// x when v is cast(cast(x float32 -> bfloat16, rounded to nearest) -> float32):
// a matmul input already rounded to bfloat16, as the bf16 GEMM rounds it.
ValueRef RoundedToBf16(const Graph& g, ValueRef v) {
  const Node& widen = g.node(v.node);
  if (widen.op != OpId::kCast || g.type(v).dtype != DType::kFloat32) return ValueRef{};
  const ValueRef mid = widen.inputs[0];
  const Node& narrow = g.node(mid.node);
  if (narrow.op != OpId::kCast || g.type(mid).dtype != DType::kBFloat16 ||
      narrow.attrs.GetInt("truncate") != 0 || g.type(narrow.inputs[0]).dtype != DType::kFloat32) {
    return ValueRef{};
  }
  return narrow.inputs[0];
}

// The packed weight `packed` as the fused op's input: itself, or cast to
// float32 when it is stored narrow.
absl::StatusOr<ValueRef> WeightInput(Graph& g, ConstTensor packed, bool narrow) {
  const ValueRef c = g.AddConstant(std::move(packed));
  if (!narrow) return c;
  return g.Add(OpId::kCast, {c}, Attrs{{"dtype", AttrValue::Type(DType::kFloat32)}});
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

// A bfloat16 [K, N] (or transposed [N, K]) b in the bf16 GEMM's panels.
ConstTensor PackBf16(const ConstTensor& w, int64_t K, int64_t N, bool transposed) {
  void* data = nullptr;
  ConstTensor packed = ConstTensor::Allocate(
      DType::kBFloat16,
      Shape{(N + kBf16PanelWidth - 1) / kBf16PanelWidth, (K + 1) / 2, kBf16PanelRowElems}, &data);
  auto* dst = static_cast<uint16_t*>(data);
  const auto* src = static_cast<const uint16_t*>(w.data);
  std::memset(dst, 0, static_cast<size_t>(packed.byte_size()));
  for (int64_t k = 0; k < K; ++k) {
    for (int64_t j = 0; j < N; ++j) {
      dst[Bf16PackedOffset((K + 1) / 2, k, j)] = src[transposed ? j * K + k : k * N + j];
    }
  }
  return packed;
}

// The packed replacement of node n (inputs mapped to `in`), or invalid.
absl::StatusOr<ValueRef> Pack(Graph& g, const Node& n, std::vector<ValueRef> in) {
  const Weight weight = FindWeight(g, in[1]);
  const ConstTensor* w = weight.value;
  if (!w) return ValueRef{};
  const size_t elem = static_cast<size_t>(DTypeSize(w->dtype));
  Attrs attrs = n.attrs;
  void* data = nullptr;
  // One packing for 4- and 2-byte elements (the panels only move them).
  auto pack_panels = [&](const void* src, int64_t K, int64_t nn, int64_t ld, int64_t col0,
                         bool transposed, void* dst) {
    if (elem == 4) {
      PackPanels(static_cast<const float*>(src), K, nn, ld, col0, transposed,
                 static_cast<float*>(dst));
    } else {
      PackPanels(static_cast<const uint16_t*>(src), K, nn, ld, col0, transposed,
                 static_cast<uint16_t*>(dst));
    }
  };
  if (n.op == OpId::kFusedMatMul) {
    if (n.attrs.GetInt("packed_n") != 0 || w->shape.rank() != 2) return ValueRef{};
    const bool tb = n.attrs.GetInt("transpose_b") != 0;
    const int64_t K = tb ? w->shape[1] : w->shape[0], N = tb ? w->shape[0] : w->shape[1];
    attrs.Set("packed_n", AttrValue::Int(N));
    attrs.Set("transpose_b", AttrValue::Int(0));
    // bfloat16 weights times an input rounded to bfloat16: the bf16 GEMM,
    // which rounds the float32 input itself.
    const ValueRef rounded = RoundedToBf16(g, in[0]);
    if (weight.narrow && w->dtype == DType::kBFloat16 && rounded.valid()) {
      in[0] = rounded;
      in[1] = g.AddConstant(PackBf16(*w, K, N, tb));
      return g.Add(n.op, in, attrs);
    }
    const int64_t panels = (N + kPanel - 1) / kPanel;
    ConstTensor packed = ConstTensor::Allocate(w->dtype, Shape{panels, K, kPanel}, &data);
    pack_panels(w->data, K, N, N, 0, tb, data);
    absl::StatusOr<ValueRef> b = WeightInput(g, std::move(packed), weight.narrow);
    if (!b.ok()) return b.status();
    in[1] = *b;
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
  // (The Winograd transform computes: a narrow filter is packed as it is.)
  if (!weight.narrow && UseWinograd(n, w->shape)) {
    ConstTensor packed =
        ConstTensor::Allocate(DType::kFloat32, Shape{16, panels, cg, kPanel}, &data);
    PackWinograd(w->as<float>(), cg, cout, static_cast<float*>(data));
    attrs.Set("packed_out_channels", AttrValue::Int(cout));
    attrs.Set("winograd", AttrValue::Int(1));
    in[1] = g.AddConstant(std::move(packed));
    return g.Add(n.op, in, attrs);
  }
  const int64_t packed_bytes = groups * panels * K * kPanel * static_cast<int64_t>(elem);
  if (packed_bytes > 2 * w->byte_size() + 65536) return ValueRef{};
  ConstTensor packed =
      ConstTensor::Allocate(w->dtype, Shape{groups, panels, kh, kw, cg, kPanel}, &data);
  for (int64_t gi = 0; gi < groups; ++gi) {
    pack_panels(w->data, K, cout_g, cout, gi * cout_g, false,
                static_cast<char*>(data) + gi * panels * K * kPanel * static_cast<int64_t>(elem));
  }
  attrs.Set("packed_out_channels", AttrValue::Int(cout));
  absl::StatusOr<ValueRef> f = WeightInput(g, std::move(packed), weight.narrow);
  if (!f.ok()) return f.status();
  in[1] = *f;
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
