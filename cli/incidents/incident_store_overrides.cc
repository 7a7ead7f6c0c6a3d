// IncidentStore: overrides (incident_store.h, docs/overrides.md): the
// offer recorded with an incident, its use by the person it stopped, its
// revocation by a reviewer, and the one-time links opened.
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "cli/incidents/incident_rows.h"
#include "cli/incidents/incident_store.h"
#include "cli/incidents/sql_connection.h"

namespace leakhound {
namespace {

constexpr int64_t kDayMs = 24 * 60 * 60 * 1000;

// Characters of UTF-8 `text` (its bytes that start one).
size_t Characters(const std::string& text) {
  size_t n = 0;
  for (const char c : text) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

}  // namespace

absl::Status IncidentStore::InsertOverride(const Incident& i) {
  const IncidentOverride& o = i.override_offer;
  if (o.kind.empty()) return absl::OkStatus();
  SqlStatement s(*db_,
                 "INSERT INTO overrides (incident_id, kind, rule, sender, "
                 "until_ms, min_chars, per_day, state, used_by, text, "
                 "address, time_ms, host, digest, token_hash) VALUES "
                 "(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
  s.Bind(i.id)
      .Bind(o.kind)
      .Bind(o.rule)
      .Bind(absl::AsciiStrToLower(i.sender))
      .Bind(o.until_ms)
      .Bind(int64_t{o.min_chars})
      .Bind(int64_t{o.per_day})
      .Bind(o.state)
      .Bind(o.used_by)
      .Bind(o.text)
      .Bind(o.address)
      .Bind(o.time_ms)
      .Bind(o.host)
      .Bind(o.digest)
      .Bind(o.token_hash);
  if (const int code = s.Step(); code != kSqlDone) {
    return Error(code, "cannot record an override");
  }
  return absl::OkStatus();
}

absl::Status IncidentStore::LoadOverride(Incident& i) {
  SqlStatement s(*db_,
                 "SELECT kind, rule, until_ms, min_chars, per_day, state, "
                 "used_by, text, address, time_ms, revoked_by, host, digest, "
                 "token_hash, retry_until_ms, retried_ms FROM overrides "
                 "WHERE incident_id = ?");
  s.Bind(i.id);
  const int code = s.Step();
  if (code == kSqlDone) return absl::OkStatus();
  if (code != kSqlRow) return Error(code, "cannot read an override");
  IncidentOverride& o = i.override_offer;
  o.kind = s.Text(0);
  o.rule = s.Text(1);
  o.until_ms = s.Int(2);
  o.min_chars = static_cast<uint32_t>(s.Int(3));
  o.per_day = static_cast<uint32_t>(s.Int(4));
  o.state = s.Text(5);
  o.used_by = s.Text(6);
  o.text = s.Text(7);
  o.address = s.Text(8);
  o.time_ms = s.Int(9);
  o.revoked_by = s.Text(10);
  o.host = s.Text(11);
  o.digest = s.Text(12);
  o.token_hash = s.Text(13);
  o.retry_until_ms = s.Int(14);
  o.retried_ms = s.Int(15);
  return absl::OkStatus();
}

absl::Status IncidentStore::UseOverride(int64_t id,
                                        const IncidentOverride& use) {
  return InTransaction([&]() -> absl::Status {
    auto incident = Get(id);
    if (!incident.ok()) return incident.status();
    const IncidentOverride& o = incident->override_offer;
    if (o.kind.empty()) {
      return absl::FailedPreconditionError("no override was offered");
    }
    if (o.state == "used") {
      return absl::FailedPreconditionError("the override was used already");
    }
    if (o.state != "offered") {
      return absl::FailedPreconditionError("the override was revoked");
    }
    if (use.time_ms >= o.until_ms) {
      return absl::FailedPreconditionError("the override has expired");
    }
    if (o.kind == "justify" && Characters(use.text) < o.min_chars) {
      return absl::FailedPreconditionError(absl::StrCat(
          "the justification needs at least ", o.min_chars, " characters"));
    }
    if (o.per_day > 0) {
      SqlStatement count(*db_,
                         "SELECT COUNT(*) FROM overrides WHERE sender = ? AND "
                         "state = 'used' AND time_ms > ?");
      count.Bind(absl::AsciiStrToLower(incident->sender))
          .Bind(use.time_ms - kDayMs);
      if (const int code = count.Step(); code != kSqlRow) {
        return Error(code, "cannot count overrides");
      }
      if (count.Int(0) >= o.per_day) {
        return absl::FailedPreconditionError(absl::StrCat(
            "the rule allows ", o.per_day,
            " overrides per sender in 24 hours; ask your security team"));
      }
    }
    // A web grant: the one retry may come within the offer's own window
    // (the rule's override_minutes), counted from now.
    const int64_t retry_until =
        o.host.empty() ? 0 : use.time_ms + (o.until_ms - incident->time_ms);
    SqlStatement s(*db_,
                   "UPDATE overrides SET state = 'used', used_by = ?, "
                   "text = ?, address = ?, time_ms = ?, retry_until_ms = ? "
                   "WHERE incident_id = ? AND state = 'offered'");
    s.Bind(use.used_by).Bind(use.text).Bind(use.address).Bind(use.time_ms);
    s.Bind(retry_until).Bind(id);
    if (const int code = s.Step(); code != kSqlDone) {
      return Error(code, "cannot record the override");
    }
    if (absl::Status st =
            EnqueueReview(id, "overridden", use.used_by, use.text);
        !st.ok()) {
      return st;
    }
    return Audit(use.used_by, "override", id,
                 absl::StrCat(o.kind, " from ", use.address, ": ", use.text));
  });
}

absl::Status IncidentStore::RevokeOverride(int64_t id,
                                           const std::string& user) {
  return InTransaction([&]() -> absl::Status {
    SqlStatement s(*db_,
                   "UPDATE overrides SET state = 'revoked', revoked_by = ?, "
                   "time_ms = ? WHERE incident_id = ? AND state = 'offered'");
    s.Bind(user).Bind(NowUnixMs()).Bind(id);
    if (const int code = s.Step(); code != kSqlDone) {
      return Error(code, "cannot revoke the override");
    }
    if (db_->Changes() == 0) {
      if (auto incident = Get(id); !incident.ok()) return incident.status();
      return absl::FailedPreconditionError("no override is pending");
    }
    if (absl::Status st = EnqueueReview(id, "override-revoked", user, "");
        !st.ok()) {
      return st;
    }
    return Audit(user, "override revoked", id, "");
  });
}

absl::StatusOr<std::optional<WebGrant>> IncidentStore::TakeWebGrant(
    const std::string& user, const std::string& host, const std::string& digest,
    int64_t now_ms) {
  std::optional<WebGrant> out;
  absl::Status st = InTransaction([&]() -> absl::Status {
    SqlStatement find(*db_,
                      "SELECT o.incident_id, i.reference FROM overrides o "
                      "JOIN incidents i ON i.id = o.incident_id WHERE "
                      "o.sender = ? AND o.host = ? AND o.digest = ? AND "
                      "o.state = 'used' AND o.retried_ms = 0 AND "
                      "o.retry_until_ms > ? ORDER BY o.time_ms LIMIT 1");
    find.Bind(absl::AsciiStrToLower(user)).Bind(host).Bind(digest);
    find.Bind(now_ms);
    const int code = find.Step();
    if (code == kSqlDone) return absl::OkStatus();
    if (code != kSqlRow) return Error(code, "cannot read the grants");
    WebGrant g{find.Int(0), find.Text(1), {}};
    SqlStatement take(*db_,
                      "UPDATE overrides SET retried_ms = ? WHERE "
                      "incident_id = ? AND retried_ms = 0");
    take.Bind(now_ms).Bind(g.incident_id);
    if (const int done = take.Step(); done != kSqlDone) {
      return Error(done, "cannot take a grant");
    }
    if (db_->Changes() != 1) return absl::OkStatus();  // taken meanwhile
    Incident blocked;
    blocked.id = g.incident_id;
    if (absl::Status loaded = LoadOverride(blocked); !loaded.ok()) {
      return loaded;
    }
    g.grant = blocked.override_offer;
    const int64_t blocked_id = g.incident_id;
    out = std::move(g);
    return Audit(user, "override retried", blocked_id, host);
  });
  if (!st.ok()) return st;
  return out;
}

absl::StatusOr<std::vector<UsedOverride>> IncidentStore::OverridesUsed(
    int64_t since_ms, int64_t until_ms, size_t limit) {
  SqlStatement s(*db_,
                 "SELECT o.incident_id, i.reference, i.source, i.sender, "
                 "o.kind, o.rule, o.used_by, o.text, o.address, o.time_ms "
                 "FROM overrides o JOIN incidents i ON i.id = o.incident_id "
                 "WHERE o.state = 'used' AND o.time_ms >= ? AND o.time_ms < ? "
                 "ORDER BY o.time_ms LIMIT ?");
  s.Bind(since_ms).Bind(until_ms).Bind(static_cast<int64_t>(limit));
  std::vector<UsedOverride> out;
  int code;
  while ((code = s.Step()) == kSqlRow) {
    UsedOverride u{s.Int(0), s.Text(1), s.Text(2), s.Text(3), {}};
    u.override_used.kind = s.Text(4);
    u.override_used.rule = s.Text(5);
    u.override_used.state = "used";
    u.override_used.used_by = s.Text(6);
    u.override_used.text = s.Text(7);
    u.override_used.address = s.Text(8);
    u.override_used.time_ms = s.Int(9);
    out.push_back(std::move(u));
  }
  if (code != kSqlDone) return Error(code, "cannot read the overrides");
  return out;
}

absl::StatusOr<int64_t> IncidentStore::ReportSent(const std::string& name) {
  SqlStatement s(*db_, "SELECT sent_ms FROM report_runs WHERE name = ?");
  s.Bind(name);
  const int code = s.Step();
  if (code == kSqlDone) return 0;
  if (code != kSqlRow) return Error(code, "cannot read the reports sent");
  return s.Int(0);
}

absl::Status IncidentStore::NoteReportSent(const std::string& name,
                                           int64_t sent_ms) {
  SqlStatement s(*db_,
                 "INSERT INTO report_runs (name, sent_ms) VALUES (?,?) ON "
                 "CONFLICT (name) DO UPDATE SET sent_ms = excluded.sent_ms");
  s.Bind(name).Bind(sent_ms);
  if (const int code = s.Step(); code != kSqlDone) {
    return Error(code, "cannot note a report sent");
  }
  return Audit("report", "report sent", 0, name);
}

absl::StatusOr<bool> IncidentStore::ConsumeOverrideLink(
    const std::string& nonce, int64_t id) {
  SqlStatement s(*db_,
                 "INSERT INTO override_links (nonce, incident_id, used_ms) "
                 "VALUES (?,?,?) ON CONFLICT (nonce) DO NOTHING");
  s.Bind(nonce).Bind(id).Bind(NowUnixMs());
  if (const int code = s.Step(); code != kSqlDone) {
    return Error(code, "cannot record a link");
  }
  return db_->Changes() == 1;
}

}  // namespace leakhound
