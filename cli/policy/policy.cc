#include "cli/policy/policy.h"

#include <algorithm>

namespace leakhound {

const char* SeverityName(Severity s) {
  switch (s) {
    case Severity::kInfo:
      return "info";
    case Severity::kLow:
      return "low";
    case Severity::kMedium:
      return "medium";
    case Severity::kHigh:
      return "high";
  }
  return "?";
}

const char* DispositionName(Disposition d) {
  switch (d) {
    case Disposition::kLog:
      return "log";
    case Disposition::kTag:
      return "tag";
    case Disposition::kRemoveExternalRecipients:
      return "remove-external-recipients";
    case Disposition::kRedirect:
      return "redirect";
    case Disposition::kQuarantine:
      return "quarantine";
    case Disposition::kTempfail:
      return "tempfail";
    case Disposition::kReject:
      return "reject";
  }
  return "?";
}

std::optional<Severity> SeverityNamed(std::string_view name) {
  for (Severity s :
       {Severity::kInfo, Severity::kLow, Severity::kMedium, Severity::kHigh}) {
    if (name == SeverityName(s)) return s;
  }
  return std::nullopt;
}

const char* RemediationName(Remediation r) {
  switch (r) {
    case Remediation::kNone:
      return "none";
    case Remediation::kLog:
      return "log";
    case Remediation::kNotifyOwner:
      return "notify-owner";
    case Remediation::kRestrict:
      return "restrict";
    case Remediation::kQuarantine:
      return "quarantine";
  }
  return "none";
}

std::optional<Disposition> DispositionNamed(std::string_view name) {
  for (Disposition d : {Disposition::kLog, Disposition::kTag,
                        Disposition::kRemoveExternalRecipients,
                        Disposition::kRedirect, Disposition::kQuarantine,
                        Disposition::kTempfail, Disposition::kReject}) {
    if (name == DispositionName(d)) return d;
  }
  return std::nullopt;
}

void CompileLabels(Policy* policy) {
  policy->labels.clear();
  policy->label_bits = false;
  std::vector<PolicyConditions*> all;
  for (PolicyRule& r : policy->rules) {
    all.push_back(&r.when);
    for (PolicyConditions& u : r.unless) all.push_back(&u);
  }
  for (PolicyConditions* c : all) {
    for (const auto* list : {&c->labels_any, &c->labels_all}) {
      for (const std::string& l : *list) {
        if (std::find(policy->labels.begin(), policy->labels.end(), l) ==
            policy->labels.end()) {
          policy->labels.push_back(l);
        }
      }
    }
  }
  if (policy->labels.size() > 64) {
    policy->labels.clear();
    return;
  }
  const auto bits = [&](const std::vector<std::string>& list) {
    uint64_t out = 0;
    for (const std::string& l : list) {
      const size_t i = static_cast<size_t>(
          std::find(policy->labels.begin(), policy->labels.end(), l) -
          policy->labels.begin());
      out |= uint64_t{1} << i;
    }
    return out;
  };
  for (PolicyConditions* c : all) {
    c->labels_any_bits = bits(c->labels_any);
    c->labels_all_bits = bits(c->labels_all);
  }
  policy->label_bits = true;
}

bool HasDocumentConditions(const PolicyConditions& c) {
  return !c.labels_any.empty() || !c.labels_all.empty() ||
         c.unlabelled.has_value() || !c.documents.empty() || c.min_words ||
         c.min_share || c.min_documents;
}

bool HasDataConditions(const PolicyConditions& c) {
  return c.min_records.has_value() || !c.tables.empty() ||
         !c.identifiers.empty();
}

bool NoConditions(const PolicyConditions& c) {
  return !HasDocumentConditions(c) && !HasDataConditions(c) &&
         c.channels.empty() && c.senders.empty() &&
         c.recipient_domains.empty() && c.all_recipient_domains.empty() &&
         !c.external_recipient && !c.unread && !c.unread_limit && !c.error &&
         c.sensitivity.empty() && c.sensitivity_at_least.empty() &&
         !c.unlabelled_attachment && !c.label_downgrade && !c.cumulative;
}

Policy BuiltinPolicy(Disposition on_leak, const std::string& reject_text) {
  Policy policy;
  policy.path = "(built-in)";
  PolicyRule rule;
  rule.name = "default";
  rule.disposition = on_leak;
  rule.reject_text = reject_text;
  policy.rules.push_back(std::move(rule));
  CompileLabels(&policy);
  return policy;
}

int SyslogFacilityNumber(std::string_view name) {
  static constexpr std::pair<const char*, int> kNamed[] = {
      {"kern", 0}, {"user", 1},   {"mail", 2},     {"daemon", 3},
      {"auth", 4}, {"syslog", 5}, {"authpriv", 10}};
  for (const auto& [n, v] : kNamed) {
    if (name == n) return v;
  }
  if (name.size() == 6 && name.starts_with("local") && name[5] >= '0' &&
      name[5] <= '7') {
    return 16 + (name[5] - '0');
  }
  return -1;
}

}  // namespace leakhound
