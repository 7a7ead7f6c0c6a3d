// IncidentStore: the fleet's desk — nodes, published policies and the
// held mail's requests (incident_store.h, docs/fleet.md).
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cli/incidents/incident_rows.h"
#include "cli/incidents/incident_store.h"
#include "cli/incidents/sql_connection.h"

namespace leakhound {
namespace {

constexpr char kNodeColumns[] =
    "name, role, version, host, pid, started_ms, heartbeat_ms, "
    "index_generation, index_documents, generation_ms, policy_digest, "
    "policy_version, spool_depth, spool_oldest_ms";

constexpr char kRequestColumns[] =
    "id, time_ms, node, incident_id, queue_id, action, requested_by, state, "
    "detail, done_ms";

MailRequest ReadRequest(const SqlStatement& s) {
  return MailRequest{s.Int(0),  s.Int(1),  s.Text(2), s.Int(3),  s.Text(4),
                     s.Text(5), s.Text(6), s.Text(7), s.Text(8), s.Int(9)};
}

}  // namespace

absl::Status IncidentStore::Heartbeat(const NodeState& n) {
  SqlStatement s(
      *db_,
      absl::StrCat(
          "INSERT INTO nodes (", kNodeColumns,
          ") VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?) ON CONFLICT (name) DO "
          "UPDATE SET role = excluded.role, version = excluded.version, host "
          "= excluded.host, pid = excluded.pid, started_ms = "
          "excluded.started_ms, heartbeat_ms = excluded.heartbeat_ms, "
          "generation_ms = CASE WHEN nodes.index_generation = "
          "excluded.index_generation THEN nodes.generation_ms ELSE "
          "excluded.generation_ms END, index_generation = "
          "excluded.index_generation, index_documents = "
          "excluded.index_documents, policy_digest = excluded.policy_digest, "
          "policy_version = excluded.policy_version, spool_depth = "
          "excluded.spool_depth, spool_oldest_ms = excluded.spool_oldest_ms"));
  s.Bind(n.name).Bind(n.role).Bind(n.version).Bind(n.host).Bind(n.pid);
  s.Bind(n.started_ms).Bind(n.heartbeat_ms).Bind(n.index_generation);
  s.Bind(n.index_documents).Bind(n.heartbeat_ms);  // generation_ms
  s.Bind(n.policy_digest).Bind(n.policy_version);
  s.Bind(n.spool_depth).Bind(n.spool_oldest_ms);
  if (const int code = s.Step(); code != kSqlDone) {
    return Error(code, "cannot record a node's heartbeat");
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<NodeState>> IncidentStore::Nodes() {
  SqlStatement s(
      *db_, absl::StrCat("SELECT ", kNodeColumns, " FROM nodes ORDER BY name"));
  std::vector<NodeState> out;
  int code;
  while ((code = s.Step()) == kSqlRow) {
    out.push_back(NodeState{s.Text(0), s.Text(1), s.Text(2), s.Text(3),
                            s.Int(4), s.Int(5), s.Int(6), s.Int(7), s.Int(8),
                            s.Int(9), s.Text(10), s.Int(11), s.Int(12),
                            s.Int(13)});
  }
  if (code != kSqlDone) return Error(code, "cannot read the nodes");
  return out;
}

absl::StatusOr<int64_t> IncidentStore::PublishPolicy(
    const std::string& body, const std::string& digest,
    const std::string& author, const std::string& comment) {
  int64_t version = 0;
  absl::Status st = InTransaction([&]() -> absl::Status {
    SqlStatement s(*db_,
                   "INSERT INTO policy_versions (time_ms, author, digest, "
                   "comment, body) VALUES (?,?,?,?,?) RETURNING version");
    s.Bind(NowUnixMs()).Bind(author).Bind(digest).Bind(comment).Bind(body);
    if (const int code = s.Step(); code != kSqlRow) {
      return Error(code, "cannot publish the policy");
    }
    version = s.Int(0);
    return Audit(author, "policy publish", 0,
                 absl::StrCat("version ", version, " sha256:", digest,
                              comment.empty() ? "" : ": ", comment));
  });
  if (!st.ok()) return st;
  return version;
}

absl::StatusOr<std::vector<PolicyVersion>> IncidentStore::PolicyVersions(
    size_t limit) {
  SqlStatement s(*db_,
                 "SELECT version, time_ms, author, digest, comment FROM "
                 "policy_versions ORDER BY version DESC LIMIT ?");
  s.Bind(static_cast<int64_t>(limit));
  std::vector<PolicyVersion> out;
  int code;
  while ((code = s.Step()) == kSqlRow) {
    out.push_back({s.Int(0), s.Int(1), s.Text(2), s.Text(3), s.Text(4), ""});
  }
  if (code != kSqlDone) return Error(code, "cannot read the policies");
  return out;
}

absl::StatusOr<PolicyVersion> IncidentStore::GetPolicyVersion(int64_t version) {
  SqlStatement s(*db_, version == 0
                           ? "SELECT version, time_ms, author, digest, "
                             "comment, body FROM policy_versions ORDER BY "
                             "version DESC LIMIT 1"
                           : "SELECT version, time_ms, author, digest, "
                             "comment, body FROM policy_versions WHERE "
                             "version = ?");
  if (version != 0) s.Bind(version);
  const int code = s.Step();
  if (code == kSqlDone) {
    return absl::NotFoundError(
        version == 0 ? std::string("no policy is published")
                     : absl::StrCat("no published policy version ", version));
  }
  if (code != kSqlRow) return Error(code, "cannot read a policy");
  return PolicyVersion{s.Int(0),  s.Int(1),  s.Text(2),
                       s.Text(3), s.Text(4), s.Text(5)};
}

absl::StatusOr<int64_t> IncidentStore::RequestMail(int64_t incident_id,
                                                   const std::string& action,
                                                   const std::string& user) {
  if (action != "release" && action != "delete") {
    return absl::InvalidArgumentError(
        absl::StrCat("bad mail action '", action, "' (release or delete)"));
  }
  int64_t id = 0;
  absl::Status st = InTransaction([&]() -> absl::Status {
    SqlStatement i(
        *db_,
        "SELECT node, queue_id, mail_state, status, (SELECT COUNT(*) FROM "
        "mail_requests r WHERE r.incident_id = incidents.id AND "
        "r.state IN ('pending', 'running')) FROM incidents WHERE "
        "id = ?");
    i.Bind(incident_id);
    if (const int code = i.Step(); code == kSqlDone) {
      return absl::NotFoundError(absl::StrCat("no incident ", incident_id));
    } else if (code != kSqlRow) {
      return Error(code, "cannot read an incident");
    }
    const std::string node = i.Text(0), queue_id = i.Text(1);
    if (i.Text(2) != "held" || queue_id.empty()) {
      return absl::FailedPreconditionError(
          absl::StrCat("incident ", incident_id, ": its mail is not held (",
                       i.Text(2).empty() ? "no mail" : i.Text(2), ")"));
    }
    if (node.empty()) {
      return absl::FailedPreconditionError(absl::StrCat(
          "incident ", incident_id,
          ": no node is recorded for it; release it on its own host"));
    }
    if (action == "release" && i.Text(3) == "confirmed") {
      return absl::FailedPreconditionError(absl::StrCat(
          "incident ", incident_id,
          " is resolved as a confirmed leak: set it back to open to release "
          "its mail"));
    }
    if (i.Int(4) > 0) {
      return absl::FailedPreconditionError(absl::StrCat(
          "incident ", incident_id, ": a request for its mail is open"));
    }
    SqlStatement add(*db_,
                     "INSERT INTO mail_requests (time_ms, node, incident_id, "
                     "queue_id, action, requested_by, state) VALUES "
                     "(?,?,?,?,?,?,'pending') RETURNING id");
    add.Bind(NowUnixMs()).Bind(node).Bind(incident_id).Bind(queue_id);
    add.Bind(action).Bind(user);
    if (const int code = add.Step(); code != kSqlRow) {
      return Error(code, "cannot record a mail request");
    }
    id = add.Int(0);
    return Audit(user, "mail " + action + " requested", incident_id,
                 absl::StrCat("request ", id, " for node ", node));
  });
  if (!st.ok()) return st;
  return id;
}

absl::StatusOr<std::vector<MailRequest>> IncidentStore::TakeMailRequests(
    const std::string& node, size_t limit) {
  std::vector<MailRequest> out;
  absl::Status st = InTransaction([&]() -> absl::Status {
    SqlStatement s(*db_, absl::StrCat("SELECT ", kRequestColumns,
                                      " FROM mail_requests WHERE node = ? AND "
                                      "state = 'pending' ORDER BY id LIMIT ?"));
    s.Bind(node).Bind(static_cast<int64_t>(limit));
    int code;
    while ((code = s.Step()) == kSqlRow) out.push_back(ReadRequest(s));
    if (code != kSqlDone) return Error(code, "cannot read mail requests");
    for (MailRequest& r : out) {
      // Only a request still pending is taken (another taker lost).
      SqlStatement take(*db_,
                        "UPDATE mail_requests SET state = 'running' WHERE id "
                        "= ? AND state = 'pending'");
      take.Bind(r.id);
      if (const int c = take.Step(); c != kSqlDone) {
        return Error(c, "cannot take a mail request");
      }
      r.state = db_->Changes() == 1 ? "running" : "";
    }
    std::erase_if(out, [](const MailRequest& r) { return r.state.empty(); });
    return absl::OkStatus();
  });
  if (!st.ok()) return st;
  return out;
}

absl::Status IncidentStore::FinishMailRequest(int64_t id, bool done,
                                              const std::string& detail,
                                              const std::string& node) {
  return InTransaction([&]() -> absl::Status {
    SqlStatement s(*db_,
                   "UPDATE mail_requests SET state = ?, detail = ?, done_ms "
                   "= ? WHERE id = ? AND state = 'running' RETURNING "
                   "incident_id, action");
    s.Bind(done ? "done" : "failed").Bind(detail).Bind(NowUnixMs()).Bind(id);
    const int code = s.Step();
    if (code == kSqlDone) {
      return absl::FailedPreconditionError(
          absl::StrCat("mail request ", id, " is not running"));
    }
    if (code != kSqlRow) return Error(code, "cannot record a mail request");
    const int64_t incident = s.Int(0);
    const std::string action = s.Text(1);
    if (!done) {
      return Audit(node, "mail " + action + " failed", incident,
                   absl::StrCat("request ", id, ": ", detail));
    }
    return SetMailStateLocked(incident,
                              action == "release" ? "released" : "deleted",
                              node, absl::StrCat("request ", id, ": ", detail));
  });
}

absl::StatusOr<std::vector<MailRequest>> IncidentStore::MailRequests(
    int64_t incident_id, size_t limit) {
  SqlStatement s(*db_,
                 absl::StrCat("SELECT ", kRequestColumns, " FROM mail_requests",
                              incident_id != 0 ? " WHERE incident_id = ?" : "",
                              " ORDER BY id DESC LIMIT ?"));
  if (incident_id != 0) s.Bind(incident_id);
  s.Bind(static_cast<int64_t>(limit));
  std::vector<MailRequest> out;
  int code;
  while ((code = s.Step()) == kSqlRow) out.push_back(ReadRequest(s));
  if (code != kSqlDone) return Error(code, "cannot read mail requests");
  return out;
}

}  // namespace leakhound
