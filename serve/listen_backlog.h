// WidenListenBacklog: gives the process's listening TCP socket on a port a
// backlog of SOMAXCONN. Header-only, so the HTTP library comparison
// (bench/serve/http_libs/, a CMake project of its own) runs cpp-httplib
// exactly as tfn-serve does. Linux only (/proc/self/fd); elsewhere a no-op
// when /proc is missing. Thread-safe; call it after binding, before serving.
#pragma once

#include <dirent.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cstdlib>

namespace tfn::serve {

// cpp-httplib 0.11 listens with a backlog of 5, compiled into Debian's
// library: 64 clients connecting at once had about half their connections
// reset (bench/RESULTS.md, "tfn-serve"). Linux lets listen() be called again
// on a listening socket to change its backlog; the socket is this process's
// listening TCP socket bound to `port`.
inline void WidenListenBacklog(int port) {
  DIR* fds = ::opendir("/proc/self/fd");
  if (fds == nullptr) return;
  while (dirent* e = ::readdir(fds)) {
    const int fd = std::atoi(e->d_name);
    int listening = 0;
    socklen_t len = sizeof listening;
    if (fd <= 2 || ::getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &len) != 0 ||
        !listening) {
      continue;
    }
    sockaddr_storage addr;
    socklen_t addr_len = sizeof addr;
    if (::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &addr_len) != 0) continue;
    int bound = -1;
    if (addr.ss_family == AF_INET) bound = ntohs(reinterpret_cast<sockaddr_in*>(&addr)->sin_port);
    if (addr.ss_family == AF_INET6) {
      bound = ntohs(reinterpret_cast<sockaddr_in6*>(&addr)->sin6_port);
    }
    if (bound == port) ::listen(fd, SOMAXCONN);
  }
  ::closedir(fds);
}

}  // namespace tfn::serve
