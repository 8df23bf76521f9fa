/* The comparison's server on libevhtp (over libevent): THREADS event-loop
 * threads, each serving its own connections. */
#include <evhtp.h>

#include "common.h"

static void Reply(evhtp_request_t* req, const char* body, size_t n, evhtp_res status) {
  evbuffer_add(req->buffer_out, body, n);
  evhtp_headers_add_header(req->headers_out,
                           evhtp_header_new("Content-Type", "application/json", 0, 0));
  evhtp_send_reply(req, status);
}

static void Ready(evhtp_request_t* req, void* arg) {
  (void)arg;
  Reply(req, kReadyBody, sizeof(kReadyBody) - 1, EVHTP_RES_OK);
}

static void Infer(evhtp_request_t* req, void* arg) {
  (void)arg;
  char body[256];
  const int n = InferAnswer(evbuffer_get_length(req->buffer_in), body, sizeof(body));
  Reply(req, body, (size_t)n, EVHTP_RES_OK);
}

int main(int argc, char** argv) {
  int port = 0, threads = 0;
  ParseArgs(argc, argv, &port, &threads);
  struct event_base* base = event_base_new();
  evhtp_t* htp = evhtp_new(base, NULL);
  evhtp_set_cb(htp, kReadyPath, Ready, NULL);
  evhtp_set_cb(htp, kInferPath, Infer, NULL);
  evhtp_use_threads_wexit(htp, NULL, NULL, threads, NULL);
  if (evhtp_bind_socket(htp, "127.0.0.1", (uint16_t)port, 1024) != 0) {
    fprintf(stderr, "server_evhtp: could not bind port %d\n", port);
    return 1;
  }
  event_base_loop(base, 0);
  return 0;
}
