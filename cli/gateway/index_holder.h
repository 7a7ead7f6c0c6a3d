// IndexHolder: the protected index a long-running daemon scans against,
// kept open read-only (a RocksDB secondary instance: it never blocks the
// writer) and brought up to date with the admin's `leakhound add`,
// `remove` and `compact` without a restart.
//
// Scans take a Snapshot (a shared reference to one ProtectedIndex) and
// use it to the end, so a scan in flight during a reload completes
// against one consistent view. Reload catches a second, standby instance
// up with the writer (ProtectedIndex::Refresh needs exclusive access, so
// the instance scans use is never refreshed) and swaps it in; the
// instance it replaces becomes the standby once its last scan ends. Two
// instances of the filter are in memory at most.
//
// Thread-safety: Current and Reload may be called from any thread; Reload
// calls are serialized.
#ifndef LEAKHOUND_CLI_GATEWAY_INDEX_HOLDER_H_
#define LEAKHOUND_CLI_GATEWAY_INDEX_HOLDER_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "engine/protected_index.h"

namespace leakhound {

class IndexHolder {
 public:
  struct Snapshot {
    std::shared_ptr<const ProtectedIndex> index;
    uint64_t generation = 0;  // the index's (ProtectedIndex::generation)
    // Which instance: unique in the process (across holders too), new with
    // every swap. Equal serials mean the same live object; two instances
    // may share a generation.
    uint64_t serial = 0;
  };

  // Opens the index in `dir` for reading (two instances: the current and
  // the standby). Errors as ProtectedIndex::Open.
  static absl::StatusOr<std::unique_ptr<IndexHolder>> Open(
      const std::string& dir);

  Snapshot Current() const;

  // Catches up with the writer; returns whether a newer generation was
  // swapped in. On error the current instance stays in use.
  absl::StatusOr<bool> Reload();

 private:
  IndexHolder(std::string dir, std::shared_ptr<ProtectedIndex> index);

  const std::string dir_;
  mutable absl::Mutex mu_;
  std::shared_ptr<ProtectedIndex> current_ ABSL_GUARDED_BY(mu_);
  uint64_t serial_ ABSL_GUARDED_BY(mu_);
  // Serializes Reload, which writes current_ under both mutexes.
  absl::Mutex reload_mu_ ABSL_ACQUIRED_BEFORE(mu_);
  // Never handed to scans.
  std::shared_ptr<ProtectedIndex> standby_ ABSL_GUARDED_BY(reload_mu_);
  // Swapped out, maybe still in use by a scan.
  std::shared_ptr<ProtectedIndex> retired_ ABSL_GUARDED_BY(reload_mu_);
};

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_GATEWAY_INDEX_HOLDER_H_
