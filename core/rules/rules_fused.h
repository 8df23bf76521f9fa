// Shape rules of the fused ops made by ir/passes/fuse_epilogue and
// ir/passes/prepack_weights for the optimized kernels:
//
//   fused_matmul(a, b[, bias[, residual]]) = act(a . b + bias + residual)
//     a [..., M, K] (no transpose); b [K, N], [N, K] with transpose_b, or
//     prepacked (packed_n = N > 0): [ceil(N/32), K, 32] in the GEMM's panel
//     layout (kernels/opt/gemm.h); bias [N]; residual the output's shape;
//     output [..., M, N]. b may be bfloat16 when a is float32: a is then
//     rounded to bfloat16 and the products summed in float32, and a
//     prepacked b is [ceil(N/32), ceil(K/2), 64] (core/packed_layout.h's
//     bfloat16 panels).
//   fused_conv2d(input, filter[, bias[, residual]]) = act(conv2d + bias + residual)
//     conv2d's attributes and shapes; with packed_out_channels = Cout > 0
//     the filter is prepacked per group: [groups, ceil(Cout/groups/32), KH,
//     KW, Cin/groups, 32] (each group's [K = KH*KW*Cin/groups, Cout/groups]
//     matrix in the panel layout); with winograd=1 as well (3x3, stride 1,
//     no dilation, groups 1) the filter is Winograd F(2x2, 3x3)'s
//     U = G g G^T, one [Cin, Cout] matrix per position xi = 4i + j of the
//     4x4 transformed tile, each in the panel layout: [16, ceil(Cout/32), Cin, 32].
//
// activation: "none", "relu", "clip" (min(max(v, clip_min), clip_max)),
// "sigmoid", "tanh", "gelu" (erf form), "gelu_tanh", "hard_sigmoid"
// (max(min(v * act_alpha + act_beta, 1), 0)), "hard_swish" (v * hard_sigmoid(v)),
// "silu" (v * sigmoid(v)).
#pragma once

#include <string>

#include "core/fused_activation.h"
#include "core/rules/rules_nn.h"

