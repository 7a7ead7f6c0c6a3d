// EvaluatePolicy: the decision a policy gives one verdict. Every rule is
// evaluated against the verdict's facts (what was caught, in which
// channel, from whom, to whom); each rule that matches and none of whose
// exceptions does is a RuleMatch with its severity. The decision's
// disposition is the most restrictive of the enforcing matches' (kLog
// when none); monitor-mode matches are recorded as what would have
// happened. Notices (notify-sender, notify, bcc) accumulate over the
// enforcing matches.
//
// Thread-safety: a pure function of its arguments.
#ifndef LEAKHOUND_CLI_POLICY_POLICY_EVALUATOR_H_
#define LEAKHOUND_CLI_POLICY_POLICY_EVALUATOR_H_

#include <cstdint>
#include <string>
#include <vector>

#include "cli/policy/policy.h"
#include "cli/policy/verdict_facts.h"

namespace leakhound {

struct RuleMatch {
  const PolicyRule* rule = nullptr;  // into the evaluated Policy
  Severity severity = Severity::kInfo;
  uint32_t documents = 0;  // qualifying documents
  uint32_t words = 0;      // their words, in all
  // Which they are: indexes into the facts' documents, in their order (on
  // a mail that matched several documents, which made the rule fire).
  std::vector<uint32_t> qualifying;
};

struct PolicyDecision {
  // What happens: the most restrictive disposition of the enforcing
  // matches, kLog when none.
  Disposition disposition = Disposition::kLog;
  // The rule that set it (null when none did), for its texts.
  const PolicyRule* deciding = nullptr;
  // What monitor-mode rules would have done (kLog when none).
  Disposition would = Disposition::kLog;
  Severity severity = Severity::kInfo;  // the highest of every match
  std::vector<RuleMatch> matches;       // in rule order
  bool notify_sender = false;
  std::vector<std::string> notify;  // distinct reviewers, in rule order
  std::vector<std::string> bcc;     // distinct reviewers
  // The rule whose override is offered (docs/overrides.md), null when
  // none is: every enforcing match that blocks (quarantine or more) must
  // offer one and allow it here (its severities, its never_labels); the
  // deciding rule's settings apply.
  const PolicyRule* override_rule = nullptr;
};

// REQUIRES: `policy` outlives the returned decision (it points into it).
PolicyDecision EvaluatePolicy(const Policy& policy, const VerdictFacts& facts);

// Why `rule` matches `facts` or not, for `policy explain`: "yes: ID, ..."
// (the qualifying documents), "no: CONDITION: why" (the first condition
// that does not hold) or "no: exception N holds".
std::string ExplainRule(const Policy& policy, const PolicyRule& rule,
                        const VerdictFacts& facts);

// Whether `address` (lower case) matches `pattern`: "user@domain" exactly,
// "@domain" for the domain and its subdomains, "group:NAME" for a member
// of the policy's group NAME (one level: groups do not nest).
bool AddressMatches(const Policy& policy, const std::string& pattern,
                    const std::string& address);

// Whether `address`'s domain is one of `domains` or under one.
bool InDomains(const std::vector<std::string>& domains,
               const std::string& address);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_POLICY_POLICY_EVALUATOR_H_
