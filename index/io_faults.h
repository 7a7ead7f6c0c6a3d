// IoFaults: I/O errors injected under an index's RocksDB database, for
// fault-injection tests. An IndexStore opened with one routes every file
// operation of its database through a file system that asks it, before
// each operation, whether to fail it; a failed operation is not performed
// and returns an I/O error, as a failing disk would. Counting starts when
// the plan is armed: "fail the n-th write", "and every one after it".
// Files outside the database (the key, the writer lock) are not covered.
//
// Thread-safety: thread-safe; RocksDB's background threads (flushes,
// compactions) ask it too.
#ifndef LEAKHOUND_INDEX_IO_FAULTS_H_
#define LEAKHOUND_INDEX_IO_FAULTS_H_

#include <array>
#include <atomic>
#include <cstdint>

namespace leakhound {

// What an I/O operation does. A bit mask of them selects what a plan fails.
enum class IoKind : uint8_t {
  kWrite = 0,     // append to a file, truncate, preallocate
  kSync = 1,      // flush, sync, fsync, close of a written file
  kRead = 2,      // read from a file
  kMetadata = 3,  // create, rename, delete, link a file or directory
};
inline constexpr uint32_t IoMask(IoKind kind) {
  return 1u << static_cast<uint32_t>(kind);
}

class IoFaults {
 public:
  // Starts counting the operations of `kinds` (a mask of IoMask values)
  // from zero and fails the `nth` of them (1-based), and with `sticky`
  // every one after it too (a dead disk rather than one bad write).
  // REQUIRES: nth >= 1.
  void Arm(uint32_t kinds, uint64_t nth, bool sticky);
  // Fails nothing more; counts stay readable.
  void Disarm() { armed_.store(false); }

  // Called for every operation: whether to fail it (and count it).
  bool ShouldFail(IoKind kind);

  // Operations of `kind` seen since Arm, and operations failed since Arm.
  uint64_t seen(IoKind kind) const {
    return seen_[static_cast<size_t>(kind)].load();
  }
  uint64_t injected() const { return injected_.load(); }

 private:
  std::atomic<bool> armed_{false};
  std::atomic<uint32_t> kinds_{0};
  std::atomic<uint64_t> nth_{0};
  std::atomic<bool> sticky_{false};
  std::atomic<uint64_t> counted_{0};  // operations of kinds_ since Arm
  std::atomic<uint64_t> injected_{0};
  std::array<std::atomic<uint64_t>, 4> seen_{};
};

}  // namespace leakhound

#endif  // LEAKHOUND_INDEX_IO_FAULTS_H_
