#include "cli/policy/policy_evaluator.h"

#include <algorithm>

namespace leakhound {
namespace {

std::string DomainOf(const std::string& address) {
  const size_t at = address.rfind('@');
  return at == std::string::npos ? "" : address.substr(at + 1);
}

// `domain` is `parent` or a subdomain of it.
bool UnderDomain(const std::string& domain, const std::string& parent) {
  if (parent.empty() || domain.size() < parent.size()) return false;
  if (domain == parent) return true;
  return domain.size() > parent.size() &&
         domain.compare(domain.size() - parent.size(), parent.size(),
                        parent) == 0 &&
         domain[domain.size() - parent.size() - 1] == '.';
}

bool Contains(const std::vector<std::string>& list, const std::string& x) {
  return std::find(list.begin(), list.end(), x) != list.end();
}

bool DocumentQualifies(const PolicyConditions& c, const MatchedDocument& d) {
  if (!c.labels_any.empty() &&
      std::none_of(c.labels_any.begin(), c.labels_any.end(),
                   [&](const std::string& l) { return Contains(d.labels, l); })) {
    return false;
  }
  for (const std::string& l : c.labels_all) {
    if (!Contains(d.labels, l)) return false;
  }
  if (!c.documents.empty() &&
      std::none_of(c.documents.begin(), c.documents.end(),
                   [&](const std::string& p) {
                     return d.id == p ||
                            (p.ends_with('/') && d.id.starts_with(p));
                   })) {
    return false;
  }
  if (c.min_words && d.words < *c.min_words) return false;
  if (c.min_share && d.share < *c.min_share) return false;
  return true;
}

// The documents of `facts` that qualify under `c`.
std::vector<const MatchedDocument*> Qualifying(const PolicyConditions& c,
                                               const VerdictFacts& facts) {
  std::vector<const MatchedDocument*> out;
  for (const MatchedDocument& d : facts.documents) {
    if (DocumentQualifies(c, d)) out.push_back(&d);
  }
  return out;
}

// Whether every condition of `c` holds; the qualifying documents in *docs.
// With `why`, the first condition that does not hold is named there.
bool Holds(const Policy& policy, const PolicyConditions& c,
           const VerdictFacts& facts,
           std::vector<const MatchedDocument*>* docs,
           std::string* why = nullptr) {
  const auto no = [why](const char* reason) {
    if (why != nullptr) *why = reason;
    return false;
  };
  if (!c.channels.empty() && !Contains(c.channels, facts.channel)) {
    return no("channels: the channel is not one of them");
  }
  if (!c.senders.empty() &&
      std::none_of(c.senders.begin(), c.senders.end(),
                   [&](const std::string& p) {
                     return AddressMatches(policy, p, facts.sender);
                   })) {
    return no("senders: the sender matches none of them");
  }
  if (!c.recipient_domains.empty() &&
      std::none_of(facts.recipients.begin(), facts.recipients.end(),
                   [&](const std::string& r) {
                     return InDomains(c.recipient_domains, r);
                   })) {
    return no("recipient_domains: no recipient is in them");
  }
  if (!c.all_recipient_domains.empty() &&
      (facts.recipients.empty() ||
       !std::all_of(facts.recipients.begin(), facts.recipients.end(),
                    [&](const std::string& r) {
                      return InDomains(c.all_recipient_domains, r);
                    }))) {
    return no("all_recipient_domains: a recipient is outside them");
  }
  if (c.external_recipient) {
    const bool any_external =
        std::any_of(facts.recipients.begin(), facts.recipients.end(),
                    [&](const std::string& r) {
                      return !InDomains(policy.internal_domains, r);
                    });
    if (any_external != *c.external_recipient) {
      return no(any_external ? "external_recipient = false: a recipient is "
                               "outside internal_domains"
                             : "external_recipient = true: every recipient "
                               "is inside internal_domains");
    }
  }
  if (c.unread && facts.unread != *c.unread) {
    return no(facts.unread ? "unread = false: parts were not read"
                           : "unread = true: every part was read");
  }
  if (c.error && facts.error != *c.error) {
    return no(facts.error ? "error = false: the message could not be judged"
                          : "error = true: the message was judged");
  }
  *docs = Qualifying(c, facts);
  // A rule about documents needs some; one about errors or unread parts
  // alone does not.
  const bool about_documents =
      HasDocumentConditions(c) || (!c.unread && !c.error);
  if (about_documents && docs->size() < c.min_documents.value_or(1)) {
    return no(facts.documents.empty()
                  ? "no protected document was matched"
                  : "not enough matched documents meet the document "
                    "conditions (labels, documents, min_words, min_share, "
                    "min_documents)");
  }
  return true;
}

Severity SeverityOf(const PolicyRule& rule,
                    const std::vector<const MatchedDocument*>& docs,
                    uint32_t words) {
  Severity s = rule.severity;
  double share = 0;
  for (const MatchedDocument* d : docs) share = std::max(share, d->share);
  for (const SeverityStep& step : rule.steps) {
    const bool reached = (step.documents && docs.size() >= *step.documents) ||
                         (step.share && share >= *step.share) ||
                         (step.words && words >= *step.words);
    if (reached) s = std::max(s, step.severity);
  }
  return s;
}

void AddDistinct(std::vector<std::string>* list, const std::string& x) {
  if (!Contains(*list, x)) list->push_back(x);
}

}  // namespace

bool InDomains(const std::vector<std::string>& domains,
               const std::string& address) {
  const std::string domain = DomainOf(address);
  return std::any_of(domains.begin(), domains.end(), [&](const std::string& d) {
    return UnderDomain(domain, d);
  });
}

bool AddressMatches(const Policy& policy, const std::string& pattern,
                    const std::string& address) {
  if (pattern.starts_with("group:")) {
    auto group = policy.groups.find(pattern.substr(6));
    if (group == policy.groups.end()) return false;
    return std::any_of(group->second.begin(), group->second.end(),
                       [&](const std::string& p) {
                         return !p.starts_with("group:") &&
                                AddressMatches(policy, p, address);
                       });
  }
  if (pattern.starts_with('@')) {
    return UnderDomain(DomainOf(address), pattern.substr(1));
  }
  return address == pattern;
}

std::string ExplainRule(const Policy& policy, const PolicyRule& rule,
                        const VerdictFacts& facts) {
  std::vector<const MatchedDocument*> docs;
  std::string why;
  if (!Holds(policy, rule.when, facts, &docs, &why)) return "no: " + why;
  for (size_t i = 0; i < rule.unless.size(); ++i) {
    std::vector<const MatchedDocument*> ignored;
    if (Holds(policy, rule.unless[i], facts, &ignored)) {
      return "no: exception " + std::to_string(i + 1) + " holds";
    }
  }
  std::string out = "yes";
  if (!docs.empty()) {
    out += ": ";
    for (size_t i = 0; i < docs.size(); ++i) {
      if (i > 0) out += ", ";
      out += docs[i]->id;
    }
  }
  return out;
}

PolicyDecision EvaluatePolicy(const Policy& policy, const VerdictFacts& facts) {
  PolicyDecision decision;
  for (const PolicyRule& rule : policy.rules) {
    std::vector<const MatchedDocument*> docs;
    if (!Holds(policy, rule.when, facts, &docs)) continue;
    std::vector<const MatchedDocument*> ignored;
    if (std::any_of(rule.unless.begin(), rule.unless.end(),
                    [&](const PolicyConditions& c) {
                      return Holds(policy, c, facts, &ignored);
                    })) {
      continue;
    }
    RuleMatch m;
    m.rule = &rule;
    m.documents = static_cast<uint32_t>(docs.size());
    for (const MatchedDocument* d : docs) m.words += d->words;
    m.severity = SeverityOf(rule, docs, m.words);
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
  return decision;
}

}  // namespace leakhound
