// What every server of the HTTP library comparison (http_libs.sh) answers,
// the same bytes from each: GET /v2/health/ready, and POST
// /v2/models/echo/infer with a body of the size of an OIP answer for a
// 4-float output (the request body is read whole and its size echoed, so
// each library's request parsing and body reading is in the figure; no
// inference runs). Plain C, so the C libraries' servers include it too.
#ifndef TFN_BENCH_HTTP_LIBS_COMMON_H_
#define TFN_BENCH_HTTP_LIBS_COMMON_H_

#include <stdio.h>
#include <stdlib.h>

static const char kReadyPath[] = "/v2/health/ready";
static const char kInferPath[] = "/v2/models/echo/infer";
static const char kReadyBody[] = "{\"ready\":true}";
static const char kNotFoundBody[] = "{\"error\":\"not found\"}";

// The infer answer for a request body of `request_bytes`, into buf (>= 256
// bytes); returns its length.
static int InferAnswer(size_t request_bytes, char* buf, size_t size) {
  return snprintf(buf, size,
                  "{\"model_name\":\"echo\",\"model_version\":\"1\",\"outputs\":[{\"name\":\"y\","
                  "\"datatype\":\"FP32\",\"shape\":[1,4],\"data\":[%zu,2.5,3.5,4.5]}]}",
                  request_bytes);
}

// argv: PORT THREADS. Exits with a usage message otherwise.
static void ParseArgs(int argc, char** argv, int* port, int* threads) {
  if (argc != 3 || (*port = atoi(argv[1])) <= 0 || (*threads = atoi(argv[2])) <= 0) {
    fprintf(stderr, "usage: %s PORT THREADS\n", argv[0]);
    exit(2);
  }
}

#endif  // TFN_BENCH_HTTP_LIBS_COMMON_H_
