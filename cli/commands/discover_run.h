// DiscoverRun: one run of `leakhound discover` over one target (docs/
// discover.md): walks its paths, reads only what changed since the
// catalogue last saw it (crawl_plan.h), judges each file read by the
// policy on the "discover" channel, records each new finding as an
// incident of source "discover" with the file's owner, mode and exposure,
// remediates it as the rules say, closes the findings whose file went or
// no longer quotes protected content, and finishes a quarantine a kill
// interrupted.
//
// Thread-safety: one run per target at a time (the caller's); a run uses
// `threads` workers of its own for the reading.
#ifndef LEAKHOUND_CLI_COMMANDS_DISCOVER_RUN_H_
#define LEAKHOUND_CLI_COMMANDS_DISCOVER_RUN_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "cli/formats/extraction.h"
#include "cli/incidents/incident_store.h"
#include "cli/policy/policy.h"
#include "engine/protected_index.h"
#include "engine/scan/leak_scanner.h"

namespace leakhound {

struct DiscoverRunOptions {
  // How the run reads (docs/discover.md, "Large shares"). kWhole: walks,
  // reads what changed, closes what went, records the run. kPlan: walks
  // and closes, and hands what is to read out to workers in the store,
  // reading nothing. kClaim: reads what a plan handed out, a batch at a
  // time, until none is left (several at once, on other machines too);
  // a kWhole run after them reads what a killed worker left.
  enum class Mode { kWhole, kPlan, kClaim };
  Mode mode = Mode::kWhole;
  std::string worker;              // kClaim: the name claims are taken under
  const Policy* policy = nullptr;  // REQUIRES: set
  std::string basis;               // DiscoverBasis
  size_t threads = 1;
  ScanOptions match{};
  ExtractionLimits limits{};
  bool snippets = true;
  std::vector<std::string> sendmail;  // notify-owner's; empty: not sent
  std::string user = "discover";      // whom the audit names
  bool quiet = false;
  bool progress = false;  // a progress bar on standard error
};

// What one run did. run.read counts the files read; unchanged those not.
struct TargetSummary {
  DiscoverRun run;
  size_t unchanged = 0;
  size_t basis_changed = 0;  // read only because the basis changed
  size_t quarantined = 0, restricted = 0, notified = 0, logged = 0;
  size_t recovered = 0;  // quarantines a kill interrupted, finished
};

// What verdicts are reached on: the protected set's generation and key
// (its documents, locations and tables) and the policy file's bytes, as
// a SHA-256 (hex). Another basis makes every catalogued verdict stale.
std::string DiscoverBasis(const ProtectedIndex& index,
                          std::string_view policy_bytes);

// Runs `target`. Per-file errors (an unreadable folder or file) are
// printed, counted in run.errors and recorded in the catalogue to be read
// again; an error of the store or index ends the run with it.
absl::StatusOr<TargetSummary> RunDiscoverTarget(const DiscoverTarget& target,
                                                const DiscoverRunOptions& o,
                                                const ProtectedIndex& index,
                                                IncidentStore& store);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_COMMANDS_DISCOVER_RUN_H_
