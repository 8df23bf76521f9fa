/* The part of ONNX Runtime's C API that bench/compare/ort_driver.cc uses,
 * declared by hand because the npm package (onnxruntime-node) that the
 * benchmark takes libonnxruntime.so.1 from ships no headers.
 *
 * Follows onnxruntime's public header
 * include/onnxruntime/core/session/onnxruntime_c_api.h at ORT_API_VERSION 13
 * (commit 0017800f6539412b364502d8b59c11463a6411e6 of microsoft/onnxruntime):
 * OrtApiBase, and the OrtApi table of function pointers in that header's
 * order from its first member (CreateStatus) through ReleaseCustomOpDomain,
 * the last member used here. ORT only appends to the table, so this prefix is
 * the same in every later library (ORT 1.30 serves API version 13 from the
 * same table; OrtGetApiBase()->GetApi(13)).
 *
 * Members the driver does not call are declared as OrtUnusedFn placeholders
 * under their real names, so the order can be checked line by line against
 * the header; changing the count of members before the last one used breaks
 * every call after it. The enums are only those the driver passes or reads.
 * Nothing here is copied from onnxruntime: these are independent declarations
 * of the documented interface. */
#ifndef TFN_BENCH_COMPARE_ORT_C_API_H_
#define TFN_BENCH_COMPARE_ORT_C_API_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The API version requested from GetApi: the header version followed here. */
#define TFN_ORT_API_VERSION 13u

typedef enum ONNXTensorElementDataType {
  ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED = 0,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT = 1,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32 = 6,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64 = 7,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_BOOL = 9,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_DOUBLE = 11
} ONNXTensorElementDataType;

typedef enum OrtLoggingLevel {
  ORT_LOGGING_LEVEL_VERBOSE = 0,
  ORT_LOGGING_LEVEL_INFO = 1,
  ORT_LOGGING_LEVEL_WARNING = 2,
  ORT_LOGGING_LEVEL_ERROR = 3,
  ORT_LOGGING_LEVEL_FATAL = 4
} OrtLoggingLevel;

typedef enum OrtErrorCode { ORT_OK = 0 } OrtErrorCode; /* other codes are only printed */

typedef enum GraphOptimizationLevel {
  ORT_DISABLE_ALL = 0,
  ORT_ENABLE_BASIC = 1,
  ORT_ENABLE_EXTENDED = 2,
  ORT_ENABLE_ALL = 99
} GraphOptimizationLevel;

typedef enum ExecutionMode { ORT_SEQUENTIAL = 0, ORT_PARALLEL = 1 } ExecutionMode;

typedef enum OrtAllocatorType { OrtDeviceAllocator = 0, OrtArenaAllocator = 1 } OrtAllocatorType;

typedef enum OrtMemType { OrtMemTypeDefault = 0 } OrtMemType;

/* Opaque handles. */
typedef struct OrtEnv OrtEnv;
typedef struct OrtStatus OrtStatus;
typedef struct OrtMemoryInfo OrtMemoryInfo;
typedef struct OrtSession OrtSession;
typedef struct OrtValue OrtValue;
typedef struct OrtRunOptions OrtRunOptions;
typedef struct OrtTypeInfo OrtTypeInfo;
typedef struct OrtTensorTypeAndShapeInfo OrtTensorTypeAndShapeInfo;
typedef struct OrtSessionOptions OrtSessionOptions;
typedef struct OrtCustomOpDomain OrtCustomOpDomain;

/* ORT's allocator interface: ORT fills it; callers use Free on names it
 * allocated (SessionGetInputName). */
typedef struct OrtAllocator {
  uint32_t version;
  void* (*Alloc)(struct OrtAllocator* self, size_t size);
  void (*Free)(struct OrtAllocator* self, void* p);
  const OrtMemoryInfo* (*Info)(const struct OrtAllocator* self);
} OrtAllocator;

/* A table slot the driver never calls; only its size matters. */
typedef void (*OrtUnusedFn)(void);

