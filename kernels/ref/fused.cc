// Reference kernels of fused_matmul and fused_conv2d (core/rules/rules_fused.h):
// the oracle for the optimized kernels and what the fusion passes must
// preserve. Each rounds like the chain of ops it replaces: the product (or
// the convolution with its bias, as conv2d does) is summed in double and
// rounded to T; then, in T, + bias (matmul), + residual, and the activation
// with the scalar semantics of the elementwise reference kernels (relu and
// clip pass NaN). A prepacked b / filter is read through its panel layout
// (kernels/opt/gemm.h: b(k, j) at ((j/32) * K + k) * 32 + j%32). A Winograd
// filter (U = G g G^T) is used as such: each 2x2 output tile is
// A^T [sum over input channels of U (.) B^T d B] A, in double.
#include <cmath>
#include <string>

#include "core/fused_activation.h"
#include "core/half.h"
#include "kernels/ref/ref_kernels.h"
#include "kernels/ref/scalar_ops.h"
#include "kernels/ref/tensor_util.h"

namespace tfn::kernels {
namespace {

// The hard sigmoid as ONNX's HardSigmoid expands: mul, add, minimum, maximum.
template <class T>
T HardSigmoid(T v, float alpha, float beta) {
  T t = v * static_cast<T>(alpha);
  t = t + static_cast<T>(beta);
  // minimum(t, 1) then maximum(., 0): NaN passes, and -0 becomes +0 as
  // maximum(-0, 0) gives.
  t = t > T(1) ? T(1) : t;
  return t <= T(0) ? T(0) : t;
}

// lo/hi: clip's bounds; alpha/beta: the hard sigmoid's.
template <class T>
T Activate(T v, int32_t act, float lo, float hi, float alpha, float beta) {
  switch (act) {
    case kActRelu:
      return ApplyUnary(OpId::kRelu, v, false);
    case kActClip:
      if (std::isnan(v)) return v;
      v = v < static_cast<T>(lo) ? static_cast<T>(lo) : v;
      return v > static_cast<T>(hi) ? static_cast<T>(hi) : v;
    case kActSigmoid:
      return ApplyUnary(OpId::kSigmoid, v, false);
    case kActTanh:
      return ApplyUnary(OpId::kTanh, v, false);
    case kActGelu:
      return ApplyUnary(OpId::kGelu, v, false);
    case kActGeluTanh:
      return ApplyUnary(OpId::kGelu, v, true);
    case kActHardSigmoid:
    case kActHardSwish: {
      const T h = HardSigmoid(v, alpha, beta);
      return act == kActHardSwish ? v * h : h;
    }
    case kActSilu:
      return v * ApplyUnary(OpId::kSigmoid, v, false);
    default:
      return v;
  }
}

// Offset of b(k, j) in a packed matrix of depth K.
inline int64_t PackedAt(int64_t K, int64_t k, int64_t j) {
  return ((j / 32) * K + k) * 32 + j % 32;
}

Status ParseActivation(const NodeSignature& node, int32_t* act) {
  const std::string a = node.attrs->GetString("activation");
  *act = FusedActivationIndex(a);
  if (*act >= 0) return Status::Ok();
  return InvalidArgument("fused op: unknown activation '" + a + "'");
}

}  // namespace

TFN_KERNEL(tfn_ref_fused_matmul) {
  const auto& p = *static_cast<const FusedMatMulParams*>(params);
  const TfnTensor& a = inputs[0];
  const TfnTensor& b = inputs[1];
  const TfnTensor& y = outputs[0];
  if (a.rank < 2 || y.rank != a.rank || num_inputs < 2 + p.has_bias + p.has_residual) {
    return TFN_KERNEL_BAD_SHAPE;
  }
  const int64_t K = a.dims[a.rank - 1];
  int64_t M = 1;  // a's leading dims are rows
  for (int i = 0; i + 1 < a.rank; ++i) M *= a.dims[i];
  const int64_t N = y.dims[y.rank - 1];
  // A bfloat16 b: a rounded to bfloat16; packed, [ceil(N/32), ceil(K/2), 64]
  // with depth pairs side by side (core/packed_layout.h).
  // (The shape rule, core/rules/rules_fused.h, checked the dtypes and b's last dim.)
  const bool bf16 = b.dtype == static_cast<int32_t>(DType::kBFloat16);
  if (p.packed_n > 0) {
    if (b.rank != 3 || b.dims[1] != (bf16 ? (K + 1) / 2 : K) || N != p.packed_n ||
        b.dims[0] != (N + 31) / 32) {
      return TFN_KERNEL_BAD_SHAPE;
    }
  } else if (b.rank != 2 || b.dims[p.transpose_b ? 1 : 0] != K ||
             b.dims[p.transpose_b ? 0 : 1] != N) {
    return TFN_KERNEL_BAD_SHAPE;
  }
  if (p.has_bias && NumElementsOf(inputs[2]) != N) return TFN_KERNEL_BAD_SHAPE;
  if (p.has_residual && NumElementsOf(inputs[2 + p.has_bias]) != M * N) return TFN_KERNEL_BAD_SHAPE;
  return DispatchDType(a.dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (!kIsFloat<T>) {
      return TFN_KERNEL_UNSUPPORTED;
    } else {
      const T* as = DataOf<T>(a);
      const T* bs = DataOf<T>(b);
      const auto* bh = DataOf<uint16_t>(b);
      const T* bias = p.has_bias ? DataOf<T>(inputs[2]) : nullptr;
      const T* res = p.has_residual ? DataOf<T>(inputs[2 + p.has_bias]) : nullptr;
      T* ys = DataOf<T>(y);
      for (int64_t i = 0; i < M; ++i) {
        for (int64_t j = 0; j < N; ++j) {
          double acc = 0;
          for (int64_t k = 0; k < K; ++k) {
            // (bfloat16: core/packed_layout.h's Bf16PackedOffset, written
            // through PackedAt, which is smaller code in the minimal runtime.)
            const int64_t at = p.packed_n > 0  ? (bf16 ? PackedAt((K + 1) / 2, k / 2, j) * 2 + k % 2
                                                       : PackedAt(K, k, j))
                               : p.transpose_b ? j * K + k
                                               : k * N + j;
            double av = as[i * K + k];
            if (bf16) av = BFloat16BitsToFloat(FloatToBFloat16Bits(static_cast<float>(av)));
            acc += av * (bf16 ? BFloat16BitsToFloat(bh[at]) : static_cast<double>(bs[at]));
          }
          T v = static_cast<T>(acc);
          if (bias) v = v + bias[j];
          if (res) v = v + res[i * N + j];
          ys[i * N + j] =
              Activate(v, p.activation, p.clip_min, p.clip_max, p.act_alpha, p.act_beta);
        }
      }
      return TFN_KERNEL_OK;
    }
  });
}