namespace tfn::rules {

// Checks activation, bias [n] (input 2) and residual (input 3, shaped `out`).
template <class D>
Status FusedEpilogueInputs(const InferContext<D>& c, const D& n, const ShapeT<D>& out) {
  const std::string act = c.attrs->GetString("activation");
  if (FusedActivationIndex(act) < 0) {
    // (The names are listed in core/fused_activation.h; the minimal runtime
    // has no room for a copy of the list here.)
    return c.Error("unknown activation '" + act + "' (see core/fused_activation.h)");
  }
  if (c.num_inputs > 2) {
    const ShapeT<D>& b = c.in(2);
    if (b.rank() != 1 || KnownNotEqual(b[0], n)) {
      return c.Errorf("bias must be [%s], got %s", DimToString(n).c_str(), c.TypeStr(2).c_str());
    }
  }
  if (c.num_inputs > 3) {
    const ShapeT<D>& r = c.in(3);
    bool same = r.rank() == out.rank();
    for (int i = 0; same && i < r.rank(); ++i) same = !KnownNotEqual(r[i], out[i]);
    if (!same)
      return c.Errorf("residual must have the output's shape, got %s", c.TypeStr(3).c_str());
  }
  return Status::Ok();
}

template <class D>
Status InferFusedMatMul(InferContext<D>& c) {
  const ShapeT<D>& a = c.in(0);
  const ShapeT<D>& b = c.in(1);
  if (a.rank() < 2) return c.Errorf("a must have rank >= 2, got %s", c.TypeStr(0).c_str());
  const int64_t packed_n = c.attrs->GetInt("packed_n");
  const bool tb = c.attrs->GetInt("transpose_b") != 0;
  const bool bf16 = c.type(1) == DType::kBFloat16;
  if (c.type(1) != c.type(0) && !(bf16 && c.type(0) == DType::kFloat32)) {
    return c.Error("b must have a's dtype, or be bfloat16 with a float32 a");
  }
  D k, n;
  if (packed_n > 0) {
    const int64_t width = bf16 ? 64 : 32;
    if (b.rank() != 3 || KnownNotEqual(b[0], D((packed_n + 31) / 32)) ||
        KnownNotEqual(b[2], D(width))) {
      // (bfloat16's K here counts depth pairs.)
      return c.Errorf("a prepacked b for packed_n=%lld must be [%lld, K, %lld], got %s",
                      static_cast<long long>(packed_n),
                      static_cast<long long>((packed_n + 31) / 32), static_cast<long long>(width),
                      c.TypeStr(1).c_str());
    }
    k = b[1];
    n = D(packed_n);
    // bfloat16 panels hold ceil(K/2) depth pairs (else: "inner dimensions differ").
    const D& ak = a[a.rank() - 1];
    if (bf16 && IsKnown(ak) && IsKnown(k) && (KnownValue(ak) + 1) / 2 == KnownValue(k)) k = ak;
  } else {
    if (b.rank() != 2) return c.Errorf("b must be a matrix, got %s", c.TypeStr(1).c_str());
    k = tb ? b[1] : b[0];
    n = tb ? b[0] : b[1];
  }
  if (KnownNotEqual(a[a.rank() - 1], k)) {
    return c.Errorf("inner dimensions differ: a is %s, b is %s", c.TypeStr(0).c_str(),
                    c.TypeStr(1).c_str());
  }
  ShapeT<D> out(a.begin(), a.end() - 1);
  out.push_back(n);
  TFN_RETURN_IF_ERROR(FusedEpilogueInputs(c, n, out));
  c.out(0) = out;
  return Status::Ok();
}

template <class D>
Status InferFusedConv2D(InferContext<D>& c) {
  const ShapeT<D>& x = c.in(0);
  const ShapeT<D>& f = c.in(1);
  if (x.rank() != 4) return c.Errorf("input must be NHWC (rank 4), got %s", c.TypeStr(0).c_str());
  int64_t strides[2], dilations[2], pads[4];
  std::string padding;
  TFN_RETURN_IF_ERROR(Pair(c, "strides", 1, strides));
  TFN_RETURN_IF_ERROR(Pair(c, "dilations", 1, dilations));
  TFN_RETURN_IF_ERROR(Padding(c, &padding, pads));
  const int64_t groups = c.attrs->GetInt("groups");
  if (groups <= 0)
    return c.Errorf("groups must be positive, got %lld", static_cast<long long>(groups));
  const int64_t packed = c.attrs->GetInt("packed_out_channels");
  D kh, kw, cg, cout;
  if (c.attrs->GetInt("winograd") != 0) {
    if (packed <= 0 || groups != 1 || strides[0] != 1 || strides[1] != 1 || dilations[0] != 1 ||
        dilations[1] != 1) {
      return c.Error("winograd=1 needs packed_out_channels, groups 1, strides and dilations 1");
    }
    if (f.rank() != 4 || KnownNotEqual(f[0], D(16)) || KnownNotEqual(f[1], D((packed + 31) / 32)) ||
        KnownNotEqual(f[3], D(32))) {
      return c.Errorf(
          "a Winograd filter for packed_out_channels=%lld must be [16, %lld, Cin, 32], got %s",
          static_cast<long long>(packed), static_cast<long long>((packed + 31) / 32),
          c.TypeStr(1).c_str());
    }
    kh = D(3), kw = D(3), cg = f[2], cout = D(packed);
  } else if (packed > 0) {
    const int64_t panels = (packed / groups + 31) / 32;
    if (packed % groups != 0 || f.rank() != 6 || KnownNotEqual(f[0], D(groups)) ||
        KnownNotEqual(f[1], D(panels)) || KnownNotEqual(f[5], D(32))) {
      return c.Errorf(
          "a prepacked filter for packed_out_channels=%lld must be [%lld, %lld, KH, KW, "
          "Cin/groups, 32], got %s",
          static_cast<long long>(packed), static_cast<long long>(groups),
          static_cast<long long>(panels), c.TypeStr(1).c_str());
    }
    kh = f[2], kw = f[3], cg = f[4], cout = D(packed);
  } else {
    if (f.rank() != 4) {
      return c.Errorf("filter must be [height, width, in_channels/groups, out_channels], got %s",
                      c.TypeStr(1).c_str());
    }
    kh = f[0], kw = f[1], cg = f[2], cout = f[3];
  }
  if (!IsKnown(kh) || !IsKnown(kw)) return c.Error("the filter's spatial size must be static");
  if (KnownNotEqual(cg * D(groups), x[3])) {
    return c.Errorf("filter %s expects %s x %lld (groups) input channels, input is %s",
                    c.TypeStr(1).c_str(), DimToString(cg).c_str(), static_cast<long long>(groups),
                    c.TypeStr(0).c_str());
  }
  if (IsKnown(cout) && KnownValue(cout) % groups != 0) {
    return c.Errorf("output channels %s are not divisible by groups %lld",
                    DimToString(cout).c_str(), static_cast<long long>(groups));
  }
  ShapeT<D> out{x[0], D(0), D(0), cout};
  const int64_t window[2] = {KnownValue(kh), KnownValue(kw)};
  for (int i = 0; i < 2; ++i) {
    TFN_RETURN_IF_ERROR(WindowOutput(c, x[1 + i], (window[i] - 1) * dilations[i] + 1, strides[i],
                                     pads[2 * i], pads[2 * i + 1], padding, &out[1 + i]));
  }
  TFN_RETURN_IF_ERROR(FusedEpilogueInputs(c, cout, out));
  c.out(0) = out;
  return Status::Ok();
}

}  // namespace tfn::rules
