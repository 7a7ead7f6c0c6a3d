#include "cli/incidents/fleet_status.h"

#include <unistd.h>

#include <algorithm>

namespace leakhound {

std::string LocalHostName() {
  char host[256] = {};
  return ::gethostname(host, sizeof(host) - 1) == 0 ? host : "";
}

FleetAssessment AssessFleet(const std::vector<NodeState>& nodes,
                            const std::optional<PolicyVersion>& published,
                            int64_t now_ms, const FleetThresholds& thresholds) {
  FleetAssessment out;
  const bool writers =
      std::any_of(nodes.begin(), nodes.end(),
                  [](const NodeState& n) { return n.role == "writer"; });
  for (const NodeState& n : nodes) {
    if (writers && n.role != "writer") continue;
    if (n.index_generation > out.reference_generation) {
      out.reference_generation = n.index_generation;
      out.reference_since_ms = n.generation_ms;
    } else if (n.index_generation == out.reference_generation) {
      out.reference_since_ms =
          std::min(out.reference_since_ms, n.generation_ms);
    }
  }
  if (published) {
    out.published_version = published->version;
    out.published_digest = published->digest;
  }
  for (const NodeState& n : nodes) {
    NodeAssessment a;
    a.node = n;
    // A writer reports on its own timer (`fleet report` after `sync`).
    a.silent =
        n.role != "writer" && now_ms - n.heartbeat_ms > thresholds.silent_ms;
    a.behind = n.index_generation < out.reference_generation &&
               now_ms - out.reference_since_ms > thresholds.behind_ms;
    a.other_policy = published.has_value() && n.role != "writer" &&
                     n.policy_digest != published->digest;
    out.nodes.push_back(std::move(a));
  }
  return out;
}

}  // namespace leakhound
