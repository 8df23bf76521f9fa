// Reference kernels of conv2d, max_pool2d and avg_pool2d (NHWC input, HWIO
// filter): direct loops over every output element and its window, summing
// in double. The optimized convolution kernels are tested against these.
//
// Padding follows the shape rules (core/rules/rules_nn.h): VALID none,
// EXPLICIT the given {top, bottom, left, right}, SAME TensorFlow's rule:
// pad_total = max((out - 1) * stride + window - in, 0) with the smaller half
// before (top/left) and the extra cell after. Padded cells are zeros for
// conv2d, ignored by max_pool2d (a NaN in the window makes the result NaN)
// and, for avg_pool2d, left out of the divisor unless count_include_pad.
// Pool windows may be dilated; with ceil_mode the last window can hang over
// the padded input, and those cells count for nothing (not even with
// count_include_pad), as in PyTorch and onnxruntime.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "kernels/ref/ref_kernels.h"
#include "kernels/ref/scalar_ops.h"
#include "kernels/ref/tensor_util.h"

namespace tfn::kernels {
namespace {

enum PaddingMode : int32_t { kValid = 0, kSame = 1, kExplicit = 2 };

struct DimPadding {
  int64_t before, after;
};

// Padding of one spatial dim for an input of size `in`, an output of size
// `out` and a window spanning `window` input cells.
DimPadding ResolvePadding(int32_t mode, int64_t in, int64_t out, int64_t window, int64_t stride,
                          int64_t explicit_before, int64_t explicit_after) {
  if (mode == kExplicit) return {explicit_before, explicit_after};
  if (mode == kValid) return {0, 0};
  int64_t total = (out - 1) * stride + window - in;
  if (total < 0) total = 0;
  return {total / 2, total - total / 2};
}

}  // namespace

TFN_KERNEL(tfn_ref_conv2d) {
  const auto& p = *static_cast<const Conv2DParams*>(params);
  const TfnTensor& x = inputs[0];
  const TfnTensor& f = inputs[1];
  const TfnTensor& y = outputs[0];
  if (x.rank != 4 || f.rank != 4 || y.rank != 4 || p.groups <= 0) return TFN_KERNEL_BAD_SHAPE;
  const int64_t batch = x.dims[0], in_h = x.dims[1], in_w = x.dims[2], in_c = x.dims[3];
  const int64_t k_h = f.dims[0], k_w = f.dims[1], group_c = f.dims[2], out_c = f.dims[3];
  const int64_t out_h = y.dims[1], out_w = y.dims[2];
  if (group_c * p.groups != in_c || out_c % p.groups != 0 || y.dims[0] != batch ||
      y.dims[3] != out_c || (p.has_bias && (num_inputs < 3 || NumElementsOf(inputs[2]) != out_c))) {
    return TFN_KERNEL_BAD_SHAPE;
  }
  const int64_t out_per_group = out_c / p.groups;
  const DimPadding pad_h = ResolvePadding(p.padding, in_h, out_h, (k_h - 1) * p.dilations[0] + 1,
                                          p.strides[0], p.pads[0], p.pads[1]);
  const DimPadding pad_w = ResolvePadding(p.padding, in_w, out_w, (k_w - 1) * p.dilations[1] + 1,
                                          p.strides[1], p.pads[2], p.pads[3]);
  return DispatchDType(x.dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (!kIsFloat<T>) {
      return TFN_KERNEL_UNSUPPORTED;
    } else {
      const T* xs = DataOf<T>(x);
      const T* fs = DataOf<T>(f);
      const T* bias = p.has_bias ? DataOf<T>(inputs[2]) : nullptr;
      T* ys = DataOf<T>(y);
      for (int64_t n = 0; n < batch; ++n) {
        for (int64_t oh = 0; oh < out_h; ++oh) {
          for (int64_t ow = 0; ow < out_w; ++ow) {
            for (int64_t oc = 0; oc < out_c; ++oc) {
              const int64_t first_c = oc / out_per_group * group_c;  // the group's input channels
              double acc = 0;
              for (int64_t kh = 0; kh < k_h; ++kh) {
                const int64_t ih = oh * p.strides[0] - pad_h.before + kh * p.dilations[0];
                if (ih < 0 || ih >= in_h) continue;
                for (int64_t kw = 0; kw < k_w; ++kw) {
                  const int64_t iw = ow * p.strides[1] - pad_w.before + kw * p.dilations[1];
                  if (iw < 0 || iw >= in_w) continue;
                  for (int64_t ci = 0; ci < group_c; ++ci) {
                    const double xv = xs[((n * in_h + ih) * in_w + iw) * in_c + first_c + ci];
                    const double fv = fs[((kh * k_w + kw) * group_c + ci) * out_c + oc];
                    acc += xv * fv;
                  }
                }
              }
              if (bias) acc += bias[oc];
              ys[((n * out_h + oh) * out_w + ow) * out_c + oc] = static_cast<T>(acc);
            }
          }
        }
      }
      return TFN_KERNEL_OK;
    }
  });
}

