// Reference kernels of the factories: fill, fill_like, range, random_uniform
// and random_normal.
//
// The random generator is counter based: element i of a tensor made with
// seed s is a pure function of (s, i), namely Philox4x32-10 with key
// {s & 0xffffffff, s >> 32} applied to the counter {i & 0xffffffff, i >> 32,
// 0, 0}. So results do not depend on the number of threads or the order in
// which elements are produced, and since the conversion of the four output
// words into a sample uses only IEEE-754 basic operations (see random.h),
// they are bit-identical on every platform. From the words w0..w3 of
// element i:
//   u  = top 53 bits of (w0 << 32 | w1) / 2^53, in [0, 1)
//   random_uniform, floats: minval + u * (maxval - minval), rounded to the
//     dtype, and moved one ulp down in the rare case rounding reached maxval;
//   random_uniform, ints: minval + (w0 << 32 | w1) mod (maxval - minval)
//     (the modulo bias is below 2^-32 for ranges under 2^32);
//   random_normal: Box-Muller with u1 = (top 53 bits of (w0, w1) + 1) / 2^53
//     in (0, 1] and u2 from (w2, w3) as u above:
//     mean + stddev * sqrt(-2 ln u1) * cos(2 pi u2); one sample per element.
// Seed 0 is an ordinary seed (TensorFlow's "pick one at random" does not exist here).
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>

#include "core/range_length.h"
#include "kernels/ref/random.h"
#include "kernels/ref/ref_kernels.h"
#include "kernels/ref/scalar_ops.h"
#include "kernels/ref/tensor_util.h"

// Bit-identical results need every operation rounded on its own: no fused
// multiply-add contraction, whatever the target.
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

