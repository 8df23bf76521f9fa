// Optimized where and cast kernels (tfn_opt_where, tfn_opt_cast).
//
// where: the three-input broadcast geometry (broadcast.h) turns every case
// into rows with an inner loop whose operands are each contiguous or one
// scalar for the row; the eight stride patterns are separate loops, and the
// selection is done on bits (SelectBits) so the loops vectorize for every
// dtype (dtypes of one size share the loops). cast: one contiguous loop per
// (from, to) pair with the reference's semantics (CastValue in
// scalar_ops.h: truncation toward zero, saturation, NaN -> 0, x != 0 for
// bool) written branch-free. Both are bit-identical to the reference and
// memory-bound, so they are compiled for the baseline instruction set only.
#include <cstring>
#include <limits>

#include "core/element_convert.h"
#include "kernels/opt/broadcast.h"
#include "kernels/opt/cast_half.h"
#include "kernels/opt/simd.h"
#include "kernels/ref/ref_kernels.h"
#include "kernels/ref/scalar_ops.h"

namespace tfn::kernels::opt {
namespace {

template <class T, int kSc, int kSx, int kSy>
void WhereInner(const bool* c, const T* x, const T* y, T* o, int64_t n) {
  for (int64_t i = 0; i < n; ++i) o[i] = SelectBits(c[i * kSc], x[i * kSx], y[i * kSy]);
}

template <class T>
void WhereRows(const BroadcastGeometry& g, const bool* c, const T* x, const T* y, T* o,
               int64_t begin, int64_t end) {
  const int64_t sc = g.inner_stride(0), sx = g.inner_stride(1), sy = g.inner_stride(2);
  const bool unit = sc <= 1 && sx <= 1 && sy <= 1;
  ForEachRowSegment(g, begin, end, [&](const int64_t* off, int64_t pos, int64_t col, int64_t n) {
    const bool* cr = c + off[0] + col * sc;
    const T* xr = x + off[1] + col * sx;
    const T* yr = y + off[2] + col * sy;
    T* orow = o + pos;
    switch (unit ? sc * 4 + sx * 2 + sy : -1) {
      case 7:
        return WhereInner<T, 1, 1, 1>(cr, xr, yr, orow, n);
      case 6:
        return WhereInner<T, 1, 1, 0>(cr, xr, yr, orow, n);
      case 5:
        return WhereInner<T, 1, 0, 1>(cr, xr, yr, orow, n);
      case 4:
        return WhereInner<T, 1, 0, 0>(cr, xr, yr, orow, n);
      case 3:
        return WhereInner<T, 0, 1, 1>(cr, xr, yr, orow, n);
      case 2:
        return WhereInner<T, 0, 1, 0>(cr, xr, yr, orow, n);
      case 1:
        return WhereInner<T, 0, 0, 1>(cr, xr, yr, orow, n);
      default:
        for (int64_t i = 0; i < n; ++i) orow[i] = cr[i * sc] ? xr[i * sx] : yr[i * sy];
    }
  });
}

// The largest From value that converts to To without overflow.
template <class To, class From>
constexpr From MaxSafe() {
  constexpr From hi = static_cast<From>(std::numeric_limits<To>::max());
  if constexpr (std::numeric_limits<From>::digits >= std::numeric_limits<To>::digits) {
    return hi;  // exact (f64 -> int32)
  } else {
    return hi - hi * (std::numeric_limits<From>::epsilon() / 2);  // hi rounded up to 2^k
  }
}

template <class To, class From>
TFN_OPT_INLINE To CastOne(From v) {
  if constexpr (std::is_same_v<To, bool>) {
    return v != From(0);
  } else if constexpr (kIsFloat<From> && !kIsFloat<To>) {
    constexpr To lo = std::numeric_limits<To>::min(), hi = std::numeric_limits<To>::max();
    constexpr From flo = static_cast<From>(lo), fhi = static_cast<From>(hi);
    constexpr From safe = MaxSafe<To, From>();
    From c = SelectBits(v >= flo, v, flo);  // NaN -> lo, then overridden
    c = SelectBits(c <= safe, c, safe);
    To r = static_cast<To>(c);  // always in range
    r = SelectBits(v >= fhi, hi, r);
    return SelectBits(v != v, To(0), r);
  } else {
    return static_cast<To>(v);
  }
}

template <class To, class From>
void CastLoop(const From* x, To* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = CastOne<To, From>(x[i]);
}

}  // namespace
}  // namespace tfn::kernels::opt

