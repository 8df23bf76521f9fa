/* tfn's runtime as a C API: load a bundle, run its signatures.
 *
 *   TfnRtBundle* bundle; TfnRtSession* session; TfnRtMethod* method;
 *   char err[256];
 *   tfn_rt_bundle_load("model.tfn", &bundle, err, sizeof err);
 *   tfn_rt_session_create(bundle, &session, err, sizeof err);
 *   tfn_rt_session_method(session, "serving_default", &method, err, sizeof err);
 *   float x[784], y[10];
 *   TfnRtTensor in = {TFN_RT_FLOAT32, 2, {1, 784}, x};
 *   TfnRtTensor out = {TFN_RT_FLOAT32, 2, {1, 10}, y};  // bound: written in place
 *   if (tfn_rt_method_run_into(method, &in, 1, &out, 1, err, sizeof err) != TFN_RT_OK) ...
 *   tfn_rt_method_free(method);  // then the session, then the bundle
 *
 * (each call returns a TfnRtStatus to check). tfn_rt_method_run and
 * tfn_rt_session_run(session, "serving_default", ...) allocate the outputs
 * instead; the latter also looks the signature up by name on every call.
 *
 * Every call that can fail returns a TfnRtStatus and, when `error` is not
 * NULL, writes a NUL-terminated message (truncated to error_size bytes).
 * Ownership: objects made by the _create, _load and tfn_rt_session_method
 * functions are freed by the matching _free function; free methods before
 * their session and sessions before their bundle. Input data and bound
 * output buffers stay owned by the caller; allocated output tensors belong
 * to the TfnRtOutputs they came in.
 * Threads: a bundle may be shared by threads; a session may run on several
 * threads at once. A method handle runs on one thread at a time (it reuses
 * its buffers on every call): make one handle per thread. A session runs
 * each call on a pool of num_threads threads (the caller plus workers it
 * starts; by default as many as the process has cores); concurrent calls
 * share it.
 *
 * Versioned: functions, enum values and struct fields are only added (structs
 * passed in carry their size); TFN_RT_API_VERSION counts the additions
 * (2: session options and thread counts; 3: the run limits in session
 * options; 4: method handles and outputs bound to caller memory; 5: the
 * float16, bfloat16, int8, uint8, int16, uint16, uint32 and uint64 dtypes;
 * 6: checkpoints). */
#ifndef TFN_LOADER_TFN_RUNTIME_H_
#define TFN_LOADER_TFN_RUNTIME_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum TfnRtStatus {
  TFN_RT_OK = 0,
  TFN_RT_INVALID_ARGUMENT = 1,
  TFN_RT_OUT_OF_RANGE = 2,
  TFN_RT_NOT_FOUND = 3,
  TFN_RT_FAILED_PRECONDITION = 4,
  TFN_RT_DATA_LOSS = 5,
  TFN_RT_UNIMPLEMENTED = 6,
  TFN_RT_INCOMPATIBLE_VERSION = 7,
  TFN_RT_RESOURCE_EXHAUSTED = 8,
  TFN_RT_INTERNAL = 9,
  TFN_RT_IO_ERROR = 10
} TfnRtStatus;

/* Element types. FLOAT16 and BFLOAT16 data are uint16_t bit patterns
 * (IEEE binary16; the top half of a float32). Values 6-13 need bundle format
 * version 3. */
typedef enum TfnRtDType {
  TFN_RT_BOOL = 1,
  TFN_RT_INT32 = 2,
  TFN_RT_INT64 = 3,
  TFN_RT_FLOAT32 = 4,
  TFN_RT_FLOAT64 = 5,
  TFN_RT_FLOAT16 = 6,
  TFN_RT_BFLOAT16 = 7,
  TFN_RT_INT8 = 8,
  TFN_RT_UINT8 = 9,
  TFN_RT_INT16 = 10,
  TFN_RT_UINT16 = 11,
  TFN_RT_UINT32 = 12,
  TFN_RT_UINT64 = 13
} TfnRtDType;

