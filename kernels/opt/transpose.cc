// The optimized transpose (tfn_opt_transpose; params TransposeParams as the
// reference's), every dtype (moved as 1-, 4- or 8-byte words: exact).
//
// The output's dims are simplified first: size-1 dims dropped, and
// neighbours that are also neighbours in the input merged. Then either the
// output's innermost dim is contiguous in the input too (copies of whole
// rows), or the innermost dims of output and input differ, and the data is
// moved in 16 x 16 tiles between those two dims (each tile's input rows and
// output rows stay in L1), e.g. an NCHW <-> NHWC layout change. Outer
// dims and tile strips are split over ctx's threads.
#include <cstring>

#include "kernels/ref/ref_kernels.h"
#include "kernels/ref/tensor_util.h"

namespace tfn::kernels {
namespace {

constexpr int64_t kTile = 16;
constexpr int64_t kMinChunkElements = 16384;

struct Layout {
  int rank = 0;
  int64_t dims[TFN_KERNEL_MAX_RANK];
  int64_t in_strides[TFN_KERNEL_MAX_RANK];   // input stride of each output dim
  int64_t out_strides[TFN_KERNEL_MAX_RANK];  // contiguous output strides
};

// Offsets in input and output of outer index `o` over the dims in `order`
// (outermost first), the dims not moved by the inner loops.
inline void Offsets(const Layout& l, const int* order, int n, int64_t o, int64_t* in_off,
                    int64_t* out_off) {
  *in_off = *out_off = 0;
  for (int k = n - 1; k >= 0; --k) {
    const int d = order[k];
    const int64_t x = o % l.dims[d];
    o /= l.dims[d];
    *in_off += x * l.in_strides[d];
    *out_off += x * l.out_strides[d];
  }
}

// A strip of 16 output rows of NI (<= 4) elements each, whose input columns
// are contiguous (stride 1 along j): NI known at compile time, so the copy
// is unrolled instead of running the generic tile loop 16 x NI times with
// its bounds (MobileNet's input layout change ran at ~0.5 ns per element).
template <int NI, class W>
inline void SmallInnerN(const W* src, int64_t si, W* dst, int64_t oj) {
  for (int64_t jj = 0; jj < kTile; ++jj) {
    for (int ii = 0; ii < NI; ++ii) dst[jj * oj + ii] = src[jj + ii * si];
  }
}

template <class W>
inline void SmallInner(int64_t ni, const W* src, int64_t si, W* dst, int64_t oj) {
  switch (ni) {
    case 1:
      return SmallInnerN<1>(src, si, dst, oj);
    case 2:
      return SmallInnerN<2>(src, si, dst, oj);
    case 3:
      return SmallInnerN<3>(src, si, dst, oj);
    default:
      return SmallInnerN<4>(src, si, dst, oj);
  }
}

template <class W>
int32_t Run(const Layout& l, const W* in, W* out, const TfnKernelContext* ctx) {
  const int last = l.rank - 1;
  if (l.rank == 0) {
    out[0] = in[0];
    return TFN_KERNEL_OK;
  }
  if (l.in_strides[last] == 1) {  // rows contiguous on both sides
    int order[TFN_KERNEL_MAX_RANK];
    for (int d = 0; d < last; ++d) order[d] = d;
    const int64_t row = l.dims[last];
    int64_t rows = 1;
    for (int d = 0; d < last; ++d) rows *= l.dims[d];
    auto copy = [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        int64_t io, oo;
        Offsets(l, order, last, r, &io, &oo);
        std::memcpy(out + oo, in + io, static_cast<size_t>(row) * sizeof(W));
      }
    };
    ParallelFor(ctx, rows, 1 + kMinChunkElements / row, copy);
    return TFN_KERNEL_OK;
  }
  // j: the output dim that is innermost in the input (smallest input stride).
  int j = 0;
  for (int d = 1; d < last; ++d) {
    if (l.in_strides[d] < l.in_strides[j]) j = d;
  }
  int order[TFN_KERNEL_MAX_RANK];
  int n = 0;
  for (int d = 0; d < last; ++d) {
    if (d != j) order[n++] = d;
  }
  int64_t outer = 1;
  for (int k = 0; k < n; ++k) outer *= l.dims[order[k]];
  const int64_t nj = l.dims[j], ni = l.dims[last];
  const int64_t sj = l.in_strides[j], si = l.in_strides[last], oj = l.out_strides[j];
  const int64_t strips = (nj + kTile - 1) / kTile;
  // One unit: a strip of up to 16 along j, all of the output's last dim.
  auto move = [&](int64_t begin, int64_t end) {
    for (int64_t u = begin; u < end; ++u) {
      int64_t io, oo;
      Offsets(l, order, n, u / strips, &io, &oo);
      const int64_t j0 = (u % strips) * kTile, jn = nj - j0 < kTile ? nj - j0 : kTile;
      const W* src = in + io + j0 * sj;
      W* dst = out + oo + j0 * oj;
      if (sj == 1 && jn == kTile && ni <= 4) {  // NCHW -> NHWC of an image (C = 3)
        SmallInner(ni, src, si, dst, oj);
        continue;
      }
      for (int64_t i0 = 0; i0 < ni; i0 += kTile) {
        const int64_t in_ = ni - i0 < kTile ? ni - i0 : kTile;
        if (jn == kTile && in_ == kTile) {
          for (int64_t jj = 0; jj < kTile; ++jj) {
            for (int64_t ii = 0; ii < kTile; ++ii) {
              dst[jj * oj + i0 + ii] = src[jj * sj + (i0 + ii) * si];
            }
          }
        } else {
          for (int64_t jj = 0; jj < jn; ++jj) {
            for (int64_t ii = 0; ii < in_; ++ii) {
              dst[jj * oj + i0 + ii] = src[jj * sj + (i0 + ii) * si];
            }
          }
        }
      }
    }
  };
  ParallelFor(ctx, outer * strips, 1 + kMinChunkElements / (kTile * ni), move);
  return TFN_KERNEL_OK;
}

}  // namespace

