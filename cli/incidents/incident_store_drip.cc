// IncidentStore: the drip ledger (incident_store.h, docs/policy.md
// "Cumulative").
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cli/incidents/incident_store.h"
#include "cli/incidents/sql_connection.h"

namespace leakhound {

absl::Status IncidentStore::AddDripSpans(const std::vector<DripSpan>& spans) {
  if (spans.empty()) return absl::OkStatus();
  return InTransaction([&]() -> absl::Status {
    for (const DripSpan& d : spans) {
      // The same text sent again: its row moves to the latest message, so
      // that a sender's rows are bounded by the distinct text sent.
      SqlStatement again(*db_,
                         "UPDATE drip_spans SET time_ms = ?, channel = ?, "
                         "reference = ?, total = ? WHERE sender = ? AND "
                         "target = ? AND begin_token = ? AND end_token = ? "
                         "AND row_key = ? AND time_ms <= ?");
      again.Bind(d.time_ms).Bind(d.channel).Bind(d.reference);
      again.Bind(int64_t{d.total}).Bind(d.sender).Bind(d.target);
      again.Bind(int64_t{d.begin}).Bind(int64_t{d.end}).Bind(d.row);
      again.Bind(d.time_ms);
      if (const int code = again.Step(); code != kSqlDone) {
        return Error(code, "cannot record what a message sent");
      }
      if (db_->Changes() > 0) continue;
      SqlStatement s(*db_,
                     "INSERT INTO drip_spans (sender, domain, target, "
                     "time_ms, begin_token, end_token, total, row_key, "
                     "channel, reference) VALUES (?,?,?,?,?,?,?,?,?,?)");
      s.Bind(d.sender).Bind(d.domain).Bind(d.target).Bind(d.time_ms);
      s.Bind(int64_t{d.begin}).Bind(int64_t{d.end}).Bind(int64_t{d.total});
      s.Bind(d.row).Bind(d.channel).Bind(d.reference);
      if (const int code = s.Step(); code != kSqlDone) {
        return Error(code, "cannot record what a message sent");
      }
    }
    return absl::OkStatus();
  });
}

absl::StatusOr<std::vector<DripSpan>> IncidentStore::DripSpans(
    bool by_domain, const std::string& key,
    const std::vector<std::string>& targets, int64_t since_ms,
    int64_t until_ms) {
  std::vector<DripSpan> out;
  if (targets.empty()) return out;
  std::vector<std::string> marks(targets.size(), "?");
  SqlStatement s(
      *db_, absl::StrCat("SELECT sender, domain, target, time_ms, "
                         "begin_token, end_token, total, row_key, channel, "
                         "reference FROM drip_spans WHERE ",
                         by_domain ? "domain" : "sender",
                         " = ? AND target IN (", absl::StrJoin(marks, ","),
                         ") AND time_ms >= ? AND time_ms <= ? ORDER BY "
                         "time_ms, id"));
  s.Bind(key);
  for (const std::string& t : targets) s.Bind(t);
  s.Bind(since_ms).Bind(until_ms);
  int code;
  while ((code = s.Step()) == kSqlRow) {
    out.push_back(
        {s.Text(0), s.Text(1), s.Text(2), s.Int(3),
         static_cast<uint32_t>(s.Int(4)), static_cast<uint32_t>(s.Int(5)),
         static_cast<uint32_t>(s.Int(6)), s.Text(7), s.Text(8), s.Text(9)});
  }
  if (code != kSqlDone) return Error(code, "cannot read what was sent");
  return out;
}

absl::StatusOr<int64_t> IncidentStore::ExpireDripSpans(int64_t before_ms) {
  SqlStatement s(*db_, "DELETE FROM drip_spans WHERE time_ms < ?");
  s.Bind(before_ms);
  if (const int code = s.Step(); code != kSqlDone) {
    return Error(code, "cannot expire what was sent");
  }
  return db_->Changes();
}

}  // namespace leakhound