#define TFN_RT_API_VERSION 6
#define TFN_RT_MAX_RANK 8

/* A dense row-major tensor. dims[i] is -1 in signature descriptions for
 * dims known only at run time. */
typedef struct TfnRtTensor {
  int32_t dtype; /* TfnRtDType */
  int32_t rank;
  int64_t dims[TFN_RT_MAX_RANK];
  void* data;
} TfnRtTensor;

typedef struct TfnRtBundle TfnRtBundle;
typedef struct TfnRtSession TfnRtSession;
typedef struct TfnRtOutputs TfnRtOutputs;
typedef struct TfnRtMethod TfnRtMethod;

const char* tfn_rt_version(void);

TfnRtStatus tfn_rt_bundle_load(const char* path, TfnRtBundle** bundle, char* error,
                               size_t error_size);
/* Copies the bytes. */
TfnRtStatus tfn_rt_bundle_from_memory(const void* data, size_t size, TfnRtBundle** bundle,
                                      char* error, size_t error_size);
void tfn_rt_bundle_free(TfnRtBundle* bundle);

int tfn_rt_signature_count(const TfnRtBundle* bundle);
const char* tfn_rt_signature_name(const TfnRtBundle* bundle, int index);
/* Number of inputs/outputs of a signature (-1 when there is no such signature). */
int tfn_rt_signature_input_count(const TfnRtBundle* bundle, const char* signature);
int tfn_rt_signature_output_count(const TfnRtBundle* bundle, const char* signature);
/* Name and type of input/output `index` (data is NULL); 0 on success. */
int tfn_rt_signature_input(const TfnRtBundle* bundle, const char* signature, int index,
                           const char** name, TfnRtTensor* type);
int tfn_rt_signature_output(const TfnRtBundle* bundle, const char* signature, int index,
                            const char** name, TfnRtTensor* type);

TfnRtStatus tfn_rt_session_create(const TfnRtBundle* bundle, TfnRtSession** session, char* error,
                                  size_t error_size);
void tfn_rt_session_free(TfnRtSession* session);

/* Options of a session. Start from tfn_rt_session_options_default() (which
 * sets struct_size), then change fields. */
typedef struct TfnRtSessionOptions {
  uint32_t struct_size; /* sizeof(TfnRtSessionOptions) as the caller knows it */
  int32_t num_threads;  /* threads per call, the caller included; 0: the available cores; 1: no
                           threads */
  /* Limits of every run of the session (API version 3; C++: RunOptions,
   * runtime/README.md "Limits"); a run that hits one fails with
   * TFN_RT_RESOURCE_EXHAUSTED and a message naming it. 0: no limit. */
  int64_t max_while_iterations; /* iterations of any one while_loop (default 10,000,000) */
  int64_t max_run_bytes; /* bytes one program run may plan (default: half the physical memory) */
  int64_t deadline_ms;   /* wall-clock milliseconds a run may take (default 0: none) */
} TfnRtSessionOptions;

TfnRtSessionOptions tfn_rt_session_options_default(void);
/* As tfn_rt_session_create, with options (NULL: the defaults). */
TfnRtStatus tfn_rt_session_create_with_options(const TfnRtBundle* bundle,
                                               const TfnRtSessionOptions* options,
                                               TfnRtSession** session, char* error,
                                               size_t error_size);
/* Threads a call of this session runs on (0 for NULL). */
int tfn_rt_session_num_threads(const TfnRtSession* session);

/* Runs `signature` on inputs in the signature's order. On success *outputs
 * holds the results (free them with tfn_rt_outputs_free). */
TfnRtStatus tfn_rt_session_run(TfnRtSession* session, const char* signature,
                               const TfnRtTensor* inputs, int num_inputs, TfnRtOutputs** outputs,
                               char* error, size_t error_size);

