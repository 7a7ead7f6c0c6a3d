// CumulativeCondition's evaluation (docs/policy.md, "Cumulative"): whether
// what one sender has sent of a qualifying document or table within the
// condition's days reaches its threshold, on the sums the drip ledger put
// in the verdict's facts (cli/gateway/drip_ledger.h).
//
// Thread-safety: pure functions.
#ifndef LEAKHOUND_CLI_POLICY_CUMULATIVE_CONDITION_H_
#define LEAKHOUND_CLI_POLICY_CUMULATIVE_CONDITION_H_

#include <cstdint>
#include <string>
#include <vector>

#include "cli/policy/policy.h"
#include "cli/policy/verdict_facts.h"

namespace leakhound {

// The sum of `facts` that `condition` reads for `target` (nullptr when the
// ledger gave none).
const CumulativeFact* CumulativeOf(const CumulativeCondition& condition,
                                   const VerdictFacts& facts,
                                   const std::string& target);

// Whether c.cumulative (REQUIRES: set) holds: a document of `qualifying`
// (indexes into facts.documents) reaches words or share, or, for rows, a
// table of c.tables (empty: any) matched in this message reaches rows.
// Else, with `why`, the closest sum as "cumulative: ...".
bool CumulativeHolds(const PolicyConditions& c, const VerdictFacts& facts,
                     const std::vector<uint32_t>& qualifying, std::string* why);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_POLICY_CUMULATIVE_CONDITION_H_
