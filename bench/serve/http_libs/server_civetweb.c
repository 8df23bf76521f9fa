/* The comparison's server on CivetWeb: its pool of THREADS worker threads,
 * one connection per worker at a time (as cpp-httplib). */
#include <civetweb.h>
#include <unistd.h>

#include "common.h"

static void Send(struct mg_connection* c, const char* body, size_t n) {
  mg_send_http_ok(c, "application/json", (long long)n);
  mg_write(c, body, n);
}

static int Ready(struct mg_connection* c, void* data) {
  (void)data;
  Send(c, kReadyBody, sizeof(kReadyBody) - 1);
  return 200;
}

static int Infer(struct mg_connection* c, void* data) {
  (void)data;
  char chunk[16384];
  size_t received = 0;
  int got;
  while ((got = mg_read(c, chunk, sizeof(chunk))) > 0) received += (size_t)got;
  char body[256];
  const int n = InferAnswer(received, body, sizeof(body));
  Send(c, body, (size_t)n);
  return 200;
}

int main(int argc, char** argv) {
  int port = 0, threads = 0;
  ParseArgs(argc, argv, &port, &threads);
  char listen[64], workers[16];
  snprintf(listen, sizeof(listen), "127.0.0.1:%d", port);
  snprintf(workers, sizeof(workers), "%d", threads);
  const char* options[] = {
      "listening_ports", listen, "num_threads", workers, "enable_keep_alive", "yes",
      "tcp_nodelay",     "1",    NULL};
  mg_init_library(0);
  struct mg_callbacks callbacks = {0};
  struct mg_context* ctx = mg_start(&callbacks, NULL, options);
  if (ctx == NULL) {
    fprintf(stderr, "server_civetweb: could not start on %s\n", listen);
    return 1;
  }
  mg_set_request_handler(ctx, kReadyPath, Ready, NULL);
  mg_set_request_handler(ctx, kInferPath, Infer, NULL);
  for (;;) pause(); /* until killed */
}
