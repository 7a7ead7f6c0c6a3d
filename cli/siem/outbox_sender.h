// OutboxSender: delivers one destination's events from the incident
// store's outbox (docs/siem.md), in the order they were queued, at least
// once:
//   - it registers the destination in the store and takes its lease, so
//     that of several processes sharing the store (the milter, the ICAP
//     service, `leakhound incidents forward`) one sends at a time; a lease
//     lapses LeaseSeconds after its holder stops renewing it, at once when
//     the holder was a process of this host that is gone;
//   - an event is formatted (CEF or LEEF over syslog, or a signed webhook),
//     sent, and the destination's cursor moved past it in the store before
//     the next one: a sender killed between sending and moving sends that
//     one event again (a receiver drops repeats by the event's id);
//   - a failure to reach the receiver is retried with the pause doubling
//     from 0.5 s to max_retry_seconds, the event kept at the head; a
//     permanent refusal (a webhook's 4xx other than 408 and 429, a message
//     too long for UDP) is logged, counted, and the next event goes;
//   - every PruneSeconds it deletes what every destination is done with
//     and enforces the outbox's age and size bounds (what it drops unsent
//     is counted per destination and logged).
// Events a destination does not take (its severities, channels, events)
// move its cursor as `skipped`.
//
// Thread-safety: Start, Stop and counters() may be called from any
// thread; Step only from one thread, and not while started.
#ifndef LEAKHOUND_CLI_SIEM_OUTBOX_SENDER_H_
#define LEAKHOUND_CLI_SIEM_OUTBOX_SENDER_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "cli/incidents/incident_store.h"
#include "cli/policy/policy.h"
#include "cli/siem/event_formats.h"

namespace leakhound {

class SyslogClient;
class WebhookClient;

// Whether `destination` takes `event` (its severities, channels, events).
bool DestinationWants(const DestinationSettings& destination,
                      const OutboxEvent& event);

// The owner name of this process's leases: "HOST pid=PID".
std::string LeaseOwnerName();

class OutboxSender {
 public:
  struct Options {
    std::string store;  // the incident store's path
    DestinationSettings destination;
    OutboxSettings outbox;
    std::string console_url;  // when outbox.console_url is empty
    std::string owner = LeaseOwnerName();
    double lease_seconds = 30;
    double poll_seconds = 0.2;  // how often an idle sender looks again
    double prune_seconds = 60;
    size_t batch = 256;  // events read at a time
  };
  using Log = std::function<void(const std::string& line)>;

  // REQUIRES: `log` is thread-safe and outlives the sender.
  OutboxSender(Options options, Log log);
  ~OutboxSender();  // Stop()
  OutboxSender(const OutboxSender&) = delete;
  OutboxSender& operator=(const OutboxSender&) = delete;

  const Options& options() const { return options_; }

  // What one Step did, and how long to wait before the next.
  enum class Outcome {
    kIdle,      // nothing left to send
    kProgress,  // sent (or skipped, or failed for good) some events
    kBlocked,   // the receiver failed, or the store, or another holds the
                // lease: wait `pause`
  };
  struct StepResult {
    Outcome outcome = Outcome::kIdle;
    std::chrono::milliseconds pause{0};
  };
  // One round: opens the store and registers the destination if needed,
  // takes the lease, prunes when due, and sends up to a batch of events.
  StepResult Step() ABSL_LOCKS_EXCLUDED(mu_);

  // Runs Step on a thread of its own until Stop.
  void Start();
  // Stops the thread (a send under way finishes, within the destination's
  // timeout) and gives the lease up. Idempotent.
  void Stop();

  // The destination's state as the store had it at most a second ago (at
  // a round's end), with whether this sender holds the lease.
  struct Snapshot {
    OutboxDestinationState state;
    bool holding = false;
  };
  Snapshot snapshot() const ABSL_LOCKS_EXCLUDED(mu_);

 private:
  absl::Status Open();
  bool HoldLease();
  // Sends one event (with its incident's snippets when the destination
  // takes them): OK, Unavailable-like (retry) or FailedPrecondition.
  absl::Status Deliver(const OutboxEvent& event);
  absl::Status Send(const OutboxEvent& event);
  StepResult SendBatch();
  StepResult Retry(const absl::Status& why);
  void Prune();
  // Reads the destination's state into snapshot_; `busy`: unless it was
  // read in the last second.
  void Refresh(bool busy) ABSL_LOCKS_EXCLUDED(mu_);
  void Run();
  bool Stopping() const ABSL_LOCKS_EXCLUDED(mu_);
  void LogLimited(const std::string& line);

  const Options options_;
  const Log log_;
  const EventFormatOptions format_;
  std::unique_ptr<IncidentStore> store_;
  std::unique_ptr<SyslogClient> syslog_;
  std::unique_ptr<WebhookClient> webhook_;
  std::string key_;  // a webhook's HMAC key
  bool registered_ = false;
  bool holding_ = false;
  std::chrono::steady_clock::time_point lease_renewed_;
  std::chrono::steady_clock::time_point pruned_;
  std::chrono::steady_clock::time_point logged_;
  std::chrono::steady_clock::time_point refreshed_;
  std::chrono::milliseconds retry_{0};
  uint64_t unlogged_ = 0;

  mutable absl::Mutex mu_;
  absl::CondVar wake_;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  Snapshot snapshot_ ABSL_GUARDED_BY(mu_);
  std::thread thread_;
};

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_SIEM_OUTBOX_SENDER_H_
