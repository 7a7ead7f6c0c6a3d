// IncidentStore: the outbox of events for the SIEM destinations
// (incident_store.h, docs/siem.md).
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cli/incidents/incident_rows.h"
#include "cli/incidents/incident_store.h"
#include "cli/incidents/sql_connection.h"

namespace leakhound {

absl::Status IncidentStore::Enqueue(const EventMaker& make) {
  SqlStatement any(*db_, "SELECT 1 FROM outbox_destinations LIMIT 1");
  const int found = any.Step();
  if (found == kSqlDone) return absl::OkStatus();
  if (found != kSqlRow) return Error(found, "cannot read the outbox");
  absl::StatusOr<std::vector<OutboxEvent>> events = make();
  if (!events.ok()) return events.status();
  // PostgreSQL hands out sequence numbers before commit: writers queue
  // one at a time, so that no event commits behind a cursor already past
  // it.
  if (absl::Status s = db_->LockOutbox(); !s.ok()) return s;
  SqlStatement add(*db_,
                   "INSERT INTO outbox (event_id, time_ms, type, incident_id, "
                   "payload) VALUES (?,?,?,?,?)");
  const int64_t now = NowUnixMs();
  for (const OutboxEvent& e : *events) {
    add.Reset();
    add.Bind(NewEventId())
        .Bind(now)
        .Bind(e.type)
        .Bind(e.incident_id)
        .Bind(EncodeOutboxPayload(e));
    if (const int code = add.Step(); code != kSqlDone) {
      return Error(code, "cannot queue an event");
    }
  }
  return absl::OkStatus();
}

absl::Status IncidentStore::EnqueueReview(int64_t id, std::string_view review,
                                          const std::string& user,
                                          const std::string& note) {
  return Enqueue([&]() -> absl::StatusOr<std::vector<OutboxEvent>> {
    SqlStatement s(*db_, absl::StrCat("SELECT ", kIncidentColumns,
                                      " FROM incidents WHERE id = ?"));
    s.Bind(id);
    if (const int code = s.Step(); code != kSqlRow) {
      return Error(code, "cannot read an incident");
    }
    Incident incident = ReadIncident(s);
    if (absl::Status st = LoadDecision(incident); !st.ok()) return st;
    return std::vector<OutboxEvent>{ReviewEvent(incident, review, user, note)};
  });
}

absl::Status IncidentStore::RegisterDestination(const std::string& name) {
  SqlStatement s(*db_,
                 "INSERT INTO outbox_destinations (name, cursor) VALUES (?, "
                 "(SELECT COALESCE(MAX(seq), 0) FROM outbox)) ON CONFLICT "
                 "DO NOTHING");
  s.Bind(name);
  if (const int code = s.Step(); code != kSqlDone) {
    return Error(code, "cannot register a destination");
  }
  return absl::OkStatus();
}

absl::Status IncidentStore::ForgetDestination(const std::string& name) {
  SqlStatement s(*db_, "DELETE FROM outbox_destinations WHERE name = ?");
  s.Bind(name);
  if (const int code = s.Step(); code != kSqlDone) {
    return Error(code, "cannot forget a destination");
  }
  if (db_->Changes() == 0) {
    return absl::NotFoundError(absl::StrCat("no destination '", name, "'"));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> IncidentStore::TakeLease(
    const std::string& name, const std::string& owner, int64_t now_ms,
    int64_t until_ms, const std::string& stale_owner) {
  SqlStatement s(*db_,
                 "UPDATE outbox_destinations SET lease_owner = ?, "
                 "lease_until_ms = ? WHERE name = ? AND (lease_owner IN "
                 "('', ?, ?) OR lease_until_ms < ?)");
  s.Bind(owner).Bind(until_ms).Bind(name).Bind(owner);
  s.Bind(stale_owner.empty() ? owner : stale_owner).Bind(now_ms);
  if (const int code = s.Step(); code != kSqlDone) {
    return Error(code, "cannot take a destination's lease");
  }
  SqlStatement holder(
      *db_, "SELECT lease_owner FROM outbox_destinations WHERE name = ?");
  holder.Bind(name);
  const int code = holder.Step();
  if (code == kSqlDone) {
    return absl::NotFoundError(absl::StrCat("no destination '", name, "'"));
  }
  if (code != kSqlRow) return Error(code, "cannot read a lease");
  return holder.Text(0);
}

absl::Status IncidentStore::ReleaseLease(const std::string& name,
                                         const std::string& owner) {
  SqlStatement s(*db_,
                 "UPDATE outbox_destinations SET lease_owner = '', "
                 "lease_until_ms = 0 WHERE name = ? AND lease_owner = ?");
  s.Bind(name).Bind(owner);
  if (const int code = s.Step(); code != kSqlDone) {
    return Error(code, "cannot release a destination's lease");
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<OutboxEvent>> IncidentStore::PendingEvents(
    const std::string& name, size_t limit) {
  SqlStatement s(*db_,
                 "SELECT seq, event_id, time_ms, payload FROM outbox WHERE "
                 "seq > (SELECT cursor FROM outbox_destinations WHERE name = "
                 "?) ORDER BY seq LIMIT ?");
  s.Bind(name).Bind(static_cast<int64_t>(limit));
  std::vector<OutboxEvent> out;
  int code;
  while ((code = s.Step()) == kSqlRow) {
    auto event = DecodeOutboxPayload(s.Text(3));
    if (!event.ok()) {
      // Kept whole, so that the sender can count it as failed and move on.
      OutboxEvent broken;
      broken.detail = std::string(event.status().message());
      event = std::move(broken);
    }
    event->seq = s.Int(0);
    event->id = s.Text(1);
    event->time_ms = s.Int(2);
    out.push_back(*std::move(event));
  }
  if (code != kSqlDone) return Error(code, "cannot read the outbox");
  return out;
}

absl::Status IncidentStore::Advance(const std::string& name,
                                    const std::string& owner,
                                    const OutboxProgress& p) {
  return InTransaction([&]() -> absl::Status {
    const int64_t now = NowUnixMs();
    SqlStatement s(
        *db_,
        "UPDATE outbox_destinations SET cursor = ?, delivered = delivered + "
        "?, skipped = skipped + ?, failed = failed + ?, last_delivery_ms = "
        "CASE WHEN ? > 0 THEN ? ELSE last_delivery_ms END, last_error = CASE "
        "WHEN ? > 0 THEN ? ELSE last_error END, last_error_ms = CASE WHEN ? > "
        "0 THEN ? ELSE last_error_ms END WHERE name = ? AND lease_owner = ? "
        "AND cursor < ?");
    s.Bind(p.cursor).Bind(p.delivered).Bind(p.skipped).Bind(p.failed);
    s.Bind(p.delivered).Bind(now).Bind(p.failed).Bind(p.error);
    s.Bind(p.failed).Bind(now).Bind(name).Bind(owner).Bind(p.cursor);
    if (const int code = s.Step(); code != kSqlDone) {
      return Error(code, "cannot move a destination's cursor");
    }
    if (db_->Changes() == 0) {
      return absl::FailedPreconditionError(
          absl::StrCat("outbox destination '", name,
                       "': the lease is no longer ", owner, "'s"));
    }
    if (p.failed == 0) return absl::OkStatus();
    SqlStatement f(*db_,
                   "INSERT INTO outbox_failures (destination, seq, event_id, "
                   "time_ms, error) VALUES (?,?,?,?,?)");
    f.Bind(name).Bind(p.cursor).Bind(p.failed_event_id).Bind(now).Bind(p.error);
    SqlStatement trim(*db_,
                      "DELETE FROM outbox_failures WHERE id <= (SELECT "
                      "MAX(id) FROM outbox_failures) - 1000");
    int code = f.Step();
    if (code == kSqlDone) code = trim.Step();
    if (code != kSqlDone) return Error(code, "cannot record a failure");
    return absl::OkStatus();
  });
}

absl::Status IncidentStore::NoteRetry(const std::string& name,
                                      const std::string& owner,
                                      const std::string& error) {
  SqlStatement s(*db_,
                 "UPDATE outbox_destinations SET retried = retried + 1, "
                 "last_error = ?, last_error_ms = ? WHERE name = ? AND "
                 "lease_owner = ?");
  s.Bind(error).Bind(NowUnixMs()).Bind(name).Bind(owner);
  if (const int code = s.Step(); code != kSqlDone) {
    return Error(code, "cannot count a retry");
  }
  return absl::OkStatus();
}

absl::StatusOr<int64_t> IncidentStore::PruneOutbox(int64_t before_ms,
                                                   int64_t max_events) {
  int64_t dropped = 0;
  absl::Status s = InTransaction([&]() -> absl::Status {
    // The newest event that goes: by age, by size, or done everywhere.
    // Events are queued in time order (within a clock step), so those past
    // the age bound are the oldest: up to the first young one.
    const char* greatest = db_->dialect().greatest;
    SqlStatement last(
        *db_,
        absl::StrCat(
            "SELECT ", greatest,
            "(COALESCE((SELECT seq FROM outbox WHERE time_ms >= ? ORDER BY "
            "seq LIMIT 1) - 1, (SELECT COALESCE(MAX(seq), 0) FROM outbox)), "
            "COALESCE((SELECT seq FROM outbox ORDER BY seq DESC LIMIT 1 "
            "OFFSET ?), 0))"));
    last.Bind(before_ms).Bind(max_events);
    if (const int code = last.Step(); code != kSqlRow) {
      return Error(code, "cannot prune the outbox");
    }
    const int64_t cut = last.Int(0);
    SqlStatement lost(*db_,
                      "SELECT COALESCE(SUM((SELECT COUNT(*) FROM outbox WHERE "
                      "seq > d.cursor AND seq <= ?)), 0) FROM "
                      "outbox_destinations d");
    lost.Bind(cut);
    if (const int code = lost.Step(); code != kSqlRow) {
      return Error(code, "cannot prune the outbox");
    }
    dropped = lost.Int(0);
    SqlStatement count(
        *db_, absl::StrCat("UPDATE outbox_destinations SET dropped = dropped "
                           "+ (SELECT COUNT(*) FROM outbox WHERE seq > cursor "
                           "AND seq <= ?1), cursor = ",
                           greatest, "(cursor, ?1)"));
    count.Bind(cut);
    if (const int code = count.Step(); code != kSqlDone) {
      return Error(code, "cannot prune the outbox");
    }
    SqlStatement done(
        *db_, absl::StrCat("DELETE FROM outbox WHERE seq <= ", greatest,
                           "(?, COALESCE((SELECT MIN(cursor) FROM "
                           "outbox_destinations), (SELECT COALESCE(MAX(seq), "
                           "0) FROM outbox)))"));
    done.Bind(cut);
    if (const int code = done.Step(); code != kSqlDone) {
      return Error(code, "cannot prune the outbox");
    }
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  return dropped;
}

absl::StatusOr<std::vector<OutboxDestinationState>>
IncidentStore::OutboxStates() {
  SqlStatement s(
      *db_,
      "SELECT name, cursor, delivered, skipped, failed, dropped, retried, "
      "(SELECT COUNT(*) FROM outbox WHERE seq > d.cursor), COALESCE((SELECT "
      "time_ms FROM outbox WHERE seq > d.cursor ORDER BY seq LIMIT 1), 0), "
      "last_delivery_ms, last_error, last_error_ms, lease_owner, "
      "lease_until_ms FROM outbox_destinations d ORDER BY name");
  std::vector<OutboxDestinationState> out;
  int code;
  while ((code = s.Step()) == kSqlRow) {
    OutboxDestinationState d;
    d.name = s.Text(0);
    d.cursor = s.Int(1);
    d.delivered = s.Int(2);
    d.skipped = s.Int(3);
    d.failed = s.Int(4);
    d.dropped = s.Int(5);
    d.retried = s.Int(6);
    d.pending = s.Int(7);
    d.oldest_pending_ms = s.Int(8);
    d.last_delivery_ms = s.Int(9);
    d.last_error = s.Text(10);
    d.last_error_ms = s.Int(11);
    d.lease_owner = s.Text(12);
    d.lease_until_ms = s.Int(13);
    out.push_back(std::move(d));
  }
  if (code != kSqlDone) return Error(code, "cannot read the outbox");
  return out;
}

absl::StatusOr<std::vector<OutboxFailure>> IncidentStore::OutboxFailures(
    size_t limit) {
  SqlStatement s(*db_,
                 "SELECT destination, seq, event_id, time_ms, error FROM "
                 "outbox_failures ORDER BY id DESC LIMIT ?");
  s.Bind(static_cast<int64_t>(limit));
  std::vector<OutboxFailure> out;
  int code;
  while ((code = s.Step()) == kSqlRow) {
    out.push_back({s.Text(0), s.Int(1), s.Text(2), s.Int(3), s.Text(4)});
  }
  if (code != kSqlDone) return Error(code, "cannot read the outbox");
  return out;
}

absl::StatusOr<int64_t> IncidentStore::OutboxSize() {
  SqlStatement s(*db_, "SELECT COUNT(*) FROM outbox");
  if (const int code = s.Step(); code != kSqlRow) {
    return Error(code, "cannot read the outbox");
  }
  return s.Int(0);
}

}  // namespace leakhound