typedef struct OrtApi {
  /* OrtStatus */
  OrtUnusedFn CreateStatus;                                /* 0 */
  OrtErrorCode (*GetErrorCode)(const OrtStatus* status);   /* 1 */
  const char* (*GetErrorMessage)(const OrtStatus* status); /* 2 */
  /* OrtEnv */
  OrtStatus* (*CreateEnv)(OrtLoggingLevel level, const char* logid, OrtEnv** out); /* 3 */
  OrtUnusedFn CreateEnvWithCustomLogger;                                           /* 4 */
  OrtUnusedFn EnableTelemetryEvents;                                               /* 5 */
  OrtStatus* (*DisableTelemetryEvents)(const OrtEnv* env);                         /* 6 */
  /* OrtSession */
  OrtStatus* (*CreateSession)(const OrtEnv* env, const char* model_path,
                              const OrtSessionOptions* options, OrtSession** out); /* 7 */
  OrtUnusedFn CreateSessionFromArray;                                              /* 8 */
  OrtStatus* (*Run)(OrtSession* session, const OrtRunOptions* run_options,
                    const char* const* input_names, const OrtValue* const* inputs, size_t input_len,
                    const char* const* output_names, size_t output_names_len,
                    OrtValue** outputs); /* 9 */
  /* OrtSessionOptions */
  OrtStatus* (*CreateSessionOptions)(OrtSessionOptions** options);                       /* 10 */
  OrtUnusedFn SetOptimizedModelFilePath;                                                 /* 11 */
  OrtUnusedFn CloneSessionOptions;                                                       /* 12 */
  OrtStatus* (*SetSessionExecutionMode)(OrtSessionOptions* options, ExecutionMode mode); /* 13 */
  OrtStatus* (*EnableProfiling)(OrtSessionOptions* options, const char* prefix);         /* 14 */
  OrtUnusedFn DisableProfiling;                                                          /* 15 */
  OrtUnusedFn EnableMemPattern;                                                          /* 16 */
  OrtUnusedFn DisableMemPattern;                                                         /* 17 */
  OrtUnusedFn EnableCpuMemArena;                                                         /* 18 */
  OrtUnusedFn DisableCpuMemArena;                                                        /* 19 */
  OrtUnusedFn SetSessionLogId;                                                           /* 20 */
  OrtUnusedFn SetSessionLogVerbosityLevel;                                               /* 21 */
  OrtStatus* (*SetSessionLogSeverityLevel)(OrtSessionOptions* options, int level);       /* 22 */
  OrtStatus* (*SetSessionGraphOptimizationLevel)(OrtSessionOptions* options,
                                                 GraphOptimizationLevel level);             /* 23 */
  OrtStatus* (*SetIntraOpNumThreads)(OrtSessionOptions* options, int intra_op_num_threads); /* 24 */
  OrtStatus* (*SetInterOpNumThreads)(OrtSessionOptions* options, int inter_op_num_threads); /* 25 */
  /* OrtCustomOpDomain */
  OrtUnusedFn CreateCustomOpDomain;     /* 26 */
  OrtUnusedFn CustomOpDomain_Add;       /* 27 */
  OrtUnusedFn AddCustomOpDomain;        /* 28 */
  OrtUnusedFn RegisterCustomOpsLibrary; /* 29 */
  /* OrtSession: inputs and outputs */
  OrtStatus* (*SessionGetInputCount)(const OrtSession* session, size_t* out);  /* 30 */
  OrtStatus* (*SessionGetOutputCount)(const OrtSession* session, size_t* out); /* 31 */
  OrtUnusedFn SessionGetOverridableInitializerCount;                           /* 32 */
  OrtStatus* (*SessionGetInputTypeInfo)(const OrtSession* session, size_t index,
                                        OrtTypeInfo** type_info); /* 33 */
  OrtStatus* (*SessionGetOutputTypeInfo)(const OrtSession* session, size_t index,
                                         OrtTypeInfo** type_info); /* 34 */
  OrtUnusedFn SessionGetOverridableInitializerTypeInfo;            /* 35 */
  OrtStatus* (*SessionGetInputName)(const OrtSession* session, size_t index,
                                    OrtAllocator* allocator, char** value); /* 36 */
  OrtStatus* (*SessionGetOutputName)(const OrtSession* session, size_t index,
                                     OrtAllocator* allocator, char** value); /* 37 */
  OrtUnusedFn SessionGetOverridableInitializerName;                          /* 38 */
  /* OrtRunOptions */
  OrtUnusedFn CreateRunOptions;                  /* 39 */
  OrtUnusedFn RunOptionsSetRunLogVerbosityLevel; /* 40 */
  OrtUnusedFn RunOptionsSetRunLogSeverityLevel;  /* 41 */
  OrtUnusedFn RunOptionsSetRunTag;               /* 42 */
  OrtUnusedFn RunOptionsGetRunLogVerbosityLevel; /* 43 */
  OrtUnusedFn RunOptionsGetRunLogSeverityLevel;  /* 44 */
  OrtUnusedFn RunOptionsGetRunTag;               /* 45 */
  OrtUnusedFn RunOptionsSetTerminate;            /* 46 */
  OrtUnusedFn RunOptionsUnsetTerminate;          /* 47 */
  /* OrtValue */
  OrtUnusedFn CreateTensorAsOrtValue; /* 48 */
  OrtStatus* (*CreateTensorWithDataAsOrtValue)(const OrtMemoryInfo* info, void* p_data,
                                               size_t p_data_len, const int64_t* shape,
                                               size_t shape_len, ONNXTensorElementDataType type,
                                               OrtValue** out);    /* 49 */
  OrtUnusedFn IsTensor;                                            /* 50 */
  OrtStatus* (*GetTensorMutableData)(OrtValue* value, void** out); /* 51 */
  OrtUnusedFn FillStringTensor;                                    /* 52 */
  OrtUnusedFn GetStringTensorDataLength;                           /* 53 */
  OrtUnusedFn GetStringTensorContent;                              /* 54 */
  /* OrtTypeInfo */
  OrtStatus* (*CastTypeInfoToTensorInfo)(const OrtTypeInfo* type_info,
                                         const OrtTensorTypeAndShapeInfo** out); /* 55 */
  OrtUnusedFn GetOnnxTypeFromTypeInfo;                                           /* 56 */
  /* OrtTensorTypeAndShapeInfo */
  OrtUnusedFn CreateTensorTypeAndShapeInfo; /* 57 */
  OrtUnusedFn SetTensorElementType;         /* 58 */
  OrtUnusedFn SetDimensions;                /* 59 */
  OrtStatus* (*GetTensorElementType)(const OrtTensorTypeAndShapeInfo* info,
                                     ONNXTensorElementDataType* out);                   /* 60 */
  OrtStatus* (*GetDimensionsCount)(const OrtTensorTypeAndShapeInfo* info, size_t* out); /* 61 */
  OrtStatus* (*GetDimensions)(const OrtTensorTypeAndShapeInfo* info, int64_t* dim_values,
                              size_t dim_values_length); /* 62 */
  OrtUnusedFn GetSymbolicDimensions;                     /* 63 */
  OrtStatus* (*GetTensorShapeElementCount)(const OrtTensorTypeAndShapeInfo* info,
                                           size_t* out); /* 64 */
  /* OrtValue */
  OrtStatus* (*GetTensorTypeAndShape)(const OrtValue* value,
                                      OrtTensorTypeAndShapeInfo** out); /* 65 */
  OrtUnusedFn GetTypeInfo;                                              /* 66 */
  OrtUnusedFn GetValueType;                                             /* 67 */
  /* OrtMemoryInfo */
  OrtUnusedFn CreateMemoryInfo; /* 68 */
  OrtStatus* (*CreateCpuMemoryInfo)(OrtAllocatorType type, OrtMemType mem_type,
                                    OrtMemoryInfo** out); /* 69 */
  OrtUnusedFn CompareMemoryInfo;                          /* 70 */
  OrtUnusedFn MemoryInfoGetName;                          /* 71 */
  OrtUnusedFn MemoryInfoGetId;                            /* 72 */
  OrtUnusedFn MemoryInfoGetMemType;                       /* 73 */
  OrtUnusedFn MemoryInfoGetType;                          /* 74 */
  /* OrtAllocator */
  OrtUnusedFn AllocatorAlloc;                                       /* 75 */
  OrtStatus* (*AllocatorFree)(OrtAllocator* allocator, void* p);    /* 76 */
  OrtUnusedFn AllocatorGetInfo;                                     /* 77 */
  OrtStatus* (*GetAllocatorWithDefaultOptions)(OrtAllocator** out); /* 78 */
  /* OrtSessionOptions */
  OrtUnusedFn AddFreeDimensionOverride; /* 79 */
  /* OrtValue: non-tensor types */
  OrtUnusedFn GetValue;          /* 80 */
  OrtUnusedFn GetValueCount;     /* 81 */
  OrtUnusedFn CreateValue;       /* 82 */
  OrtUnusedFn CreateOpaqueValue; /* 83 */
  OrtUnusedFn GetOpaqueValue;    /* 84 */
  /* OrtKernelInfo, OrtKernelContext (custom ops) */
  OrtUnusedFn KernelInfoGetAttribute_float;  /* 85 */
  OrtUnusedFn KernelInfoGetAttribute_int64;  /* 86 */
  OrtUnusedFn KernelInfoGetAttribute_string; /* 87 */
  OrtUnusedFn KernelContext_GetInputCount;   /* 88 */
  OrtUnusedFn KernelContext_GetOutputCount;  /* 89 */
  OrtUnusedFn KernelContext_GetInput;        /* 90 */
  OrtUnusedFn KernelContext_GetOutput;       /* 91 */
  /* Release functions */
  void (*ReleaseEnv)(OrtEnv* p);                                       /* 92 */
  void (*ReleaseStatus)(OrtStatus* p);                                 /* 93 */
  void (*ReleaseMemoryInfo)(OrtMemoryInfo* p);                         /* 94 */
  void (*ReleaseSession)(OrtSession* p);                               /* 95 */
  void (*ReleaseValue)(OrtValue* p);                                   /* 96 */
  void (*ReleaseRunOptions)(OrtRunOptions* p);                         /* 97 */
  void (*ReleaseTypeInfo)(OrtTypeInfo* p);                             /* 98 */
  void (*ReleaseTensorTypeAndShapeInfo)(OrtTensorTypeAndShapeInfo* p); /* 99 */
  void (*ReleaseSessionOptions)(OrtSessionOptions* p);                 /* 100 */
  void (*ReleaseCustomOpDomain)(OrtCustomOpDomain* p); /* 101: the last member declared */
  /* ... ORT's table continues; nothing after this point is used. */
} OrtApi;

typedef struct OrtApiBase {
  const OrtApi* (*GetApi)(uint32_t version); /* NULL when the library is older than `version` */
  const char* (*GetVersionString)(void);     /* "1.30.0" */
} OrtApiBase;

/* The library's one exported entry point (resolved with dlsym). */
typedef const OrtApiBase* (*OrtGetApiBaseFn)(void);

#ifdef __cplusplus
}
#endif

#endif /* TFN_BENCH_COMPARE_ORT_C_API_H_ */
