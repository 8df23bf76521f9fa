// Implementation of the kernel test helpers.
#include "kernels/testing/kernel_test_util.h"

#include <condition_variable>
#include <mutex>
#include <thread>

namespace tfn::kernels::testing {

HostTensor HostTensor::Random(DType dtype, const Shape& shape, uint32_t seed, double lo,
                              double hi) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  HostTensor t;
  t.dtype = dtype;
  t.shape = shape;
  int64_t n = NumElements(shape);
  t.bytes.resize(static_cast<size_t>(n * DTypeSize(dtype)));
  VisitDType(dtype, [&](auto tag) {
    using T = decltype(tag);
    T* p = reinterpret_cast<T*>(t.bytes.data());
    for (int64_t i = 0; i < n; ++i) {
      if constexpr (std::is_same_v<T, bool>) {
        p[i] = (rng() & 1) != 0;
      } else {
        p[i] = static_cast<T>(dist(rng));
      }
    }
    return 0;
  });
  return t;
}

double HostTensor::at(int64_t i) const {
  return VisitDType(dtype, [&](auto tag) {
    using T = decltype(tag);
    T v;
    std::memcpy(&v, bytes.data() + i * sizeof(T), sizeof(T));
    return static_cast<double>(v);
  });
}

void TestParallelFor(void*, int64_t n, int64_t min_chunk, void (*fn)(void*, int64_t, int64_t),
                     void* arg) {
  int64_t mid = n / 2;
  if (mid < min_chunk) {
    fn(arg, 0, n);
    return;
  }
  std::thread t([&] { fn(arg, mid, n); });
  fn(arg, 0, mid);
  t.join();
}

std::vector<HostTensor> RunOp(OpId op, std::vector<HostTensor> inputs, Attrs attrs, Variant variant,
                              std::string* error, int num_threads) {
  auto fail = [&](const Status& s) {
    if (error) {
      *error = s.message();
    } else {
      ADD_FAILURE() << s.ToString();
    }
    return std::vector<HostTensor>{};
  };
  const OpDef& def = GetOpDef(op);
  Status s = NormalizeAttrs(def, &attrs);
  if (!s.ok()) return fail(s);
  int n_in = static_cast<int>(inputs.size());
  std::vector<DType> in_types;
  std::vector<Shape> in_shapes;
  std::vector<int> in_ranks;
  std::vector<ConstTensor> values;
  std::vector<const ConstTensor*> value_ptrs;
  values.reserve(inputs.size());
  for (HostTensor& t : inputs) {
    in_types.push_back(t.dtype);
    in_shapes.push_back(t.shape);
    in_ranks.push_back(t.shape.rank());
    ConstTensor c;
    c.dtype = t.dtype;
    c.shape = t.shape;
    c.data = t.bytes.data();
    values.push_back(c);
    value_ptrs.push_back(&values.back());
  }
  int n_out = def.NumOutputs(attrs, n_in);
  std::vector<DType> out_types(n_out);
  std::vector<Shape> out_shapes(n_out);
  s = InferOp(def, attrs, n_in, in_types.data(), in_shapes.data(), value_ptrs.data(), n_out,
              out_types.data(), out_shapes.data());
  if (!s.ok()) return fail(s);
  std::vector<int> out_ranks;
  for (const Shape& sh : out_shapes) out_ranks.push_back(sh.rank());
  NodeSignature node{op,     &attrs,           n_in,         in_types.data(), in_ranks.data(),
                     n_out, out_types.data(), out_ranks.data()};
  KernelPlan plan;
  s = PrepareKernel(node, variant, &plan);
  if (!s.ok()) return fail(s);
  std::vector<HostTensor> outputs(n_out);
  std::vector<TfnTensor> in_views, out_views;
  for (HostTensor& t : inputs) in_views.push_back(t.View());
  for (int i = 0; i < n_out; ++i) {
    outputs[i].dtype = out_types[i];
    outputs[i].shape = out_shapes[i];
    // One spare byte so that empty outputs still have a valid pointer.
    outputs[i].bytes.assign(static_cast<size_t>(NumElements(out_shapes[i]) * DTypeSize(out_types[i])) + 1, 0xCD);
    out_views.push_back(outputs[i].View());
  }
  int64_t scratch = ScratchBytes(plan, in_views.data(), n_in, out_views.data(), n_out);
  std::vector<unsigned char> scratch_mem(static_cast<size_t>(scratch) + 64);
  TfnKernelContext ctx{};
  ctx.scratch = scratch_mem.data();
  ctx.scratch_bytes = scratch;
  ctx.num_threads = num_threads;
  if (num_threads > 1) ctx.parallel_for = TestParallelFor;
  int32_t code = plan.fn(plan.params, in_views.data(), n_in, out_views.data(), n_out, &ctx);
  if (code != TFN_KERNEL_OK) return fail(KernelError(code, op, in_views.data(), n_in));
  for (HostTensor& t : outputs) t.bytes.pop_back();
  return outputs;
}

::testing::AssertionResult AllClose(const HostTensor& actual, const HostTensor& expected,
                                    double rtol, double atol) {
  if (actual.dtype != expected.dtype) {
    return ::testing::AssertionFailure() << "dtype " << DTypeName(actual.dtype) << " vs "
                                         << DTypeName(expected.dtype);
  }
  if (actual.shape != expected.shape) {
    return ::testing::AssertionFailure() << "shape " << ShapeToString(actual.shape) << " vs "
                                         << ShapeToString(expected.shape);
  }
  for (int64_t i = 0; i < actual.size(); ++i) {
    double a = actual.at(i), e = expected.at(i);
    if (std::isnan(a) && std::isnan(e)) continue;
    if (std::isinf(a) && a == e) continue;
    if (!(std::fabs(a - e) <= atol + rtol * std::fabs(e))) {
      return ::testing::AssertionFailure()
             << "element " << i << ": " << a << " vs expected " << e << " (rtol " << rtol
             << ", atol " << atol << ")";
    }
  }
  return ::testing::AssertionSuccess();
}

}  // namespace tfn::kernels::testing