TFN_KERNEL(tfn_ref_pool2d) {
  const auto& p = *static_cast<const Pool2DParams*>(params);
  const TfnTensor& x = inputs[0];
  const TfnTensor& y = outputs[0];
  if (x.rank != 4 || y.rank != 4 || y.dims[0] != x.dims[0] || y.dims[3] != x.dims[3]) {
    return TFN_KERNEL_BAD_SHAPE;
  }
  const int64_t batch = x.dims[0], in_h = x.dims[1], in_w = x.dims[2], chans = x.dims[3];
  const int64_t out_h = y.dims[1], out_w = y.dims[2];
  const int64_t k_h = p.ksize[0], k_w = p.ksize[1];
  const int64_t d_h = p.dilations[0], d_w = p.dilations[1];
  const DimPadding pad_h = ResolvePadding(p.padding, in_h, out_h, (k_h - 1) * d_h + 1, p.strides[0],
                                          p.pads[0], p.pads[1]);
  const DimPadding pad_w = ResolvePadding(p.padding, in_w, out_w, (k_w - 1) * d_w + 1, p.strides[1],
                                          p.pads[2], p.pads[3]);
  return DispatchDType(x.dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (!kIsFloat<T>) {
      return TFN_KERNEL_UNSUPPORTED;
    } else {
      const T* xs = DataOf<T>(x);
      T* ys = DataOf<T>(y);
      for (int64_t n = 0; n < batch; ++n) {
        for (int64_t oh = 0; oh < out_h; ++oh) {
          for (int64_t ow = 0; ow < out_w; ++ow) {
            for (int64_t c = 0; c < chans; ++c) {
              double max = -std::numeric_limits<double>::infinity(), sum = 0;
              int64_t valid = 0, in_padded = 0;
              for (int64_t kh = 0; kh < k_h; ++kh) {
                const int64_t ih = oh * p.strides[0] - pad_h.before + kh * d_h;
                if (ih < -pad_h.before || ih >= in_h + pad_h.after) continue;
                for (int64_t kw = 0; kw < k_w; ++kw) {
                  const int64_t iw = ow * p.strides[1] - pad_w.before + kw * d_w;
                  if (iw < -pad_w.before || iw >= in_w + pad_w.after) continue;
                  ++in_padded;
                  if (ih < 0 || ih >= in_h || iw < 0 || iw >= in_w) continue;
                  const double v = xs[((n * in_h + ih) * in_w + iw) * chans + c];
                  ++valid;
                  sum += v;
                  if (!std::isnan(max) && (std::isnan(v) || v > max)) max = v;
                }
              }
              double result;
              if (p.is_max) {
                result = max;
              } else {
                const int64_t count = p.count_include_pad ? in_padded : valid;
                result = count > 0 ? sum / static_cast<double>(count)
                                   : std::numeric_limits<double>::quiet_NaN();
              }
              ys[((n * out_h + oh) * out_w + ow) * chans + c] = static_cast<T>(result);
            }
          }
        }
      }
      return TFN_KERNEL_OK;
    }
  });
}