/* Checkpoints (API version 6; C++: Session::SaveCheckpoint and
 * RestoreCheckpoint): every variable of the session (a model's weights,
 * an optimizer's slots after training signatures ran) written to `path`
 * checksummed and atomically, and read back. A restore checks the whole
 * file against the bundle's variables before it changes any: a truncated
 * or corrupt file (TFN_RT_DATA_LOSS) or one of another model
 * (TFN_RT_INVALID_ARGUMENT) leaves the session as it was. Not thread-safe
 * with runs of the same session (save is). */
TfnRtStatus tfn_rt_session_save_checkpoint(const TfnRtSession* session, const char* path,
                                           char* error, size_t error_size);
TfnRtStatus tfn_rt_session_restore_checkpoint(TfnRtSession* session, const char* path, char* error,
                                              size_t error_size);

/* Methods (API version 4): one signature of a session, resolved once (as
 * ExecuTorch's Method; C++: tfn::runtime::Method). Running one looks nothing
 * up by name, and its outputs can be written into caller memory. */

/* On success *method runs `signature` of `session` (TFN_RT_NOT_FOUND names
 * the signatures there are). The handle is valid while its session lives:
 * free it with tfn_rt_method_free before the session. A handle keeps the
 * buffers every call reuses, so calls on one handle must not overlap: run
 * it from one thread at a time, and make one handle per thread to run a
 * signature on several (handles are cheap; any number of them, and
 * tfn_rt_session_run calls, may run on one session at once). */
TfnRtStatus tfn_rt_session_method(TfnRtSession* session, const char* signature,
                                  TfnRtMethod** method, char* error, size_t error_size);
void tfn_rt_method_free(TfnRtMethod* method);
/* Number of inputs/outputs of the method's signature (-1 for NULL). */
int tfn_rt_method_input_count(const TfnRtMethod* method);
int tfn_rt_method_output_count(const TfnRtMethod* method);

/* As tfn_rt_session_run: on success *outputs holds the results (free them
 * with tfn_rt_outputs_free). */
TfnRtStatus tfn_rt_method_run(TfnRtMethod* method, const TfnRtTensor* inputs, int num_inputs,
                              TfnRtOutputs** outputs, char* error, size_t error_size);
/* Runs with every output written into caller memory: outputs[i] (one per
 * output, in the signature's order) gives the dtype, rank, dims and data of
 * the buffer output i is written to; it must be of the output's dtype and
 * shape for these inputs (tfn_rt_method_output_shapes gives them), or the
 * call fails with TFN_RT_INVALID_ARGUMENT naming the output, what it is and
 * what was bound, before anything runs. data may be NULL only for an empty
 * (zero-element) output. Buffers must not overlap each other or the inputs;
 * on an error other than a refused binding their contents are unspecified.
 * The descriptors themselves are not changed. Once the session has run the
 * signature with inputs of these shapes (the first run plans them), a call
 * allocates nothing. */
TfnRtStatus tfn_rt_method_run_into(TfnRtMethod* method, const TfnRtTensor* inputs, int num_inputs,
                                   const TfnRtTensor* outputs, int num_outputs, char* error,
                                   size_t error_size);
/* The outputs a run with inputs of these dtypes and shapes makes, without
 * running (the inputs' data is not read and may be NULL): fills outputs[i]
 * (num_outputs of them, one per output) with dtype, rank and dims, data
 * NULL. A dim is -1 where it depends on computed data. */
TfnRtStatus tfn_rt_method_output_shapes(TfnRtMethod* method, const TfnRtTensor* inputs,
                                        int num_inputs, TfnRtTensor* outputs, int num_outputs,
                                        char* error, size_t error_size);

int tfn_rt_outputs_count(const TfnRtOutputs* outputs);
const TfnRtTensor* tfn_rt_outputs_get(const TfnRtOutputs* outputs, int index);
void tfn_rt_outputs_free(TfnRtOutputs* outputs);

#ifdef __cplusplus
}
#endif

#endif /* TFN_LOADER_TFN_RUNTIME_H_ */
