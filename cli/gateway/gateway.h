// Gateway: the core every channel (the milter today, a web channel next)
// runs messages through. It owns the index kept open and reloaded
// (index_holder.h), the duplicate cache (duplicate_cache.h), the scanner
// that judges a message (message_verdict.h), the incident writer that
// records what the scanner caught (cli/incidents/incident_writer.h) and
// the metrics' gauges, and the policy in force (cli/policy/policy_source.h)
// that decides what happens to a catch. A channel adapts its protocol to
// Scan, evaluates the policy on the verdict's facts and carries out the
// decision. docs/architecture.md has the path of a message.
//
// Thread-safety: scanner(), Current(), policy(), Record(), gauges() and
// Reload() may
// be called from any thread. StartIncidents and Stop: from the thread
// that opened the gateway, before and after the channel serves.
#ifndef LEAKHOUND_CLI_GATEWAY_GATEWAY_H_
#define LEAKHOUND_CLI_GATEWAY_GATEWAY_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "cli/formats/text_extractor.h"
#include "cli/gateway/daemon_log.h"
#include "cli/gateway/decision.h"
#include "cli/gateway/desk_link.h"
#include "cli/gateway/drip_ledger.h"
#include "cli/gateway/duplicate_cache.h"
#include "cli/gateway/index_holder.h"
#include "cli/gateway/message_verdict.h"
#include "cli/gateway/metrics_server.h"
#include "cli/gateway/milter_metrics.h"
#include "cli/gateway/notifier.h"
#include "cli/incidents/held_mail.h"
#include "cli/incidents/incident.h"
#include "cli/incidents/incident_writer.h"
#include "cli/policy/policy.h"
#include "cli/policy/policy_source.h"
#include "cli/siem/outbox_sender.h"
#include "engine/scan/leak_scanner.h"

namespace leakhound {

// Receives an incident for every message that leaked, could not be
// judged, or had unread parts (not for clean or allow-listed ones), on
// the session's thread after the peer has its answer. Must be
// thread-safe and must not block (IncidentWriter::Submit).
using IncidentSink = std::function<void(Incident incident)>;

struct GatewayOptions {
  std::string index_dir;
  ScanOptions scan;
  ExtractionLimits limits;
  // Messages the duplicate cache remembers; 0: no cache.
  uint32_t duplicate_window = 10000;
  // The incident store; nullopt: nothing recorded.
  std::optional<std::string> incidents;
  // Keep the outbound text around each passage (else offsets only).
  bool store_snippets = true;
  // Incident records waiting in memory for the store, at most.
  uint64_t incident_spool = 10000;
  // The durable spool folder for what the store cannot take yet
  // (incident_spool.h); "": INDEX.incident-spool beside the index; "off":
  // none (unstored incidents are held in memory only).
  std::string incident_spool_dir;
  // The policy file (docs/policy.md); empty: `builtin_policy`, the
  // channel's flags as a policy; "desk" (kDeskPolicy): the policy
  // published to the fleet's desk, the incident store (docs/fleet.md).
  std::string policy_file;
  // This gateway in the fleet (docs/fleet.md): its name (""= the host's
  // name), its role ("milter", "icap"), how often it reports to the desk
  // (0: never), and whether it carries out held-mail requests, with
  // Postfix's configuration.
  std::string node_name;
  std::string node_role = "milter";
  double desk_seconds = 10;
  bool mail_requests = false;
  HeldMailOptions held_mail;
  Policy builtin_policy;
  // The notices (notifier.h): sendmail's command; empty: no notices.
  std::vector<std::string> sendmail;
  std::string console_url;  // for the reviewers' links
  double digest_seconds = 60;
};

class Gateway {
 public:
  // Opens the index for reading, reads the policy and builds the
  // duplicate cache and the scanner. Errors: the index's (IndexHolder::
  // Open), the policy file's (FILE:LINE), InvalidArgument for a cache
  // window out of range.
  // REQUIRES: `log` outlives the gateway.
  static absl::StatusOr<std::unique_ptr<Gateway>> Open(
      const GatewayOptions& options, const DaemonLog* log);
  Gateway(const Gateway&) = delete;
  Gateway& operator=(const Gateway&) = delete;
  ~Gateway() = default;  // the writer stops (IncidentWriter), unlogged