namespace {

// Reads a 2-entry attribute (empty means `fallback` twice); CheckNode has
// checked that it has 2 entries in [1, 2^31).
Status PairAttr(const NodeSignature& node, const char* name, int32_t fallback, int32_t out[2]) {
  std::vector<int64_t> v = node.attrs->GetInts(name);
  if (v.empty()) v = {fallback, fallback};
  TFN_DCHECK(v.size() == 2 && v[0] > 0 && v[1] > 0 && v[0] <= INT32_MAX && v[1] <= INT32_MAX);
  if (v.size() != 2) return Internal(std::string(OpName(node.op)) + ": unchecked '" + name + "'");
  out[0] = static_cast<int32_t>(v[0]);
  out[1] = static_cast<int32_t>(v[1]);
  return Status::Ok();
}

Status PaddingAttr(const NodeSignature& node, int32_t* mode, int32_t pads[4]) {
  const std::string padding = node.attrs->GetString("padding");
  const std::string name = OpName(node.op);
  for (int i = 0; i < 4; ++i) pads[i] = 0;
  if (padding == "VALID") {
    *mode = kValid;
  } else if (padding == "SAME") {
    *mode = kSame;
  } else if (padding == "EXPLICIT") {
    *mode = kExplicit;
    std::vector<int64_t> v = node.attrs->GetInts("pads");  // 4 entries in [0, 2^31): CheckNode
    TFN_DCHECK(v.size() == 4);
    if (v.size() != 4) return Internal(name + ": unchecked pads");
    for (int i = 0; i < 4; ++i) {
      TFN_DCHECK(v[i] >= 0 && v[i] <= INT32_MAX);
      pads[i] = static_cast<int32_t>(v[i]);
    }
  } else {
    return InvalidArgument(name + ": padding '" + padding +
                           "' is not one of SAME, VALID, EXPLICIT");
  }
  return Status::Ok();
}

}  // namespace

Status DecodeConv2DParams(const NodeSignature& node, Conv2DParams* p) {
  TFN_RETURN_IF_ERROR(PairAttr(node, "strides", 1, p->strides));
  TFN_RETURN_IF_ERROR(PairAttr(node, "dilations", 1, p->dilations));
  TFN_RETURN_IF_ERROR(PaddingAttr(node, &p->padding, p->pads));
  const int64_t groups = node.attrs->GetInt("groups");
  TFN_DCHECK(groups > 0 && groups <= INT32_MAX);  // CheckNode
  p->groups = static_cast<int32_t>(groups);
  p->has_bias = node.num_inputs > 2;
  return Status::Ok();
}

Status PrepareConv(const NodeSignature& node, KernelPlan* plan) {
  if (node.op == OpId::kConv2D) {
    TFN_RETURN_IF_ERROR(DecodeConv2DParams(node, plan->As<Conv2DParams>()));
    plan->fn = tfn_ref_conv2d;
    plan->symbol = "tfn_ref_conv2d";
    return Status::Ok();
  }
  auto* p = plan->As<Pool2DParams>();
  TFN_RETURN_IF_ERROR(PairAttr(node, "ksize", 1, p->ksize));
  TFN_RETURN_IF_ERROR(PairAttr(node, "strides", 1, p->strides));
  TFN_RETURN_IF_ERROR(PairAttr(node, "dilations", 1, p->dilations));
  TFN_RETURN_IF_ERROR(PaddingAttr(node, &p->padding, p->pads));
  p->is_max = node.op == OpId::kMaxPool2D;
  p->count_include_pad = node.attrs->GetInt("count_include_pad") != 0;
  plan->fn = tfn_ref_pool2d;
  plan->symbol = "tfn_ref_pool2d";
  return Status::Ok();
}

}  // namespace tfn::kernels
