// Remediation: what discovery does to a file at rest that quotes
// protected content (docs/discover.md), and its undoing.
//
// Quarantine is a move in steps that a kill at any point leaves
// recoverable: the caller records the finding as "quarantining" with its
// quarantine path first (IncidentStore::UpdateFinding), then
// MoveToQuarantine renames the file into QUARANTINE_DIR/REFERENCE/ (a copy
// to a ".partial" file, fsync and rename when the folder is on another
// file system, then the original is unlinked) and writes the tombstone;
// CompleteQuarantine finishes or rolls back a move a kill interrupted.
//
// Thread-safety: free functions; two calls on one finding at once are the
// caller's to prevent (one run per target at a time).
#ifndef LEAKHOUND_CLI_DISCOVER_REMEDIATION_H_
#define LEAKHOUND_CLI_DISCOVER_REMEDIATION_H_

#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "cli/incidents/discover_records.h"
#include "cli/policy/policy.h"
#include "cli/policy/policy_evaluator.h"

namespace leakhound {

// PERSISTED: the tombstone's name beside a quarantined file's old place.
inline constexpr char kTombstoneSuffix[] = ".leakhound-quarantined.txt";

// The most restrictive remediation of the enforcing rules of `decision`
// that are for the discover channel; kLog when none is.
Remediation RemediationOf(const PolicyDecision& decision);

// PATH + kTombstoneSuffix; whether a path is one.
std::string TombstonePath(const std::string& path);
bool IsTombstone(std::string_view path);

// QUARANTINE_DIR/REFERENCE/BASENAME.
std::string QuarantinePathFor(const std::string& quarantine_dir,
                              const std::string& reference,
                              const std::string& path);

// The tombstone's text: what happened to the file, when and why (the
// rule's `tombstone` text, else a default), and the incident reference to
// quote when asking for it back.
std::string TombstoneText(const DiscoverFinding& finding,
                          const std::string& rule_text,
                          const std::string& rule_name);

// Moves finding.path to finding.quarantine_path (its folder made 0700,
// the file 0600) and writes `tombstone_text` at TombstonePath (0644).
// REQUIRES: the finding is recorded "quarantining" with that path.
// Errors name the step; the file is then at one of its two places.
absl::Status MoveToQuarantine(const DiscoverFinding& finding,
                              const std::string& tombstone_text);

// Finishes a move a kill interrupted: true when the file is now in
// quarantine (tombstone written), false when it is back at its place (a
// partial copy removed). DataLoss when it is at neither.
absl::StatusOr<bool> CompleteQuarantine(const DiscoverFinding& finding,
                                        const std::string& tombstone_text);

// Puts a quarantined file back at its path with its mode and, as far as
// the process may (root), its owner; removes the tombstone. A restore a
// kill interrupted is finished. FailedPrecondition when another file is
// at the path now (never overwritten). Returns what could not be put
// back as it was ("" when all was).
absl::StatusOr<std::string> RestoreQuarantined(const DiscoverFinding& finding);

// restrict: removes the group and other permission bits (with an ACL the
// group bits are its mask: named entries lose theirs too). Undone by
// RestoreMode (finding.mode, the bits when found).
absl::Status RestrictFile(const DiscoverFinding& finding);
absl::Status RestoreMode(const DiscoverFinding& finding);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_DISCOVER_REMEDIATION_H_
