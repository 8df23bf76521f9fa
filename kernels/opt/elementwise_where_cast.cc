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
// compiled for the baseline instruction set only (memory-bound), except
// where on 4-byte elements (Where32: widening the condition is not).
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

// GCC keeps the loop scalar when it converts a bool to an integer, and when
// an operand of stride 0 is read inside it (it might alias o[i] as far as
// GCC knows): the condition is read as bytes (a bool is 0 or 1), and such
// operands once, before the loop.
template <class T, int kSc, int kSx, int kSy>
TFN_OPT_INLINE void WhereInner(const bool* cond, const T* x, const T* y, T* o, int64_t n) {
  if (n <= 0) return;
  const uint8_t* c = reinterpret_cast<const uint8_t*>(cond);
  const uint8_t c0 = c[0];
  const T x0 = x[0], y0 = y[0];
  for (int64_t i = 0; i < n; ++i) {
    o[i] = SelectBits(kSc ? c[i] != 0 : c0 != 0, kSx ? x[i] : x0, kSy ? y[i] : y0);
  }
}

// One row segment: the stride pattern's loop (each operand contiguous or
// one value for the row), or a strided loop.
template <class T>
TFN_OPT_INLINE void WhereSegment(const bool* cr, const T* xr, const T* yr, T* orow, int64_t n,
                                 int64_t sc, int64_t sx, int64_t sy) {
  const bool unit = sc <= 1 && sx <= 1 && sy <= 1;
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
}

// where over 4-byte elements (float32, int32), compiled per instruction set
// (simd.h): widening each bool to a lane mask is not memory-bound work,
// and the baseline build spent 0.6 ns per element on attention masks.
struct Where32Job {
  const BroadcastGeometry* g;
  const bool* c;
  const uint32_t* x;
  const uint32_t* y;
  uint32_t* o;
  int64_t begin, end;
};

TFN_OPT_INLINE void Where32Body(const Where32Job& j) {
  const BroadcastGeometry& g = *j.g;
  const int64_t inner = g.inner();
  const int64_t sc = g.inner_stride(0), sx = g.inner_stride(1), sy = g.inner_stride(2);
  int64_t col = j.begin % inner;
  RowCursor cur;
  cur.Seek(g, j.begin / inner);
  for (int64_t pos = j.begin; pos < j.end;) {
    const int64_t len = inner - col < j.end - pos ? inner - col : j.end - pos;
    WhereSegment(j.c + cur.off[0] + col * sc, j.x + cur.off[1] + col * sx,
                 j.y + cur.off[2] + col * sy, j.o + pos, len, sc, sx, sy);
    pos += len;
    col = 0;
    if (pos < j.end) cur.Next(g);
  }
}

TFN_OPT_MULTIVERSION(Where32, Where32Job, Where32Body)

template <class T>
void WhereRows(const BroadcastGeometry& g, const bool* c, const T* x, const T* y, T* o,
               int64_t begin, int64_t end) {
  if constexpr (sizeof(T) == 4) {
    Where32(Where32Job{&g, c, reinterpret_cast<const uint32_t*>(x),
                       reinterpret_cast<const uint32_t*>(y), reinterpret_cast<uint32_t*>(o), begin,
                       end});
    return;
  }
  const int64_t sc = g.inner_stride(0), sx = g.inner_stride(1), sy = g.inner_stride(2);
  ForEachRowSegment(g, begin, end, [&](const int64_t* off, int64_t pos, int64_t col, int64_t n) {
    WhereSegment(c + off[0] + col * sc, x + off[1] + col * sx, y + off[2] + col * sy, o + pos, n,
                 sc, sx, sy);
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
