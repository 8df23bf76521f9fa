// Optimized kernels of qlinear_conv2d, qlinear_matmul, conv2d_integer and
// matmul_integer, on the int8 GEMM (qgemm.h):
//   - matmul: one QGemm over all rows when b is shared by the batch, else
//     one per batch;
//   - conv2d (NHWC, HWIO filter): per image and group, A is the input itself
//     for a 1x1 stride-1 unpadded convolution; else, with a multiple of 4
//     channels per group, the input read through a table of pointers to each
//     window tap (no copy: qgemm.h's indirect A); else its im2col rows
//     (kh, kw, ci); padding is the input's zero point; B is the group's
//     columns of the filter in place;
//   - depthwise conv2d (one input and one output channel per group): direct,
//     the channels of a pixel in vector lanes (qlinear_depthwise.cc).
// Results equal the reference kernels' (ref/qlinear.cc) bit for bit.
#include <algorithm>
#include <cstring>

#include "kernels/opt/qgemm.h"
#include "kernels/opt/qlinear_internal.h"
#include "kernels/ref/qlinear.h"
#include "kernels/ref/ref_kernels.h"
#include "kernels/ref/tensor_util.h"

namespace tfn::kernels {
namespace {

using qlinear_internal::Requant;

int32_t ByteAt(const TfnTensor& t, int64_t e) {
  return t.dtype == static_cast<int32_t>(DType::kInt8) ? static_cast<const int8_t*>(t.data)[e]
                                                       : static_cast<const uint8_t*>(t.data)[e];
}

}  // namespace

namespace qlinear_internal {

int64_t RequantScratchBytes(int64_t channels) { return 64 + 3 * ((channels * 4 + 63) / 64 * 64); }

int32_t MakeRequant(const QLinearParams& p, const QLinearOperands& q, const TfnTensor& y,
                    int64_t channels, unsigned char** scratch, Requant* rq) {
  auto take = [&](int64_t count) {
    const auto base = reinterpret_cast<uintptr_t>(*scratch);
    auto* at = reinterpret_cast<int32_t*>(*scratch + (64 - base % 64) % 64);
    *scratch = reinterpret_cast<unsigned char*>(at) + (count * 4 + 63) / 64 * 64;
    return at;
  };
  // One x zero point, or one per row of a 2-D a (matmul_integer; the shape
  // rule checked the count), which the caller's scratch also covers.
  const int64_t x_zp_count = q.x_zero_point ? NumElementsOf(*q.x_zero_point) : 1;
  if (x_zp_count != 1 && (p.is_conv || q.x->rank != 2 || x_zp_count != q.x->dims[0])) {
    return TFN_KERNEL_BAD_SHAPE;
  }
  int32_t* x_zps = take(x_zp_count);
  int32_t* w_zps = take(channels);
  auto* mult = reinterpret_cast<float*>(take(channels));
  rq->x_zp = q.x_zero_point ? ByteAt(*q.x_zero_point, 0) : 0;
  rq->x_zp_per_row = x_zp_count > 1;
  for (int64_t i = 0; i < x_zp_count; ++i)
    x_zps[i] = q.x_zero_point ? ByteAt(*q.x_zero_point, i) : 0;
  rq->x_zps = x_zps;
  const int64_t w_zp_count = q.w_zero_point ? NumElementsOf(*q.w_zero_point) : 1;
  if (w_zp_count != 1 && w_zp_count != channels) return TFN_KERNEL_BAD_SHAPE;
  const int32_t shift = PackedZeroPointShift(p, q.w_zero_point);  // prepacked uint8 weights
  for (int64_t c = 0; c < w_zp_count; ++c) {
    w_zps[c] = (q.w_zero_point ? ByteAt(*q.w_zero_point, c) : 0) + shift;
  }
  rq->w_zp = w_zps;
  rq->w_zp_stride = w_zp_count > 1 ? 1 : 0;
  QGemmOutput& out = rq->out;
  out = QGemmOutput();
  out.bias = q.bias ? static_cast<const int32_t*>(q.bias->data) : nullptr;
  if (!p.requantize) {
    out.kind = QOutKind::kInt32;
    return TFN_KERNEL_OK;
  }
  const bool y_signed = y.dtype == static_cast<int32_t>(DType::kInt8);
  out.kind = y_signed ? QOutKind::kInt8 : QOutKind::kUint8;
  const int64_t w_scales = NumElementsOf(*q.w_scale);
  if (w_scales != 1 && w_scales != channels) return TFN_KERNEL_BAD_SHAPE;
  const float x_scale = *static_cast<const float*>(q.x_scale->data);
  const float y_scale = *static_cast<const float*>(q.y_scale->data);
  const auto* w_scale = static_cast<const float*>(q.w_scale->data);
  for (int64_t c = 0; c < channels; ++c) {
    mult[c] = RequantMultiplier(x_scale, w_scale[w_scales == 1 ? 0 : c], y_scale);
  }
  out.scale = mult;
  out.scale_stride = 1;
  out.zero_point = ByteAt(*q.y_zero_point, 0);
  QuantizedOutputBounds(p, y_scale, out.zero_point, y_signed, &out.qmin, &out.qmax);
  return TFN_KERNEL_OK;
}

}  // namespace qlinear_internal

namespace {

// The conv's geometry, for one image.
struct ConvShape {
  int64_t H, W, C, KH, KW, Cg, Cout, Cout_g, OH, OW, pt, pl;
  int64_t K() const { return KH * KW * Cg; }
  int64_t P() const { return OH * OW; }
  bool Direct(const QLinearParams& p) const {  // A is the input itself
    return KH == 1 && KW == 1 && p.conv.strides[0] == 1 && p.conv.strides[1] == 1 && pt == 0 &&
           pl == 0 && p.conv.groups == 1 && OH == H && OW == W;
  }
  bool Depthwise(const QLinearParams& p) const {  // prepacked filters take the GEMM
    return Cg == 1 && Cout_g == 1 && p.conv.groups > 1 && !p.packed;
  }
  // A through a table of pointers to each window tap's Cg bytes (no im2col
  // copy): a tap is whole groups of 4 depth bytes.
  bool Indirect(const QLinearParams& p) const { return !Direct(p) && Cg % 4 == 0; }
  int64_t TableRows() const { return P() + kQGemmIndirectPadRows; }
};

bool MakeConvShape(const QLinearParams& p, const TfnTensor& x, const TfnTensor& f,
                   const TfnTensor& y, ConvShape* s) {
  if (x.rank != 4 || f.rank != 4 || y.rank != 4 || p.conv.groups <= 0) return false;
  const int64_t packed_dims[4] = {p.packed_dims[0], p.packed_dims[1], p.packed_dims[2],
                                  p.packed_dims[3]};
  const int64_t* fd = p.packed ? packed_dims : f.dims;  // HWIO
  *s = {x.dims[1], x.dims[2], x.dims[3], fd[0], fd[1], fd[2], fd[3], 0, y.dims[1], y.dims[2], 0, 0};
  if (s->Cg * p.conv.groups != s->C || s->Cout % p.conv.groups != 0 || y.dims[3] != s->Cout ||
      y.dims[0] != x.dims[0]) {
    return false;
  }
  s->Cout_g = s->Cout / p.conv.groups;
  s->pt = Conv2DPadBefore(p.conv, 0, s->H, s->OH, (s->KH - 1) * p.conv.dilations[0] + 1);
  s->pl = Conv2DPadBefore(p.conv, 1, s->W, s->OW, (s->KW - 1) * p.conv.dilations[1] + 1);
  return true;
}

// im2col of group g of one NHWC image: row (oh, ow) holds the window's
// (kh, kw, ci) bytes, then zeros up to RowBytes (QOperand::zero_padded);
// cells in the padding hold the input's zero point.
int64_t RowBytes(const ConvShape& s) { return (s.K() + 3) / 4 * 4; }

// memcpy for the short runs of im2col (a first conv's window row: 7 x 3
// bytes): fixed-size, overlapping moves instead of a library call per run,
// which cost more than the copy (resnet18's 7x7 stem made 88K of them).
inline void CopyRun(uint8_t* dst, const uint8_t* src, int64_t n) {
  if (n > 32) {
    std::memcpy(dst, src, static_cast<size_t>(n));
  } else if (n >= 16) {
    std::memcpy(dst, src, 16);
    std::memcpy(dst + n - 16, src + n - 16, 16);
  } else if (n >= 8) {
    std::memcpy(dst, src, 8);
    std::memcpy(dst + n - 8, src + n - 8, 8);
  } else {
    for (int64_t i = 0; i < n; ++i) dst[i] = src[i];
  }
}

void Im2Col(const QLinearParams& p, const ConvShape& s, const uint8_t* x, int64_t g, uint8_t pad,
            uint8_t* out, int64_t oh_begin, int64_t oh_end) {
  const int64_t K = s.K(), ld = RowBytes(s);
  // One group, no dilation along the width: a window row is contiguous.
  const bool contiguous = p.conv.groups == 1 && p.conv.dilations[1] == 1;
  for (int64_t oh = oh_begin; oh < oh_end; ++oh) {
    for (int64_t ow = 0; ow < s.OW; ++ow) {
      uint8_t* row = out + (oh * s.OW + ow) * ld;
      for (int64_t k = K; k < ld; ++k) row[k] = 0;
      for (int64_t kh = 0; kh < s.KH; ++kh) {
        const int64_t ih = oh * p.conv.strides[0] - s.pt + kh * p.conv.dilations[0];
        const int64_t iw0 = ow * p.conv.strides[1] - s.pl;
        if (contiguous && ih >= 0 && ih < s.H && iw0 >= 0 && iw0 + s.KW <= s.W) {
          // The window's row is one run of KW * C bytes in NHWC: one copy.
          CopyRun(row + kh * s.KW * s.Cg, x + (ih * s.W + iw0) * s.C, s.KW * s.C);
          continue;
        }
        for (int64_t kw = 0; kw < s.KW; ++kw) {
          const int64_t iw = ow * p.conv.strides[1] - s.pl + kw * p.conv.dilations[1];
          uint8_t* dst = row + (kh * s.KW + kw) * s.Cg;
          const bool inside = ih >= 0 && ih < s.H && iw >= 0 && iw < s.W;
          if (!inside) {
            for (int64_t c = 0; c < s.Cg; ++c) dst[c] = pad;
          } else {
            CopyRun(dst, x + (ih * s.W + iw) * s.C + g * s.Cg, s.Cg);
          }
        }
      }
    }
  }
}

// The indirection table of group g of one NHWC image (QOperand::indirect):
// row (oh, ow), tap (kh, kw) points at the input pixel's Cg bytes of group g,
// or at `pad` (Cg bytes of the input's zero point) in the padding; the
// table's rows past the output's point at `pad` too.
void FillTable(const QLinearParams& p, const ConvShape& s, const uint8_t* x, int64_t g,
               const uint8_t* pad, const uint8_t** table, int64_t oh_begin, int64_t oh_end) {
  const int64_t taps = s.KH * s.KW;
  for (int64_t oh = oh_begin; oh < oh_end; ++oh) {
    for (int64_t ow = 0; ow < s.OW; ++ow) {
      const uint8_t** row = table + (oh * s.OW + ow) * taps;
      for (int64_t kh = 0; kh < s.KH; ++kh) {
        const int64_t ih = oh * p.conv.strides[0] - s.pt + kh * p.conv.dilations[0];
        for (int64_t kw = 0; kw < s.KW; ++kw) {
          const int64_t iw = ow * p.conv.strides[1] - s.pl + kw * p.conv.dilations[1];
          const bool inside = ih >= 0 && ih < s.H && iw >= 0 && iw < s.W;
          row[kh * s.KW + kw] = inside ? x + (ih * s.W + iw) * s.C + g * s.Cg : pad;
        }
      }
    }
  }
  if (oh_end == s.OH) {
    for (int64_t i = s.P() * taps; i < s.TableRows() * taps; ++i) table[i] = pad;
  }
}

int64_t Align64(int64_t n) { return (n + 63) / 64 * 64; }

int Threads(const TfnKernelContext* ctx) {
  return ctx && ctx->parallel_for ? std::max(1, ctx->num_threads) : 1;
}

int64_t ConvScratch(const QLinearParams& p, const ConvShape& s, int threads) {
  int64_t bytes = qlinear_internal::RequantScratchBytes(s.Cout);
  if (s.Depthwise(p)) return bytes + qlinear_internal::DepthwiseScratchBytes(s.KH, s.KW, s.C);
  if (s.Indirect(p)) {
    bytes += Align64(s.TableRows() * s.KH * s.KW * 8) + Align64(s.Cg);
  } else if (!s.Direct(p)) {
    bytes += Align64(s.P() * RowBytes(s));
  }
  return bytes + QGemmScratchBytes(s.P(), s.Cout_g, s.K(), threads);
}

int32_t RunConv(const QLinearParams& p, const QLinearOperands& q, TfnTensor& y,
                const TfnKernelContext* ctx) {
  ConvShape s;
  if (!MakeConvShape(p, *q.x, *q.w, y, &s)) return TFN_KERNEL_BAD_SHAPE;
  auto* scratch = static_cast<unsigned char*>(ctx->scratch);
  const int64_t need = ConvScratch(p, s, Threads(ctx));
  if (!scratch || ctx->scratch_bytes < need) return TFN_KERNEL_SCRATCH_TOO_SMALL;
  Requant rq;
  unsigned char* rest = scratch;
  if (int32_t code = qlinear_internal::MakeRequant(p, q, y, s.Cout, &rest, &rq)) return code;
  const int64_t batch = q.x->dims[0];
  const auto* x = static_cast<const uint8_t*>(q.x->data);
  if (s.Depthwise(p)) {
    return qlinear_internal::RunDepthwise(p, q, rq, s.H, s.W, s.C, s.KH, s.KW, s.OH, s.OW, s.pt,
                                          s.pl, batch, rest, y, ctx);
  }
  uint8_t* cols = rest;
  const int64_t table_bytes = Align64(s.TableRows() * s.KH * s.KW * 8);
  const auto** table = reinterpret_cast<const uint8_t**>(rest);
  uint8_t* pad = rest + table_bytes;
  if (s.Indirect(p)) std::memset(pad, static_cast<int>(rq.x_zp), static_cast<size_t>(s.Cg));
  unsigned char* gemm_scratch = rest + (s.Indirect(p) ? table_bytes + Align64(s.Cg)
                                        : s.Direct(p) ? 0
                                                      : Align64(s.P() * RowBytes(s)));
  const int64_t gemm_bytes = ctx->scratch_bytes - (gemm_scratch - scratch);
  const int64_t out_bytes = rq.out.kind == QOutKind::kInt32 ? 4 : 1;
  const bool x_signed = q.x->dtype == static_cast<int32_t>(DType::kInt8);
  for (int64_t n = 0; n < batch; ++n) {
    const uint8_t* image = x + n * s.H * s.W * s.C;
    for (int64_t g = 0; g < p.conv.groups; ++g) {
      QOperand a;
      if (s.Direct(p)) {
        a = {image, s.C, 1, x_signed, rq.x_zps, 0};
      } else if (s.Indirect(p)) {
        auto rows = [&](int64_t b, int64_t e) { FillTable(p, s, image, g, pad, table, b, e); };
        ParallelFor(ctx, s.OH,
                    std::max<int64_t>(1, 4096 / std::max<int64_t>(1, s.OW * s.KH * s.KW)), rows);
        a = {nullptr, 0, 1, x_signed, rq.x_zps, 0};
        a.indirect = table;
        a.taps = s.KH * s.KW;
        a.tap_bytes = s.Cg;
      } else {
        // Output rows split between threads: the copy is a serial part otherwise.
        auto rows = [&](int64_t b, int64_t e) {
          Im2Col(p, s, image, g, static_cast<uint8_t>(rq.x_zp), cols, b, e);
        };
        ParallelFor(ctx, s.OH, std::max<int64_t>(1, 16384 / std::max<int64_t>(1, s.OW * s.K())),
                    rows);
        a = {cols, RowBytes(s), 1, x_signed, rq.x_zps, 0, /*zero_padded=*/true};
      }
      QOperand b{static_cast<const uint8_t*>(q.w->data) + g * s.Cout_g,
                 s.Cout,
                 1,
                 q.w->dtype == static_cast<int32_t>(DType::kInt8),
                 rq.w_zp + (rq.w_zp_stride ? g * s.Cout_g : 0),
                 rq.w_zp_stride};
      if (p.packed) {  // group g's panels (core/packed_layout.h)
        const int64_t panels = (s.Cout_g + kInt8PanelWidth - 1) / kInt8PanelWidth;
        b.packed = static_cast<const int8_t*>(q.w->data) +
                   g * panels * ((s.K() + 3) / 4 + 1) * kInt8PanelRowBytes;
      }
      QGemmOutput out = rq.out;
      out.data =
          static_cast<unsigned char*>(y.data) + (n * s.P() * s.Cout + g * s.Cout_g) * out_bytes;
      out.ldc = s.Cout;
      if (out.bias) out.bias += g * s.Cout_g;
      if (out.scale) out.scale += g * s.Cout_g;
      const int32_t code = QGemm(s.P(), s.Cout_g, s.K(), a, b, out, gemm_scratch, gemm_bytes, ctx);
      if (code != TFN_KERNEL_OK) return code;
    }
  }
  return TFN_KERNEL_OK;
}

int32_t RunMatMul(const QLinearParams& p, const QLinearOperands& q, TfnTensor& y,
                  const TfnKernelContext* ctx) {
  const TfnTensor& a = *q.x;
  TfnTensor b = *q.w;
  if (p.packed) {  // one prepacked [K, N] matrix
    b.rank = 2;
    b.dims[0] = p.packed_dims[0];
    b.dims[1] = p.packed_dims[1];
  }
  if (a.rank < 2 || b.rank < 2 || y.rank < 2) return TFN_KERNEL_BAD_SHAPE;
  const int64_t M = a.dims[a.rank - 2], K = a.dims[a.rank - 1], N = b.dims[b.rank - 1];
  if (b.dims[b.rank - 2] != K || y.dims[y.rank - 2] != M || y.dims[y.rank - 1] != N) {
    return TFN_KERNEL_BAD_SHAPE;
  }
  const TfnTensor y_batch = MatrixBatchDims(y);
  const int64_t batches = NumElementsOf(y_batch);
  // b shared by every batch (a prepacked b is) and a's batch dims not
  // broadcast: one GEMM.
  const bool one_gemm = b.rank == 2 && NumElementsOf(MatrixBatchDims(a)) == batches;
  const int64_t rows = one_gemm ? batches * M : M, gemms = one_gemm ? 1 : batches;
  auto* scratch = static_cast<unsigned char*>(ctx->scratch);
  if (!scratch || ctx->scratch_bytes < qlinear_internal::RequantScratchBytes(std::max(N, M)) +
                                           QGemmScratchBytes(rows, N, K, 1)) {
    return TFN_KERNEL_SCRATCH_TOO_SMALL;
  }
  Requant rq;
  unsigned char* rest = scratch;
  if (int32_t code = qlinear_internal::MakeRequant(p, q, y, N, &rest, &rq)) return code;
  const int64_t gemm_bytes = ctx->scratch_bytes - (rest - scratch);
  const bool a_signed = a.dtype == static_cast<int32_t>(DType::kInt8);
  const bool b_signed = b.dtype == static_cast<int32_t>(DType::kInt8);
  const int64_t out_bytes = rq.out.kind == QOutKind::kInt32 ? 4 : 1;
  int64_t sa[TFN_KERNEL_MAX_RANK], sb[TFN_KERNEL_MAX_RANK];
  BroadcastStrides(MatrixBatchDims(a), y_batch.rank, sa);
  BroadcastStrides(MatrixBatchDims(b), y_batch.rank, sb);
  for (int64_t i = 0; i < gemms; ++i) {
    const int64_t ao = one_gemm ? 0 : OffsetAt(i, y_batch, sa) * M * K;
    const int64_t bo = one_gemm ? 0 : OffsetAt(i, y_batch, sb) * K * N;
    const QOperand qa{static_cast<const uint8_t*>(a.data) + ao,
                      K,
                      1,
                      a_signed,
                      rq.x_zps,
                      rq.x_zp_per_row ? 1 : 0};
    QOperand qb{static_cast<const uint8_t*>(b.data) + bo, N, 1, b_signed, rq.w_zp, rq.w_zp_stride};
    if (p.packed) qb.packed = static_cast<const int8_t*>(b.data);
    QGemmOutput out = rq.out;
    out.data = static_cast<unsigned char*>(y.data) + i * M * N * out_bytes;
    out.ldc = N;
    const int32_t code = QGemm(rows, N, K, qa, qb, out, rest, gemm_bytes, ctx);
    if (code != TFN_KERNEL_OK) return code;
  }
  return TFN_KERNEL_OK;
}

}  // namespace

TFN_KERNEL(tfn_opt_qlinear) {
  const auto& p = *static_cast<const QLinearParams*>(params);
  const QLinearOperands q = QLinearOperandsOf(p, inputs, num_inputs);
  if (!ctx) return TFN_KERNEL_SCRATCH_TOO_SMALL;
  return p.is_conv ? RunConv(p, q, outputs[0], ctx) : RunMatMul(p, q, outputs[0], ctx);
}

TFN_SCRATCH(tfn_opt_qlinear_scratch) {
  const auto& p = *static_cast<const QLinearParams*>(params);
  const QLinearOperands q = QLinearOperandsOf(p, inputs, num_inputs);
  const int threads = kQGemmMaxThreads;  // the thread count is not known here
  if (p.is_conv) {
    ConvShape s;
    if (!MakeConvShape(p, *q.x, *q.w, outputs[0], &s)) return 0;
    return ConvScratch(p, s, threads);
  }
  const TfnTensor& a = *q.x;
  const TfnTensor& b = *q.w;
  if (a.rank < 2 || b.rank < 2) return 0;
  const int64_t M = a.dims[a.rank - 2], K = a.dims[a.rank - 1];
  const int64_t N = p.packed ? p.packed_dims[1] : b.dims[b.rank - 1];
  const int64_t rows =
      b.rank == 2 || p.packed ? NumElementsOf(outputs[0]) / std::max<int64_t>(N, 1) : M;
  return qlinear_internal::RequantScratchBytes(std::max(N, M)) +
         QGemmScratchBytes(rows, N, K, threads);
}

}  // namespace tfn::kernels
