// Implementation of WriteFileAtomically with POSIX calls.
#include "core/atomic_file.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <vector>

namespace tfn {
namespace {

Status Errno(const std::string& what, const std::string& path, int err) {
  std::string hint = err == ENOSPC || err == EFBIG || err == EDQUOT
                         ? " (the disk is full or the file size limit was reached; free space and retry)"
                         : err == EACCES || err == EPERM ? " (check the folder's permissions)"
                         : err == ENOENT ? " (does the folder exist?)"
                                         : "";
  return IoError(what + " '" + path + "': " + std::strerror(err) + hint);
}

}  // namespace

Status WriteFileAtomically(const std::string& path, std::string_view bytes) {
  std::string tmpl = path + ".tmp.XXXXXX";
  std::vector<char> name(tmpl.begin(), tmpl.end());
  name.push_back('\0');
  int fd = mkstemp(name.data());
  if (fd < 0) return Errno("cannot create a temporary file beside", path, errno);
  std::string tmp(name.data());
  // A file-size limit raises SIGXFSZ; treat it like any failed write instead.
  struct sigaction ignore {}, old {};
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGXFSZ, &ignore, &old);
  auto fail = [&](const std::string& what, int err) {
    close(fd);
    unlink(tmp.c_str());
    sigaction(SIGXFSZ, &old, nullptr);
    return Errno(what, path, err);
  };
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return fail("cannot write", n < 0 ? errno : ENOSPC);
    done += static_cast<size_t>(n);
  }
  if (fsync(fd) != 0) return fail("cannot flush", errno);
  if (fchmod(fd, 0644) != 0) return fail("cannot set permissions of", errno);
  if (close(fd) != 0) {
    int err = errno;
    unlink(tmp.c_str());
    sigaction(SIGXFSZ, &old, nullptr);
    return Errno("cannot close", path, err);
  }
  sigaction(SIGXFSZ, &old, nullptr);
  if (rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    unlink(tmp.c_str());
    return Errno("cannot replace", path, err);
  }
  return Status::Ok();
}

}  // namespace tfn