namespace {

// Winograd F(2x2, 3x3) with the transformed filter u ([16][ceil(Cout/32)][Cin][32]).
template <class T>
void WinogradRef(const T* xs, const T* us, const T* bias, const T* res, T* ys, int64_t batch,
                 int64_t in_h, int64_t in_w, int64_t in_c, int64_t out_h, int64_t out_w,
                 int64_t out_c, int64_t pad_t, int64_t pad_l, const FusedConv2DParams& fp) {
  const int64_t panels = (out_c + 31) / 32;
  auto u = [&](int xi, int64_t ci, int64_t co) {
    return static_cast<double>(us[((xi * panels + co / 32) * in_c + ci) * 32 + co % 32]);
  };
  for (int64_t n = 0; n < batch; ++n) {
    for (int64_t th = 0; th < (out_h + 1) / 2; ++th) {
      for (int64_t tw = 0; tw < (out_w + 1) / 2; ++tw) {
        for (int64_t co = 0; co < out_c; ++co) {
          double m[16] = {};
          for (int64_t ci = 0; ci < in_c; ++ci) {
            double d[4][4], t[4][4];
            for (int r = 0; r < 4; ++r) {
              for (int c = 0; c < 4; ++c) {
                const int64_t ih = 2 * th - pad_t + r, iw = 2 * tw - pad_l + c;
                const bool in = ih >= 0 && ih < in_h && iw >= 0 && iw < in_w;
                d[r][c] =
                    in ? static_cast<double>(xs[((n * in_h + ih) * in_w + iw) * in_c + ci]) : 0;
              }
            }
            for (int c = 0; c < 4; ++c) {  // B^T d
              t[0][c] = d[0][c] - d[2][c];
              t[1][c] = d[1][c] + d[2][c];
              t[2][c] = d[2][c] - d[1][c];
              t[3][c] = d[1][c] - d[3][c];
            }
            for (int r = 0; r < 4; ++r) {  // (B^T d) B, times U
              const double v[4] = {t[r][0] - t[r][2], t[r][1] + t[r][2], t[r][2] - t[r][1],
                                   t[r][1] - t[r][3]};
              for (int c = 0; c < 4; ++c) m[4 * r + c] += v[c] * u(4 * r + c, ci, co);
            }
          }
          double s[2][4];  // A^T M
          for (int c = 0; c < 4; ++c) {
            s[0][c] = m[c] + m[4 + c] + m[8 + c];
            s[1][c] = m[4 + c] - m[8 + c] - m[12 + c];
          }
          for (int r = 0; r < 2; ++r) {
            const double y2[2] = {s[r][0] + s[r][1] + s[r][2], s[r][1] - s[r][2] - s[r][3]};
            for (int c = 0; c < 2; ++c) {
              const int64_t oh = 2 * th + r, ow = 2 * tw + c;
              if (oh >= out_h || ow >= out_w) continue;
              const int64_t at = ((n * out_h + oh) * out_w + ow) * out_c + co;
              T v = static_cast<T>(y2[c] + (bias ? static_cast<double>(bias[co]) : 0.0));
              if (res) v = v + res[at];
              ys[at] =
                  Activate(v, fp.activation, fp.clip_min, fp.clip_max, fp.act_alpha, fp.act_beta);
            }
          }
        }
      }
    }
  }
}

}  // namespace

