// Lane-parallel reductions shared by the optimized reduce, argreduce and
// normalize kernels. GCC and clang do not vectorize `sum += x[i]` over
// floats without -ffast-math (it reorders the additions), so the loops here
// keep kLanes independent accumulators, which they do vectorize, and merge
// them in a fixed order: the result depends only on the data and n, never on
// the instruction set (no FMA is involved) or the thread count.
//
// Float32 sums and products accumulate in double, like the reference; max
// and min propagate NaN (a NaN accumulator stays NaN).
#pragma once

#include <cstdint>
#include <limits>
#include <type_traits>

#include "kernels/opt/simd.h"

namespace tfn::kernels::opt {

inline constexpr int kLanes = 16;

// Accumulator type: double for floats, the unsigned type (wrapping) for ints.
template <class T, bool = std::is_floating_point_v<T>>
struct Wide {
  using type = double;
};
template <class T>
struct Wide<T, false> {
  using type = std::make_unsigned_t<T>;
};
template <class T>
using WideOf = typename Wide<T>::type;

// Accumulate (acc, element) and merge (acc, acc) for one reduction.
template <class T>
struct SumOp {
  using Acc = WideOf<T>;
  static constexpr Acc Init() { return Acc(0); }
  static TFN_OPT_INLINE Acc Add(Acc a, T v) { return a + static_cast<Acc>(v); }
  static TFN_OPT_INLINE Acc Merge(Acc a, Acc b) { return a + b; }
};

template <class T>
struct ProdOp {
  using Acc = WideOf<T>;
  static constexpr Acc Init() { return Acc(1); }
  static TFN_OPT_INLINE Acc Add(Acc a, T v) { return a * static_cast<Acc>(v); }
  static TFN_OPT_INLINE Acc Merge(Acc a, Acc b) { return a * b; }
};

template <class T, bool kMax>
struct ExtremeOp {
  using Acc = T;
  static constexpr Acc Init() {
    if constexpr (std::is_floating_point_v<T>) {
      return kMax ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::infinity();
    } else {
      return kMax ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max();
    }
  }
  // Takes v when it is more extreme, or when it is the first NaN.
  static TFN_OPT_INLINE Acc Add(Acc a, T v) {
    const bool better = kMax ? v > a : v < a;
    if constexpr (std::is_floating_point_v<T>) {
      return SelectBits(better | ((v != v) & (a == a)), v, a);
    } else {
      return SelectBits(better, v, a);
    }
  }
  static TFN_OPT_INLINE Acc Merge(Acc a, Acc b) { return Add(a, b); }
};

// Reduces x[0, n) with kLanes accumulators; lanes merge pairwise.
template <class Op, class T>
TFN_OPT_INLINE typename Op::Acc ReduceContiguous(const T* x, int64_t n) {
  using Acc = typename Op::Acc;
  Acc acc[kLanes];
  for (int j = 0; j < kLanes; ++j) acc[j] = Op::Init();
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (int j = 0; j < kLanes; ++j) acc[j] = Op::Add(acc[j], x[i + j]);
  }
  for (int w = kLanes / 2; w >= 1; w /= 2) {
    for (int j = 0; j < w; ++j) acc[j] = Op::Merge(acc[j], acc[j + w]);
  }
  Acc r = acc[0];
  for (; i < n; ++i) r = Op::Add(r, x[i]);
  return r;
}

// acc[j] = Add(acc[j], x[j]) for j in [0, w): one row of a column reduction.
template <class Op, class T>
TFN_OPT_INLINE void AccumulateRow(typename Op::Acc* acc, const T* x, int64_t w) {
  for (int64_t j = 0; j < w; ++j) acc[j] = Op::Add(acc[j], x[j]);
}

}  // namespace tfn::kernels::opt
