// DripLedger: cumulative (drip) detection (docs/policy.md, "Cumulative").
// Every message that quotes a protected document or table adds what it
// sent (DripSpan: the passages' token ranges in the document, the rows'
// keyed hashes) to the incident store's drip_spans, under its sender and
// its sender's domain, so that every node of a fleet and every channel
// (mail, web, scan of mail files) adds to one sum. Before a policy judges
// a message, the ledger sums, for each (per, days) its cumulative
// conditions use and each document or table the message quotes, the
// distinct text sent within the window with this message's: the same
// passage sent twice counts once. The store keeps token ranges and row
// hashes, never text. Spans older than the longest window of the policy
// (at least kMinKeepDays) are deleted as the ledger goes, and by
// `incidents purge`.
//
// Thread-safety: thread-safe; one store connection, opened on first use
// and again after an error, behind a mutex.
#ifndef LEAKHOUND_CLI_GATEWAY_DRIP_LEDGER_H_
#define LEAKHOUND_CLI_GATEWAY_DRIP_LEDGER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "cli/incidents/incident.h"
#include "cli/incidents/incident_store.h"
#include "cli/policy/policy.h"
#include "cli/policy/verdict_facts.h"

namespace leakhound {

inline constexpr uint32_t kMinKeepDays = 31;

// The (per, days) pairs of `policy`'s cumulative conditions, rules and
// exceptions, each once.
std::vector<std::pair<std::string, uint32_t>> CumulativeWindows(
    const Policy& policy);

// The sums of `own` (this message's spans, sender filled) with `earlier`
// (the store's, of the same sender or domain, within the widest window)
// for each window of `windows` and each target of `own`, at `now_ms`.
// Each sum's `earlier` lists the references of the other messages in it,
// oldest first (not `reference`, this message's).
std::vector<CumulativeFact> SumDrip(
    const std::vector<std::pair<std::string, uint32_t>>& windows,
    const std::vector<DripSpan>& earlier, const std::vector<DripSpan>& own,
    const std::string& reference, int64_t now_ms);

// The domain of `sender` (lower case): after its '@', or itself.
std::string SenderDomain(const std::string& sender);

class DripLedger {
 public:
  // `store`: the incident store's file or URI.
  explicit DripLedger(std::string store);

  // The sums `policy`'s cumulative conditions read for a message of
  // `sender` through `channel` whose spans are `spans` (verdict.h), at
  // `now_ms`; when `record`, the spans are then stored under `reference`.
  // Errors: the store's (the caller judges without sums).
  absl::StatusOr<std::vector<CumulativeFact>> Account(
      const Policy& policy, const std::string& sender,
      const std::string& channel, std::vector<DripSpan> spans,
      const std::string& reference, int64_t now_ms, bool record)
      ABSL_LOCKS_EXCLUDED(mu_);

  // The sums as they were when the recorded message `reference` of
  // `sender` was judged at `at_ms` (its spans and those before it), for
  // `policy replay`.
  absl::StatusOr<std::vector<CumulativeFact>> AsOf(
      const Policy& policy, const std::string& sender,
      const std::vector<std::string>& targets, const std::string& reference,
      int64_t at_ms) ABSL_LOCKS_EXCLUDED(mu_);

 private:
  // The spans of `sender`'s windows of `policy` on `targets` up to
  // `until_ms`. REQUIRES: mu_ held, store_ open.
  absl::StatusOr<std::vector<DripSpan>> Earlier(
      const std::vector<std::pair<std::string, uint32_t>>& windows,
      const std::string& sender, const std::vector<std::string>& targets,
      int64_t until_ms) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status OpenLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const std::string target_;
  absl::Mutex mu_;
  std::unique_ptr<IncidentStore> store_ ABSL_GUARDED_BY(mu_);
  int64_t last_expiry_ms_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_GATEWAY_DRIP_LEDGER_H_
