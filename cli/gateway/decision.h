// Decision: the one decision of every channel and tool. The milter, the
// ICAP service (web channel), `scan --policy`, `policy explain` and
// `policy replay` all compute the facts a policy reads (FactsOf, or an
// incident's recorded facts) and what happens (JudgeFacts) here, so that
// the tools that explain a verdict cannot disagree with the gateway that
// made it:
//   - the decision is EvaluatePolicy's on the facts, records and data
//     identifiers included;
//   - the action is the decision's for a leak, and for a clean verdict a
//     rule matched (data identifiers: no document leaked, but a rule on
//     them decides); for an error or unread parts, the decision's when a
//     rule speaks to them, else the channel's defaults (its --on-error,
//     --on-unreadable,
//     --on-unread-limit, the more restrictive of the last two for parts
//     left unread for lack of time);
//   - a mail whose deciding rule offers its sender an override
//     (docs/overrides.md) is held (quarantine), not refused;
//   - removing the external recipients of a message whose every recipient
//     is external would deliver it to nobody: it is refused instead.
//
// Thread-safety: pure functions.
#ifndef LEAKHOUND_CLI_GATEWAY_DECISION_H_
#define LEAKHOUND_CLI_GATEWAY_DECISION_H_

#include <string>
#include <vector>

#include "cli/gateway/verdict.h"
#include "cli/policy/policy.h"
#include "cli/policy/policy_evaluator.h"

namespace leakhound {

// Where a verdict's text was going: the channel ("mail", "web", "scan"),
// the sender (mail: the envelope sender; web: the proxy user) and the
// recipients (mail: the envelope's; web: the destination host).
struct Envelope {
  std::string channel;
  std::string sender;
  std::vector<std::string> recipients;
};

// What a channel does when the policy does not speak to an error or to
// unread parts (its --on-error, --on-unreadable, --on-unread-limit).
struct ChannelDefaults {
  Disposition on_error = Disposition::kReject;
  Disposition on_unreadable = Disposition::kLog;
  Disposition on_unread_limit = Disposition::kReject;
};

// The defaults of a channel's daemon, for the tools that judge as it
// would: "mail" the milter's (--on-error tempfail, --on-unreadable tag,
// --on-unread-limit quarantine), "web" the ICAP service's (reject, log,
// reject); "scan" as mail. Tests pin them to MilterPolicy's and
// WebPolicy's.
ChannelDefaults DefaultsFor(const std::string& channel);

// The facts the policy reads of `v` sent as `envelope` (addresses lower
// case): documents, records, identifiers, unread parts, errors.
VerdictFacts FactsOf(const Envelope& envelope, const MessageVerdict& v);

struct Judgement {
  PolicyDecision decision;  // points into the policy judged by
  Disposition action = Disposition::kLog;
};

// The decision and the action on `facts` of a verdict of `kind`.
// REQUIRES: `policy` outlives the judgement.
Judgement JudgeFacts(const Policy& policy, const VerdictFacts& facts,
                     MessageVerdict::Kind kind,
                     const ChannelDefaults& defaults);

// Whether removing the recipients outside the policy's internal domains
// would leave none (every recipient is external, or there is none).
bool LeavesNobody(const Policy& policy, const VerdictFacts& facts);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_GATEWAY_DECISION_H_
