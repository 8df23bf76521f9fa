/* The ABI of tfn's compiled signatures: AOT objects (tfn-aot) and JIT code
 * describe each signature with a TfnAotSignature, so that the runtime (or
 * any C program) can run them without the generated header.
 *
 * A signature's code is reentrant: several threads may run it at once with
 * separate scratch areas. It never allocates: the caller gives input and
 * output buffers (outputs sized by output_shape) and a scratch area of
 * scratch_bytes (64-byte aligned).
 *
 * Threads (version 2): run_with_options takes the caller's thread pool as a
 * parallel-for function, the same contract as the kernels' TfnParallelForFn
 * (kernels/kernel_abi.h); the code splits its kernels and large fused loops
 * through it and creates no threads itself, so it stays libc-only. `run` is
 * run_with_options without a pool (single-threaded). Results do not depend on
 * the thread count. tfn/aot_thread_pool.h is a small pthread pool for apps.
 *
 * Versioned like the bundle format: fields are only appended, and
 * abi_version says which fields exist (version 1: up to output_shape;
 * version 2: run_with_options). */
#ifndef TFN_SCHEMA_AOT_ABI_H_
#define TFN_SCHEMA_AOT_ABI_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TFN_AOT_ABI_VERSION 3u
#define TFN_AOT_MAX_RANK 8

/* Status codes returned by compiled code. */
enum {
  TFN_AOT_OK = 0,
  TFN_AOT_BAD_DIMS = 1,           /* a dynamic dim is negative, or sizes overflow */
  TFN_AOT_SHAPE_MISMATCH = 2,     /* dims that must agree at run time do not */
  TFN_AOT_INDEX_OUT_OF_RANGE = 3, /* gather indices outside the indexed axis */
  TFN_AOT_KERNEL_ERROR = 4,       /* a kernel refused its inputs */
  TFN_AOT_BAD_ARGUMENT = 5,       /* an output index out of range, a NULL pointer */
  /* Objects compiled with `tfn-aot --weights external` (no ABI change: these
   * are new values of the code, the structs below are unchanged): */
  TFN_AOT_WEIGHTS_NOT_BOUND = 6, /* run before NAME_bind_weights succeeded */
  TFN_AOT_WEIGHTS_MISMATCH = 7   /* NAME_bind_weights was given another bundle
                                    (magic, size or content hash differ) */
};

/* One input or output: dtype (tfn::DType values), rank, and per dim either
 * a static size (dim_index < 0) or the index of the dynamic dim argument
 * that gives it. Output dims may be expressions of several dynamic dims:
 * use output_shape for them (their dim_index is -1 and size is -1). */
typedef struct TfnAotTensorDesc {
  const char* name;
  int32_t dtype;
  int32_t rank;
  int64_t size[TFN_AOT_MAX_RANK];
  int32_t dim_index[TFN_AOT_MAX_RANK];
} TfnAotTensorDesc;

/* Also declared, identically and under the same guard, by
 * tfn/aot_thread_pool.h, so either header may come first. */
#ifndef TFN_AOT_RUN_OPTIONS_DEFINED
#define TFN_AOT_RUN_OPTIONS_DEFINED
/* Runs fn(arg, begin, end) over [0, n) in chunks of at least min_chunk
 * elements, possibly in parallel, and returns when all have run. A call made
 * from inside fn must run serially (or be otherwise safe to nest). */
typedef void (*TfnAotParallelForFn)(void* pool, int64_t n, int64_t min_chunk,
                                    void (*fn)(void* arg, int64_t begin, int64_t end), void* arg);

/* How a call may use threads. Set struct_size to sizeof(TfnAotRunOptions):
 * fields are only appended, and code reads only those the caller's size
 * covers. parallel_for == NULL or num_threads <= 1: single-threaded. The
 * pool must stay valid for the call; several calls may share it. */
typedef struct TfnAotRunOptions {
  uint32_t struct_size;
  int32_t num_threads; /* threads parallel_for may use, the caller included */
  TfnAotParallelForFn parallel_for;
  void* pool; /* passed to parallel_for */
  /* Where tfn::print text goes (code of abi_version >= 3 reads these when
   * struct_size covers them): print(print_context, text, size), one call
   * per print op; NULL: standard output. */
  void (*print)(void* print_context, const char* text, size_t size);
  void* print_context;
} TfnAotRunOptions;
#endif /* TFN_AOT_RUN_OPTIONS_DEFINED */

typedef struct TfnAotSignature {
  uint32_t abi_version; /* TFN_AOT_ABI_VERSION of the code */
  const char* name;     /* "serving_default" */
  int32_t num_inputs;
  int32_t num_outputs;
  int32_t num_dims; /* dynamic dim arguments */
  const TfnAotTensorDesc* inputs;
  const TfnAotTensorDesc* outputs;
  const char* const* dim_names; /* num_dims names, e.g. "x_dim0" */
  /* Runs: inputs[num_inputs], dims[num_dims], outputs[num_outputs]. */
  int32_t (*run)(const void* const* inputs, const int64_t* dims, void* const* outputs,
                 void* scratch);
  /* Scratch bytes for these dims (-1 when the dims are invalid). */
  int64_t (*scratch_bytes)(const int64_t* dims);
  /* Writes output `index`'s dims for these dims into out_dims. */
  int32_t (*output_shape)(const int64_t* dims, int32_t index, int64_t* out_dims);
  /* abi_version >= 2: run with threads (options may be NULL: as run). */
  int32_t (*run_with_options)(const void* const* inputs, const int64_t* dims, void* const* outputs,
                              void* scratch, const TfnAotRunOptions* options);
} TfnAotSignature;

#ifdef __cplusplus
}
#endif

#endif /* TFN_SCHEMA_AOT_ABI_H_ */
