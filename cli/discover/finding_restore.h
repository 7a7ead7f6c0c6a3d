// RestoreFinding: `discover restore`, and the console's Restore button
// (docs/discover.md): undoes the remediation of one finding.
//
// Thread-safety: one call per finding at a time (the caller's); the store
// is not thread-safe (incident_store.h).
#ifndef LEAKHOUND_CLI_DISCOVER_FINDING_RESTORE_H_
#define LEAKHOUND_CLI_DISCOVER_FINDING_RESTORE_H_

#include <string>

#include "absl/status/statusor.h"
#include "cli/incidents/incident_store.h"

namespace leakhound {

// `discover restore`: undoes the remediation of finding `reference`
// (quarantine: the file back with its mode and owner, the tombstone gone;
// restrict: its mode back); audited as "restored" and queued for the
// SIEM. Returns a line saying what was done.
absl::StatusOr<std::string> RestoreFinding(IncidentStore& store,
                                           const std::string& reference,
                                           const std::string& user);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_DISCOVER_FINDING_RESTORE_H_
