// Implementation of unlowering fused_conv2d / fused_matmul.
#include "ir/passes/unlower_fused.h"

#include <string>
#include <vector>

#include "core/packed_layout.h"
#include "ir/rewriter.h"

namespace tfn::ir {
namespace {

constexpr int64_t kPanel = kGemmPanelWidth;

// The [K, n] column block of panels (j/32 * K + k) * 32 + j%32 written into
// w (row length ld) at column col0: the inverse of prepack's PackPanels.
void UnpackPanels(const float* src, int64_t K, int64_t n, int64_t ld, int64_t col0, float* w) {
  for (int64_t k = 0; k < K; ++k) {
    for (int64_t j = 0; j < n; ++j)
      w[k * ld + col0 + j] = src[((j / kPanel) * K + k) * kPanel + j % kPanel];
  }
}

// The 3x3 HWIO filter of Winograd panels [16][ceil(N/32)][Cin][32] holding
// U = G g G^T per tap xi = 4r + c: g = L U L^T, where L picks rows 0, 1 - 2
// and 3 of G's image (G's rows 1 and 2 differ by exactly g's row 1).
void UnpackWinograd(const float* src, int64_t cin, int64_t cout, float* w) {
  const int64_t panels = (cout + kPanel - 1) / kPanel;
  auto u = [&](int xi, int64_t ci, int64_t co) -> double {
    return src[((xi * panels + co / kPanel) * cin + ci) * kPanel + co % kPanel];
  };
  for (int64_t ci = 0; ci < cin; ++ci) {
    for (int64_t co = 0; co < cout; ++co) {
      double t[3][4];  // L U: rows of U combined
      for (int c = 0; c < 4; ++c) {
        t[0][c] = u(c, ci, co);
        t[1][c] = u(4 + c, ci, co) - u(8 + c, ci, co);
        t[2][c] = u(12 + c, ci, co);
      }
      for (int r = 0; r < 3; ++r) {  // (L U) L^T
        const double g[3] = {t[r][0], t[r][1] - t[r][2], t[r][3]};
        for (int c = 0; c < 3; ++c) {
          w[((r * 3 + c) * cin + ci) * cout + co] = static_cast<float>(g[c]);
        }
      }
    }
  }
}

// The unpacked weight of fused node n (input 1 a constant), or null when the
// weight is not packed (then the node's own input serves).
absl::StatusOr<ConstTensor> UnpackedWeight(const Node& n, const ConstTensor& packed) {
  void* data = nullptr;
  const float* src = packed.as<float>();
  if (n.op == OpId::kFusedMatMul) {
    const int64_t N = n.attrs.GetInt("packed_n");
    if (packed.shape.rank() != 3) return absl::InvalidArgumentError("packed b is not rank 3");
    const int64_t K = packed.shape[1];
    ConstTensor w = ConstTensor::Allocate(DType::kFloat32, Shape{K, N}, &data);
    UnpackPanels(src, K, N, N, 0, static_cast<float*>(data));
    return w;
  }
  const int64_t cout = n.attrs.GetInt("packed_out_channels");
  if (n.attrs.GetInt("winograd") != 0) {
    if (packed.shape.rank() != 4 || packed.shape[0] != 16) {
      return absl::InvalidArgumentError("winograd filter is not [16, panels, Cin, 32]");
    }
    const int64_t cin = packed.shape[2];
    ConstTensor w = ConstTensor::Allocate(DType::kFloat32, Shape{3, 3, cin, cout}, &data);
    UnpackWinograd(src, cin, cout, static_cast<float*>(data));
    return w;
  }
  if (packed.shape.rank() != 6) return absl::InvalidArgumentError("packed filter is not rank 6");
  const int64_t groups = packed.shape[0], panels = packed.shape[1];
  const int64_t kh = packed.shape[2], kw = packed.shape[3], cg = packed.shape[4];
  const int64_t cout_g = cout / groups, K = kh * kw * cg;
  ConstTensor w = ConstTensor::Allocate(DType::kFloat32, Shape{kh, kw, cg, cout}, &data);
  for (int64_t gi = 0; gi < groups; ++gi) {
    UnpackPanels(src + gi * panels * K * kPanel, K, cout_g, cout, gi * cout_g,
                 static_cast<float*>(data));
  }
  return w;
}

ValueRef Scalar(Graph& g, double v) {
  return g.AddConstant(ConstTensor::Scalar<float>(static_cast<float>(v)));
}

// act(x) as the ops epilogue fusion recognizes.
absl::StatusOr<ValueRef> EmitActivation(Graph& g, const Attrs& attrs, ValueRef x) {
  const std::string act = attrs.GetString("activation", "none");
  if (act == "none") return x;
  if (act == "relu") return g.Add(OpId::kRelu, {x});
  if (act == "sigmoid") return g.Add(OpId::kSigmoid, {x});
  if (act == "tanh") return g.Add(OpId::kTanh, {x});
  if (act == "gelu" || act == "gelu_tanh") {
    Attrs a;
    a.Set("approximate", AttrValue::String(act == "gelu" ? "none" : "tanh"));
    return g.Add(OpId::kGelu, {x}, a);
  }
  if (act == "clip") {
    absl::StatusOr<ValueRef> lo = g.Add(OpId::kMaximum, {x, Scalar(g, attrs.GetFloat("clip_min"))});
    if (!lo.ok()) return lo;
    return g.Add(OpId::kMinimum, {*lo, Scalar(g, attrs.GetFloat("clip_max"))});
  }
  if (act == "silu") {
    absl::StatusOr<ValueRef> s = g.Add(OpId::kSigmoid, {x});
    if (!s.ok()) return s;
    return g.Add(OpId::kMul, {x, *s});
  }
  if (act == "hard_sigmoid" || act == "hard_swish") {
    absl::StatusOr<ValueRef> v = g.Add(OpId::kMul, {x, Scalar(g, attrs.GetFloat("act_alpha"))});
    if (v.ok()) v = g.Add(OpId::kAdd, {*v, Scalar(g, attrs.GetFloat("act_beta"))});
    if (v.ok()) v = g.Add(OpId::kMinimum, {*v, Scalar(g, 1.0)});
    if (v.ok()) v = g.Add(OpId::kMaximum, {*v, Scalar(g, 0.0)});
    if (!v.ok() || act == "hard_sigmoid") return v;
    return g.Add(OpId::kMul, {x, *v});
  }
  return absl::UnimplementedError("unlowering: unknown fused activation '" + act + "'");
}

absl::StatusOr<ValueRef> Unlower(Graph& g, const Node& n, std::vector<ValueRef> in) {
  if (n.outputs[0].dtype != DType::kFloat32) return ValueRef{};
  const bool conv = n.op == OpId::kFusedConv2D;
  const bool packed =
      conv ? n.attrs.GetInt("packed_out_channels") != 0 : n.attrs.GetInt("packed_n") != 0;
  if (packed) {
    const ConstTensor* w = g.ConstantValue(in[1]);
    const bool narrow =
        (w && w->dtype != DType::kFloat32) || (!w && g.node(in[1].node).op == OpId::kCast);
    if (narrow) {  // tfn-quantize --fp16-weights / --bf16 made it
      return absl::InvalidArgumentError(
          "its weights are stored as float16 or bfloat16 (tfn-quantize --fp16-weights or "
          "--bf16): start from the float32 bundle instead");
    }
    if (!w || w->dtype != DType::kFloat32) {
      return absl::InvalidArgumentError("a packed weight that is not a float32 constant");
    }
    absl::StatusOr<ConstTensor> unpacked = UnpackedWeight(n, *w);
    if (!unpacked.ok()) return unpacked.status();
    in[1] = g.AddConstant(*std::move(unpacked));
  }
  const bool has_bias = in.size() > 2 && in[2].valid();
  absl::StatusOr<ValueRef> v;
  if (conv) {
    Attrs attrs;
    for (const char* name : {"dilations", "groups", "padding", "pads", "strides"}) {
      if (const AttrValue* a = n.attrs.Find(name)) attrs.Set(name, *a);
    }
    std::vector<ValueRef> conv_in = {in[0], in[1]};
    if (has_bias) conv_in.push_back(in[2]);  // conv2d's own bias input
    v = g.Add(OpId::kConv2D, conv_in, attrs);
  } else {
    Attrs attrs;
    attrs.Set("transpose_b", AttrValue::Int(packed ? 0 : n.attrs.GetInt("transpose_b")));
    v = g.Add(OpId::kMatMul, {in[0], in[1]}, attrs);
    if (v.ok() && has_bias) v = g.Add(OpId::kAdd, {*v, in[2]});
  }
  if (v.ok() && in.size() > 3 && in[3].valid()) v = g.Add(OpId::kAdd, {*v, in[3]});
  if (!v.ok()) return v;
  return EmitActivation(g, n.attrs, *v);
}

}  // namespace

absl::StatusOr<bool> UnlowerFusedOps(Graph& graph) {
  return RewriteNodes(graph, UnlowerFusedOps,
                      [](Rewriter& rw, const Node& n) -> absl::StatusOr<ValueRef> {
                        if (n.op != OpId::kFusedMatMul && n.op != OpId::kFusedConv2D) {
                          return ValueRef{};
                        }
                        return Unlower(rw.dst(), n, rw.MapAll(n.inputs));
                      });
}

}  // namespace tfn::ir
