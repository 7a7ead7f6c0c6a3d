// IncidentSpool: a gateway's durable local spool of incident batches, for
// while the incident store cannot take them (the desk's PostgreSQL is
// down, a SQLite file is locked or full). One folder, one file per batch
// (PERSISTED, docs/storage_format.md, "The incident spool"):
//   PARENT/<slot>/ = DIR                    one per process (OpenSlot)
//   DIR/LOCK                                one process at a time (flock)
//   DIR/<seq, 20 digits>-<count>-<oldest time_ms>.batch  incident_codec.h
// A batch is written to a temporary file, synced, renamed and the folder
// synced: after a crash (kill -9, power loss) a batch is there whole or
// not at all. Batches are read back oldest first; each incident's uid
// makes a batch stored twice (a crash between the store's commit and the
// file's removal) count once.
//
// Thread-safety: not thread-safe; one owner (IncidentWriter's thread).
#ifndef LEAKHOUND_CLI_INCIDENTS_INCIDENT_SPOOL_H_
#define LEAKHOUND_CLI_INCIDENTS_INCIDENT_SPOOL_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "cli/incidents/incident.h"

namespace leakhound {

class IncidentSpool {
 public:
  struct Batch {
    uint64_t seq = 0;
    std::vector<Incident> incidents;
  };

  // Opens (creating, owner-only) the spool folder `dir` and takes its lock:
  // FailedPrecondition when another process holds it. Leftover temporary
  // files are removed. At most `max_incidents` are kept.
  static absl::StatusOr<std::unique_ptr<IncidentSpool>> Open(
      const std::string& dir, uint64_t max_incidents);
  // The first of the spools DIR/0 ... DIR/<kSlots - 1> that no other
  // process holds (creating `parent` owner-only): a gateway of several
  // processes (c-icap's children) has one each, and a process started
  // after a crash takes over a dead one's spool. FailedPrecondition when
  // every slot is held.
  static absl::StatusOr<std::unique_ptr<IncidentSpool>> OpenSlot(
      const std::string& parent, uint64_t max_incidents);
  static constexpr int kSlots = 64;
  ~IncidentSpool();
  IncidentSpool(const IncidentSpool&) = delete;
  IncidentSpool& operator=(const IncidentSpool&) = delete;

  // Adds `incidents` (non-empty) as the newest batch, durably.
  // ResourceExhausted when the spool would hold more than its bound;
  // disk errors as Internal or ResourceExhausted (ENOSPC).
  absl::Status Put(std::span<const Incident> incidents);
  // The oldest batch, or none. A file that cannot be read as a batch is
  // moved to DIR/damaged/ and DataLoss returned (the next call goes on).
  absl::StatusOr<std::optional<Batch>> Oldest();
  // Removes batch `seq` (stored), durably.
  absl::Status Remove(uint64_t seq);

  // Incidents spooled, and the time_ms of the oldest (0: none).
  uint64_t depth() const { return depth_; }
  int64_t oldest_ms() const;
  const std::string& dir() const { return dir_; }

 private:
  struct Entry {
    std::string file;
    uint64_t count = 0;
    int64_t oldest_ms = 0;
  };
  IncidentSpool(std::string dir, int lock_fd, uint64_t max_incidents)
      : dir_(std::move(dir)), lock_fd_(lock_fd), max_(max_incidents) {}
  absl::Status Scan();
  absl::Status SyncDir() const;

  const std::string dir_;
  const int lock_fd_;
  const uint64_t max_;
  std::map<uint64_t, Entry> batches_;
  uint64_t depth_ = 0;
  uint64_t next_seq_ = 1;
};

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_INCIDENTS_INCIDENT_SPOOL_H_
