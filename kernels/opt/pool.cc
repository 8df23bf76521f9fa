// Optimized float32 max_pool2d / avg_pool2d (tfn_opt_pool2d; NHWC, params
// Pool2DParams as the reference's), bit-identical to ref/conv.cc's
// tfn_ref_pool2d: per output pixel the window's taps are listed once (those
// in the padded extent, and among them those inside the input), then the
// channels are reduced 16 at a time in vector registers in the reference's
// tap order (a max pool's last C % 16 channels too, with whole-vector loads
// and stores where they stay inside the tensors): max with NaN propagation
// (a NaN in the window gives NaN), the average summed in double and divided
// in double (by the valid taps, or every tap of the padded extent with
// count_include_pad). Compiled for SSE2, AVX2 and AVX-512 (simd.h); the
// max pool on AVX-512 is written with intrinsics (MaxPoolAvx512). Output
// rows split over the threads.
#include <cstring>
#include <limits>

#include "kernels/opt/simd.h"
#include "kernels/ref/ref_kernels.h"

#if defined(TFN_OPT_X86)
#include <immintrin.h>

#include "kernels/opt/avx512_target.h"  // GCC 12's -Wmaybe-uninitialized in its own header
#endif

namespace tfn::kernels {
namespace {

typedef double V8d __attribute__((vector_size(64)));
typedef float V8f __attribute__((vector_size(32)));

constexpr int kMaxTaps = 256;  // larger windows: the reference kernel

// Comparisons kCmpLanes at a time (simd.h says why).
using opt::kCmpLanes;
using VC = opt::CmpF32;
using IC = opt::CmpI32;

// out[c, c+16) = the maximum of taps[t][c, c+16) over the taps; NaN once
// seen stays (nothing is > NaN), a NaN tap replaces.
TFN_OPT_INLINE void Max16(const float* const* taps, int nt, int64_t c, float* out) {
  const VC ninf = VC{} - std::numeric_limits<float>::infinity();
  for (int h = 0; h < 16; h += kCmpLanes) {
    VC m = ninf, v;
    for (int t = 0; t < nt; ++t) {
      std::memcpy(&v, taps[t] + c + h, sizeof(v));
      const IC take = (v > m) | (v != v);
      m = (VC)((take & (IC)v) | (~take & (IC)m));
    }
    std::memcpy(out + c + h, &m, sizeof(m));
  }
}

struct PoolJob {
  const Pool2DParams* p;
  const float* x;
  const float* x_end;  // past the input's last float
  float* y;
  int64_t H, W, C, OH, OW, pt, pb, pl, pr;
  int64_t row_begin, row_end;
};

// Offsets of the taps from a window's corner, for windows inside the input.
TFN_OPT_INLINE void TapOffsets(const PoolJob& j, int64_t* offsets) {
  const Pool2DParams& p = *j.p;
  for (int64_t kh = 0, t = 0; kh < p.ksize[0]; ++kh) {
    for (int64_t kw = 0; kw < p.ksize[1]; ++kw) {
      offsets[t++] = (kh * p.dilations[0] * j.W + kw * p.dilations[1]) * j.C;
    }
  }
}

// Lists the taps of output pixel (row r, column ow) that are inside the input,
// in address order; returns their count and sets *in_padded to the taps in
// the padded extent.
TFN_OPT_INLINE int ListTaps(const PoolJob& j, const int64_t* offsets, int64_t r, int64_t ow,
                            const float** taps, int64_t* in_padded) {
  const Pool2DParams& p = *j.p;
  const int64_t C = j.C;
  const int all = p.ksize[0] * p.ksize[1];
  const int64_t span_h = (p.ksize[0] - 1) * int64_t{p.dilations[0]};
  const int64_t span_w = (p.ksize[1] - 1) * int64_t{p.dilations[1]};
  const int64_t n = r / j.OH, oh = r % j.OH;
  const float* image = j.x + n * j.H * j.W * C;
  const int64_t ih0 = oh * p.strides[0] - j.pt;
  const int64_t iw0 = ow * p.strides[1] - j.pl;
  if (ih0 >= 0 && ih0 + span_h < j.H && iw0 >= 0 && iw0 + span_w < j.W) {  // every tap inside
    const float* corner = image + (ih0 * j.W + iw0) * C;
    for (int t = 0; t < all; ++t) taps[t] = corner + offsets[t];
    *in_padded = all;
    return all;
  }
  int nt = 0;
  *in_padded = 0;
  for (int64_t kh = 0; kh < p.ksize[0]; ++kh) {
    const int64_t ih = ih0 + kh * p.dilations[0];
    if (ih < -j.pt || ih >= j.H + j.pb) continue;
    for (int64_t kw = 0; kw < p.ksize[1]; ++kw) {
      const int64_t iw = iw0 + kw * p.dilations[1];
      if (iw < -j.pl || iw >= j.W + j.pr) continue;
      ++*in_padded;
      if (ih < 0 || ih >= j.H || iw < 0 || iw >= j.W) continue;
      taps[nt++] = image + (ih * j.W + iw) * C;
    }
  }
  return nt;
}

TFN_OPT_INLINE void PoolBody(const PoolJob& j) {
  const Pool2DParams& p = *j.p;
  const int64_t C = j.C;
  const float* taps[kMaxTaps];
  int64_t offsets[kMaxTaps];
  TapOffsets(j, offsets);
  // The end of this job's output rows: vector stores stay before it.
  const float* const out_end = j.y + j.row_end * j.OW * C;
  for (int64_t r = j.row_begin; r < j.row_end; ++r) {
    for (int64_t ow = 0; ow < j.OW; ++ow) {
      int64_t in_padded = 0;
      const int nt = ListTaps(j, offsets, r, ow, taps, &in_padded);
      float* out = j.y + (r * j.OW + ow) * C;
      int64_t c = 0;
      if (p.is_max) {
        for (; c + 16 <= C; c += 16) Max16(taps, nt, c, out);
        // The last C % 16 channels (all of them when C < 16, LeNet's 6) as a
        // whole block when its 16 lanes are readable in every tap and
        // writable here: the lanes past C hold the next pixels' outputs,
        // which are written again (correctly) after this one, and never
        // another thread's rows (out_end). Taps are listed in address order.
        if (c < C && nt > 0 && taps[nt - 1] + c + 16 <= j.x_end && out + c + 16 <= out_end) {
          Max16(taps, nt, c, out);
          c = C;
        }
        if (c < C) {  // the last C % 16 channels: taps outer, channels inner;
          // the maximum of the numbers, NaN when any tap is NaN (the same result)
          float m[16];
          int32_t nan[16];
          const int64_t w = C - c;
          for (int64_t k = 0; k < w; ++k) {
            m[k] = -std::numeric_limits<float>::infinity();
            nan[k] = 0;
          }
          for (int t = 0; t < nt; ++t) {
            const float* v = taps[t] + c;
            for (int64_t k = 0; k < w; ++k) {
              m[k] = v[k] > m[k] ? v[k] : m[k];
              nan[k] |= v[k] != v[k];
            }
          }
          for (int64_t k = 0; k < w; ++k) {
            out[c + k] = nan[k] ? std::numeric_limits<float>::quiet_NaN() : m[k];
          }
        }
      } else {
        const int64_t count = p.count_include_pad ? in_padded : nt;
        const double inv_nan = std::numeric_limits<double>::quiet_NaN();
        // Whole vectors: 8 floats widened to double per load, one vector
        // division per 8 outputs (the scalar-lane form was not vectorized:
        // Inception's 17x17x768 pools ran at 3 GFLOP/s).
        const V8d divisor = V8d{} + (count > 0 ? static_cast<double>(count) : 1.0);
        for (; c + 16 <= C; c += 16) {
          V8d s0 = {}, s1 = {};
          for (int t = 0; t < nt; ++t) {
            V8f lo, hi;
            std::memcpy(&lo, taps[t] + c, sizeof(lo));
            std::memcpy(&hi, taps[t] + c + 8, sizeof(hi));
            s0 += __builtin_convertvector(lo, V8d);
            s1 += __builtin_convertvector(hi, V8d);
          }
          const V8f q0 = __builtin_convertvector(s0 / divisor, V8f);
          const V8f q1 = __builtin_convertvector(s1 / divisor, V8f);
          if (count > 0) {
            std::memcpy(out + c, &q0, sizeof(q0));
            std::memcpy(out + c + 8, &q1, sizeof(q1));
          } else {
            for (int k = 0; k < 16; ++k) out[c + k] = static_cast<float>(inv_nan);
          }
        }
        for (; c < C; ++c) {
          double s = 0;
          for (int t = 0; t < nt; ++t) s += static_cast<double>(taps[t][c]);
          out[c] = static_cast<float>(count > 0 ? s / static_cast<double>(count) : inv_nan);
        }
      }
    }
  }
}

TFN_OPT_MULTIVERSION(RunPool, PoolJob, PoolBody)

#if defined(TFN_OPT_X86)
// The max pool with AVX-512 intrinsics. GCC lowers the generic comparisons
// of Max16 to 4 lanes (simd.h, kCmpLanes), which left ResNet's and
// ShuffleNet's stem pools at a quarter of this speed (ShuffleNet-v2 x0.5
// spent 17% of its time there). Same results as Max16: max_ps(v, m) is
// "v > m ? v : m" (m on a NaN, -0 vs 0 as the comparison), then a NaN tap
// replaces. The last C % 16 channels are masked loads and stores.
TFN_OPT_TARGET_AVX512 void MaxPoolAvx512(const PoolJob& j) {
  const int64_t C = j.C;
  const float* taps[kMaxTaps];
  int64_t offsets[kMaxTaps];
  TapOffsets(j, offsets);
  const __m512 ninf = _mm512_set1_ps(-std::numeric_limits<float>::infinity());
  const __mmask16 tail = static_cast<__mmask16>((1u << (C % 16)) - 1);
  for (int64_t r = j.row_begin; r < j.row_end; ++r) {
    for (int64_t ow = 0; ow < j.OW; ++ow) {
      int64_t in_padded = 0;
      const int nt = ListTaps(j, offsets, r, ow, taps, &in_padded);
      float* out = j.y + (r * j.OW + ow) * C;
      for (int64_t c = 0; c < C; c += 16) {
        const __mmask16 k = c + 16 <= C ? static_cast<__mmask16>(0xFFFF) : tail;
        __m512 m = ninf;
        for (int t = 0; t < nt; ++t) {
          const __m512 v = _mm512_maskz_loadu_ps(k, taps[t] + c);
          m = _mm512_mask_mov_ps(_mm512_max_ps(v, m), _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q), v);
        }
        _mm512_mask_storeu_ps(out + c, k, m);
      }
    }
  }
}
#endif

// Padding of one dim as ref/conv.cc's ResolvePadding: {before, after}.
void Pads(int32_t mode, int64_t in, int64_t out, int64_t window, int64_t stride, int64_t eb,
          int64_t ea, int64_t* before, int64_t* after) {
  if (mode == 2) {
    *before = eb, *after = ea;
  } else if (mode == 0) {
    *before = *after = 0;
  } else {
    int64_t total = (out - 1) * stride + window - in;
    if (total < 0) total = 0;
    *before = total / 2, *after = total - total / 2;
  }
}

}  // namespace

