// Shape rules of convolution and pooling (NHWC input, HWIO filter) and of
// conv2d_transpose (filter [KH, KW, out_channels/groups, in_channels]).
#pragma once

#include <string>
#include <vector>

#include "core/rules/rules_shape.h"

namespace tfn::rules {

// Reads a 2-entry int list attribute (empty means `fallback` twice).
template <class D>
Status Pair(const InferContext<D>& c, const char* name, int64_t fallback, int64_t out[2]) {
  std::vector<int64_t> v = c.attrs->GetInts(name);
  if (v.empty()) v = {fallback, fallback};
  if (v.size() != 2 || v[0] <= 0 || v[1] <= 0) {
    return c.Error(std::string("'") + name + "' must be two positive ints (height, width), got " +
                   IntsToString(v));
  }
  out[0] = v[0];
  out[1] = v[1];
  return Status::Ok();
}

// Output size of one spatial dim for a window of effective size `window`.
template <class D>
Status WindowOutput(const InferContext<D>& c, const D& in, int64_t window, int64_t stride,
                    int64_t pad_lo, int64_t pad_hi, const std::string& padding, D* out) {
  if (padding == "SAME") {
    *out = CeilDiv(in, D(stride));
  } else {
    D padded = in + D(pad_lo + pad_hi);
    if (IsKnown(padded) && KnownValue(padded) < window) {
      return c.Errorf("the window (%lld) is larger than the padded input (%s) of %s",
                      static_cast<long long>(window), DimToString(padded).c_str(),
                      c.TypeStr(0).c_str());
    }
    *out = FloorDiv(padded - D(window), D(stride)) + D(1);
  }
  return Status::Ok();
}

template <class D>
Status Padding(const InferContext<D>& c, std::string* padding, int64_t pads[4]) {
  *padding = c.attrs->GetString("padding");
  pads[0] = pads[1] = pads[2] = pads[3] = 0;
  if (*padding == "SAME" || *padding == "VALID") return Status::Ok();
  if (*padding != "EXPLICIT") {
    return c.Error("padding '" + *padding + "' is not one of SAME, VALID, EXPLICIT");
  }
  std::vector<int64_t> p = c.attrs->GetInts("pads");
  if (p.size() != 4) return c.Error("EXPLICIT padding needs pads {top, bottom, left, right}");
  for (int i = 0; i < 4; ++i) {
    if (p[i] < 0) return c.Error("pads must be >= 0, got " + IntsToString(p));
    pads[i] = p[i];
  }
  return Status::Ok();
}

// conv2d's shape rule on inputs x_i (NHWC), f_i (HWIO filter) and bias_i
// (-1: none), so the quantized convolutions share it; `filter`, when given,
// is the HWIO shape of a prepacked filter input f_i.
template <class D>
Status ConvShape(InferContext<D>& c, int x_i, int f_i, int bias_i,
                 const ShapeT<D>* filter = nullptr) {
  const ShapeT<D>& x = c.in(x_i);
  const ShapeT<D>& f = filter ? *filter : c.in(f_i);
  if (x.rank() != 4) return c.Errorf("input must be NHWC (rank 4), got %s", c.TypeStr(x_i).c_str());
  if (f.rank() != 4) {
    return c.Errorf("filter must be [height, width, in_channels/groups, out_channels], got %s",
                    c.TypeStr(f_i).c_str());
  }
  int64_t strides[2], dilations[2], pads[4];
  std::string padding;
  TFN_RETURN_IF_ERROR(Pair(c, "strides", 1, strides));
  TFN_RETURN_IF_ERROR(Pair(c, "dilations", 1, dilations));
  TFN_RETURN_IF_ERROR(Padding(c, &padding, pads));
  const long long groups = c.attrs->GetInt("groups");
  if (groups <= 0) return c.Errorf("groups must be positive, got %lld", groups);
  if (!IsKnown(f[0]) || !IsKnown(f[1])) return c.Error("the filter's spatial size must be static");
  if (IsKnown(x[3]) && KnownValue(x[3]) % groups != 0) {
    return c.Errorf("input channels of %s are not divisible by groups %lld", c.TypeStr(x_i).c_str(),
                    groups);
  }
  if (KnownNotEqual(f[2] * D(static_cast<int64_t>(groups)), x[3])) {
    return c.Errorf("filter %s expects %s x %lld (groups) input channels, input is %s",
                    c.TypeStr(f_i).c_str(), DimToString(f[2]).c_str(), groups,
                    c.TypeStr(x_i).c_str());
  }
  if (IsKnown(f[3]) && KnownValue(f[3]) % groups != 0) {
    return c.Errorf("output channels %s are not divisible by groups %lld",
                    DimToString(f[3]).c_str(), groups);
  }
  if (bias_i >= 0 && bias_i < c.num_inputs) {
    const ShapeT<D>& b = c.in(bias_i);
    if (b.rank() != 1 || KnownNotEqual(b[0], f[3])) {
      return c.Errorf("bias must be [%s], got %s", DimToString(f[3]).c_str(),
                      c.TypeStr(bias_i).c_str());
    }
  }
  ShapeT<D> out{x[0], D(0), D(0), f[3]};
  for (int i = 0; i < 2; ++i) {
    int64_t window = (KnownValue(f[i]) - 1) * dilations[i] + 1;
    TFN_RETURN_IF_ERROR(WindowOutput(c, x[1 + i], window, strides[i], pads[2 * i], pads[2 * i + 1],
                                     padding, &out[1 + i]));
  }
  c.out(0) = out;
  return Status::Ok();
}

template <class D>
Status InferConv2D(InferContext<D>& c) {
  return ConvShape(c, 0, 1, 2);
}

// Output size of one pooled dim with ceil_mode: rounded up, but a last window
// that would start past the input and its leading padding is dropped
// (PyTorch's and onnxruntime's rule).
template <class D>
Status CeilWindowOutput(const InferContext<D>& c, const D& in, int64_t window, int64_t stride,
                        int64_t pad_lo, int64_t pad_hi, D* out) {
  D padded = in + D(pad_lo + pad_hi);
  if (IsKnown(padded) && KnownValue(padded) < window) {
    return c.Errorf("the window (%lld) is larger than the padded input (%s) of %s",
                    static_cast<long long>(window), DimToString(padded).c_str(),
                    c.TypeStr(0).c_str());
  }
  *out = CeilDiv(padded - D(window), D(stride)) + D(1);
  if (IsKnown(in)) {
    if ((KnownValue(*out) - 1) * stride >= KnownValue(in) + pad_lo) *out = *out - D(1);
  } else if (pad_hi + stride > window) {
    // Only then can the last window start in the trailing padding.
    return c.Error("ceil_mode with pads/strides that may drop a window needs a static input size");
  }
  return Status::Ok();
}

template <class D>
Status InferPool2D(InferContext<D>& c) {
  const ShapeT<D>& x = c.in(0);
  if (x.rank() != 4) return c.Errorf("input must be NHWC (rank 4), got %s", c.TypeStr(0).c_str());
  int64_t ksize[2], strides[2], dilations[2], pads[4];
  std::string padding;
  TFN_RETURN_IF_ERROR(Pair(c, "ksize", 1, ksize));
  TFN_RETURN_IF_ERROR(Pair(c, "strides", 1, strides));
  TFN_RETURN_IF_ERROR(Pair(c, "dilations", 1, dilations));
  TFN_RETURN_IF_ERROR(Padding(c, &padding, pads));
  if (c.attrs->GetInts("ksize").size() != 2) return c.Error("'ksize' needs (height, width)");
  const bool ceil_mode = c.attrs->GetInt("ceil_mode") != 0;
  ShapeT<D> out{x[0], D(0), D(0), x[3]};
  for (int i = 0; i < 2; ++i) {
    const int64_t window = (ksize[i] - 1) * dilations[i] + 1;
    if (pads[2 * i] >= window || pads[2 * i + 1] >= window) {
      return c.Error("pads must be smaller than the window");
    }
    if (ceil_mode && padding != "SAME") {
      TFN_RETURN_IF_ERROR(CeilWindowOutput(c, x[1 + i], window, strides[i], pads[2 * i],
                                           pads[2 * i + 1], &out[1 + i]));
    } else {
      TFN_RETURN_IF_ERROR(WindowOutput(c, x[1 + i], window, strides[i], pads[2 * i],
                                       pads[2 * i + 1], padding, &out[1 + i]));
    }
  }
  c.out(0) = out;
  return Status::Ok();
}

// conv2d_transpose: the gradient of conv2d with respect to its input. Each
// input cell scatters filter * value into a window of the output; the full
// output is (in - 1) * stride + (k - 1) * dilation + 1 (+ output_padding),
// from which pads crop.
template <class D>
Status InferConv2DTranspose(InferContext<D>& c) {
  const ShapeT<D>& x = c.in(0);
  const ShapeT<D>& f = c.in(1);
  if (x.rank() != 4) return c.Errorf("input must be NHWC (rank 4), got %s", c.TypeStr(0).c_str());
  if (f.rank() != 4) {
    return c.Errorf("filter must be [height, width, out_channels/groups, in_channels], got %s",
                    c.TypeStr(1).c_str());
  }
  int64_t strides[2], dilations[2], extra[2] = {0, 0};
  TFN_RETURN_IF_ERROR(Pair(c, "strides", 1, strides));
  TFN_RETURN_IF_ERROR(Pair(c, "dilations", 1, dilations));
  std::vector<int64_t> pads = c.attrs->GetInts("pads");
  if (pads.empty()) pads = {0, 0, 0, 0};
  if (pads.size() != 4) return c.Error("pads must be {top, bottom, left, right}");
  for (int64_t p : pads) {
    if (p < 0) return c.Error("pads must be >= 0, got " + IntsToString(pads));
  }
  std::vector<int64_t> op = c.attrs->GetInts("output_padding");
  if (!op.empty()) {
    if (op.size() != 2 || op[0] < 0 || op[1] < 0) {
      return c.Error("output_padding must be two ints >= 0 (height, width), got " +
                     IntsToString(op));
    }
    extra[0] = op[0];
    extra[1] = op[1];
  }
  int64_t groups = c.attrs->GetInt("groups");
  if (groups <= 0)
    return c.Errorf("groups must be positive, got %lld", static_cast<long long>(groups));
  if (!IsKnown(f[0]) || !IsKnown(f[1])) return c.Error("the filter's spatial size must be static");
  if (KnownNotEqual(f[3], x[3])) {
    return c.Errorf("filter %s expects %s input channels, input is %s", c.TypeStr(1).c_str(),
                    DimToString(f[3]).c_str(), c.TypeStr(0).c_str());
  }
  if (IsKnown(x[3]) && KnownValue(x[3]) % groups != 0) {
    return c.Errorf("input channels of %s are not divisible by groups %lld", c.TypeStr(0).c_str(),
                    static_cast<long long>(groups));
  }
  const D out_c = f[2] * D(groups);
  if (c.num_inputs > 2) {
    const ShapeT<D>& b = c.in(2);
    if (b.rank() != 1 || KnownNotEqual(b[0], out_c)) {
      return c.Errorf("bias must be [%s], got %s", DimToString(out_c).c_str(),
                      c.TypeStr(2).c_str());
    }
  }
  ShapeT<D> out{x[0], D(0), D(0), out_c};
  for (int i = 0; i < 2; ++i) {
    const int64_t window = (KnownValue(f[i]) - 1) * dilations[i] + 1;
    D full = (x[1 + i] - D(1)) * D(strides[i]) + D(window + extra[i]);
    D size = full - D(pads[2 * i] + pads[2 * i + 1]);
    if (IsKnown(size) && KnownValue(size) <= 0 && IsKnown(x[1 + i]) && KnownValue(x[1 + i]) > 0) {
      return c.Error("pads " + IntsToString(pads) + " crop the whole output of " + c.TypeStr(0));
    }
    out[1 + i] = size;
  }
  c.out(0) = out;
  return Status::Ok();
}

}  // namespace tfn::rules
