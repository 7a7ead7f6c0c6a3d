// IncidentStore: reviews of incidents (resolve, held mail, purge) and the
// audit trail (incident_store.h).
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cli/incidents/incident_rows.h"
#include "cli/incidents/incident_store.h"
#include "cli/incidents/sql_connection.h"

namespace leakhound {

absl::Status IncidentStore::Resolve(int64_t id, const std::string& status,
                                    const std::string& note,
                                    const std::string& user) {
  if (status != "confirmed" && status != "false-positive" &&
      status != "authorised" && status != "open") {
    return absl::InvalidArgumentError(
        absl::StrCat("bad status '", status,
                     "' (confirmed, false-positive, authorised or open)"));
  }
  return InTransaction([&]() -> absl::Status {
    // Resolved, or open again: in review with an owner, else new.
    SqlStatement s(
        *db_,
        "UPDATE incidents SET status = ?, note = ?, reviewed_by = ?, "
        "reviewed_ms = ?, workflow = CASE WHEN ? != 'open' THEN 'resolved' "
        "WHEN owner != '' THEN 'in-review' ELSE 'new' END WHERE id = ?");
    s.Bind(status).Bind(note).Bind(user).Bind(NowUnixMs()).Bind(status);
    s.Bind(id);
    if (absl::Status st = UpdatedOne(s, id); !st.ok()) return st;
    if (absl::Status st = EnqueueReview(id, "resolved", user, note); !st.ok())
      return st;
    return Audit(user, "resolve", id,
                 note.empty() ? status : absl::StrCat(status, ": ", note));
  });
}

absl::Status IncidentStore::SetMailState(int64_t id, const std::string& state,
                                         const std::string& user,
                                         const std::string& detail) {
  return InTransaction([&]() -> absl::Status {
    return SetMailStateLocked(id, state, user, detail);
  });
}

absl::Status IncidentStore::SetMailStateLocked(int64_t id,
                                               const std::string& state,
                                               const std::string& user,
                                               const std::string& detail) {
  SqlStatement s(*db_, "UPDATE incidents SET mail_state = ? WHERE id = ?");
  s.Bind(state).Bind(id);
  if (absl::Status st = UpdatedOne(s, id); !st.ok()) return st;
  if (state == "released" || state == "deleted") {
    if (absl::Status st = EnqueueReview(id, state, user, detail); !st.ok())
      return st;
  }
  return Audit(user, "mail " + state, id, detail);
}

absl::StatusOr<int64_t> IncidentStore::Purge(int64_t before_ms,
                                             const std::string& user) {
  int64_t deleted = 0;
  absl::Status s = InTransaction([&]() -> absl::Status {
    int code = kSqlDone;
    for (const char* table : {"matches", "incident_rules", "incident_documents",
                              "overrides", "override_links", "comments"}) {
      SqlStatement m(*db_, absl::StrCat("DELETE FROM ", table,
                                        " WHERE incident_id IN (SELECT id FROM "
                                        "incidents WHERE time_ms < ?)"));
      m.Bind(before_ms);
      if (code == kSqlDone) code = m.Step();
    }
    SqlStatement i(*db_, "DELETE FROM incidents WHERE time_ms < ?");
    i.Bind(before_ms);
    if (code == kSqlDone) code = i.Step();
    const int64_t incidents_deleted = db_->Changes();
    // The drip ledger's spans of that time go with them.
    SqlStatement drip(*db_, "DELETE FROM drip_spans WHERE time_ms < ?");
    drip.Bind(before_ms);
    if (code == kSqlDone) code = drip.Step();
    if (code != kSqlDone) return Error(code, "cannot purge");
    deleted = incidents_deleted;
    if (absl::Status st = RecountBefore(before_ms); !st.ok()) return st;
    OutboxEvent purged;
    purged.type = "review";
    purged.review = "purged";
    purged.user = user;
    purged.purged = deleted;
    purged.note = absl::StrCat("incidents before ", FormatTime(before_ms));
    if (absl::Status st =
            Enqueue([&]() -> absl::StatusOr<std::vector<OutboxEvent>> {
              return std::vector<OutboxEvent>{purged};
            });
        !st.ok()) {
      return st;
    }
    return Audit(
        user, "purge", 0,
        absl::StrCat(deleted, " incidents before ", FormatTime(before_ms)));
  });
  if (!s.ok()) return s;
  return deleted;
}

absl::Status IncidentStore::AuditChange(const std::string& user,
                                        const std::string& action,
                                        const std::string& review,
                                        const std::string& detail) {
  return InTransaction([&]() -> absl::Status {
    OutboxEvent changed;
    changed.type = "review";
    changed.review = review;
    changed.user = user;
    changed.note = detail;
    absl::Status st = Enqueue([&]() -> absl::StatusOr<std::vector<OutboxEvent>> {
      return std::vector<OutboxEvent>{changed};
    });
    if (!st.ok()) return st;
    return Audit(user, action, 0, detail);
  });
}

absl::Status IncidentStore::Audit(const std::string& user,
                                  const std::string& action,
                                  int64_t incident_id,
                                  const std::string& detail) {
  SqlStatement s(
      *db_,
      "INSERT INTO audit (time_ms, \"user\", action, incident_id, detail) "
      "VALUES (?,?,?,?,?)");
  s.Bind(NowUnixMs()).Bind(user).Bind(action).Bind(incident_id).Bind(detail);
  if (const int code = s.Step(); code != kSqlDone) {
    return Error(code, "cannot write the audit trail");
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<AuditEntry>> IncidentStore::AuditTrail(
    int64_t incident_id, size_t limit) {
  SqlStatement s(
      *db_,
      "SELECT id, time_ms, \"user\", action, incident_id, detail FROM audit "
      "WHERE incident_id = ? ORDER BY id DESC LIMIT ?");
  s.Bind(incident_id).Bind(static_cast<int64_t>(limit));
  std::vector<AuditEntry> out;
  int code;
  while ((code = s.Step()) == kSqlRow) {
    out.push_back(
        {s.Int(0), s.Int(1), s.Text(2), s.Text(3), s.Int(4), s.Text(5)});
  }
  if (code != kSqlDone) return Error(code, "cannot read the audit trail");
  return out;
}

}  // namespace leakhound