TFN_KERNEL(tfn_opt_transpose) {
  const auto& p = *static_cast<const TransposeParams*>(params);
  const TfnTensor& x = inputs[0];
  const TfnTensor& y = outputs[0];
  if (num_inputs < 1 || num_outputs != 1 || x.rank != y.rank || x.dtype != y.dtype) {
    return TFN_KERNEL_BAD_SHAPE;
  }
  int64_t in_strides[TFN_KERNEL_MAX_RANK];
  StridesOf(x, in_strides);
  Layout l;
  for (int d = 0; d < y.rank; ++d) {
    if (p.perm[d] < 0 || p.perm[d] >= x.rank || y.dims[d] != x.dims[p.perm[d]]) {
      return TFN_KERNEL_BAD_SHAPE;
    }
    if (y.dims[d] == 0) return TFN_KERNEL_OK;
    if (y.dims[d] == 1) continue;  // size-1 dims move nothing
    const int64_t s = in_strides[p.perm[d]];
    if (l.rank > 0 && l.in_strides[l.rank - 1] == s * y.dims[d]) {  // neighbours in the input too
      l.dims[l.rank - 1] *= y.dims[d];
      l.in_strides[l.rank - 1] = s;
    } else {
      l.dims[l.rank] = y.dims[d];
      l.in_strides[l.rank] = s;
      ++l.rank;
    }
  }
  int64_t s = 1;
  for (int d = l.rank - 1; d >= 0; --d) {
    l.out_strides[d] = s;
    s *= l.dims[d];
  }
  return DispatchDType(x.dtype, [&](auto tag) -> int32_t {
    constexpr size_t kSize = sizeof(decltype(tag));
    if constexpr (kSize == 1) return Run(l, DataOf<uint8_t>(x), DataOf<uint8_t>(y), ctx);
    if constexpr (kSize == 4) return Run(l, DataOf<uint32_t>(x), DataOf<uint32_t>(y), ctx);
    if constexpr (kSize == 8) return Run(l, DataOf<uint64_t>(x), DataOf<uint64_t>(y), ctx);
    return TFN_KERNEL_UNSUPPORTED;
  });
}

}  // namespace tfn::kernels
