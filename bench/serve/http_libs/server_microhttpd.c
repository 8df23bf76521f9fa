/* The comparison's server on GNU libmicrohttpd: its epoll event loop in a
 * pool of THREADS threads. A request body arrives through repeated calls of
 * the handler; its size is counted in the connection's context. */
#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "common.h"

static enum MHD_Result Respond(struct MHD_Connection* c, unsigned status, const char* body,
                               size_t n) {
  struct MHD_Response* r = MHD_create_response_from_buffer(n, (void*)body, MHD_RESPMEM_MUST_COPY);
  MHD_add_response_header(r, "Content-Type", "application/json");
  enum MHD_Result ret = MHD_queue_response(c, status, r);
  MHD_destroy_response(r);
  return ret;
}

static enum MHD_Result Handle(void* cls, struct MHD_Connection* c, const char* url,
                              const char* method, const char* version, const char* upload,
                              size_t* upload_size, void** context) {
  (void)cls, (void)version, (void)upload;
  if (*context == NULL) { /* the headers: a counter for the body */
    *context = calloc(1, sizeof(size_t));
    return *context ? MHD_YES : MHD_NO;
  }
  size_t* received = (size_t*)*context;
  if (*upload_size > 0) {
    *received += *upload_size;
    *upload_size = 0;
    return MHD_YES;
  }
  if (strcmp(method, "GET") == 0 && strcmp(url, kReadyPath) == 0)
    return Respond(c, MHD_HTTP_OK, kReadyBody, sizeof(kReadyBody) - 1);
  if (strcmp(method, "POST") == 0 && strcmp(url, kInferPath) == 0) {
    char body[256];
    const int n = InferAnswer(*received, body, sizeof(body));
    return Respond(c, MHD_HTTP_OK, body, (size_t)n);
  }
  return Respond(c, MHD_HTTP_NOT_FOUND, kNotFoundBody, sizeof(kNotFoundBody) - 1);
}

static void Completed(void* cls, struct MHD_Connection* c, void** context,
                      enum MHD_RequestTerminationCode code) {
  (void)cls, (void)c, (void)code;
  free(*context);
  *context = NULL;
}

int main(int argc, char** argv) {
  int port = 0, threads = 0;
  ParseArgs(argc, argv, &port, &threads);
  struct sockaddr_in addr;
  memset(&addr, 0, sizeof(addr));
  addr.sin_family = AF_INET;
  addr.sin_port = htons((uint16_t)port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  struct MHD_Daemon* d = MHD_start_daemon(
      MHD_USE_EPOLL_INTERNAL_THREAD, (uint16_t)port, NULL, NULL, &Handle, NULL,
      MHD_OPTION_SOCK_ADDR, (struct sockaddr*)&addr, MHD_OPTION_THREAD_POOL_SIZE, (unsigned)threads,
      MHD_OPTION_NOTIFY_COMPLETED, &Completed, NULL, MHD_OPTION_END);
  if (d == NULL) {
    fprintf(stderr, "server_microhttpd: could not start on port %d\n", port);
    return 1;
  }
  for (;;) pause(); /* until killed */
}
