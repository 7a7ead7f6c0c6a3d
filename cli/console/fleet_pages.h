// The console's fleet pages (docs/fleet.md): the Nodes page (every gateway
// the desk knows, with what is wrong with it), the published policy
// versions and who runs each (on /policy), and the held-mail requests of
// an incident (on its page). Every value from outside is escaped.
//
// Thread-safety: pure functions of their arguments.
#ifndef LEAKHOUND_CLI_CONSOLE_FLEET_PAGES_H_
#define LEAKHOUND_CLI_CONSOLE_FLEET_PAGES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "cli/console/page_layout.h"
#include "cli/incidents/fleet_status.h"
#include "cli/incidents/incident.h"
#include "cli/incidents/incident_store.h"

namespace leakhound {

struct NodesView {
  FleetAssessment fleet;
  FleetThresholds thresholds;
  int64_t now_ms = 0;
};

// An incident's held mail as the desk sees it: the requests made for it,
// and when the node that holds it was last heard from.
struct HeldMailView {
  std::vector<MailRequest> requests;  // newest first
  int64_t node_heartbeat_ms = 0;      // 0: the node never reported
  int64_t now_ms = 0;
};

std::string NodesPage(const PageContext& ctx, const NodesView& view);

// Appends the requests of `incident` to `out` (nothing when none).
void AppendMailRequests(const Incident& incident, const HeldMailView& view,
                        std::string* out);

// Appends the published versions (newest first) and the nodes running
// each to `out` (nothing when none is published).
void AppendPolicyVersions(const std::vector<PolicyVersion>& versions,
                          const std::vector<NodeState>& nodes,
                          std::string* out);

// "12 s", "5 min", "3 h", "2 d" since `since_ms`; "never" for 0.
std::string AgeText(int64_t since_ms, int64_t now_ms);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_CONSOLE_FLEET_PAGES_H_
