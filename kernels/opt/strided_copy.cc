// Implementation of the strided-view copy (strided_copy.h).
#include "kernels/opt/strided_copy.h"

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "kernels/opt/simd.h"
#include "kernels/opt/strided_copy_internal.h"
#include "kernels/ref/tensor_util.h"

namespace tfn::kernels {
namespace {

constexpr int64_t kTile = 16;
constexpr int64_t kMinChunkElements = 16384;
// Contiguous rows shorter than this are copied element by element in a loop
// over the next dim rather than by one memcpy each.
constexpr int64_t kShortRow = 32;

int64_t Abs(int64_t v) { return v < 0 ? -v : v; }

// Offsets in input and output of outer index `o` over the dims in `order`
// (outermost first), the dims not moved by the inner loops.
inline void Offsets(const StridedLayout& l, const int* order, int n, int64_t o, int64_t* in_off,
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
// its bounds (an image's NCHW -> NHWC change, C = 3).
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
int32_t Run(const StridedLayout& l, const W* in, W* out, const TfnKernelContext* ctx) {
  const int last = l.rank - 1;
  if (l.rank == 0) {
    out[0] = in[0];
    return TFN_KERNEL_OK;
  }
  if (l.rank == 1) {  // one dim with a stride (a contiguous one is a row below)
    const int64_t n = l.dims[0], s = l.in_strides[0];
    if (s != 1) {
      auto gather = [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) out[i] = in[i * s];
      };
      ParallelFor(ctx, n, kMinChunkElements, gather);
      return TFN_KERNEL_OK;
    }
  }
  if (l.in_strides[last] == 1 && last >= 1 && l.dims[last] < kShortRow) {
    // Short contiguous rows (a few channels, e.g. [N, H, W, 6] -> [H, W, N,
    // 6]): the offsets once per run of the next dim, then each row copied by
    // a plain loop (a memcpy call and the offsets per 24-byte row cost 8x).
    const int inner = last - 1;
    int order[TFN_KERNEL_MAX_RANK];
    for (int d = 0; d < inner; ++d) order[d] = d;
    const int64_t row = l.dims[last], count = l.dims[inner], stride = l.in_strides[inner];
    int64_t runs = 1;
    for (int d = 0; d < inner; ++d) runs *= l.dims[d];
    auto copy = [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        int64_t io, oo;
        Offsets(l, order, inner, r, &io, &oo);
        const W* src = in + io;
        W* dst = out + oo;
        for (int64_t k = 0; k < count; ++k, src += stride, dst += row) {
          for (int64_t e = 0; e < row; ++e) dst[e] = src[e];
        }
      }
    };
    ParallelFor(ctx, runs, 1 + kMinChunkElements / (row * count), copy);
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
  // j: the output dim (other than the last) that is innermost in the input.
  int j = 0;
  for (int d = 1; d < last; ++d) {
    if (Abs(l.in_strides[d]) < Abs(l.in_strides[j])) j = d;
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
  // 2-4 contiguous input rows interleaved into a dense output (an image's
  // NCHW -> NHWC): the AVX-512 permutes take each outer index's strips at once.
  if (std::is_same_v<W, uint32_t> && sj == 1 && oj == ni && ni >= 2 && ni <= 4 &&
      opt::Avx512KernelsActive()) {
    auto interleave = [&](int64_t begin, int64_t end) {
      for (int64_t u = begin; u < end;) {
        const int64_t o = u / strips, last_u = std::min(end, (o + 1) * strips);
        int64_t io, oo;
        Offsets(l, order, n, o, &io, &oo);
        const int64_t j0 = (u % strips) * kTile, j1 = std::min(nj, (last_u - o * strips) * kTile);
        strided_internal::InterleaveRowsAvx512(reinterpret_cast<const uint32_t*>(in + io + j0), si,
                                               static_cast<int>(ni), j1 - j0,
                                               reinterpret_cast<uint32_t*>(out + oo + j0 * ni));
        u = last_u;
      }
    };
    ParallelFor(ctx, outer * strips, 1 + kMinChunkElements / (kTile * ni), interleave);
    return TFN_KERNEL_OK;
  }
  // One unit: a strip of up to 16 along j, all of the output's last dim.
  auto move = [&](int64_t begin, int64_t end) {
    for (int64_t u = begin; u < end; ++u) {
      int64_t io, oo;
      Offsets(l, order, n, u / strips, &io, &oo);
      const int64_t j0 = (u % strips) * kTile, jn = nj - j0 < kTile ? nj - j0 : kTile;
      const W* src = in + io + j0 * sj;
      W* dst = out + oo + j0 * oj;
      if (sj == 1 && jn == kTile && ni <= 4) {
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

void StridedLayout::Add(int64_t size, int64_t in_stride) {
  if (size == 1) return;                                       // size-1 dims move nothing
  if (rank > 0 && in_strides[rank - 1] == in_stride * size) {  // neighbours in the input too
    dims[rank - 1] *= size;
    in_strides[rank - 1] = in_stride;
    return;
  }
  dims[rank] = size;
  in_strides[rank] = in_stride;
  ++rank;
}

void StridedLayout::Finish() {
  int64_t s = 1;
  for (int d = rank - 1; d >= 0; --d) {
    out_strides[d] = s;
    s *= dims[d];
  }
}

int32_t CopyStrided(const StridedLayout& l, const void* in, void* out, int element_bytes,
                    const TfnKernelContext* ctx) {
  switch (element_bytes) {
    case 1:
      return Run(l, static_cast<const uint8_t*>(in), static_cast<uint8_t*>(out), ctx);
    case 2:
      return Run(l, static_cast<const uint16_t*>(in), static_cast<uint16_t*>(out), ctx);
    case 4:
      return Run(l, static_cast<const uint32_t*>(in), static_cast<uint32_t*>(out), ctx);
    case 8:
      return Run(l, static_cast<const uint64_t*>(in), static_cast<uint64_t*>(out), ctx);
    default:
      return TFN_KERNEL_UNSUPPORTED;
  }
}

}  // namespace tfn::kernels
