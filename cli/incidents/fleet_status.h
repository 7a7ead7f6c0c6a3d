// AssessFleet: what the desk flags about its nodes (docs/fleet.md), for the
// console's Nodes page, `leakhound fleet nodes` and a gateway's /metrics:
//  - silent: no heartbeat for thresholds.silent_ms (a gateway; a writer
//    reports on its own timer);
//  - behind: serving an older index generation than the writer's (a node
//    of role "writer"; without one, the newest any node serves) when that
//    generation appeared more than thresholds.behind_ms ago;
//  - other policy: enforcing a policy whose digest is not the newest
//    published one (only once one is published; writers enforce none).
//
// Thread-safety: a pure function.
#ifndef LEAKHOUND_CLI_INCIDENTS_FLEET_STATUS_H_
#define LEAKHOUND_CLI_INCIDENTS_FLEET_STATUS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cli/incidents/incident_store.h"

namespace leakhound {

struct FleetThresholds {
  int64_t silent_ms = 60'000;
  int64_t behind_ms = 10 * 60'000;
};

struct NodeAssessment {
  NodeState node;
  bool silent = false;
  bool behind = false;
  bool other_policy = false;
  bool ok() const { return !silent && !behind && !other_policy; }
};

struct FleetAssessment {
  int64_t reference_generation = 0;  // 0: no node reports one
  int64_t reference_since_ms = 0;
  int64_t published_version = 0;  // 0: none published
  std::string published_digest;
  std::vector<NodeAssessment> nodes;  // by name
};

// This host's name as nodes report it ("" when it cannot be read).
std::string LocalHostName();

FleetAssessment AssessFleet(const std::vector<NodeState>& nodes,
                            const std::optional<PolicyVersion>& published,
                            int64_t now_ms, const FleetThresholds& thresholds);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_INCIDENTS_FLEET_STATUS_H_