  const GatewayOptions& options() const { return options_; }
  const MessageScanner& scanner() const { return *scanner_; }
  IndexHolder::Snapshot Current() const { return holder_->Current(); }
  // The policy in force, its directory groups filled in; the caller's
  // reference keeps it valid.
  std::shared_ptr<const Policy> policy() const ABSL_LOCKS_EXCLUDED(policy_mu_);
  // Where notices go; null without options().sendmail.
  Notifier* notifier() const { return notifier_.get(); }

  // Starts the incident writer when options().incidents names a store
  // (a store that cannot be opened yet is logged and retried, never
  // fatal) and logs where incidents go; and the outbox's senders, one per
  // destination of the policy (restarted when a reload changes them).
  void StartIncidents();
  // The facts the policy reads of `v` sent as `envelope` (FactsOf), with
  // the drip ledger's sums for `policy`'s cumulative conditions (docs/
  // policy.md, "Cumulative"), also kept in v->cumulative for the
  // incident; the message's spans are recorded under `reference` (a
  // leak's incident). Without a store, or when the ledger fails (logged),
  // there are no sums.
  VerdictFacts Facts(const Policy& policy, const Envelope& envelope,
                     const std::string& reference, MessageVerdict* v) const;

  // The sink a channel hands its incidents to: empty without a store.
  // REQUIRES: StartIncidents was called; the gateway outlives the sink.
  IncidentSink Recorder();

  // Catches up with the index writer and re-reads the policy file; logs a
  // new generation or policy, or a failure (what is in use stays in use:
  // a broken policy file is logged with its FILE:LINE and counted),
  // naming `why` ("SIGHUP", "timer").
  void Reload(const char* why);
  // Logs the policy in force (its file and number of rules).
  void LogPolicy() const;

  // The metrics' gauges as of now.
  MilterMetrics::Gauges gauges() const;
  // What this gateway reports to the desk (DeskLink's heartbeat).
  NodeState NodeReport() const;
  // This gateway's name in the fleet.
  const std::string& node() const { return node_; }
  // Serves `metrics` with the gauges at http://ADDRESS/metrics and logs
  // it. Errors as MetricsServer::Start.
  // REQUIRES: `metrics` outlives the returned server, and the gateway too.
  absl::StatusOr<std::unique_ptr<MetricsServer>> StartMetrics(
      const std::string& address, const MilterMetrics* metrics);

  // Stops the incident writer (the spool gets 5 s to drain) and the
  // notifier (queued notices and digests are sent), and logs the
  // duplicate cache's, the incidents' and the notices' totals. Idempotent.
  void Stop();

 private:
  Gateway(const GatewayOptions& options, const DaemonLog* log);
  void ReloadPolicy(const char* why);
  // Starts a sender per destination of the policy in force unless those
  // running were made from the same settings (then nothing changes).
  void StartOutbox() ABSL_LOCKS_EXCLUDED(outbox_mu_);
  // Fills the policy's directory groups from the directory when the
  // policy changed, or its members are older than cache_seconds.
  void RefreshDirectoryGroups() ABSL_LOCKS_EXCLUDED(policy_mu_);

  const GatewayOptions options_;
  const DaemonLog* log_;
  std::unique_ptr<IndexHolder> holder_;
  std::unique_ptr<PolicySource> policy_;
  mutable absl::Mutex policy_mu_;
  // policy_'s current policy with its directory groups filled in, and
  // which one it was made from, when.
  std::shared_ptr<const Policy> expanded_ ABSL_GUARDED_BY(policy_mu_);
  std::shared_ptr<const Policy> expanded_from_ ABSL_GUARDED_BY(policy_mu_);
  std::chrono::steady_clock::time_point expanded_at_
      ABSL_GUARDED_BY(policy_mu_);
  std::atomic<uint64_t> directory_failures_{0};
  std::unique_ptr<DuplicateCache> cache_;  // null: no cache
  std::unique_ptr<MessageScanner> scanner_;
  std::unique_ptr<IncidentWriter> writer_;  // null: no store
  std::unique_ptr<DeskLink> desk_;          // null: no store, or never
  std::unique_ptr<DripLedger> drip_;        // null: no store
  std::string host_;                        // LocalHostName()
  std::string node_;                        // this gateway's name
  int64_t started_ms_ = 0;
  std::unique_ptr<Notifier> notifier_;      // null: no notices
  mutable absl::Mutex outbox_mu_;
  std::vector<std::unique_ptr<OutboxSender>> senders_
      ABSL_GUARDED_BY(outbox_mu_);
  std::atomic<int64_t> last_reload_ns_;     // steady_clock
  bool stopped_ = false;
};

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_GATEWAY_GATEWAY_H_