TFN_KERNEL(tfn_ref_fused_conv2d) {
  const auto& fp = *static_cast<const FusedConv2DParams*>(params);
  const Conv2DParams& p = fp.conv;
  const TfnTensor& x = inputs[0];
  const TfnTensor& f = inputs[1];
  const TfnTensor& y = outputs[0];
  if (x.rank != 4 || y.rank != 4 || p.groups <= 0) return TFN_KERNEL_BAD_SHAPE;
  const int64_t batch = x.dims[0], in_h = x.dims[1], in_w = x.dims[2], in_c = x.dims[3];
  const bool packed = fp.packed_out_channels > 0, wino = fp.winograd != 0;
  if (f.rank != (packed && !wino ? 6 : 4) || (wino && (!packed || p.groups != 1))) {
    return TFN_KERNEL_BAD_SHAPE;
  }
  const int64_t k_h = wino ? 3 : f.dims[packed ? 2 : 0], k_w = wino ? 3 : f.dims[packed ? 3 : 1];
  const int64_t group_c = f.dims[wino ? 2 : packed ? 4 : 2];
  const int64_t out_c = packed ? fp.packed_out_channels : f.dims[3];
  const int64_t out_h = y.dims[1], out_w = y.dims[2];
  const int bias_at = p.has_bias ? 2 : -1, res_at = fp.has_residual ? 2 + p.has_bias : -1;
  if (group_c * p.groups != in_c || out_c % p.groups != 0 || y.dims[0] != batch ||
      y.dims[3] != out_c || num_inputs <= (res_at > bias_at ? res_at : bias_at) ||
      (bias_at >= 0 && NumElementsOf(inputs[bias_at]) != out_c) ||
      (res_at >= 0 && NumElementsOf(inputs[res_at]) != NumElementsOf(y))) {
    return TFN_KERNEL_BAD_SHAPE;
  }
  const int64_t out_per_group = out_c / p.groups;
  const int64_t depth = k_h * k_w * group_c, panels = (out_per_group + 31) / 32;
  auto pad_before = [&](int64_t in, int64_t out, int64_t window, int64_t stride, int64_t given) {
    if (p.padding == 2) return given;
    if (p.padding == 0) return int64_t{0};
    const int64_t total = (out - 1) * stride + window - in;
    return total < 0 ? int64_t{0} : total / 2;
  };
  const int64_t pad_t =
      pad_before(in_h, out_h, (k_h - 1) * p.dilations[0] + 1, p.strides[0], p.pads[0]);
  const int64_t pad_l =
      pad_before(in_w, out_w, (k_w - 1) * p.dilations[1] + 1, p.strides[1], p.pads[2]);
  return DispatchDType(x.dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (!kIsFloat<T>) {
      return TFN_KERNEL_UNSUPPORTED;
    } else {
      const T* xs = DataOf<T>(x);
      const T* fs = DataOf<T>(f);
      const T* bias = bias_at >= 0 ? DataOf<T>(inputs[bias_at]) : nullptr;
      const T* res = res_at >= 0 ? DataOf<T>(inputs[res_at]) : nullptr;
      T* ys = DataOf<T>(y);
      if (wino) {
        WinogradRef(xs, fs, bias, res, ys, batch, in_h, in_w, in_c, out_h, out_w, out_c, pad_t,
                    pad_l, fp);
        return TFN_KERNEL_OK;
      }
      for (int64_t n = 0; n < batch; ++n) {
        for (int64_t oh = 0; oh < out_h; ++oh) {
          for (int64_t ow = 0; ow < out_w; ++ow) {
            for (int64_t oc = 0; oc < out_c; ++oc) {
              const int64_t g = oc / out_per_group, j = oc % out_per_group;
              double acc = 0;
              for (int64_t kh = 0; kh < k_h; ++kh) {
                const int64_t ih = oh * p.strides[0] - pad_t + kh * p.dilations[0];
                if (ih < 0 || ih >= in_h) continue;
                for (int64_t kw = 0; kw < k_w; ++kw) {
                  const int64_t iw = ow * p.strides[1] - pad_l + kw * p.dilations[1];
                  if (iw < 0 || iw >= in_w) continue;
                  for (int64_t ci = 0; ci < group_c; ++ci) {
                    const int64_t k = (kh * k_w + kw) * group_c + ci;
                    const double fv = packed ? fs[g * panels * depth * 32 + PackedAt(depth, k, j)]
                                             : fs[k * out_c + oc];
                    acc += static_cast<double>(
                               xs[((n * in_h + ih) * in_w + iw) * in_c + g * group_c + ci]) *
                           fv;
                  }
                }
              }
              if (bias) acc += bias[oc];
              const int64_t at = ((n * out_h + oh) * out_w + ow) * out_c + oc;
              T v = static_cast<T>(acc);
              if (res) v = v + res[at];
              ys[at] =
                  Activate(v, fp.activation, fp.clip_min, fp.clip_max, fp.act_alpha, fp.act_beta);
            }
          }
        }
      }
      return TFN_KERNEL_OK;
    }
  });
}

