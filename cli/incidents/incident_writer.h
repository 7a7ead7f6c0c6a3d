// IncidentWriter: records incidents without ever holding up the caller
// (the milter's verdict): Submit gives the incident a uid, queues it in a
// bounded in-memory queue and returns; one writer thread stores the queue
// in batched transactions. When the store is locked, unreachable, full or
// broken, the batch is retried with a growing pause (the store is
// reopened after an error that is not a lock):
//  - with a spool folder (Options::spool_dir, incident_spool.h), the batch
//    and everything queued behind it go to disk, durably, and are stored
//    oldest first once the store takes them again, each once (the uid);
//    what is queued at Stop goes there too. A process killed loses only
//    what it queued in the last moments before the writer thread spooled
//    it (a failing store: milliseconds).
//  - without one, the batch stays in memory; a killed process loses it.
// A full queue (or spool) drops the new incident; every drop is counted
// and logged (at most one line per kDropLogSeconds).
//
// Thread-safety: Submit, counters and Stop may be called from any thread.
#ifndef LEAKHOUND_CLI_INCIDENTS_INCIDENT_WRITER_H_
#define LEAKHOUND_CLI_INCIDENTS_INCIDENT_WRITER_H_

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "cli/incidents/incident.h"
#include "cli/incidents/incident_spool.h"
#include "cli/incidents/incident_store.h"

namespace leakhound {

class IncidentWriter {
 public:
  struct Options {
    size_t spool_capacity = 10'000;  // incidents waiting, at most
    size_t batch = 256;              // incidents per transaction, at most
    int busy_timeout_ms = 200;       // a locked store: retried after this
    int min_retry_ms = 100;          // pause after a failed write, doubling
    int max_retry_ms = 5000;
    std::string spool_dir;  // "": no durable spool
    uint64_t spool_max_incidents = 1'000'000;
  };
  struct Counters {
    uint64_t submitted = 0;
    uint64_t written = 0;
    uint64_t dropped = 0;        // spool full, or left at Stop
    uint64_t failed_writes = 0;  // transactions that failed and were retried
    size_t spooled = 0;          // waiting in memory now
    uint64_t disk_spooled = 0;   // waiting in the spool folder now
    int64_t oldest_spooled_ms = 0;  // the oldest there (0: none)
    bool spool_ok = true;           // the spool folder is in use
  };
  using Log = std::function<void(const std::string& line)>;

  // Starts the writer thread; the store at `path` is opened (created) by
  // it, and a failure to open is retried like a failed write. `log` is
  // called from the writer thread and from Submit; it must be thread-safe.
  IncidentWriter(std::string path, const Options& options, Log log);
  ~IncidentWriter();  // Stop(5)

  IncidentWriter(const IncidentWriter&) = delete;
  IncidentWriter& operator=(const IncidentWriter&) = delete;

  // Queues `incident`. Never waits for the store.
  void Submit(Incident incident);

  // Waits up to `seconds` for the queue to be written, then stops the
  // thread, cancelling a statement still running on the store; what is
  // still queued goes to the spool folder, or without one is counted as
  // dropped and logged. Idempotent.
  void Stop(double seconds);

  Counters counters() const;

  static constexpr int kDropLogSeconds = 10;

 private:
  // The writer thread: batches from the spool to the store until Stop.
  void Run() ABSL_LOCKS_EXCLUDED(mu_);
  // Waits for records (not `failing`), or for `next_try` after a failure
  // (cut short by Stop only at its deadline, and with a spool folder by a
  // record queued, which then goes to disk without waiting).
  void WaitForWork(bool failing, std::chrono::steady_clock::time_point next_try)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // One round of the writer thread: the spool's oldest batch, or else a
  // batch from the queue; after a failure the queue goes to the spool.
  // Returns the store's status.
  absl::Status Round(std::unique_ptr<IncidentStore>& store)
      ABSL_LOCKS_EXCLUDED(mu_);
  absl::Status RoundFromSpool(std::unique_ptr<IncidentStore>& store)
      ABSL_LOCKS_EXCLUDED(mu_);
  // Moves the queue to the spool folder; what the spool refuses stays.
  void SpoolQueue() ABSL_LOCKS_EXCLUDED(mu_);
  // Opens the spool folder of Options::spool_dir, if any (the writer
  // thread's first step).
  void OpenSpool() ABSL_LOCKS_EXCLUDED(mu_);
  // Copies the spool's depth and age into the counters.
  void NoteSpool() ABSL_LOCKS_EXCLUDED(mu_);
  // Nothing queued nor spooled.
  bool Idle() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return spool_.empty() && counters_.disk_spooled == 0;
  }
  // Writes `batch`, opening `store` first when it is not open.
  absl::Status Write(std::unique_ptr<IncidentStore>& store,
                     std::vector<Incident>& batch) ABSL_LOCKS_EXCLUDED(mu_);
  // A batch that failed goes back to the spool's front, what fits of it.
  void Requeue(std::vector<Incident> batch) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // At the end of Run: drops and logs what is left.
  void LogStop() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void NoteDrops(uint64_t n) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const std::string path_;
  const Options options_;
  const Log log_;
  mutable absl::Mutex mu_;
  absl::CondVar cv_;
  std::deque<Incident> spool_ ABSL_GUARDED_BY(mu_);  // the memory queue
  // The spool folder: the writer thread's only (null: none, or it could
  // not be opened).
  std::unique_ptr<IncidentSpool> disk_;
  // The spool folder refused a batch (full, a disk error): not tried
  // again before the next try of the store. The writer thread's only.
  bool disk_blocked_ = false;
  Counters counters_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::chrono::steady_clock::time_point stop_deadline_ ABSL_GUARDED_BY(mu_);
  std::chrono::steady_clock::time_point last_drop_log_ ABSL_GUARDED_BY(mu_);
  uint64_t unlogged_drops_ ABSL_GUARDED_BY(mu_) = 0;
  bool finished_ ABSL_GUARDED_BY(mu_) = false;  // Run has returned
  // The store while a batch is written to it, for Stop to interrupt.
  absl::Mutex live_mu_ ABSL_ACQUIRED_AFTER(mu_);
  IncidentStore* live_ ABSL_GUARDED_BY(live_mu_) = nullptr;
  std::thread thread_;
};

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_INCIDENTS_INCIDENT_WRITER_H_
