#include "cli/gateway/decision.h"

#include <algorithm>

#include "absl/strings/ascii.h"

namespace leakhound {

VerdictFacts FactsOf(const Envelope& envelope, const MessageVerdict& v) {
  VerdictFacts f;
  f.channel = envelope.channel;
  f.sender = absl::AsciiStrToLower(envelope.sender);
  for (const std::string& r : envelope.recipients) {
    f.recipients.push_back(absl::AsciiStrToLower(r));
  }
  f.documents = v.matched;
  f.parts = v.part_facts;
  f.cumulative = v.cumulative;
  f.records = v.records;
  f.identifiers = v.identifiers;
  f.unread = !v.unread.empty();
  f.unread_limit = v.unread_limit;
  f.error = v.kind == MessageVerdict::Kind::kError;
  return f;
}

ChannelDefaults DefaultsFor(const std::string& channel) {
  if (channel == "web") {
    return {Disposition::kReject, Disposition::kLog, Disposition::kReject};
  }
  return {Disposition::kTempfail, Disposition::kTag, Disposition::kQuarantine};
}

bool LeavesNobody(const Policy& policy, const VerdictFacts& facts) {
  return std::none_of(facts.recipients.begin(), facts.recipients.end(),
                      [&](const std::string& r) {
                        return InDomains(policy.internal_domains, r);
                      });
}

namespace {

Disposition ActionOf(MessageVerdict::Kind kind, const VerdictFacts& f,
                     const PolicyDecision& decision,
                     const ChannelDefaults& defaults) {
  const bool spoken = !decision.matches.empty();
  switch (kind) {
    case MessageVerdict::Kind::kLeak:
      return decision.disposition;
    case MessageVerdict::Kind::kError:
      return spoken ? decision.disposition : defaults.on_error;
    case MessageVerdict::Kind::kClean:
      break;
  }
  // A clean verdict a rule matched: a rule on data identifiers decides.
  if (spoken) return decision.disposition;
  if (!f.unread) return Disposition::kLog;
  return f.unread_limit
             ? std::max(defaults.on_unreadable, defaults.on_unread_limit)
             : defaults.on_unreadable;
}

}  // namespace

Judgement JudgeFacts(const Policy& policy, const VerdictFacts& facts,
                     MessageVerdict::Kind kind,
                     const ChannelDefaults& defaults) {
  Judgement j;
  j.decision = EvaluatePolicy(policy, facts);
  j.action = ActionOf(kind, facts, j.decision, defaults);
  // A mail whose sender may justify it is held for them, not refused.
  if (facts.channel == "mail" && j.decision.override_rule != nullptr &&
      j.action > Disposition::kQuarantine &&
      j.action == j.decision.disposition) {
    j.action = Disposition::kQuarantine;
  }
  if (j.action == Disposition::kRemoveExternalRecipients &&
      LeavesNobody(policy, facts)) {
    j.action = Disposition::kReject;
  }
  return j;
}

}  // namespace leakhound
