/* The calling convention of tfn's CPU kernels.
 *
 * One C ABI serves the runtime's executor, eager execution and AOT objects
 * (which link the kernels as LLVM bitcode and call them by symbol name).
 * A kernel reads its inputs and writes into outputs whose memory and shapes
 * the caller has already set up; it never allocates. Everything it may need
 * besides its inputs (scratch memory, a thread pool) comes in the context.
 * Params are an op-specific plain struct made once by PrepareKernel
 * (kernels.h) from the op's attributes; AOT objects embed those bytes. */
#ifndef TFN_KERNELS_KERNEL_ABI_H_
#define TFN_KERNELS_KERNEL_ABI_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TFN_KERNEL_MAX_RANK 8

/* A dense, row-major tensor. dtype uses tfn::DType's values. */
typedef struct TfnTensor {
  void* data;
  int64_t dims[TFN_KERNEL_MAX_RANK];
  int32_t rank;
  int32_t dtype;
} TfnTensor;

/* Runs fn(arg, begin, end) over [0, n) split into chunks, possibly in parallel. */
typedef void (*TfnParallelForFn)(void* pool, int64_t n, int64_t min_chunk,
                                 void (*fn)(void* arg, int64_t begin, int64_t end), void* arg);

typedef struct TfnKernelContext {
  void* scratch;          /* at least the bytes the kernel's scratch function asked for */
  int64_t scratch_bytes;
  TfnParallelForFn parallel_for; /* NULL: run serially */
  void* pool;
  int32_t num_threads;
} TfnKernelContext;

/* Status codes of kernels. */
enum {
  TFN_KERNEL_OK = 0,
  TFN_KERNEL_INDEX_OUT_OF_RANGE = 1, /* gather indices outside the gathered axis */
  TFN_KERNEL_UNSUPPORTED = 2,        /* a dtype or mode this kernel does not handle */
  TFN_KERNEL_SCRATCH_TOO_SMALL = 3,
  TFN_KERNEL_BAD_SHAPE = 4           /* shapes inconsistent with the params (caller bug) */
};

typedef int32_t (*TfnKernelFn)(const void* params, const TfnTensor* inputs, int32_t num_inputs,
                               TfnTensor* outputs, int32_t num_outputs,
                               const TfnKernelContext* ctx);

/* Scratch bytes the kernel needs for these shapes (0 when none). */
typedef int64_t (*TfnScratchFn)(const void* params, const TfnTensor* inputs, int32_t num_inputs,
                                const TfnTensor* outputs, int32_t num_outputs);

#ifdef __cplusplus
}
#endif

#endif /* TFN_KERNELS_KERNEL_ABI_H_ */
