/* The smallest useful app of tfn's runtime, for bench/runtime_size.sh: it
 * loads a bundle with the C API, runs a signature on zero-filled inputs
 * (dynamic dims set to 1) and prints each output's shape. Linked against
 * the static runtime (tfn_runtime and its kernels) and dynamically against
 * libc/libstdc++, its text+data minus a C++ hello-world's is the runtime's
 * own code size (issue 4: target <= 300 KB with all kernels).
 *
 *   runtime_size_app BUNDLE [SIGNATURE]   (default: the first signature) */
#include <stdio.h>
#include <stdlib.h>

#include "runtime/tfn_runtime.h"

static size_t element_bytes(int32_t dtype) {
  switch (dtype) {
    case TFN_RT_BOOL:
    case TFN_RT_INT8:
    case TFN_RT_UINT8: return 1;
    case TFN_RT_FLOAT16:
    case TFN_RT_BFLOAT16:
    case TFN_RT_INT16:
    case TFN_RT_UINT16: return 2;
    case TFN_RT_INT32:
    case TFN_RT_UINT32:
    case TFN_RT_FLOAT32: return 4;
    default: return 8;
  }
}

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    fprintf(stderr, "usage: runtime_size_app BUNDLE [SIGNATURE]\n");
    return 2;
  }
  char error[512];
  TfnRtBundle* bundle = NULL;
  TfnRtSession* session = NULL;
  if (tfn_rt_bundle_load(argv[1], &bundle, error, sizeof error) != TFN_RT_OK ||
      tfn_rt_session_create(bundle, &session, error, sizeof error) != TFN_RT_OK) {
    fprintf(stderr, "runtime_size_app: %s\n", error);
    return 1;
  }
  const char* signature = argc > 2 ? argv[2] : tfn_rt_signature_name(bundle, 0);
  int n = tfn_rt_signature_input_count(bundle, signature);
  if (n < 0 || n > 16) {
    fprintf(stderr, "runtime_size_app: no signature '%s' (or too many inputs)\n", signature ? signature : "");
    return 1;
  }
  TfnRtTensor inputs[16];
  for (int i = 0; i < n; ++i) {
    const char* name = NULL;
    tfn_rt_signature_input(bundle, signature, i, &name, &inputs[i]);
    size_t count = 1;
    for (int d = 0; d < inputs[i].rank; ++d) {
      if (inputs[i].dims[d] < 0) inputs[i].dims[d] = 1;
      count *= (size_t)inputs[i].dims[d];
    }
    inputs[i].data = calloc(count ? count : 1, element_bytes(inputs[i].dtype));
  }
  TfnRtOutputs* outputs = NULL;
  if (tfn_rt_session_run(session, signature, inputs, n, &outputs, error, sizeof error) != TFN_RT_OK) {
    fprintf(stderr, "runtime_size_app: %s\n", error);
    return 1;
  }
  for (int i = 0; i < tfn_rt_outputs_count(outputs); ++i) {
    const TfnRtTensor* t = tfn_rt_outputs_get(outputs, i);
    printf("output %d: dtype %d, shape [", i, (int)t->dtype);
    for (int d = 0; d < t->rank; ++d) printf(d ? ",%lld" : "%lld", (long long)t->dims[d]);
    printf("]\n");
  }
  tfn_rt_outputs_free(outputs);
  for (int i = 0; i < n; ++i) free(inputs[i].data);
  tfn_rt_session_free(session);
  tfn_rt_bundle_free(bundle);
  return 0;
}
