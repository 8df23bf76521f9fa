// Helpers for the tests of the optimized kernels (kernels/opt/*_test.cc):
// random inputs with NaN/Inf/zero/denormal values mixed in, running one op
// as the reference and as the optimized kernel under every instruction set
// the CPU has (simd.h) and 1 or 2 threads, and comparisons (bitwise, in ulps,
// with a per-element tolerance).
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "kernels/opt/simd.h"
#include "kernels/testing/kernel_test_util.h"

namespace tfn::kernels::testing {

inline std::vector<opt::Isa> SupportedIsas() {
  std::vector<opt::Isa> isas = {opt::Isa::kPortable};
  if (opt::DetectedIsa() >= opt::Isa::kAvx2) isas.push_back(opt::Isa::kAvx2);
  if (opt::DetectedIsa() >= opt::Isa::kAvx512) isas.push_back(opt::Isa::kAvx512);
  return isas;
}

inline const char* IsaName(opt::Isa isa) {
  return isa == opt::Isa::kAvx512 ? "avx512" : isa == opt::Isa::kAvx2 ? "avx2" : "portable";
}

// Calls fn(label) once per (instruction set, thread count) with the cap set.
inline void ForEachConfig(const std::function<void(const std::string&)>& fn) {
  for (opt::Isa isa : SupportedIsas()) {
    const opt::Isa old = opt::SetIsaCapForTesting(isa);
    for (int threads : {1, 2}) fn(std::string(IsaName(isa)) + ", " + std::to_string(threads) + " threads");
    opt::SetIsaCapForTesting(old);
  }
}

// Random values in [lo, hi); floats get a fraction of special values mixed in.
inline HostTensor Mixed(DType dtype, const Shape& shape, uint32_t seed, double lo = -1,
                        double hi = 1, double special = 0.02) {
  HostTensor t = HostTensor::Random(dtype, shape, seed, lo, hi);
  if (dtype != DType::kFloat32 && dtype != DType::kFloat64) return t;
  std::mt19937 rng(seed * 7919u + 1);
  std::uniform_real_distribution<double> u(0, 1);
  const double specials[] = {std::numeric_limits<double>::quiet_NaN(),
                             std::numeric_limits<double>::infinity(),
                             -std::numeric_limits<double>::infinity(), 0.0, -0.0, 1e-40, -1e-310,
                             1e30, -1e30, 3.0e38, 1.5, -2.5};
  for (int64_t i = 0; i < t.size(); ++i) {
    if (u(rng) >= special) continue;
    const double v = specials[rng() % (sizeof(specials) / sizeof(specials[0]))];
    if (dtype == DType::kFloat32) {
      const float f = static_cast<float>(v);
      std::memcpy(t.bytes.data() + i * 4, &f, 4);
    } else {
      std::memcpy(t.bytes.data() + i * 8, &v, 8);
    }
  }
  return t;
}

// The kernel PrepareKernel picks in the optimized variant for a node whose
// inputs have these dtypes and ranks and whose one output is like input 0.
inline std::string OptimizedSymbol(OpId op, Attrs attrs, const std::vector<DType>& types,
                                   const std::vector<int>& ranks) {
  EXPECT_TRUE(NormalizeAttrs(GetOpDef(op), &attrs).ok());
  NodeSignature node{op,           &attrs,       static_cast<int>(types.size()),
                     types.data(), ranks.data(), 1,
                     types.data(), ranks.data()};
  KernelPlan plan;
  EXPECT_TRUE(PrepareKernel(node, Variant::kOptimized, &plan).ok());
  return plan.symbol ? plan.symbol : "";
}

inline HostTensor RunRef(OpId op, const std::vector<HostTensor>& in, const Attrs& attrs = {}) {
  auto out = RunOp(op, in, attrs, Variant::kReference);
  return out.empty() ? HostTensor{} : out[0];
}

inline HostTensor RunOpt(OpId op, const std::vector<HostTensor>& in, const Attrs& attrs,
                         int threads) {
  auto out = RunOp(op, in, attrs, Variant::kOptimized, nullptr, threads);
  return out.empty() ? HostTensor{} : out[0];
}

// Monotonic integer image of a float/double (for distances in ulps).
inline int64_t Ordered(double v, DType dtype) {
  if (dtype == DType::kFloat32) {
    const float f = static_cast<float>(v);
    int32_t b;
    std::memcpy(&b, &f, 4);
    return b < 0 ? -static_cast<int64_t>(b & 0x7fffffff) : b;
  }
  int64_t b;
  std::memcpy(&b, &v, 8);
  return b < 0 ? -(b & 0x7fffffffffffffffll) : b;
}

// Every element bit-identical (any NaN matches any NaN; -0 != +0).
inline ::testing::AssertionResult BitEqual(const HostTensor& a, const HostTensor& e) {
  if (a.dtype != e.dtype || a.shape != e.shape || a.bytes.size() != e.bytes.size()) {
    return ::testing::AssertionFailure() << "dtype/shape differ";
  }
  const bool fl = a.dtype == DType::kFloat32 || a.dtype == DType::kFloat64;
  const size_t w = static_cast<size_t>(DTypeSize(a.dtype));
  for (int64_t i = 0; i < a.size(); ++i) {
    if (fl && std::isnan(a.at(i)) && std::isnan(e.at(i))) continue;
    if (std::memcmp(a.bytes.data() + i * w, e.bytes.data() + i * w, w) != 0) {
      return ::testing::AssertionFailure() << "element " << i << ": " << a.at(i) << " vs expected "
                                           << e.at(i);
    }
  }
  return ::testing::AssertionSuccess();
}

// |a - e| <= max_ulp ulps, or <= tol(i, e) in absolute terms; NaN and inf must match.
inline ::testing::AssertionResult Near(const HostTensor& a, const HostTensor& e, double max_ulp,
                                       const std::function<double(int64_t, double)>& tol = {}) {
  if (a.dtype != e.dtype || a.shape != e.shape) {
    return ::testing::AssertionFailure() << "dtype/shape differ";
  }
  for (int64_t i = 0; i < a.size(); ++i) {
    const double x = a.at(i), y = e.at(i);
    if (std::isnan(x) || std::isnan(y) || std::isinf(x) || std::isinf(y)) {
      if ((std::isnan(x) && std::isnan(y)) || x == y) continue;
      return ::testing::AssertionFailure() << "element " << i << ": " << x << " vs " << y;
    }
    const double ulps = std::fabs(static_cast<double>(Ordered(x, a.dtype) - Ordered(y, a.dtype)));
    if (ulps <= max_ulp) continue;
    if (tol && std::fabs(x - y) <= tol(i, y)) continue;
    return ::testing::AssertionFailure() << "element " << i << ": " << x << " vs expected " << y
                                         << " (" << ulps << " ulps)";
  }
  return ::testing::AssertionSuccess();
}

inline const std::vector<Shape>& OddShapes() {
  static const std::vector<Shape> shapes = {{0},  {1},  {3},   {7},    {15},   {17},
                                            {31}, {33}, {63},  {65},   {1000}, {4097},
                                            {2, 0, 3}, {3, 5, 7}, {70001}};
  return shapes;
}

}  // namespace tfn::kernels::testing