TFN_KERNEL(tfn_ref_pool2d);

TFN_KERNEL(tfn_opt_pool2d) {
  const auto& p = *static_cast<const Pool2DParams*>(params);
  const TfnTensor& x = inputs[0];
  const TfnTensor& y = outputs[0];
  const int32_t f32 = static_cast<int32_t>(DType::kFloat32);
  if (x.rank != 4 || y.rank != 4 || y.dims[0] != x.dims[0] || y.dims[3] != x.dims[3]) {
    return TFN_KERNEL_BAD_SHAPE;
  }
  if (x.dtype != f32 || static_cast<int64_t>(p.ksize[0]) * p.ksize[1] > kMaxTaps) {
    return tfn_ref_pool2d(params, inputs, num_inputs, outputs, num_outputs, ctx);
  }
  PoolJob j{};
  j.p = &p;
  j.x = static_cast<const float*>(x.data);
  j.x_end = j.x + x.dims[0] * x.dims[1] * x.dims[2] * x.dims[3];
  j.y = static_cast<float*>(y.data);
  j.H = x.dims[1], j.W = x.dims[2], j.C = x.dims[3], j.OH = y.dims[1], j.OW = y.dims[2];
  Pads(p.padding, j.H, j.OH, (p.ksize[0] - 1) * int64_t{p.dilations[0]} + 1, p.strides[0],
       p.pads[0], p.pads[1], &j.pt, &j.pb);
  Pads(p.padding, j.W, j.OW, (p.ksize[1] - 1) * int64_t{p.dilations[1]} + 1, p.strides[1],
       p.pads[2], p.pads[3], &j.pl, &j.pr);
  const int64_t rows = x.dims[0] * j.OH;
  const int64_t per_row = j.OW * j.C * p.ksize[0] * p.ksize[1];
  auto run = [&](int64_t begin, int64_t end) {
    PoolJob part = j;
    part.row_begin = begin;
    part.row_end = end;
#if defined(TFN_OPT_X86)
    if (p.is_max && opt::ActiveIsa() == opt::Isa::kAvx512) return MaxPoolAvx512(part);
#endif
    RunPool(part);
  };
  ParallelFor(ctx, rows, 1 + opt::kMinParallelChunk / (per_row > 0 ? per_row : 1), run);
  return TFN_KERNEL_OK;
}

}  // namespace tfn::kernels