Status PrepareFused(const NodeSignature& node, KernelPlan* plan) {
  int32_t act = kActNone;
  TFN_RETURN_IF_ERROR(ParseActivation(node, &act));
  const float lo = static_cast<float>(node.attrs->GetFloat("clip_min"));
  const float hi = static_cast<float>(node.attrs->GetFloat("clip_max"));
  const float alpha = static_cast<float>(node.attrs->GetFloat("act_alpha"));
  const float beta = static_cast<float>(node.attrs->GetFloat("act_beta"));
  if (node.op == OpId::kFusedMatMul) {
    auto* p = plan->As<FusedMatMulParams>();
    p->transpose_b = node.attrs->GetInt("transpose_b") != 0;
    p->packed_n = static_cast<int32_t>(node.attrs->GetInt("packed_n"));
    p->activation = act;
    p->has_bias = node.num_inputs > 2;
    p->has_residual = node.num_inputs > 3;
    p->clip_min = lo;
    p->clip_max = hi;
    p->act_alpha = alpha;
    p->act_beta = beta;
    plan->fn = tfn_ref_fused_matmul;
    plan->symbol = "tfn_ref_fused_matmul";
    return Status::Ok();
  }
  // The convolution attributes decode exactly as conv2d's.
  NodeSignature conv = node;
  conv.op = OpId::kConv2D;
  conv.num_inputs = node.num_inputs > 3 ? 3 : node.num_inputs;
  KernelPlan conv_plan;
  TFN_RETURN_IF_ERROR(PrepareConv(conv, &conv_plan));
  const Conv2DParams cp = conv_plan.Get<Conv2DParams>();
  auto* p = plan->As<FusedConv2DParams>();
  p->conv = cp;
  p->activation = act;
  p->has_residual = node.num_inputs > 3;
  p->packed_out_channels = static_cast<int32_t>(node.attrs->GetInt("packed_out_channels"));
  p->clip_min = lo;
  p->clip_max = hi;
  p->act_alpha = alpha;
  p->act_beta = beta;
  p->winograd = node.attrs->GetInt("winograd") != 0;
  plan->fn = tfn_ref_fused_conv2d;
  plan->symbol = "tfn_ref_fused_conv2d";
  return Status::Ok();
}

}  // namespace tfn::kernels
