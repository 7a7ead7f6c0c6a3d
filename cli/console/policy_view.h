// ReadPolicyView: what the console's /policy page shows (console_pages.h):
// the policy in force (its file, or with `desk` the newest version
// published to the fleet's desk) checked and linted, each rule's incident
// count, and the published versions with the nodes running each.
//
// Thread-safety: as the store it reads (the caller holds its lock).
#ifndef LEAKHOUND_CLI_CONSOLE_POLICY_VIEW_H_
#define LEAKHOUND_CLI_CONSOLE_POLICY_VIEW_H_

#include <string>

#include "absl/status/statusor.h"
#include "cli/console/console_pages.h"
#include "cli/incidents/incident_store.h"

namespace leakhound {

// `policy_file`: the console's --policy ("" none, "desk" the desk's). A
// file that does not read or parse is the view's error, not a failure;
// the store's errors are.
absl::StatusOr<PolicyView> ReadPolicyView(IncidentStore& store,
                                          const std::string& policy_file);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_CONSOLE_POLICY_VIEW_H_
