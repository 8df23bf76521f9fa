// Reference kernel of conv2d_transpose (NHWC input, filter [KH, KW,
// out_channels/groups, in_channels]): the gradient of conv2d with respect to
// its input, so input cell (ih, iw) adds value * filter into output cell
// (ih * stride + kh * dilation - pad_top, iw * stride + kw * dilation - pad_left).
//
// Written as a gather over output cells (each output sums the input cells
// that reach it) rather than a scatter, so every output is one sum in double
// and the kernel needs no scratch buffer. Output rows past the full result
// (output_padding) receive no input cells and are just the bias.
#include <string>
#include <vector>

#include "kernels/ref/ref_kernels.h"
#include "kernels/ref/scalar_ops.h"
#include "kernels/ref/tensor_util.h"

namespace tfn::kernels {

TFN_KERNEL(tfn_ref_conv2d_transpose) {
  const auto& p = *static_cast<const Conv2DTransposeParams*>(params);
  const TfnTensor& x = inputs[0];
  const TfnTensor& f = inputs[1];
  const TfnTensor& y = outputs[0];
  if (x.rank != 4 || f.rank != 4 || y.rank != 4 || p.groups <= 0) return TFN_KERNEL_BAD_SHAPE;
  const int64_t batch = x.dims[0], in_h = x.dims[1], in_w = x.dims[2], in_c = x.dims[3];
  const int64_t k_h = f.dims[0], k_w = f.dims[1], group_out = f.dims[2];
  const int64_t out_h = y.dims[1], out_w = y.dims[2], out_c = y.dims[3];
  if (f.dims[3] != in_c || in_c % p.groups != 0 || group_out * p.groups != out_c ||
      y.dims[0] != batch || (p.has_bias && (num_inputs < 3 || NumElementsOf(inputs[2]) != out_c))) {
    return TFN_KERNEL_BAD_SHAPE;
  }
  const int64_t group_in = in_c / p.groups;
  const int64_t s_h = p.strides[0], s_w = p.strides[1];
  const int64_t d_h = p.dilations[0], d_w = p.dilations[1];
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
              const int64_t g = oc / group_out, j = oc % group_out;
              double acc = bias ? static_cast<double>(bias[oc]) : 0.0;
              for (int64_t kh = 0; kh < k_h; ++kh) {
                // The input row that reaches output row oh through tap kh, if any.
                const int64_t th = oh + p.pads[0] - kh * d_h;
                if (th < 0 || th % s_h != 0 || th / s_h >= in_h) continue;
                const int64_t ih = th / s_h;
                for (int64_t kw = 0; kw < k_w; ++kw) {
                  const int64_t tw = ow + p.pads[2] - kw * d_w;
                  if (tw < 0 || tw % s_w != 0 || tw / s_w >= in_w) continue;
                  const int64_t iw = tw / s_w;
                  const T* xrow = xs + ((n * in_h + ih) * in_w + iw) * in_c + g * group_in;
                  const T* frow = fs + ((kh * k_w + kw) * group_out + j) * in_c + g * group_in;
                  for (int64_t ci = 0; ci < group_in; ++ci) {
                    acc += static_cast<double>(xrow[ci]) * static_cast<double>(frow[ci]);
                  }
                }
              }
              ys[((n * out_h + oh) * out_w + ow) * out_c + oc] = static_cast<T>(acc);
            }
          }
        }
      }
      return TFN_KERNEL_OK;
    }
  });
}

namespace {

// Reads an int list attribute of `n` entries (empty: `fallback`); CheckNode
// has checked the count and that each is in [lo, 2^31).
Status IntsAttr(const NodeSignature& node, const char* name, size_t n, int64_t lo, int64_t fallback,
                int32_t* out) {
  std::vector<int64_t> v = node.attrs->GetInts(name);
  if (v.empty()) v.assign(n, fallback);
  TFN_DCHECK(v.size() == n);
  if (v.size() != n) return Internal(std::string(OpName(node.op)) + ": unchecked '" + name + "'");
  for (size_t i = 0; i < n; ++i) {
    TFN_DCHECK(v[i] >= lo && v[i] <= INT32_MAX);
    (void)lo;
    out[i] = static_cast<int32_t>(v[i]);
  }
  return Status::Ok();
}

}  // namespace

Status PrepareConvTranspose(const NodeSignature& node, KernelPlan* plan) {
  auto* p = plan->As<Conv2DTransposeParams>();
  TFN_RETURN_IF_ERROR(IntsAttr(node, "strides", 2, 1, 1, p->strides));
  TFN_RETURN_IF_ERROR(IntsAttr(node, "dilations", 2, 1, 1, p->dilations));
  TFN_RETURN_IF_ERROR(IntsAttr(node, "pads", 4, 0, 0, p->pads));
  const int64_t groups = node.attrs->GetInt("groups");
  TFN_DCHECK(groups > 0 && groups <= INT32_MAX);  // CheckNode
  p->groups = static_cast<int32_t>(groups);
  p->has_bias = node.num_inputs > 2;
  plan->fn = tfn_ref_conv2d_transpose;
  plan->symbol = "tfn_ref_conv2d_transpose";
  return Status::Ok();
}

}  // namespace tfn::kernels
