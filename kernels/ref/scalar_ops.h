// The scalar semantics of every elementwise op, written once for all dtypes.
// The reference kernels apply these directly; optimized kernels and AOT code
// are tested against them.
//
// Choices (documented in kernels/README.md): integer div truncates toward
// zero and x/0 = 0; mod is floor-mod (the result has the divisor's sign, as
// in Python/NumPy/TensorFlow) and x mod 0 = 0; fmod is the truncated
// remainder (the dividend's sign, C's fmod and C++'s %) and x fmod 0 = 0 for
// integers (NaN for floats); maximum/minimum propagate NaN;
// relu passes NaN through; round is half-to-even; casts from float to int
// truncate, saturate at the int range and map NaN to 0.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "core/op_def.h"

namespace tfn::kernels {

template <class T>
constexpr bool kIsFloat = std::is_floating_point_v<T>;

template <class T>
T ApplyUnary(OpId op, T x, bool gelu_tanh) {
  if constexpr (std::is_same_v<T, bool>) {
    return op == OpId::kLogicalNot ? !x : x;
  } else {
    switch (op) {
      case OpId::kIdentity: return x;
      case OpId::kNeg: return static_cast<T>(-x);
      case OpId::kAbs: return x < 0 ? static_cast<T>(-x) : x;
      case OpId::kSign: return static_cast<T>(x > 0 ? 1 : x < 0 ? -1 : x);
      case OpId::kRelu: return x < 0 ? T(0) : x;
      default: break;
    }
    if constexpr (kIsFloat<T>) {
      switch (op) {
        case OpId::kExp: return std::exp(x);
        case OpId::kLog: return std::log(x);
        case OpId::kSqrt: return std::sqrt(x);
        case OpId::kRsqrt: return T(1) / std::sqrt(x);
        case OpId::kTanh: return std::tanh(x);
        case OpId::kSigmoid: return T(1) / (T(1) + std::exp(-x));
        case OpId::kErf: return std::erf(x);
        case OpId::kSin: return std::sin(x);
        case OpId::kCos: return std::cos(x);
        case OpId::kFloor: return std::floor(x);
        case OpId::kCeil: return std::ceil(x);
        case OpId::kRound: return std::nearbyint(x);  // half to even in the default mode
        case OpId::kTan: return std::tan(x);
        case OpId::kAsin: return std::asin(x);
        case OpId::kAcos: return std::acos(x);
        case OpId::kAtan: return std::atan(x);
        case OpId::kSinh: return std::sinh(x);
        case OpId::kCosh: return std::cosh(x);
        case OpId::kAsinh: return std::asinh(x);
        case OpId::kAcosh: return std::acosh(x);
        case OpId::kAtanh: return std::atanh(x);
        case OpId::kGelu:
          if (gelu_tanh) {
            const T k = static_cast<T>(0.7978845608028654);  // sqrt(2/pi)
            return T(0.5) * x * (T(1) + std::tanh(k * (x + T(0.044715) * x * x * x)));
          }
          return T(0.5) * x * (T(1) + std::erf(x * static_cast<T>(0.7071067811865476)));
        default: break;
      }
    }
    return x;
  }
}

// Float predicates (float in, bool out): is_inf (either sign), is_nan.
template <class T>
bool ApplyPredicate(OpId op, T x) {
  if constexpr (kIsFloat<T>) {
    switch (op) {
      case OpId::kIsInf: return std::isinf(x);
      case OpId::kIsNan: return std::isnan(x);
      default: break;
    }
  }
  return false;
}

inline bool IsPredicateOp(OpId op) { return op == OpId::kIsInf || op == OpId::kIsNan; }

// The type arithmetic is done in: T for floats, unsigned T for ints (wraps, never UB).
template <class T, bool = std::is_integral_v<T>>
struct WrapType {
  using type = T;
};
template <class T>
struct WrapType<T, true> {
  using type = std::make_unsigned_t<T>;
};

template <class T>
T IntPow(T base, T exp) {
  if (exp < 0) return base == 1 ? T(1) : base == -1 ? ((exp % 2) ? T(-1) : T(1)) : T(0);
  using U = std::make_unsigned_t<T>;  // wrapping multiplication, never UB
  U result = 1, b = static_cast<U>(base);
  while (exp > 0) {
    if (exp & 1) result *= b;
    b *= b;
    exp >>= 1;
  }
  return static_cast<T>(result);
}

// Arithmetic binary ops; `T` is the common dtype of both inputs and the output.
template <class T>
T ApplyArith(OpId op, T a, T b) {
  if constexpr (std::is_same_v<T, bool>) {
    return a;  // not reachable: arithmetic ops reject bool
  } else {
    using W = typename WrapType<T>::type;
    switch (op) {
      case OpId::kAdd: return static_cast<T>(static_cast<W>(a) + static_cast<W>(b));
      case OpId::kSub: return static_cast<T>(static_cast<W>(a) - static_cast<W>(b));
      case OpId::kMul: return static_cast<T>(static_cast<W>(a) * static_cast<W>(b));
      case OpId::kDiv:
        if constexpr (kIsFloat<T>) {
          return a / b;
        } else {
          if (b == 0) return 0;
          if (b == -1) return static_cast<T>(W(0) - static_cast<W>(a));  // INT_MIN / -1
          return a / b;
        }
      case OpId::kMod:
        if constexpr (kIsFloat<T>) {
          T r = std::fmod(a, b);
          if (r != 0 && ((r < 0) != (b < 0))) r += b;
          return r;
        } else {
          if (b == 0 || b == -1) return 0;
          T r = a % b;
          if (r != 0 && ((r < 0) != (b < 0))) r += b;
          return r;
        }
      case OpId::kFMod:
        if constexpr (kIsFloat<T>) {
          return std::fmod(a, b);
        } else {
          if (b == 0 || b == -1) return 0;
          return a % b;
        }
      case OpId::kPow:
        if constexpr (kIsFloat<T>) {
          return std::pow(a, b);
        } else {
          return IntPow(a, b);
        }
      case OpId::kMaximum:
        if constexpr (kIsFloat<T>) {
          if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<T>::quiet_NaN();
        }
        return a > b ? a : b;
      case OpId::kMinimum:
        if constexpr (kIsFloat<T>) {
          if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<T>::quiet_NaN();
        }
        return a < b ? a : b;
      default: return a;
    }
  }
}

template <class T>
bool ApplyCompare(OpId op, T a, T b) {
  switch (op) {
    case OpId::kEqual: return a == b;
    case OpId::kNotEqual: return a != b;
    case OpId::kLess: return a < b;
    case OpId::kLessEqual: return a <= b;
    case OpId::kGreater: return a > b;
    case OpId::kGreaterEqual: return a >= b;
    case OpId::kLogicalAnd: return a && b;
    case OpId::kLogicalOr: return a || b;
    case OpId::kLogicalXor: return static_cast<bool>(a) != static_cast<bool>(b);
    default: return false;
  }
}

inline bool IsCompareOp(OpId op) {
  switch (op) {
    case OpId::kEqual:
    case OpId::kNotEqual:
    case OpId::kLess:
    case OpId::kLessEqual:
    case OpId::kGreater:
    case OpId::kGreaterEqual:
    case OpId::kLogicalAnd:
    case OpId::kLogicalOr:
    case OpId::kLogicalXor: return true;
    default: return false;
  }
}

// Conversion with the cast semantics above.
template <class To, class From>
To CastValue(From v) {
  if constexpr (std::is_same_v<To, bool>) {
    return v != From(0);
  } else if constexpr (kIsFloat<From> && !kIsFloat<To>) {
    if (std::isnan(v)) return 0;
    constexpr To lo = std::numeric_limits<To>::min(), hi = std::numeric_limits<To>::max();
    if (v <= static_cast<From>(lo)) return lo;
    if (v >= static_cast<From>(hi)) return hi;
    return static_cast<To>(v);
  } else {
    return static_cast<To>(v);
  }
}

}  // namespace tfn::kernels
