// Optimized binary elementwise kernel (tfn_opt_binary): arithmetic and
// comparisons with NumPy broadcasting. The broadcast geometry (broadcast.h)
// reduces every case to rows of a contiguous inner loop of one of three
// kinds: both operands contiguous (same shape, bias rows), one operand a
// scalar for the row (scalars, columns [N, 1]), or both scalars.
//
// Results are bit-identical to the reference: + - * / max min and the
// comparisons are single IEEE operations; pow and float mod call libm and
// integer div/mod/pow use scalar_ops.h, like the reference. Float32
// arithmetic is compiled for SSE2, AVX2 and AVX-512 (simd.h); float64
// arithmetic, comparisons and integer ops for the baseline only (cold or
// memory-bound, and it keeps the runtime small).
#include <cmath>
#include <limits>
#include <utility>

#include "kernels/opt/broadcast.h"
#include "kernels/opt/opt_kernels.h"
#include "kernels/opt/simd.h"
#include "kernels/opt/vec_math.h"
#include "kernels/ref/ref_kernels.h"
#include "kernels/ref/scalar_ops.h"

namespace tfn::kernels::opt {
namespace {

struct BinaryJob {
  OpId op;
  const BroadcastGeometry* g;
  const void* a;
  const void* b;
  void* y;
  int64_t begin, end;
};

// The inner loop of a row: strides are 1 or 0 and not both 0 (the geometry
// guarantees it; tfn_opt_binary checks).
template <class T, class O, class F>
TFN_OPT_INLINE void InnerLoop(const T* a, const T* b, O* y, int64_t n, int64_t sa, int64_t sb,
                              F f) {
  if (sa == 1 && sb == 1) {
    for (int64_t i = 0; i < n; ++i) y[i] = f(a[i], b[i]);
  } else if (sa == 1) {
    const T bv = *b;
    for (int64_t i = 0; i < n; ++i) y[i] = f(a[i], bv);
  } else {
    const T av = *a;
    for (int64_t i = 0; i < n; ++i) y[i] = f(av, b[i]);
  }
}

// Rows of y = f(a, b), or of y = f(b, a) when `swap` (a > b is b < a, so
// Greater and GreaterEqual reuse the loops of Less and LessEqual).
template <class T, class O, class F>
TFN_OPT_INLINE void RunRows(const BinaryJob& job, F f, bool swap = false) {
  const BroadcastGeometry& g = *job.g;
  const T* a = static_cast<const T*>(job.a);
  const T* b = static_cast<const T*>(job.b);
  O* y = static_cast<O*>(job.y);
  const int64_t inner = g.inner(), sa = g.inner_stride(0), sb = g.inner_stride(1);
  int64_t col = job.begin % inner;
  RowCursor c;
  c.Seek(g, job.begin / inner);
  for (int64_t pos = job.begin; pos < job.end;) {
    const int64_t len = inner - col < job.end - pos ? inner - col : job.end - pos;
    const T* p = a + c.off[0] + col * sa;
    const T* q = b + c.off[1] + col * sb;
    int64_t sp = sa, sq = sb;
    if (swap) {  // values, not a second call: one copy of the loops
      std::swap(p, q);
      std::swap(sp, sq);
    }
    InnerLoop(p, q, y + pos, len, sp, sq, f);
    pos += len;
    col = 0;
    if (pos < job.end) c.Next(g);
  }
}

// Comparisons and logical ops (bool output), any dtype; false for other ops.
template <class T>
TFN_OPT_INLINE bool RunCompare(const BinaryJob& job) {
  if (!IsCompareOp(job.op)) return false;
  switch (job.op) {
    case OpId::kEqual:
      RunRows<T, bool>(job, [](T a, T b) { return a == b; });
      return true;
    case OpId::kNotEqual:
      RunRows<T, bool>(job, [](T a, T b) { return a != b; });
      return true;
    case OpId::kLess:
    case OpId::kGreater:  // a > b is b < a, NaN included
      RunRows<T, bool>(
          job, [](T a, T b) { return a < b; }, job.op == OpId::kGreater);
      return true;
    case OpId::kLessEqual:
    case OpId::kGreaterEqual:
      RunRows<T, bool>(
          job, [](T a, T b) { return a <= b; }, job.op == OpId::kGreaterEqual);
      return true;
    default:
      break;
  }
  // Logical ops have loops of their own for bool, where models use them; on
  // other dtypes (rare) they take the scalar loop below.
  if constexpr (std::is_same_v<T, bool>) {
    if (job.op == OpId::kLogicalAnd) {
      RunRows<T, bool>(job, [](T a, T b) { return (a != T(0)) & (b != T(0)); });
      return true;
    }
    if (job.op == OpId::kLogicalOr) {
      RunRows<T, bool>(job, [](T a, T b) { return (a != T(0)) | (b != T(0)); });
      return true;
    }
  }
  // Any other comparison: the reference's scalar code.
  const OpId op = job.op;
  RunRows<T, bool>(job, [op](T a, T b) { return ApplyCompare<T>(op, a, b); });
  return true;
}

// + - * / maximum minimum on floats, the compute-heavy part: `run(f)` runs
// the loops with the op's function f (one switch for both forms below).
template <class T, class Run>
TFN_OPT_INLINE void FloatArith(OpId op, const Run& run) {
  switch (op) {
    case OpId::kAdd:
      return run([](T a, T b) { return a + b; });
    case OpId::kSub:
      return run([](T a, T b) { return a - b; });
    case OpId::kMul:
      return run([](T a, T b) { return a * b; });
    case OpId::kDiv:
      return run([](T a, T b) { return a / b; });
    case OpId::kMaximum:
      return run([](T a, T b) {
        return vm::Select((a != a) | (b != b), std::numeric_limits<T>::quiet_NaN(),
                          vm::Select(a > b, a, b));
      });
    case OpId::kMinimum:
      return run([](T a, T b) {
        return vm::Select((a != a) | (b != b), std::numeric_limits<T>::quiet_NaN(),
                          vm::Select(a < b, a, b));
      });
    default:
      return;
  }
}

// The kernel's form: broadcast rows. (The runners are always inlined: a
// lambda does not inherit its caller's target attributes.)
template <class T>
TFN_OPT_INLINE void FloatBinaryBody(const BinaryJob& job) {
  FloatArith<T>(job.op, [&job](auto f) TFN_OPT_INLINE_LAMBDA { RunRows<T, T>(job, f); });
}

// The row form (kernels.h ElementwiseRowFn): one contiguous run.
struct BinaryRowJob {
  OpId op;
  const void* a;
  const void* b;
  void* y;
  int64_t n, sa, sb;
};

template <class T>
TFN_OPT_INLINE void FloatBinaryRowBody(const BinaryRowJob& job) {
  FloatArith<T>(job.op, [&job](auto f) TFN_OPT_INLINE_LAMBDA {
    InnerLoop(static_cast<const T*>(job.a), static_cast<const T*>(job.b), static_cast<T*>(job.y),
              job.n, job.sa, job.sb, f);
  });
}

TFN_OPT_MULTIVERSION(BinaryF32, BinaryJob, FloatBinaryBody<float>)
TFN_OPT_MULTIVERSION(BinaryRowF32Impl, BinaryRowJob, FloatBinaryRowBody<float>)
TFN_OPT_BASELINE(BinaryF64, BinaryJob, FloatBinaryBody<double>)

// Everything else but comparisons, baseline instruction set: integer
// arithmetic (wrapping), and the ops that call libm or do integer division
// (pow, mod, div) with the reference's scalar semantics.
template <class T>
TFN_OPT_INLINE void ScalarSemanticsBody(const BinaryJob& job) {
  if constexpr (!std::is_same_v<T, bool>) {
    using U = typename WrapType<T>::type;
    if constexpr (!kIsFloat<T>) {
      switch (job.op) {
        case OpId::kAdd:
          return RunRows<T, T>(job, [](T a, T b) { return T(U(a) + U(b)); });
        case OpId::kSub:
          return RunRows<T, T>(job, [](T a, T b) { return T(U(a) - U(b)); });
        case OpId::kMul:
          return RunRows<T, T>(job, [](T a, T b) { return T(U(a) * U(b)); });
        case OpId::kMaximum:
          return RunRows<T, T>(job, [](T a, T b) { return SelectBits(a > b, a, b); });
        case OpId::kMinimum:
          return RunRows<T, T>(job, [](T a, T b) { return SelectBits(a < b, a, b); });
        default:
          break;
      }
    }
    const OpId op = job.op;
    return RunRows<T, T>(job, [op](T a, T b) { return ApplyArith<T>(op, a, b); });
  }
}

// Comparisons (every dtype), then the rest.
template <class T>
TFN_OPT_INLINE void OtherBinaryBody(const BinaryJob& job) {
  if (RunCompare<T>(job)) return;
  ScalarSemanticsBody<T>(job);
}

// Float32 comparisons stay -O3 (masks in float models); float32 pow and
// mod (libm calls per element) and the other dtypes are compiled for size.
TFN_OPT_BASELINE(ScalarSemanticsF32, BinaryJob, ScalarSemanticsBody<float>)
void OtherBinaryF32(const BinaryJob& job) {
  if (!RunCompare<float>(job)) ScalarSemanticsF32(job);
}
TFN_OPT_BASELINE(OtherBinaryF64, BinaryJob, OtherBinaryBody<double>)
TFN_OPT_BASELINE(OtherBinaryI32, BinaryJob, OtherBinaryBody<int32_t>)
TFN_OPT_BASELINE(OtherBinaryI64, BinaryJob, OtherBinaryBody<int64_t>)
TFN_OPT_BASELINE(OtherBinaryBool, BinaryJob, OtherBinaryBody<bool>)

template <class T>
void OtherBinary(const BinaryJob& job) {
  if constexpr (std::is_same_v<T, float>) OtherBinaryF32(job);
  if constexpr (std::is_same_v<T, double>) OtherBinaryF64(job);
  if constexpr (std::is_same_v<T, int32_t>) OtherBinaryI32(job);
  if constexpr (std::is_same_v<T, int64_t>) OtherBinaryI64(job);
  if constexpr (std::is_same_v<T, bool>) OtherBinaryBool(job);
}

}  // namespace

bool IsFloatArith(OpId op) {
  switch (op) {
    case OpId::kAdd:
    case OpId::kSub:
    case OpId::kMul:
    case OpId::kDiv:
    case OpId::kMaximum:
    case OpId::kMinimum:
      return true;
    default:
      return false;
  }
}

void BinaryRowF32(const void* params, const void* const* inputs, const int8_t* strides,
                  void* output, int64_t n) {
  const OpId op = static_cast<OpId>(static_cast<const ElementwiseParams*>(params)->op);
  BinaryRowF32Impl(BinaryRowJob{op, inputs[0], inputs[1], output, n, strides[0], strides[1]});
}

}  // namespace tfn::kernels::opt

