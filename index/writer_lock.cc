#include "index/writer_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace leakhound {

absl::StatusOr<std::unique_ptr<WriterLock>> WriterLock::Acquire(
    const std::string& dir) {
  const std::string path = dir + "/lock";
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) {
    return absl::ErrnoToStatus(errno, absl::StrCat("cannot open ", path));
  }
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    if (err != EWOULDBLOCK) {
      ::close(fd);
      return absl::ErrnoToStatus(err, absl::StrCat("cannot lock ", path));
    }
    char buf[32] = {};
    const ssize_t n = ::pread(fd, buf, sizeof(buf) - 1, 0);
    ::close(fd);
    long pid = 0;
    if (n > 0) std::from_chars(buf, buf + n, pid);
    return absl::UnavailableError(absl::StrCat(
        "index ", dir, " is locked by ",
        pid > 0 ? absl::StrCat("pid ", pid) : std::string("another process"),
        " (one writer at a time; wait for it to finish)"));
  }
  const std::string pid = std::to_string(::getpid());
  if (::ftruncate(fd, 0) != 0 ||
      ::pwrite(fd, pid.data(), pid.size(), 0) !=
          static_cast<ssize_t>(pid.size())) {
    const int err = errno;
    ::close(fd);
    return absl::ErrnoToStatus(err, absl::StrCat("cannot write ", path));
  }
  return std::unique_ptr<WriterLock>(new WriterLock(fd));
}

WriterLock::~WriterLock() { ::close(fd_); }

}  // namespace leakhound
