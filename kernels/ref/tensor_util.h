// Small helpers shared by the kernels: element counts, broadcast strides, dtype dispatch.
// Header-only and free of library calls, so kernels stay usable as AOT bitcode.
#pragma once

#include <cstdint>

#include "core/dtype.h"
#include "kernels/kernel_abi.h"

namespace tfn::kernels {

inline int64_t NumElementsOf(const TfnTensor& t) {
  int64_t n = 1;
  for (int i = 0; i < t.rank; ++i) n *= t.dims[i];
  return n;
}

// Row-major strides (in elements) of a tensor.
inline void StridesOf(const TfnTensor& t, int64_t strides[TFN_KERNEL_MAX_RANK]) {
  int64_t s = 1;
  for (int i = t.rank - 1; i >= 0; --i) {
    strides[i] = s;
    s *= t.dims[i];
  }
}

// Strides of `in` as seen from an output of rank `out_rank` under NumPy
// broadcasting: aligned on the right, 0 where the input's dim is 1 (or absent).
inline void BroadcastStrides(const TfnTensor& in, int out_rank,
                             int64_t strides[TFN_KERNEL_MAX_RANK]) {
  int64_t own[TFN_KERNEL_MAX_RANK];
  StridesOf(in, own);
  for (int i = 0; i < out_rank; ++i) {
    int j = in.rank - out_rank + i;
    strides[i] = (j < 0 || in.dims[j] == 1) ? 0 : own[j];
  }
}

// The leading (batch) dims of a matrix operand (rank >= 2), as a tensor
// header of their own (for BroadcastStrides / OffsetAt over the batch).
inline TfnTensor MatrixBatchDims(const TfnTensor& t) {
  TfnTensor b{};
  b.rank = t.rank - 2;
  for (int i = 0; i < b.rank; ++i) b.dims[i] = t.dims[i];
  return b;
}

// Offset of the element at output linear index `i` in an input with `strides`.
inline int64_t OffsetAt(int64_t i, const TfnTensor& out, const int64_t* strides) {
  int64_t off = 0;
  for (int d = out.rank - 1; d >= 0; --d) {
    int64_t n = out.dims[d];
    off += (i % n) * strides[d];
    i /= n;
  }
  return off;
}

template <class T>
T* DataOf(const TfnTensor& t) {
  return static_cast<T*>(t.data);
}

// Calls f(T{}) with T the storage type of dtype value `dtype`, for the
// dtypes arithmetic kernels compute on (bool, int32, int64, float32,
// float64; the op table's kAnyType). Others give TFN_KERNEL_UNSUPPORTED.
template <class F>
int32_t DispatchDType(int32_t dtype, F&& f) {
  switch (static_cast<DType>(dtype)) {
    case DType::kBool: return f(bool{});
    case DType::kInt32: return f(int32_t{});
    case DType::kInt64: return f(int64_t{});
    case DType::kFloat32: return f(float{});
    case DType::kFloat64: return f(double{});
    default: return TFN_KERNEL_UNSUPPORTED;
  }
}

// Calls f(U{}) with U the unsigned integer of the dtype's size, for every
// dtype: kernels that only move elements (copy, transpose, concat, gather,
// where, ...) share one loop per size and stay exact on every dtype.
template <class F>
int32_t DispatchStorage(int32_t dtype, F&& f) {
  switch (DTypeSize(static_cast<DType>(dtype))) {
    case 1: return f(uint8_t{});
    case 2: return f(uint16_t{});
    case 4: return f(uint32_t{});
    case 8: return f(uint64_t{});
    default: return TFN_KERNEL_UNSUPPORTED;
  }
}

// Runs fn over [0, n) in chunks through the context's pool, or serially.
template <class F>
void ParallelFor(const TfnKernelContext* ctx, int64_t n, int64_t min_chunk, F& fn) {
  if (ctx && ctx->parallel_for && ctx->num_threads > 1 && n > min_chunk) {
    ctx->parallel_for(
        ctx->pool, n, min_chunk,
        [](void* arg, int64_t b, int64_t e) { (*static_cast<F*>(arg))(b, e); }, &fn);
  } else {
    fn(int64_t{0}, n);
  }
}

}  // namespace tfn::kernels
