#include "cli/policy/policy_evaluator.h"

#include <algorithm>
#include <optional>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cli/policy/cumulative_condition.h"
#include "cli/policy/label_conditions.h"

namespace leakhound {
namespace {

// An address's domain; a web destination (a host, no '@') is its own.
std::string_view DomainOf(std::string_view address) {
  const size_t at = address.rfind('@');
  return at == std::string_view::npos ? address : address.substr(at + 1);
}

// `domain` is `parent` or a subdomain of it.
bool UnderDomain(std::string_view domain, std::string_view parent) {
  if (parent.empty() || !domain.ends_with(parent)) return false;
  return domain.size() == parent.size() ||
         domain[domain.size() - parent.size() - 1] == '.';
}

bool InDomainList(const std::vector<std::string>& domains,
                  std::string_view domain) {
  for (const std::string& d : domains) {
    if (UnderDomain(domain, d)) return true;
  }
  return false;
}

bool Contains(const std::vector<std::string>& list, std::string_view x) {
  for (const std::string& item : list) {
    if (item == x) return true;
  }
  return false;
}

// `bits`: the document's labels as bits of Policy::labels, when the
// policy has them (else nullopt: compared as text).
bool DocumentQualifies(const PolicyConditions& c, const MatchedDocument& d,
                       std::optional<uint64_t> bits) {
  if (c.min_words && d.words < *c.min_words) return false;
  if (c.min_share && d.share < *c.min_share) return false;
  if (c.unlabelled &&
      *c.unlabelled != (d.labels.empty() && !d.id.starts_with("location "))) {
    return false;
  }
  if (bits) {
    if (!c.labels_any.empty() && (*bits & c.labels_any_bits) == 0) return false;
    if ((*bits & c.labels_all_bits) != c.labels_all_bits) return false;
  } else {
    if (!c.labels_any.empty() &&
        std::none_of(
            c.labels_any.begin(), c.labels_any.end(),
            [&](const std::string& l) { return Contains(d.labels, l); })) {
      return false;
    }
    for (const std::string& l : c.labels_all) {
      if (!Contains(d.labels, l)) return false;
    }
  }
  if (!c.documents.empty() &&
      std::none_of(
          c.documents.begin(), c.documents.end(), [&](const std::string& p) {
            return d.id == p || (p.ends_with('/') && d.id.starts_with(p));
          })) {
    return false;
  }
  return true;
}

// What a verdict's facts give every rule alike, worked out once.
struct Context {
  Context(const Policy& p, const VerdictFacts& f) : policy(p), facts(f) {
    sender_domain = DomainOf(f.sender);
    for (const std::string& r : f.recipients) {
      recipient_domains.push_back(DomainOf(r));
      any_external |= !InDomainList(p.internal_domains, DomainOf(r));
    }
    // Compiled labels (CompileLabels): each document's as bits.
    if (p.label_bits) {
      for (const MatchedDocument& d : f.documents) {
        uint64_t b = 0;
        for (const std::string& l : d.labels) {
          for (size_t i = 0; i < p.labels.size(); ++i) {
            if (p.labels[i] == l) b |= uint64_t{1} << i;
          }
        }
        label_bits.push_back(b);
        any_label_bits |= b;
      }
    }
    for (const auto& [name, members] : p.groups) {
      sender_groups.emplace_back(
          name, std::any_of(members.begin(), members.end(),
                            [&](const std::string& m) {
                              return !m.starts_with("group:") &&
                                     AddressMatches(p, m, f.sender);
                            }));
    }
  }
  // Whether the sender matches `pattern`, groups from the table above.
  bool SenderIs(const std::string& pattern) const {
    if (!pattern.starts_with("group:")) {
      return AddressMatches(policy, pattern, facts.sender);
    }
    const std::string_view name = std::string_view(pattern).substr(6);
    for (const auto& [group, member] : sender_groups) {
      if (group == name) return member;
    }
    return false;
  }
  std::optional<uint64_t> Bits(size_t document) const {
    if (label_bits.empty()) return std::nullopt;
    return label_bits[document];
  }
  const Policy& policy;
  const VerdictFacts& facts;
  std::string_view sender_domain;
  std::vector<std::string_view> recipient_domains;
  bool any_external = false;
  std::vector<uint64_t> label_bits;  // per document; empty: compare text
  uint64_t any_label_bits = 0;       // of every document
  // Per group of the policy, whether the sender is in it.
  std::vector<std::pair<std::string_view, bool>> sender_groups;
};

// The documents that qualify under a rule's conditions, summed.
struct Qualified {
  std::vector<uint32_t> which;  // indexes into the facts' documents
  uint32_t documents = 0;
  uint32_t words = 0;
  double share = 0;  // the largest
};

Qualified Qualify(const Context& x, const PolicyConditions& c) {
  Qualified q;
  // No document has any of labels_any: none qualifies.
  if (!x.label_bits.empty() && !c.labels_any.empty() &&
      (x.any_label_bits & c.labels_any_bits) == 0) {
    return q;
  }
  for (size_t i = 0; i < x.facts.documents.size(); ++i) {
    const MatchedDocument& d = x.facts.documents[i];
    if (!DocumentQualifies(c, d, x.Bits(i))) continue;
    q.which.push_back(static_cast<uint32_t>(i));
    ++q.documents;
    q.words += d.words;
    q.share = std::max(q.share, d.share);
  }
  return q;
}

// Whether the conditions of `c` on protected tables and data identifiers
// hold; if not, why in *why (when not null).
bool DataHolds(const PolicyConditions& c, const VerdictFacts& facts,
               std::string* why) {
  if (c.min_records || !c.tables.empty()) {
    uint32_t rows = 0;
    for (const auto& [table, n] : facts.records) {
      if (c.tables.empty() || Contains(c.tables, table)) rows += n;
    }
    const uint32_t need = c.min_records.value_or(1);
    if (rows < need) {
      if (why != nullptr) {
        *why = absl::StrCat("records: ", rows, " rows of ",
                            c.tables.empty() ? std::string("protected tables")
                                             : absl::StrJoin(c.tables, ", "),
                            " matched, ", need, " needed");
      }
      return false;
    }
  }
  for (const auto& [name, need] : c.identifiers) {
    uint32_t found = 0;
    for (const auto& [n, count] : facts.identifiers) {
      if (n == name) found = count;
    }
    if (found < need) {
      if (why != nullptr) {
        *why = absl::StrCat("identifiers: ", found, " distinct ", name,
                            " found, ", need, " needed");
      }
      return false;
    }
  }
  return true;
}

// Whether every condition of `c` holds; what qualifies in *q. With `why`,
// the first condition that does not hold is named there.
bool Holds(const Context& x, const PolicyConditions& c, Qualified* q,
           std::string* why = nullptr) {
  const VerdictFacts& facts = x.facts;
  const auto no = [why](const char* reason) {
    if (why != nullptr) *why = reason;
    return false;
  };
  if (c.external_recipient && x.any_external != *c.external_recipient) {
    return no(x.any_external ? "external_recipient = false: a recipient is "
                               "outside internal_domains"
                             : "external_recipient = true: every recipient "
                               "is inside internal_domains");
  }
  if (c.unread && facts.unread != *c.unread) {
    return no(facts.unread ? "unread = false: parts were not read"
                           : "unread = true: every part was read");
  }
  if (c.unread_limit && facts.unread_limit != *c.unread_limit) {
    return no(facts.unread_limit
                  ? "unread_limit = false: parts were left unread for lack "
                    "of time"
                  : "unread_limit = true: no part was left unread for lack "
                    "of time");
  }
  if (c.error && facts.error != *c.error) {
    return no(facts.error ? "error = false: the message could not be judged"
                          : "error = true: the message was judged");
  }
  if (!c.channels.empty() && !Contains(c.channels, facts.channel)) {
    return no("channels: the channel is not one of them");
  }
  if (!c.senders.empty() &&
      std::none_of(c.senders.begin(), c.senders.end(),
                   [&](const std::string& p) { return x.SenderIs(p); })) {
    return no("senders: the sender matches none of them");
  }
  if (!c.recipient_domains.empty() &&
      std::none_of(x.recipient_domains.begin(), x.recipient_domains.end(),
                   [&](std::string_view d) {
                     return InDomainList(c.recipient_domains, d);
                   })) {
    return no("recipient_domains: no recipient is in them");
  }
  if (!c.all_recipient_domains.empty() &&
      (x.recipient_domains.empty() ||
       !std::all_of(x.recipient_domains.begin(), x.recipient_domains.end(),
                    [&](std::string_view d) {
                      return InDomainList(c.all_recipient_domains, d);
                    }))) {
    return no("all_recipient_domains: a recipient is outside them");
  }
  if (!DataHolds(c, facts, why)) return false;
  if (!LabelsHold(x.policy.sensitivity_labels, c, facts, why)) return false;
  *q = Qualify(x, c);
  // A rule about documents needs some; one about tables or identifiers,
  // errors or unread parts alone does not; one without conditions needs a
  // protected document or record.
  if (HasDocumentConditions(c)) {
    if (q->documents < c.min_documents.value_or(1)) {
      return no(facts.documents.empty()
                    ? "no protected document was matched"
                    : "not enough matched documents meet the document "
                      "conditions (labels, documents, min_words, min_share, "
                      "min_documents)");
    }
  } else if (!HasDataConditions(c) && !HasLabelConditions(c) && !c.unread &&
             !c.unread_limit && !c.error && q->documents == 0 &&
             facts.records.empty()) {
    return no("no protected document or record was matched");
  }
  if (c.cumulative && !CumulativeHolds(c, facts, q->which, why)) return false;
  return true;
}

Severity SeverityOf(const PolicyRule& rule, const Qualified& q) {
  Severity s = rule.severity;
  for (const SeverityStep& step : rule.steps) {
    const bool reached = (step.documents && q.documents >= *step.documents) ||
                         (step.share && q.share >= *step.share) ||
                         (step.words && q.words >= *step.words);
    if (reached) s = std::max(s, step.severity);
  }
  return s;
}

void AddDistinct(std::vector<std::string>* list, const std::string& x) {
  if (!Contains(*list, x)) list->push_back(x);
}

// Whether `rule` matches: its conditions hold and none of its exceptions.
bool Matches(const Context& x, const PolicyRule& rule, Qualified* q) {
  if (!Holds(x, rule.when, q)) return false;
  Qualified ignored;
  for (const PolicyConditions& u : rule.unless) {
    if (Holds(x, u, &ignored)) return false;
  }
  return true;
}

}  // namespace

bool InDomains(const std::vector<std::string>& domains,
               const std::string& address) {
  return InDomainList(domains, DomainOf(address));
}

bool AddressMatches(const Policy& policy, const std::string& pattern,
                    const std::string& address) {
  const std::string_view p = pattern;
  if (p.starts_with("group:")) {
    auto group = policy.groups.find(p.substr(6));
    if (group == policy.groups.end()) return false;
    return std::any_of(group->second.begin(), group->second.end(),
                       [&](const std::string& member) {
                         return !member.starts_with("group:") &&
                                AddressMatches(policy, member, address);
                       });
  }
  if (p.starts_with('@')) return UnderDomain(DomainOf(address), p.substr(1));
  return address == pattern;
}

std::string ExplainRule(const Policy& policy, const PolicyRule& rule,
                        const VerdictFacts& facts) {
  const Context x(policy, facts);
  Qualified q;
  std::string why;
  if (!Holds(x, rule.when, &q, &why)) return "no: " + why;
  for (size_t i = 0; i < rule.unless.size(); ++i) {
    Qualified ignored;
    if (Holds(x, rule.unless[i], &ignored)) {
      return "no: exception " + std::to_string(i + 1) + " holds";
    }
  }
  std::string out = "yes";
  const char* separator = ": ";
  for (size_t i = 0; i < facts.documents.size(); ++i) {
    const MatchedDocument& d = facts.documents[i];
    if (!DocumentQualifies(rule.when, d, x.Bits(i))) continue;
    out += separator;
    out += d.id;
    separator = ", ";
  }
  return out;
}

namespace {

// Whether `m`'s rule lets the person go on with `facts` (its override
// offered, the severity one it allows, no document with a label it
// never allows).
bool OverrideAllowed(const RuleMatch& m, const VerdictFacts& facts) {
  const OverrideSettings& o = m.rule->override_offer;
  if (o.kind.empty()) return false;
  if (facts.channel != "web" &&
      (facts.channel != "mail" || o.kind == "acknowledge")) {
    return false;
  }
  if (!o.severities.empty() &&
      std::find(o.severities.begin(), o.severities.end(), m.severity) ==
          o.severities.end()) {
    return false;
  }
  for (const MatchedDocument& d : facts.documents) {
    for (const std::string& label : d.labels) {
      if (std::find(o.never_labels.begin(), o.never_labels.end(), label) !=
          o.never_labels.end()) {
        return false;
      }
    }
  }
  return true;
}

const PolicyRule* OverrideRule(const PolicyDecision& decision,
                               const VerdictFacts& facts) {
  if (decision.deciding == nullptr ||
      decision.disposition < Disposition::kQuarantine) {
    return nullptr;
  }
  for (const RuleMatch& m : decision.matches) {
    if (m.rule->monitor || m.rule->disposition < Disposition::kQuarantine) {
      continue;
    }
    if (!OverrideAllowed(m, facts)) return nullptr;
  }
  return decision.deciding;
}

}  // namespace

PolicyDecision EvaluatePolicy(const Policy& policy, const VerdictFacts& facts) {
  PolicyDecision decision;
  const Context x(policy, facts);
  decision.matches.reserve(policy.rules.size());
  for (const PolicyRule& rule : policy.rules) {
    Qualified q;
    if (!Matches(x, rule, &q)) continue;
    RuleMatch m;
    m.rule = &rule;
    m.documents = q.documents;
    m.qualifying = std::move(q.which);
    m.words = q.words;
    m.severity = SeverityOf(rule, q);
    decision.severity = std::max(decision.severity, m.severity);
    decision.matches.push_back(m);
    if (rule.monitor) {
      decision.would = std::max(decision.would, rule.disposition);
      continue;
    }
    if (decision.deciding == nullptr ||
        rule.disposition > decision.disposition) {
      decision.disposition = rule.disposition;
      decision.deciding = &rule;
    }
    decision.notify_sender = decision.notify_sender || rule.notify_sender;
    for (const std::string& r : rule.notify) AddDistinct(&decision.notify, r);
    if (rule.bcc_reviewer && !rule.reviewer.empty()) {
      AddDistinct(&decision.bcc, rule.reviewer);
    }
  }
  decision.override_rule = OverrideRule(decision, facts);
  return decision;
}

}  // namespace leakhound
