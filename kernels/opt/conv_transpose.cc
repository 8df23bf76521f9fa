// The optimized float32 conv2d_transpose (tfn_opt_conv2d_transpose; params
// Conv2DTransposeParams as the reference's: NHWC input, filter [KH, KW,
// Cout/groups, Cin]). Per image and group, one GEMM (gemm.h)
//
//   cols[pixels, KH*KW*Cout_g] = X[pixels, Cin_g] * F_g^T
//
// gives every input pixel's contribution to each tap (the filter is read
// transposed in place: no repacking of the weights), then col2im adds those
// rows into the output cells they reach, (ih*stride + kh*dilation - pad_top,
// iw*stride + kw*dilation - pad_left), as ONNX Runtime and cuDNN do. col2im
// runs over output rows, so each output row is written by one thread and the
// sum order is fixed: results do not depend on the thread count. Output
// cells no tap reaches (output_padding) are the bias, as in the reference.
#include <algorithm>

#include "core/dtype.h"
#include "kernels/opt/gemm.h"
#include "kernels/ref/ref_kernels.h"
#include "kernels/ref/tensor_util.h"

namespace tfn::kernels {
namespace {

struct Geometry {
  int64_t batch, in_h, in_w, in_c, k_h, k_w, cout_g, out_h, out_w, out_c, groups, cin_g;
  int64_t cols_row;  // KH*KW*Cout_g: one pixel's row of cols
};

bool Decode(const Conv2DTransposeParams& p, const TfnTensor* in, int num_inputs, const TfnTensor& y,
            Geometry* g) {
  const TfnTensor& x = in[0];
  const TfnTensor& f = in[1];
  if (x.rank != 4 || f.rank != 4 || y.rank != 4 || p.groups <= 0) return false;
  *g = {x.dims[0], x.dims[1], x.dims[2], x.dims[3], f.dims[0], f.dims[1], f.dims[2],
        y.dims[1], y.dims[2], y.dims[3], p.groups,  0,         0};
  if (f.dims[3] != g->in_c || g->in_c % g->groups != 0 || g->cout_g * g->groups != g->out_c ||
      y.dims[0] != g->batch ||
      (p.has_bias && (num_inputs < 3 || NumElementsOf(in[2]) != g->out_c))) {
    return false;
  }
  g->cin_g = g->in_c / g->groups;
  g->cols_row = g->k_h * g->k_w * g->cout_g;
  return true;
}

int64_t ColsBytes(const Geometry& g) {
  return (g.in_h * g.in_w * g.cols_row * static_cast<int64_t>(sizeof(float)) + 63) & ~int64_t{63};
}

int64_t GemmBytes(const Geometry& g) {
  return GemmScratchBytes(g.in_h * g.in_w, g.cols_row, g.cin_g, kGemmMaxThreads);
}

// Output rows [r0, r1) of image n, group gi: the bias (or 0), then every tap's
// row of cols that lands in them (none when cols is null).
void Col2Im(const Conv2DTransposeParams& p, const Geometry& g, const float* cols, const float* bias,
            int64_t gi, float* y_image, int64_t r0, int64_t r1) {
  const int64_t s_h = p.strides[0], s_w = p.strides[1];
  const int64_t d_h = p.dilations[0], d_w = p.dilations[1];
  const int64_t c0 = gi * g.cout_g;
  for (int64_t oh = r0; oh < r1; ++oh) {
    float* row = y_image + oh * g.out_w * g.out_c + c0;
    for (int64_t ow = 0; ow < g.out_w; ++ow) {
      float* cell = row + ow * g.out_c;
      for (int64_t j = 0; j < g.cout_g; ++j) cell[j] = bias ? bias[c0 + j] : 0.0f;
    }
    if (cols == nullptr) continue;  // no taps: the bias alone
    for (int64_t kh = 0; kh < g.k_h; ++kh) {
      const int64_t th = oh + p.pads[0] - kh * d_h;  // ih * s_h when a pixel reaches oh
      if (th < 0 || th % s_h != 0 || th / s_h >= g.in_h) continue;
      const int64_t ih = th / s_h;
      for (int64_t kw = 0; kw < g.k_w; ++kw) {
        // Input columns whose tap kw lands inside the row: 0 <= iw*s_w + kw*d_w - pad < out_w.
        const int64_t shift = kw * d_w - p.pads[2];
        const int64_t iw0 = shift >= 0 ? 0 : (-shift + s_w - 1) / s_w;
        const int64_t iw1 = std::min(g.in_w, (g.out_w - shift + s_w - 1) / s_w);
        const float* src = cols + (ih * g.in_w) * g.cols_row + (kh * g.k_w + kw) * g.cout_g;
        for (int64_t iw = iw0; iw < iw1; ++iw) {
          float* cell = row + (iw * s_w + shift) * g.out_c;
          const float* v = src + iw * g.cols_row;
          for (int64_t j = 0; j < g.cout_g; ++j) cell[j] += v[j];
        }
      }
    }
  }
}

}  // namespace

TFN_SCRATCH(tfn_opt_conv2d_transpose_scratch) {
  Geometry g;
  if (num_outputs != 1 || num_inputs < 2 ||
      !Decode(*static_cast<const Conv2DTransposeParams*>(params), inputs, num_inputs, outputs[0],
              &g)) {
    return 0;
  }
  return ColsBytes(g) + GemmBytes(g);
}

TFN_KERNEL(tfn_opt_conv2d_transpose) {
  const auto& p = *static_cast<const Conv2DTransposeParams*>(params);
  const int32_t f32 = static_cast<int32_t>(DType::kFloat32);
  if (num_outputs != 1 || num_inputs < 2 || inputs[0].dtype != f32 || inputs[1].dtype != f32) {
    return TFN_KERNEL_UNSUPPORTED;
  }
  Geometry g;
  if (!Decode(p, inputs, num_inputs, outputs[0], &g)) return TFN_KERNEL_BAD_SHAPE;
  if (!ctx || ctx->scratch_bytes < ColsBytes(g) + GemmBytes(g)) return TFN_KERNEL_SCRATCH_TOO_SMALL;
  const float* x = DataOf<float>(inputs[0]);
  const float* f = DataOf<float>(inputs[1]);
  const float* bias = p.has_bias ? DataOf<float>(inputs[2]) : nullptr;
  float* y = DataOf<float>(outputs[0]);
  float* cols = static_cast<float*>(ctx->scratch);
  void* gemm_scratch = static_cast<unsigned char*>(ctx->scratch) + ColsBytes(g);
  const int64_t pixels = g.in_h * g.in_w;
  // No input pixel, no tap or no input channel: every output cell is the bias
  // (x, f or cols may then be null, so no pointer into them is formed).
  const bool has_taps = pixels > 0 && g.cols_row > 0 && g.cin_g > 0;
  for (int64_t n = 0; n < g.batch; ++n) {
    float* y_image = y + n * g.out_h * g.out_w * g.out_c;
    for (int64_t gi = 0; gi < g.groups; ++gi) {
      if (!has_taps) {
        Col2Im(p, g, nullptr, bias, gi, y_image, 0, g.out_h);
        continue;
      }
      // b(ci, (kh, kw, j)) = F[((kh*KW + kw)*Cout_g + j)*Cin + gi*Cin_g + ci]: F^T, ldb Cin.
      int32_t s = Gemm(pixels, g.cols_row, g.cin_g, x + n * pixels * g.in_c + gi * g.cin_g, g.in_c,
                       false, f + gi * g.cin_g, g.in_c, true, cols, g.cols_row, false, gemm_scratch,
                       GemmBytes(g), ctx, nullptr);
      if (s != TFN_KERNEL_OK) return s;
      auto rows = [&](int64_t r0, int64_t r1) { Col2Im(p, g, cols, bias, gi, y_image, r0, r1); };
      ParallelFor(ctx, g.out_h, 1, rows);
    }
  }
  return TFN_KERNEL_OK;
}

}  // namespace tfn::kernels