namespace tfn::kernels {

void Philox4x32(const uint32_t counter[4], const uint32_t key[2], uint32_t out[4]) {
  constexpr uint32_t kMul0 = 0xD2511F53u, kMul1 = 0xCD9E8D57u;
  constexpr uint32_t kWeyl0 = 0x9E3779B9u, kWeyl1 = 0xBB67AE85u;
  uint32_t c[4] = {counter[0], counter[1], counter[2], counter[3]};
  uint32_t k0 = key[0], k1 = key[1];
  for (int round = 0; round < 10; ++round) {
    const uint64_t p0 = uint64_t{kMul0} * c[0];
    const uint64_t p1 = uint64_t{kMul1} * c[2];
    const uint32_t next[4] = {
        static_cast<uint32_t>(p1 >> 32) ^ c[1] ^ k0, static_cast<uint32_t>(p1),
        static_cast<uint32_t>(p0 >> 32) ^ c[3] ^ k1, static_cast<uint32_t>(p0)};
    for (int j = 0; j < 4; ++j) c[j] = next[j];
    k0 += kWeyl0;
    k1 += kWeyl1;
  }
  for (int j = 0; j < 4; ++j) out[j] = c[j];
}

double PortableLog(double x) {
  constexpr double kLn2 = 0.69314718055994530942;
  int e;
  double m = std::frexp(x, &e);  // exact: x = m * 2^e, m in [0.5, 1)
  if (m < 0.70710678118654752440) {
    m *= 2;
    --e;
  }
  // m in [sqrt(1/2), sqrt(2)): ln m = 2 atanh(s) = 2 (s + s^3/3 + s^5/5 + ...)
  // with |s| < 0.172; 14 terms put the truncation error below 1e-20.
  const double s = (m - 1) / (m + 1);
  const double s2 = s * s;
  double series = 0;
  for (int k = 13; k >= 0; --k) series = series * s2 + 1.0 / (2 * k + 1);
  return e * kLn2 + 2 * s * series;
}

double PortableCos2Pi(double t) {
  constexpr double kHalfPi = 1.57079632679489661923;
  // cos(2 pi t) = cos(q pi/2 + theta): q = floor(4t), theta = (4t - q) pi/2
  // in [0, pi/2) (4t and 4t - q are exact).
  const double t4 = 4 * t;
  const int q = static_cast<int>(t4) & 3;
  const double theta = (t4 - static_cast<int>(t4)) * kHalfPi;
  const double th2 = theta * theta;
  // Taylor series in Horner form, cos: 1 - x/(1*2) (1 - x/(3*4) (1 - ...)),
  // sin: theta (1 - x/(2*3) (1 - x/(4*5) (...))); 14 terms reach (pi/2)^28/28! < 1e-23.
  double c = 1, s = 1;
  for (int k = 14; k >= 1; --k) {
    c = 1 - th2 / ((2.0 * k - 1) * (2.0 * k)) * c;
    s = 1 - th2 / ((2.0 * k) * (2.0 * k + 1)) * s;
  }
  s *= theta;
  switch (q) {
    case 0:
      return c;
    case 1:
      return -s;
    case 2:
      return -c;
    default:
      return s;
  }
}

namespace {

// The top 53 bits of (hi << 32 | lo): an integer that a double holds exactly.
uint64_t Top53(uint32_t hi, uint32_t lo) { return ((uint64_t{hi} << 32) | lo) >> 11; }

}  // namespace

TFN_KERNEL(tfn_ref_fill) {
  const double value = static_cast<const FillParams*>(params)->value;
  const int64_t n = NumElementsOf(outputs[0]);
  return DispatchDType(outputs[0].dtype, [&](auto tag) {
    using T = decltype(tag);
    T* y = DataOf<T>(outputs[0]);
    for (int64_t i = 0; i < n; ++i) y[i] = CastValue<T, double>(value);
    return TFN_KERNEL_OK;
  });
}

// Start and delta are the params or, with three inputs (start, limit,
// delta: scalars read at run time), the inputs; integer inputs with an
// integer output count exactly in int64 (wrapping), as ONNX's Range.
TFN_KERNEL(tfn_ref_range) {
  const auto& p = *static_cast<const RangeParams*>(params);
  const int64_t n = NumElementsOf(outputs[0]);
  if (num_inputs != 0 && num_inputs != 3) return TFN_KERNEL_BAD_SHAPE;
  const bool from_inputs = num_inputs == 3;
  bool integral = from_inputs;
  double start = p.start, delta = p.delta;
  int64_t istart = 0, idelta = 0;
  int64_t ilimit = 0;
  for (int k = 0; from_inputs && k < 3; ++k) {
    if (NumElementsOf(inputs[k]) != 1) return TFN_KERNEL_BAD_SHAPE;
    int32_t code = DispatchDType(inputs[k].dtype, [&](auto tag) {
      using T = decltype(tag);
      const T v = *DataOf<T>(inputs[k]);
      if (k != 1) (k == 0 ? start : delta) = static_cast<double>(v);
      if constexpr (std::is_integral_v<T>) {
        (k == 0 ? istart : k == 1 ? ilimit : idelta) = static_cast<int64_t>(v);
      } else {
        integral = false;
      }
      return TFN_KERNEL_OK;
    });
    if (code != TFN_KERNEL_OK) return code;
  }
  // Compiled code sizes the output by range's "dims" expression: it must be
  // the length the values give.
  int64_t count = 0;
  if (integral && (!IntRangeCount(istart, ilimit, idelta, &count) || count != n)) {
    return TFN_KERNEL_BAD_SHAPE;
  }
  return DispatchDType(outputs[0].dtype, [&](auto tag) {
    using T = decltype(tag);
    T* y = DataOf<T>(outputs[0]);
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      if (integral) {
        for (int64_t i = 0; i < n; ++i) {
          y[i] = static_cast<T>(static_cast<uint64_t>(istart) +
                                static_cast<uint64_t>(i) * static_cast<uint64_t>(idelta));
        }
        return TFN_KERNEL_OK;
      }
    }
    for (int64_t i = 0; i < n; ++i) {
      y[i] = CastValue<T, double>(start + static_cast<double>(i) * delta);
    }
    return TFN_KERNEL_OK;
  });
}

