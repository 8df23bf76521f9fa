// POSIX implementation of file mapping and reading.
#include "runtime/mapped_file.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>

#include "core/attrs.h"

namespace tfn::runtime {
namespace {

Status OpenError(const std::string& path, int err) {
  std::string hint = err == ENOENT ? " (check the path)" : err == EACCES ? " (check permissions)" : "";
  return IoError("cannot open '" + path + "': " + std::strerror(err) + hint);
}

struct Mapping : MappedFile {
  std::shared_ptr<void> heap;  // ReadFile's buffer
  bool mapped = false;
  ~Mapping() {
    if (mapped && size > 0) munmap(const_cast<void*>(data), size);
  }
};

}  // namespace

Result<std::shared_ptr<const MappedFile>> MapFile(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return OpenError(path, errno);
  struct stat st;
  if (fstat(fd, &st) != 0) {
    int err = errno;
    close(fd);
    return OpenError(path, err);
  }
  if (!S_ISREG(st.st_mode)) {
    close(fd);
    return InvalidArgument("'" + path + "' is not a regular file");
  }
  auto m = std::make_shared<Mapping>();
  m->size = static_cast<uint64_t>(st.st_size);
  if (m->size > 0) {
    void* p = mmap(nullptr, m->size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
      int err = errno;
      close(fd);
      return IoError("cannot map '" + path + "': " + std::strerror(err));
    }
    m->data = p;
    m->mapped = true;
  }
  close(fd);
  return std::shared_ptr<const MappedFile>(std::move(m));
}

Result<std::shared_ptr<const MappedFile>> ReadFile(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return OpenError(path, errno);
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return InvalidArgument("'" + path + "' is not a readable regular file");
  }
  auto m = std::make_shared<Mapping>();
  m->size = static_cast<uint64_t>(st.st_size);
  m->heap = AllocateAligned(m->size);
  if (!m->heap) {
    close(fd);
    return ResourceExhausted("out of memory reading '" + path + "'");
  }
  uint64_t done = 0;
  while (done < m->size) {
    ssize_t n = read(fd, static_cast<char*>(m->heap.get()) + done, m->size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      close(fd);
      return IoError("cannot read '" + path + "'");
    }
    done += static_cast<uint64_t>(n);
  }
  close(fd);
  m->data = m->heap.get();
  return std::shared_ptr<const MappedFile>(std::move(m));
}

}  // namespace tfn::runtime
