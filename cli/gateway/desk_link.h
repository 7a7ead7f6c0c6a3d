// DeskLink: a gateway's link to the fleet's desk (docs/fleet.md). A thread
// that, every interval, reports the node's state (IncidentStore::Heartbeat:
// its index generation, policy digest, spool depth...) and carries out the
// held-mail requests addressed to it (postsuper on its own queue, held_mail
// .h), recording each result. A result the desk cannot take yet is kept
// and recorded on a later round, never carried out twice: a request ends
// done or failed, never both. The desk being down only delays this work;
// nothing of it is on a verdict's path.
//
// Thread-safety: counters() and Stop() may be called from any thread.
#ifndef LEAKHOUND_CLI_GATEWAY_DESK_LINK_H_
#define LEAKHOUND_CLI_GATEWAY_DESK_LINK_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "cli/incidents/fleet_status.h"
#include "cli/incidents/held_mail.h"
#include "cli/incidents/incident_store.h"

namespace leakhound {

class DeskLink {
 public:
  struct Options {
    std::string store;  // the incident store: a file or a URI
    std::string node;   // this gateway's name in the fleet
    double interval_seconds = 10;
    // Carry out held-mail requests (a milter with Postfix beside it).
    bool mail_requests = false;
    HeldMailOptions held_mail;
    FleetThresholds thresholds;  // for Counters::behind
  };
  struct Counters {
    uint64_t heartbeats = 0;
    uint64_t failures = 0;          // rounds the desk could not be reached
    uint64_t mail_done = 0;         // requests carried out
    uint64_t mail_failed = 0;       // requests Postfix refused
    int64_t last_heartbeat_ms = 0;  // 0: none yet
    // How the desk judged this node on the last round (fleet_status.h).
    int64_t writer_generation = 0;
    bool behind = false;
    bool other_policy = false;
  };
  using StateFn = std::function<NodeState()>;
  using Log = std::function<void(const std::string& line)>;

  // Starts the thread; the first round runs at once. `state` and `log`
  // are called from it.
  DeskLink(Options options, StateFn state, Log log);
  ~DeskLink();  // Stop()
  DeskLink(const DeskLink&) = delete;
  DeskLink& operator=(const DeskLink&) = delete;

  // Ends the thread, cancelling the statement it runs (a slow desk must
  // not hold a gateway's stop; a result not yet recorded is lost and its
  // request stays running). Idempotent.
  void Stop();
  Counters counters() const;

 private:
  struct Result {
    int64_t id = 0;
    bool done = false;
    std::string detail;
  };
  void Run() ABSL_LOCKS_EXCLUDED(mu_);
  // One round: heartbeat, unrecorded results, new requests.
  absl::Status Round(std::unique_ptr<IncidentStore>& store);
  absl::Status RunRequests(IncidentStore& store);
  // Reads how the desk sees this node now into the counters.
  absl::Status Assess(IncidentStore& store, const NodeState& self);
  // Records the results kept from earlier rounds; stops at the first
  // failure (the rest wait).
  absl::Status RecordResults(IncidentStore& store);

  const Options options_;
  const StateFn state_;
  const Log log_;
  std::vector<Result> unrecorded_;  // the thread's only
  mutable absl::Mutex mu_;
  absl::CondVar cv_;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  bool finished_ ABSL_GUARDED_BY(mu_) = false;
  // The thread's store while it is open, for Stop to interrupt.
  absl::Mutex live_mu_ ABSL_ACQUIRED_AFTER(mu_);
  IncidentStore* live_ ABSL_GUARDED_BY(live_mu_) = nullptr;
  Counters counters_ ABSL_GUARDED_BY(mu_);
  std::thread thread_;
};

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_GATEWAY_DESK_LINK_H_