TFN_KERNEL(tfn_ref_random) {
  const auto& p = *static_cast<const RandomParams*>(params);
  const uint32_t key[2] = {static_cast<uint32_t>(p.seed), static_cast<uint32_t>(p.seed >> 32)};
  const int64_t n = NumElementsOf(outputs[0]);
  return DispatchDType(outputs[0].dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, bool>) {
      return TFN_KERNEL_UNSUPPORTED;
    } else {
      if (!kIsFloat<T> && p.normal) return TFN_KERNEL_UNSUPPORTED;
      T* y = DataOf<T>(outputs[0]);
      for (int64_t i = 0; i < n; ++i) {
        const uint64_t index = static_cast<uint64_t>(i);
        const uint32_t counter[4] = {static_cast<uint32_t>(index),
                                     static_cast<uint32_t>(index >> 32), 0, 0};
        uint32_t w[4];
        Philox4x32(counter, key, w);
        if constexpr (kIsFloat<T>) {
          if (p.normal) {
            const double u1 = static_cast<double>(Top53(w[0], w[1]) + 1) * 0x1p-53;  // (0, 1]
            const double u2 = static_cast<double>(Top53(w[2], w[3])) * 0x1p-53;      // [0, 1)
            const double z = std::sqrt(-2 * PortableLog(u1)) * PortableCos2Pi(u2);
            y[i] = static_cast<T>(p.a + p.b * z);
          } else {
            const T hi = static_cast<T>(p.b);
            const double u = static_cast<double>(Top53(w[0], w[1])) * 0x1p-53;
            T v = static_cast<T>(p.a + u * (p.b - p.a));
            if (v >= hi && p.b > p.a) v = std::nextafter(hi, static_cast<T>(p.a));
            y[i] = v;
          }
        } else {
          const uint64_t bits = (uint64_t{w[0]} << 32) | w[1];
          const int64_t lo = static_cast<int64_t>(p.a), hi = static_cast<int64_t>(p.b);
          const uint64_t span = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo);
          y[i] = static_cast<T>(static_cast<int64_t>(static_cast<uint64_t>(lo) + bits % span));
        }
      }
      return TFN_KERNEL_OK;
    }
  });
}

Status PrepareFactory(const NodeSignature& node, KernelPlan* plan) {
  const char* name = OpName(node.op);
  switch (node.op) {
    case OpId::kFill:
    case OpId::kFillLike:
      plan->As<FillParams>()->value = node.attrs->GetFloat("value");
      plan->fn = tfn_ref_fill;
      plan->symbol = "tfn_ref_fill";
      return Status::Ok();
    case OpId::kRange: {
      auto* p = plan->As<RangeParams>();
      p->start = node.attrs->GetFloat("start");
      p->delta = node.attrs->GetFloat("delta");
      plan->fn = tfn_ref_range;
      plan->symbol = "tfn_ref_range";
      return Status::Ok();
    }
    case OpId::kRandomUniform:
    case OpId::kRandomNormal: {
      const DType dtype = node.out_types[0];
      auto* p = plan->As<RandomParams>();
      p->seed = static_cast<uint64_t>(node.attrs->GetInt("seed"));
      p->normal = node.op == OpId::kRandomNormal;
      if (p->normal) {
        p->a = node.attrs->GetFloat("mean");
        p->b = node.attrs->GetFloat("stddev");
        if (!IsFloating(dtype)) {
          return InvalidArgument(std::string(name) + ": dtype must be f32 or f64, got " +
                                 DTypeName(dtype));
        }
        if (!std::isfinite(p->a) || !std::isfinite(p->b) || p->b < 0) {
          return InvalidArgument(std::string(name) +
                                 ": mean must be finite and stddev finite and >= 0");
        }
      } else {
        p->a = node.attrs->GetFloat("minval");
        p->b = node.attrs->GetFloat("maxval");
        const std::string range = "[" + std::to_string(p->a) + ", " + std::to_string(p->b) + ")";
        if (!IsNumeric(dtype)) {
          return InvalidArgument(std::string(name) + ": dtype must be numeric, got " +
                                 DTypeName(dtype));
        }
        if (IsFloating(dtype) && !(std::isfinite(p->b - p->a) && p->a <= p->b)) {
          return InvalidArgument(std::string(name) + ": the range " + range +
                                 " must be finite with minval <= maxval");
        }
        if (IsInteger(dtype)) {
          // maxval is exclusive, so 2^31 is a valid int32 bound; for int64 it must
          // stay below 2^63 to convert to int64_t.
          const bool i32 = dtype == DType::kInt32;
          const double limit = i32 ? 2147483648.0 : 9223372036854775808.0;
          bool ok = p->a < p->b && p->a == std::floor(p->a) && p->b == std::floor(p->b) &&
                    p->a >= -limit && (i32 ? p->b <= limit : p->b < limit);
          if (!ok) {
            return InvalidArgument(std::string(name) + ": for " + DTypeName(dtype) +
                                   ", minval and maxval must be integers of that type with "
                                   "minval < maxval, got " +
                                   range);
          }
        }
      }
      plan->fn = tfn_ref_random;
      plan->symbol = "tfn_ref_random";
      return Status::Ok();
    }
    default:
      return Internal(std::string(name) + " is not a factory op");
  }
}

}  // namespace tfn::kernels