namespace tfn::kernels {

TFN_KERNEL(tfn_opt_where) {
  if (inputs[0].dtype != static_cast<int32_t>(DType::kBool) || inputs[1].dtype != inputs[2].dtype) {
    return TFN_KERNEL_UNSUPPORTED;
  }
  const opt::BroadcastGeometry g = opt::MakeBroadcastGeometry(outputs[0], inputs, 3);
  if (g.total == 0) return TFN_KERNEL_OK;
  return DispatchStorage(inputs[1].dtype, [&](auto tag) {
    // Selection copies bits: dtypes of one size share one set of loops.
    using T = decltype(tag);
    auto run = [&](int64_t begin, int64_t end) {
      opt::WhereRows<T>(g, DataOf<bool>(inputs[0]), static_cast<const T*>(inputs[1].data),
                        static_cast<const T*>(inputs[2].data), static_cast<T*>(outputs[0].data),
                        begin, end);
    };
    ParallelFor(ctx, g.total, opt::kMinParallelChunk, run);
    return TFN_KERNEL_OK;
  });
}

TFN_KERNEL(tfn_opt_cast) {
  const int64_t n = NumElementsOf(outputs[0]);
  if (NumElementsOf(inputs[0]) != n) return TFN_KERNEL_BAD_SHAPE;
  if (TypeBit(static_cast<DType>(inputs[0].dtype)) & kStorageTypes ||
      TypeBit(static_cast<DType>(outputs[0].dtype)) & kStorageTypes) {
    // float16, bfloat16 and the small integers: float32 <-> 16-bit floats in
    // AVX-512 (cast_half.h), the rest through the reference conversion
    // (core/element_convert.h); split over the threads.
    const DType from = static_cast<DType>(inputs[0].dtype),
                to = static_cast<DType>(outputs[0].dtype);
    const bool truncate = static_cast<const ElementwiseParams*>(params)->bfloat16_truncate != 0;
    auto run = [&](int64_t begin, int64_t end) {
      if (opt::CastHalfRange(from, to, inputs[0].data, outputs[0].data, begin, end, truncate)) {
        return;
      }
      for (int64_t i = begin; i < end; ++i) {
        StoreWide(to, outputs[0].data, i, LoadWide(from, inputs[0].data, i), truncate);
      }
    };
    ParallelFor(ctx, n, opt::kMinParallelChunk, run);
    return TFN_KERNEL_OK;
  }
  return DispatchDType(inputs[0].dtype, [&](auto from_tag) {
    using From = decltype(from_tag);
    return DispatchDType(outputs[0].dtype, [&](auto to_tag) {
      using To = decltype(to_tag);
      const From* x = DataOf<From>(inputs[0]);
      To* y = DataOf<To>(outputs[0]);
      if constexpr (std::is_same_v<From, To>) {
        if (n > 0 && static_cast<const void*>(x) != static_cast<void*>(y)) {
          std::memcpy(y, x, static_cast<size_t>(n) * sizeof(To));
        }
      } else {
        auto run = [&](int64_t begin, int64_t end) {
          opt::CastLoop<To, From>(x + begin, y + begin, end - begin);
        };
        ParallelFor(ctx, n, opt::kMinParallelChunk, run);
      }
      return TFN_KERNEL_OK;
    });
  });
}

}  // namespace tfn::kernels
