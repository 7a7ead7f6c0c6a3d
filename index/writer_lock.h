// WriterLock: the one-writer-at-a-time lock of an index directory. An
// exclusive flock(2) on DIR/lock, which holds the owner's pid for the error
// message a second writer gets. The kernel drops the lock when the process
// dies, even by SIGKILL, so a crashed writer never leaves the index locked.
//
// Thread-safety: a WriterLock is owned by one thread; the lock is held by
// the process until the object is destroyed.
#ifndef LEAKHOUND_INDEX_WRITER_LOCK_H_
#define LEAKHOUND_INDEX_WRITER_LOCK_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"

namespace leakhound {

class WriterLock {
 public:
  // Takes the lock without waiting. Returns Unavailable "index DIR is
  // locked by pid N" if another process holds it (try again later), or the
  // errno error.
  static absl::StatusOr<std::unique_ptr<WriterLock>> Acquire(
      const std::string& dir);

  ~WriterLock();
  WriterLock(const WriterLock&) = delete;
  WriterLock& operator=(const WriterLock&) = delete;

 private:
  explicit WriterLock(int fd) : fd_(fd) {}
  int fd_;
};

}  // namespace leakhound

#endif  // LEAKHOUND_INDEX_WRITER_LOCK_H_
