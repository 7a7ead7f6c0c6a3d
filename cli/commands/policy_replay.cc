#include "cli/commands/policy_replay.h"

#include <algorithm>
#include <cctype>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "cli/gateway/cumulative_facts.h"
#include "cli/gateway/label_facts.h"

namespace leakhound {
namespace {

// "accept" (the flags' name before policies) is "log".
std::string ActionName(const std::string& action) {
  return action == "accept" ? "log" : action;
}

}  // namespace

VerdictFacts FactsOfIncident(const Incident& i) {
  VerdictFacts f;
  f.channel = ChannelOf(i.source);
  f.sender = absl::AsciiStrToLower(i.sender);
  for (const std::string& r : i.recipients) f.recipients.push_back(absl::AsciiStrToLower(r));
  f.error = i.kind == "error";
  f.unread = i.kind == "unread" || (i.kind == "leak" && !i.detail.empty());
  f.unread_limit = f.unread && absl::StrContains(i.detail, "(limit)");
  for (const IncidentDocument& d : i.facts) {
    if (d.document.starts_with(kTableFactPrefix)) {
      f.records.emplace_back(d.document.substr(std::size(kTableFactPrefix) - 1),
                             d.words);
    } else if (d.document.starts_with(kIdentifierFactPrefix)) {
      f.identifiers.emplace_back(
          d.document.substr(std::size(kIdentifierFactPrefix) - 1), d.words);
    } else if (PartFacts part; ReadPartFact(d, &part)) {
      f.parts.push_back(std::move(part));
    } else if (CumulativeFact sum; ReadCumulativeFact(d, &sum)) {
      f.cumulative.push_back(std::move(sum));
    } else {
      f.documents.push_back({d.document, d.labels, d.words, d.share});
      TakeSensitivity(&f.documents.back());
    }
  }
  if (!i.facts.empty()) return f;
  for (const IncidentMatch& m : i.matches) {
    auto it = std::find_if(
        f.documents.begin(), f.documents.end(),
        [&](const MatchedDocument& d) { return d.id == m.document; });
    if (it == f.documents.end()) {
      f.documents.push_back({m.document, m.labels, m.words, m.coverage});
    } else {
      it->words += m.words;
      it->share = std::max(it->share, m.coverage);
    }
  }
  return f;
}

std::string ReplayedAction(const Incident& incident, const Policy& policy,
                           const VerdictFacts& facts, Judgement* judged) {
  const MessageVerdict::Kind kind =
      incident.kind == "leak"    ? MessageVerdict::Kind::kLeak
      : incident.kind == "error" ? MessageVerdict::Kind::kError
                                 : MessageVerdict::Kind::kClean;
  *judged = JudgeFacts(policy, facts, kind, ChannelDefaults{});
  if (incident.kind == "leak" || !judged->decision.matches.empty()) {
    return DispositionName(judged->action);
  }
  return ActionName(incident.action);
}

absl::Status CumulativeAsOf(const Incident& incident, const Policy& policy,
                            DripLedger& ledger, VerdictFacts* facts) {
  if (CumulativeWindows(policy).empty()) return absl::OkStatus();
  std::vector<std::string> targets;
  for (const MatchedDocument& d : facts->documents) targets.push_back(d.id);
  for (const auto& [table, rows] : facts->records) {
    targets.push_back(kTableFactPrefix + table);
  }
  auto sums = ledger.AsOf(policy, incident.sender, targets, incident.reference,
                          incident.time_ms);
  if (!sums.ok()) return sums.status();
  facts->cumulative = *std::move(sums);
  return absl::OkStatus();
}

absl::StatusOr<ReplayReport> ReplayPolicy(IncidentStore& store,
                                          const IncidentFilter& filter,
                                          const Policy& policy) {
  ReplayReport report;
  std::map<const PolicyRule*, size_t> slot;
  for (const PolicyRule& r : policy.rules) {
    slot[&r] = report.rules.size();
    report.rules.push_back({r.name, 0, 0, {}});
  }
  const size_t none = report.rules.size();
  report.rules.push_back({"(no rule)", 0, 0, {}});
  DripLedger ledger(store.path());
  absl::Status s = store.ForEach(
      filter,
      [&](const Incident& incident) {
        if (incident.source == "scan" && incident.action == "reported") {
          ++report.skipped;
          return absl::OkStatus();
        }
        ++report.incidents;
        Judgement judged;
        VerdictFacts facts = FactsOfIncident(incident);
        if (absl::Status st = CumulativeAsOf(incident, policy, ledger, &facts);
            !st.ok()) {
          return st;
        }
        const std::string after =
            ReplayedAction(incident, policy, facts, &judged);
        const PolicyDecision& d = judged.decision;
        for (const RuleMatch& m : d.matches)
          ++report.rules[slot[m.rule]].matched;
        if (d.matches.empty()) ++report.rules[none].matched;
        const std::string before = ActionName(incident.action);
        if (before == after) return absl::OkStatus();
        ++report.changed;
        RuleReplay& r =
            report.rules[d.deciding != nullptr ? slot[d.deciding] : none];
        ++r.changed;
        ++r.transitions[{before, after}];
        return absl::OkStatus();
      },
      IncidentStore::Load::kDecision);
  if (!s.ok()) return s;
  return report;
}

}  // namespace leakhound
