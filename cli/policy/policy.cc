#include "cli/policy/policy.h"

namespace leakhound {

const char* SeverityName(Severity s) {
  switch (s) {
    case Severity::kInfo: return "info";
    case Severity::kLow: return "low";
    case Severity::kMedium: return "medium";
    case Severity::kHigh: return "high";
  }
  return "?";
}

const char* DispositionName(Disposition d) {
  switch (d) {
    case Disposition::kLog: return "log";
    case Disposition::kTag: return "tag";
    case Disposition::kRemoveExternalRecipients:
      return "remove-external-recipients";
    case Disposition::kRedirect: return "redirect";
    case Disposition::kQuarantine: return "quarantine";
    case Disposition::kTempfail: return "tempfail";
    case Disposition::kReject: return "reject";
  }
  return "?";
}

std::optional<Severity> SeverityNamed(std::string_view name) {
  for (Severity s : {Severity::kInfo, Severity::kLow, Severity::kMedium,
                     Severity::kHigh}) {
    if (name == SeverityName(s)) return s;
  }
  return std::nullopt;
}

std::optional<Disposition> DispositionNamed(std::string_view name) {
  for (Disposition d :
       {Disposition::kLog, Disposition::kTag,
        Disposition::kRemoveExternalRecipients, Disposition::kRedirect,
        Disposition::kQuarantine, Disposition::kTempfail, Disposition::kReject}) {
    if (name == DispositionName(d)) return d;
  }
  return std::nullopt;
}

bool HasDocumentConditions(const PolicyConditions& c) {
  return !c.labels_any.empty() || !c.labels_all.empty() ||
         !c.documents.empty() || c.min_words || c.min_share ||
         c.min_documents;
}

bool NoConditions(const PolicyConditions& c) {
  return !HasDocumentConditions(c) && c.channels.empty() &&
         c.senders.empty() && c.recipient_domains.empty() &&
         c.all_recipient_domains.empty() && !c.external_recipient &&
         !c.unread && !c.error;
}

Policy BuiltinPolicy(Disposition on_leak, const std::string& reject_text) {
  Policy policy;
  policy.path = "(built-in)";
  PolicyRule rule;
  rule.name = "default";
  rule.disposition = on_leak;
  rule.reject_text = reject_text;
  policy.rules.push_back(std::move(rule));
  return policy;
}

}  // namespace leakhound
