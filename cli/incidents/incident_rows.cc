#include "cli/incidents/incident_rows.h"

#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace leakhound {

std::vector<std::string> SplitList(const std::string& joined) {
  if (joined.empty()) return {};
  return absl::StrSplit(joined, kListSeparator);
}

Where WhereOf(const IncidentFilter& f, const SqlDialect& dialect) {
  Where w;
  std::vector<std::string> terms;
  if (f.since_ms != std::numeric_limits<int64_t>::min()) {
    terms.push_back("time_ms >= ?");
    w.values.emplace_back(f.since_ms);
  }
  if (f.until_ms != std::numeric_limits<int64_t>::max()) {
    terms.push_back("time_ms < ?");
    w.values.emplace_back(f.until_ms);
  }
  auto equal = [&](const char* column, const std::string& value) {
    if (value.empty()) return;
    terms.push_back(absl::StrCat(column, " = ?"));
    w.values.emplace_back(value);
  };
  equal("status", f.status);
  equal("action", f.action);
  equal("source", f.source);
  equal("kind", f.kind);
  equal("severity", f.severity);
  equal("reference", f.reference);
  equal("workflow", f.workflow);
  if (f.owner) {
    terms.push_back("owner = ?");
    w.values.emplace_back(*f.owner);
  }
  if (!f.sender.empty()) {
    terms.push_back(dialect.CaselessEquals("sender"));
    w.values.emplace_back(f.sender);
  }
  if (!f.rule.empty()) {
    terms.push_back(
        "id IN (SELECT incident_id FROM incident_rules WHERE rule = ?)");
    w.values.emplace_back(f.rule);
  }
  if (!f.recipient.empty()) {
    // The list is joined by kListSeparator ('\n'): a whole entry matches.
    terms.push_back(absl::StrCat(
        dialect.find, "(", dialect.character, "(10) || lower(recipients) || ",
        dialect.character, "(10), ", dialect.character, "(10) || lower(?) || ",
        dialect.character, "(10)) > 0"));
    w.values.emplace_back(f.recipient);
  }
  if (!f.document.empty()) {
    terms.push_back(
        "id IN (SELECT incident_id FROM matches WHERE document = ?)");
    w.values.emplace_back(f.document);
  }
  if (!terms.empty()) w.sql = " WHERE " + absl::StrJoin(terms, " AND ");
  return w;
}

void BindWhere(SqlStatement& s, const Where& w) {
  for (const auto& v : w.values) {
    if (const auto* i = std::get_if<int64_t>(&v)) {
      s.Bind(*i);
    } else {
      s.Bind(std::string_view(std::get<std::string>(v)));
    }
  }
}

const char kIncidentColumns[] =
    "id, time_ms, source, kind, action, queue_id, message_id, sender, "
    "recipients, subject, client, run_id, file_path, file_size, sha256, "
    "detail, documents, status, note, reviewed_by, reviewed_ms, mail_state, "
    "reference, severity, policy, would_action, method, url, uid, node, "
    "owner, workflow, escalated_to, escalated_ms";

Incident ReadIncident(const SqlStatement& s) {
  Incident i;
  i.id = s.Int(0);
  i.time_ms = s.Int(1);
  i.source = s.Text(2);
  i.kind = s.Text(3);
  i.action = s.Text(4);
  i.queue_id = s.Text(5);
  i.message_id = s.Text(6);
  i.sender = s.Text(7);
  i.recipients = SplitList(s.Text(8));
  i.subject = s.Text(9);
  i.client = s.Text(10);
  i.run_id = s.Text(11);
  i.file_path = s.Text(12);
  i.file_size = static_cast<uint64_t>(s.Int(13));
  i.sha256 = s.Text(14);
  i.detail = s.Text(15);
  i.documents = SplitList(s.Text(16));
  i.status = s.Text(17);
  i.note = s.Text(18);
  i.reviewed_by = s.Text(19);
  i.reviewed_ms = s.Int(20);
  i.mail_state = s.Text(21);
  i.reference = s.Text(22);
  i.severity = s.Text(23);
  i.policy = s.Text(24);
  i.would_action = s.Text(25);
  i.method = s.Text(26);
  i.url = s.Text(27);
  i.uid = s.Text(28);
  i.node = s.Text(29);
  i.owner = s.Text(30);
  i.workflow = s.Text(31);
  i.escalated_to = s.Text(32);
  i.escalated_ms = s.Int(33);
  return i;
}

}  // namespace leakhound
