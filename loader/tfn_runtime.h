/* tfn's runtime as a C API: load a bundle, run its signatures.
 *
 * Every call that can fail returns a TfnRtStatus and, when `error` is not
 * NULL, writes a NUL-terminated message (truncated to error_size bytes).
 * Ownership: objects made by the _create and _load functions are freed by
 * the matching _free function; a session must be freed before its bundle.
 * Input data stays owned by the caller; output tensors belong to the
 * TfnRtOutputs they came in.
 * Threads: a bundle may be shared by threads; a session may run on several
 * threads at once. A session runs each call on a pool of num_threads threads
 * (the caller plus workers it starts; by default as many as the process has
 * cores); concurrent calls share it.
 *
 * Versioned: functions, enum values and struct fields are only added (structs
 * passed in carry their size); TFN_RT_API_VERSION counts the additions
 * (2: session options and thread counts; 3: the run limits in session
 * options). */
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

typedef enum TfnRtDType {
  TFN_RT_BOOL = 1,
  TFN_RT_INT32 = 2,
  TFN_RT_INT64 = 3,
  TFN_RT_FLOAT32 = 4,
  TFN_RT_FLOAT64 = 5
} TfnRtDType;

#define TFN_RT_API_VERSION 3
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
   * loader/README.md "Limits"); a run that hits one fails with
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

int tfn_rt_outputs_count(const TfnRtOutputs* outputs);
const TfnRtTensor* tfn_rt_outputs_get(const TfnRtOutputs* outputs, int index);
void tfn_rt_outputs_free(TfnRtOutputs* outputs);

#ifdef __cplusplus
}
#endif

#endif /* TFN_LOADER_TFN_RUNTIME_H_ */
