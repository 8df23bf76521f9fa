// Test helpers for kernels: build tensors from vectors, run one op through
// shape inference + PrepareKernel + the kernel, and compare results.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "core/op_def.h"
#include "kernels/kernels.h"

namespace tfn::kernels::testing {

// A host tensor owning its bytes.
struct HostTensor {
  DType dtype = DType::kFloat32;
  Shape shape;
  std::vector<unsigned char> bytes;

  template <class T>
  static HostTensor Of(const Shape& shape, const std::vector<T>& values) {
    HostTensor t;
    t.dtype = DTypeOf<T>::value;
    t.shape = shape;
    t.bytes.resize(values.size() * sizeof(T));
    for (size_t i = 0; i < values.size(); ++i) {
      T v = values[i];  // element-wise: std::vector<bool> has no data()
      std::memcpy(t.bytes.data() + i * sizeof(T), &v, sizeof(T));
    }
    return t;
  }
  // Uniform random values in [lo, hi) (bools: random 0/1; ints: truncated).
  static HostTensor Random(DType dtype, const Shape& shape, uint32_t seed, double lo = -1,
                           double hi = 1);
  template <class T>
  std::vector<T> values() const {
    std::vector<T> v(bytes.size() / sizeof(T));
    for (size_t i = 0; i < v.size(); ++i) {
      T x;
      std::memcpy(&x, bytes.data() + i * sizeof(T), sizeof(T));
      v[i] = x;
    }
    return v;
  }
  double at(int64_t i) const;  // element i as double
  int64_t size() const { return NumElements(shape); }
  TfnTensor View() { return MakeTensor(bytes.data(), dtype, shape); }
};

// A tiny pool for exercising kernels' parallel paths in tests (a
// TfnKernelContext::parallel_for): two threads, each half of the range.
void TestParallelFor(void*, int64_t n, int64_t min_chunk, void (*fn)(void*, int64_t, int64_t),
                     void* arg);

// Runs `op` with `attrs` on `inputs`: infers output shapes, prepares the
// kernel of `variant`, runs it with enough scratch. On error returns the
// message in *error and an empty vector.
std::vector<HostTensor> RunOp(OpId op, std::vector<HostTensor> inputs, Attrs attrs,
                              Variant variant = Variant::kReference, std::string* error = nullptr,
                              int num_threads = 1);

// Element-wise comparison with |a-b| <= atol + rtol*|b|; NaNs must match.
::testing::AssertionResult AllClose(const HostTensor& actual, const HostTensor& expected,
                                    double rtol = 1e-6, double atol = 1e-6);

}  // namespace tfn::kernels::testing
