// The desk's escalation rules (docs/console.md, "Cases"): `leakhound
// incidents escalate --due --policy FILE` runs each [[escalation]] of the
// policy over the store: every open case (new or in review) of its
// severities that nobody took within unowned_hours, or nobody resolved
// within unresolved_hours, is escalated (IncidentStore::Escalate, by
// "escalation:NAME": audited and sent to the SIEM), and the rule's
// `notify` get one mail listing the cases. A case is escalated once.
//
// Thread-safety: runs on the caller's thread.
#ifndef LEAKHOUND_CLI_COMMANDS_CASE_ESCALATION_H_
#define LEAKHOUND_CLI_COMMANDS_CASE_ESCALATION_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "cli/incidents/incident_store.h"
#include "cli/policy/policy.h"

namespace leakhound {

struct EscalationRun {
  std::vector<std::string> sendmail;  // empty: no mail (reported)
  std::string console_url;            // the cases' links; "": none
  std::string from = "leakhound";
  int64_t now_ms = 0;
};

// What one rule did: the references escalated and who was told.
struct EscalationOutcome {
  std::string rule;
  std::vector<std::string> references;
  std::vector<std::string> told;
  std::vector<std::string> not_told;  // with why ("x@y: ...")
};

// The mailboxes of `who`: addresses as they are, group:NAME as the
// policy's group's addresses (not its @domain patterns), a directory
// group's members read now; what cannot be read goes to `not_told`.
std::vector<std::string> PolicyMailboxes(const Policy& policy,
                                         const std::vector<std::string>& who,
                                         std::vector<std::string>* not_told);

// Runs `policy`'s escalation rules over `store`. A directory group named
// in `notify` is read from the policy's [directory].
absl::StatusOr<std::vector<EscalationOutcome>> RunEscalations(
    const Policy& policy, IncidentStore& store, const EscalationRun& run);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_COMMANDS_CASE_ESCALATION_H_
