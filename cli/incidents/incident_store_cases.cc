// IncidentStore: incidents worked as cases (incident_store.h, docs/
// console.md "Cases"): an owner, the workflow, escalation and comments.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cli/incidents/incident_rows.h"
#include "cli/incidents/incident_store.h"
#include "cli/incidents/sql_connection.h"

namespace leakhound {

absl::Status IncidentStore::Assign(int64_t id, const std::string& owner,
                                   const std::string& user) {
  return InTransaction([&]() -> absl::Status {
    SqlStatement s(*db_,
                   "UPDATE incidents SET owner = ?, workflow = CASE WHEN "
                   "workflow = 'new' AND ? != '' THEN 'in-review' WHEN "
                   "workflow = 'in-review' AND ? = '' THEN 'new' ELSE "
                   "workflow END WHERE id = ?");
    s.Bind(owner).Bind(owner).Bind(owner).Bind(id);
    if (absl::Status st = UpdatedOne(s, id); !st.ok()) return st;
    if (absl::Status st = EnqueueReview(id, "assigned", user, owner);
        !st.ok()) {
      return st;
    }
    return Audit(user, "assign", id, owner.empty() ? "nobody" : owner);
  });
}

absl::Status IncidentStore::AddComment(int64_t id, const std::string& text,
                                       const std::string& user) {
  if (text.empty()) return absl::InvalidArgumentError("an empty comment");
  return InTransaction([&]() -> absl::Status {
    SqlStatement exists(*db_, "SELECT 1 FROM incidents WHERE id = ?");
    exists.Bind(id);
    if (const int code = exists.Step(); code != kSqlRow) {
      return code == kSqlDone
                 ? absl::NotFoundError(absl::StrCat("no incident ", id))
                 : Error(code, "cannot read an incident");
    }
    SqlStatement s(*db_,
                   "INSERT INTO comments (incident_id, time_ms, \"user\", "
                   "text) VALUES (?,?,?,?)");
    s.Bind(id).Bind(NowUnixMs()).Bind(user).Bind(text);
    if (const int code = s.Step(); code != kSqlDone) {
      return Error(code, "cannot add a comment");
    }
    if (absl::Status st = EnqueueReview(id, "commented", user, text);
        !st.ok()) {
      return st;
    }
    return Audit(user, "comment", id, text);
  });
}

absl::StatusOr<std::vector<CaseComment>> IncidentStore::Comments(int64_t id) {
  SqlStatement s(*db_,
                 "SELECT id, time_ms, \"user\", text FROM comments WHERE "
                 "incident_id = ? ORDER BY id");
  s.Bind(id);
  std::vector<CaseComment> out;
  int code;
  while ((code = s.Step()) == kSqlRow) {
    out.push_back({s.Int(0), s.Int(1), s.Text(2), s.Text(3)});
  }
  if (code != kSqlDone) return Error(code, "cannot read the comments");
  return out;
}

absl::Status IncidentStore::Escalate(int64_t id, const std::string& to,
                                     const std::string& reason,
                                     const std::string& user) {
  return InTransaction([&]() -> absl::Status {
    SqlStatement s(*db_,
                   "UPDATE incidents SET workflow = 'escalated', "
                   "escalated_to = ?, escalated_ms = ? WHERE id = ? AND "
                   "workflow != 'resolved'");
    s.Bind(to).Bind(NowUnixMs()).Bind(id);
    if (const int code = s.Step(); code != kSqlDone) {
      return Error(code, "cannot escalate");
    }
    if (db_->Changes() == 0) {
      auto incident = Get(id);
      if (!incident.ok()) return incident.status();
      return absl::FailedPreconditionError("the case is resolved");
    }
    const std::string detail =
        reason.empty() ? to : absl::StrCat(to, ": ", reason);
    if (absl::Status st = EnqueueReview(id, "escalated", user, detail);
        !st.ok()) {
      return st;
    }
    return Audit(user, "escalate", id, detail);
  });
}

}  // namespace leakhound