namespace tfn::kernels {

TFN_KERNEL(tfn_ref_binary);

TFN_KERNEL(tfn_opt_binary) {
  const OpId op = static_cast<OpId>(static_cast<const ElementwiseParams*>(params)->op);
  if (inputs[0].dtype != inputs[1].dtype) return TFN_KERNEL_UNSUPPORTED;
  const int32_t out_dtype = IsCompareOp(op) ? static_cast<int32_t>(DType::kBool) : inputs[0].dtype;
  if (outputs[0].dtype != out_dtype) return TFN_KERNEL_UNSUPPORTED;
  const opt::BroadcastGeometry g = opt::MakeBroadcastGeometry(outputs[0], inputs, 2);
  if (g.total == 0) return TFN_KERNEL_OK;
  const int64_t sa = g.inner_stride(0), sb = g.inner_stride(1);
  if (sa < 0 || sa > 1 || sb < 0 || sb > 1 || sa + sb == 0) {  // not produced by the geometry
    return tfn_ref_binary(params, inputs, num_inputs, outputs, num_outputs, ctx);
  }
  opt::BinaryJob job{op, &g, inputs[0].data, inputs[1].data, outputs[0].data, 0, g.total};
  return DispatchDType(inputs[0].dtype, [&](auto tag) {
    using T = decltype(tag);
    auto run = [&job](int64_t begin, int64_t end) {
      opt::BinaryJob part = job;
      part.begin = begin;
      part.end = end;
      if constexpr (std::is_same_v<T, float>) {
        if (opt::IsFloatArith(part.op)) return opt::BinaryF32(part);
      } else if constexpr (std::is_same_v<T, double>) {
        if (opt::IsFloatArith(part.op)) return opt::BinaryF64(part);
      }
      opt::OtherBinary<T>(part);
    };
    ParallelFor(ctx, g.total, opt::kMinParallelChunk, run);
    return TFN_KERNEL_OK;
  });
}

}  // namespace tfn::kernels
