// ReplayPolicy: runs a policy over stored incidents (`leakhound policy
// replay`): each incident's facts (the documents with their labels, words
// and share, sender, recipients, channel, unread parts, errors) are
// evaluated again, and the action the new policy would give is compared
// with the one taken. No mail is touched. Counts are per rule: how many
// incidents each rule matches, and of the incidents whose action changes
// (old -> new), which rule now decides them.
//
// Thread-safety: pure functions over their arguments.
#ifndef LEAKHOUND_CLI_COMMANDS_POLICY_REPLAY_H_
#define LEAKHOUND_CLI_COMMANDS_POLICY_REPLAY_H_

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "cli/gateway/decision.h"
#include "cli/gateway/drip_ledger.h"
#include "cli/incidents/incident.h"
#include "cli/incidents/incident_store.h"
#include "cli/policy/policy.h"
#include "cli/policy/policy_evaluator.h"

namespace leakhound {

// What a rule can read of a stored incident: its facts, or for one from
// before they were kept, what its matches say (labels, words summed,
// largest coverage).
VerdictFacts FactsOfIncident(const Incident& incident);

// The action `policy` gives `incident` read as `facts`, through the one
// decision of every channel (JudgeFacts, cli/gateway/decision.h; the
// judgement in *judged): the decision's for a leak, and for an error or
// unread parts when a rule matched (a removal that would leave no
// recipient a refusal, as the milter did); else the action the incident
// recorded (the daemon's flags decided it). Actions named as the incident
// records them ("accept" is "log").
std::string ReplayedAction(const Incident& incident, const Policy& policy,
                           const VerdictFacts& facts, Judgement* judged);

struct RuleReplay {
  std::string rule;      // "(no rule)" for incidents no rule decides
  uint64_t matched = 0;  // incidents the rule matches
  uint64_t changed = 0;  // incidents it decides whose action changes
  std::map<std::pair<std::string, std::string>, uint64_t> transitions;
};

struct ReplayReport {
  uint64_t incidents = 0;  // replayed
  uint64_t skipped = 0;    // scan reports, which take no action
  uint64_t changed = 0;
  std::vector<RuleReplay> rules;  // in the policy's order, then "(no rule)"
};

// Replaces `facts`' cumulative sums with the ledger's as they were when
// `incident` was judged (DripLedger::AsOf), when `policy` has cumulative
// conditions: a drip rule added later reads what was sent before.
absl::Status CumulativeAsOf(const Incident& incident, const Policy& policy,
                            DripLedger& ledger, VerdictFacts* facts);

// Replays `policy` over the incidents of `store` that `filter` selects.
absl::StatusOr<ReplayReport> ReplayPolicy(IncidentStore& store,
                                          const IncidentFilter& filter,
                                          const Policy& policy);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_COMMANDS_POLICY_REPLAY_H_
