// Reference kernels of qlinear_conv2d, qlinear_matmul, conv2d_integer and
// matmul_integer: one exact sum of (x - x_zero_point) * (w - w_zero_point)
// per output element, in int64 then wrapped to int32 (ONNX Runtime's
// accumulators wrap), plus the int32 bias; the qlinear ops then requantize
// in float32: round_half_even(float(acc) * multiplier) + y_zero_point,
// clamped to the output bounds (kernels/ref/qlinear.h). Convolution padding
// contributes nothing (as padding with x's zero point). The optimized
// kernels (kernels/opt/qlinear.cc) are tested against these bit for bit.
#include "kernels/ref/qlinear.h"

#include <string>
#include <vector>

#include "kernels/ref/ref_kernels.h"
#include "kernels/ref/tensor_util.h"

namespace tfn::kernels {
namespace {

int32_t ByteAt(const TfnTensor& t, int64_t e) {
  return t.dtype == static_cast<int32_t>(DType::kInt8) ? static_cast<const int8_t*>(t.data)[e]
                                                       : static_cast<const uint8_t*>(t.data)[e];
}

// Per-tensor (one element) or per-channel parameters; null: 0.
int32_t ZeroPointAt(const TfnTensor* zp, int64_t c) {
  if (!zp) return 0;
  return ByteAt(*zp, NumElementsOf(*zp) == 1 ? 0 : c);
}
float ScaleAt(const TfnTensor* s, int64_t c) {
  return static_cast<const float*>(s->data)[NumElementsOf(*s) == 1 ? 0 : c];
}

// Stores output element e of channel c from its exact sum.
struct Finisher {
  const QLinearParams& p;
  const QLinearOperands& q;
  const TfnTensor& y;
  int32_t qmin = 0, qmax = 0, y_zp = 0;

  Finisher(const QLinearParams& params, const QLinearOperands& ops, const TfnTensor& out)
      : p(params), q(ops), y(out) {
    if (!p.requantize) return;
    y_zp = ZeroPointAt(q.y_zero_point, 0);
    QuantizedOutputBounds(p, ScaleAt(q.y_scale, 0), y_zp,
                          y.dtype == static_cast<int32_t>(DType::kInt8), &qmin, &qmax);
  }

