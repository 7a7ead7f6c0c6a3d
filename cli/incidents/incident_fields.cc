#include "cli/incidents/incident_fields.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace leakhound {
namespace {

using Type = IncidentField::Type;

const IncidentField kFields[] = {
    {"queue_id", "Queue id", "queue id", Type::kText, false, nullptr,
     [](const Incident& i) { return i.queue_id; }},
    {"message_id", "Message-ID", "message-id", Type::kText, false, nullptr,
     [](const Incident& i) { return i.message_id; }},
    {"sender", "From", "from", Type::kText, false, nullptr,
     [](const Incident& i) { return i.sender; }},
    {"recipients", "To", "to", Type::kList, false, nullptr, nullptr,
     [](const Incident& i) -> const std::vector<std::string>& {
       return i.recipients;
     }},
    {"subject", "Subject", "subject", Type::kText, false, nullptr,
     [](const Incident& i) { return i.subject; }},
    {"client", "Client", "client", Type::kText, false, nullptr,
     [](const Incident& i) { return i.client; }},
    {"run_id", "Scan run", "scan run", Type::kText, false, nullptr,
     [](const Incident& i) { return i.run_id; }},
    {"file", "File", "file", Type::kText, false, nullptr,
     [](const Incident& i) { return i.file_path; }},
    {"size", "Size", "size", Type::kNumber, true, "bytes",
     [](const Incident& i) { return absl::StrCat(i.file_size); }},
    {"sha256", "SHA-256", "sha256", Type::kText, false, nullptr,
     [](const Incident& i) { return i.sha256; }},
    {"detail", "Detail", "detail", Type::kText, false, nullptr,
     [](const Incident& i) { return i.detail; }},
    {"note", "Note", "note", Type::kText, false, nullptr,
     [](const Incident& i) { return i.note; }},
    // The policy's decision (docs/policy.md), after the fields of 0.1.
    {"reference", "Reference", "reference", Type::kText, false, nullptr,
     [](const Incident& i) { return i.reference; }},
    {"severity", "Severity", "severity", Type::kText, false, nullptr,
     [](const Incident& i) { return i.severity; }},
    {"policy", "Policy", "policy", Type::kText, false, nullptr,
     [](const Incident& i) { return i.policy; }},
    {"rules", "Rules", "rules", Type::kText, false, nullptr,
     [](const Incident& i) {
       return absl::StrJoin(
           i.rules, "; ", [](std::string* out, const IncidentRule& r) {
             absl::StrAppend(out, r.rule, " (", r.severity, ", ",
                             r.monitor ? "monitor: would " : "", r.action, ")");
             // On a mail that matched several documents: which made it fire.
             if (!r.documents.empty()) {
               absl::StrAppend(out, " on ", absl::StrJoin(r.documents, ", "));
             }
           });
     }},
    {"would_action", "Would (monitor)", "would", Type::kText, false, nullptr,
     [](const Incident& i) { return i.would_action; }},
    // The web channel (docs/web-gateway.md).
    {"method", "Method", "method", Type::kText, false, nullptr,
     [](const Incident& i) { return i.method; }},
    {"url", "URL", "url", Type::kText, false, nullptr,
     [](const Incident& i) { return i.url; }},
};

}  // namespace

std::string IncidentField::Text(const Incident& i,
                                const char* separator) const {
  return type == Type::kList ? absl::StrJoin(list(i), separator) : text(i);
}

std::span<const IncidentField> IncidentFields() { return kFields; }

std::string CsvField(std::string_view value) {
  std::string v(value);
  if (!v.empty() && (v[0] == '=' || v[0] == '+' || v[0] == '-' || v[0] == '@' ||
                     v[0] == '\t' || v[0] == '\r')) {
    v.insert(v.begin(), '\'');
  }
  if (v.find_first_of(",\"\r\n") == std::string::npos) return v;
  std::string out = "\"";
  for (char c : v) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}


}  // namespace leakhound
