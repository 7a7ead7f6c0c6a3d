// CumulativeFacts: the drip ledger's sums (verdict_facts.h,
// CumulativeFact) as an incident keeps them: the story of the earlier
// messages that added up to it, for the console and `incidents show`.
// PERSISTED encoding (docs/storage_format.md): a fact "cumulative TARGET"
// with words and share, and labels "per:PER", "days:N", "rows:N" and
// "earlier:REFERENCE" (at most kStoryMessages, oldest first).
//
// Thread-safety: pure functions.
#ifndef LEAKHOUND_CLI_GATEWAY_CUMULATIVE_FACTS_H_
#define LEAKHOUND_CLI_GATEWAY_CUMULATIVE_FACTS_H_

#include <cstddef>

#include "cli/incidents/incident.h"
#include "cli/policy/verdict_facts.h"

namespace leakhound {

inline constexpr size_t kStoryMessages = 200;

IncidentDocument CumulativeFactRecord(const CumulativeFact& fact);

// The sum `fact` records, when it is one (its document starts with
// kCumulativeFactPrefix).
bool ReadCumulativeFact(const IncidentDocument& fact, CumulativeFact* sum);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_GATEWAY_CUMULATIVE_FACTS_H_