  void operator()(int64_t acc, int64_t c, int64_t e) const {
    auto acc32 = static_cast<int32_t>(static_cast<uint32_t>(acc));
    if (q.bias) {
      acc32 =
          static_cast<int32_t>(static_cast<uint32_t>(acc32) +
                               static_cast<uint32_t>(static_cast<const int32_t*>(q.bias->data)[c]));
    }
    if (!p.requantize) {
      static_cast<int32_t*>(y.data)[e] = acc32;
      return;
    }
    const float m =
        RequantMultiplier(ScaleAt(q.x_scale, 0), ScaleAt(q.w_scale, c), ScaleAt(q.y_scale, 0));
    const float r = __builtin_nearbyintf(static_cast<float>(acc32) * m);
    int64_t v = r != r ? qmax : r > 1e9f ? qmax : r < -1e9f ? qmin : static_cast<int64_t>(r) + y_zp;
    v = v < qmin ? qmin : v > qmax ? qmax : v;
    if (y.dtype == static_cast<int32_t>(DType::kInt8)) {
      static_cast<int8_t*>(y.data)[e] = static_cast<int8_t>(v);
    } else {
      static_cast<uint8_t*>(y.data)[e] = static_cast<uint8_t>(v);
    }
  }
};

int32_t RunConv(const QLinearParams& p, const QLinearOperands& q, const TfnTensor& y) {
  const TfnTensor& x = *q.x;
  const TfnTensor& f = *q.w;
  if (x.rank != 4 || f.rank != 4 || y.rank != 4 || p.conv.groups <= 0) return TFN_KERNEL_BAD_SHAPE;
  const int64_t batch = x.dims[0], in_h = x.dims[1], in_w = x.dims[2], in_c = x.dims[3];
  const int64_t* fd = f.dims;
  const int64_t packed_dims[4] = {p.packed_dims[0], p.packed_dims[1], p.packed_dims[2],
                                  p.packed_dims[3]};
  if (p.packed) fd = packed_dims;  // the HWIO shape of the prepacked filter
  const int64_t k_h = fd[0], k_w = fd[1], group_c = fd[2], out_c = fd[3];
  const int64_t out_h = y.dims[1], out_w = y.dims[2];
  if (group_c * p.conv.groups != in_c || out_c % p.conv.groups != 0 || y.dims[3] != out_c) {
    return TFN_KERNEL_BAD_SHAPE;
  }
  const int64_t out_per_group = out_c / p.conv.groups;
  const int64_t pad_t =
      Conv2DPadBefore(p.conv, 0, in_h, out_h, (k_h - 1) * p.conv.dilations[0] + 1);
  const int64_t pad_l =
      Conv2DPadBefore(p.conv, 1, in_w, out_w, (k_w - 1) * p.conv.dilations[1] + 1);
  const int32_t x_zp = ZeroPointAt(q.x_zero_point, 0);
  const int32_t zp_shift = PackedZeroPointShift(p, q.w_zero_point);
  const Finisher finish(p, q, y);
  for (int64_t n = 0; n < batch; ++n) {
    for (int64_t oh = 0; oh < out_h; ++oh) {
      for (int64_t ow = 0; ow < out_w; ++ow) {
        for (int64_t oc = 0; oc < out_c; ++oc) {
          const int64_t first_c = oc / out_per_group * group_c;
          const int32_t w_zp = ZeroPointAt(q.w_zero_point, oc) + zp_shift;
          int64_t acc = 0;
          for (int64_t kh = 0; kh < k_h; ++kh) {
            const int64_t ih = oh * p.conv.strides[0] - pad_t + kh * p.conv.dilations[0];
            if (ih < 0 || ih >= in_h) continue;
            for (int64_t kw = 0; kw < k_w; ++kw) {
              const int64_t iw = ow * p.conv.strides[1] - pad_l + kw * p.conv.dilations[1];
              if (iw < 0 || iw >= in_w) continue;
              for (int64_t ci = 0; ci < group_c; ++ci) {
                const int64_t xv = ByteAt(x, ((n * in_h + ih) * in_w + iw) * in_c + first_c + ci);
                const int64_t k = (kh * k_w + kw) * group_c + ci;
                const int64_t fv = p.packed
                                       ? PackedInt8At(f.data, k_h * k_w * group_c, out_per_group,
                                                      oc / out_per_group, k, oc % out_per_group)
                                       : ByteAt(f, k * out_c + oc);
                acc += (xv - x_zp) * (fv - w_zp);
              }
            }
          }
          finish(acc, oc, ((n * out_h + oh) * out_w + ow) * out_c + oc);
        }
      }
    }
  }
  return TFN_KERNEL_OK;
}

int32_t RunMatMul(const QLinearParams& p, const QLinearOperands& q, const TfnTensor& y) {
  const TfnTensor& a = *q.x;
  const TfnTensor& b = *q.w;
  if (a.rank < 2 || b.rank < 2 || y.rank < 2) return TFN_KERNEL_BAD_SHAPE;
  const int64_t m = a.dims[a.rank - 2], k = a.dims[a.rank - 1];
  // A prepacked b is one [K, N] matrix (packed_dims).
  const int64_t n = p.packed ? p.packed_dims[1] : b.dims[b.rank - 1];
  const int64_t kb = p.packed ? p.packed_dims[0] : b.dims[b.rank - 2];
  if (kb != k || y.dims[y.rank - 2] != m || y.dims[y.rank - 1] != n) return TFN_KERNEL_BAD_SHAPE;
  TfnTensor b_logical = b;
  if (p.packed) {
    b_logical.rank = 2;
    b_logical.dims[0] = k;
    b_logical.dims[1] = n;
  }
  const int32_t zp_shift = PackedZeroPointShift(p, q.w_zero_point);
  const bool a_zp_per_row = q.x_zero_point && NumElementsOf(*q.x_zero_point) > 1;
  TfnTensor y_batch = MatrixBatchDims(y);
  int64_t sa[TFN_KERNEL_MAX_RANK], sb[TFN_KERNEL_MAX_RANK];
  BroadcastStrides(MatrixBatchDims(a), y_batch.rank, sa);
  BroadcastStrides(MatrixBatchDims(b_logical), y_batch.rank, sb);
  const Finisher finish(p, q, y);
  for (int64_t batch = 0; batch < NumElementsOf(y_batch); ++batch) {
    const int64_t a0 = OffsetAt(batch, y_batch, sa) * m * k;
    const int64_t b0 = OffsetAt(batch, y_batch, sb) * k * n;
    for (int64_t i = 0; i < m; ++i) {
      const int32_t a_zp = ZeroPointAt(q.x_zero_point, a_zp_per_row ? i : 0);
      for (int64_t j = 0; j < n; ++j) {
        const int32_t b_zp = ZeroPointAt(q.w_zero_point, j) + zp_shift;
        int64_t acc = 0;
        for (int64_t t = 0; t < k; ++t) {
          const int64_t bv =
              p.packed ? PackedInt8At(b.data, k, n, 0, t, j) : ByteAt(b, b0 + t * n + j);
          acc += (int64_t{ByteAt(a, a0 + i * k + t)} - a_zp) * (bv - b_zp);
        }
        finish(acc, j, (batch * m + i) * n + j);
      }
    }
  }
  return TFN_KERNEL_OK;
}

}  // namespace

TFN_KERNEL(tfn_ref_qlinear) {
  const auto& p = *static_cast<const QLinearParams*>(params);
  const QLinearOperands q = QLinearOperandsOf(p, inputs, num_inputs);
  return p.is_conv ? RunConv(p, q, outputs[0]) : RunMatMul(p, q, outputs[0]);
}

Status DecodeQLinearParams(const NodeSignature& node, QLinearParams* p) {
  p->is_conv = node.op == OpId::kQLinearConv2D || node.op == OpId::kConv2DInteger;
  p->requantize = node.op == OpId::kQLinearConv2D || node.op == OpId::kQLinearMatMul;
  if (p->is_conv) TFN_RETURN_IF_ERROR(DecodeConv2DParams(node, &p->conv));
  p->act = kActNone;
  if (p->requantize) {
    const std::string act = node.attrs->GetString("activation");  // checked by the shape rule
    p->act = act == "relu" ? kActRelu : act == "clip" ? kActClip : kActNone;
    p->clip_min = static_cast<float>(node.attrs->GetFloat("clip_min"));
    p->clip_max = static_cast<float>(node.attrs->GetFloat("clip_max"));
    // Prepacked weights: their logical shape (checked by the shape rule).
    const std::vector<int64_t> dims =
        node.attrs->GetInts(p->is_conv ? "packed_filter" : "packed_b");
    p->packed = !dims.empty();
    for (size_t i = 0; i < dims.size() && i < 4; ++i)
      p->packed_dims[i] = static_cast<int32_t>(dims[i]);
  }
  return Status::Ok();
}

Status PrepareQLinear(const NodeSignature& node, KernelPlan* plan) {
  TFN_RETURN_IF_ERROR(DecodeQLinearParams(node, plan->As<QLinearParams>()));
  plan->fn = tfn_ref_qlinear;
  plan->symbol = "tfn_ref_qlinear";
  return Status::Ok();
}

}  // namespace tfn::kernels
