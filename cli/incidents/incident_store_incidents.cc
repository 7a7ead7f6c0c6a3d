// IncidentStore: recording incidents and reading them back, one by one, in
// lists and in the dashboard's counts (incident_store.h).
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cli/incidents/incident_rows.h"
#include "cli/incidents/incident_store.h"
#include "cli/incidents/sql_connection.h"

namespace leakhound {

absl::Status IncidentStore::Insert(std::span<Incident> incidents) {
  absl::Status s = InTransaction([&] { return InsertAll(incidents); });
  if (!s.ok()) {
    for (Incident& i : incidents) i.id = 0;
  }
  return s;
}

absl::Status IncidentStore::InsertAll(std::span<Incident> incidents) {
  SqlStatement add(
      *db_,
      "INSERT INTO incidents (time_ms, source, kind, action, "
      "queue_id, message_id, sender, recipients, subject, client, "
      "run_id, file_path, file_size, sha256, detail, documents, "
      "status, note, reviewed_by, reviewed_ms, mail_state, "
      "reference, severity, policy, would_action, method, url, "
      "uid, node) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,"
      "?,?,?,?,?,?,?,?,?) ON CONFLICT (uid) WHERE uid != '' DO NOTHING "
      "RETURNING id");
  SqlStatement stored(*db_, "SELECT id FROM incidents WHERE uid = ?");
  SqlStatement match(
      *db_,
      "INSERT INTO matches (incident_id, ordinal, document, source, "
      "labels, part, byte_begin, byte_end, words, coverage, snippet, "
      "snippet_begin, snippet_end) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)");
  if (add.code() != kSqlOk) return Error(add.code(), "cannot prepare");
  if (match.code() != kSqlOk) return Error(match.code(), "cannot prepare");
  const std::string separator(1, kListSeparator);
  std::vector<const Incident*> added;  // not stored before
  for (Incident& i : incidents) {
    if (i.documents.empty()) i.documents = DistinctDocuments(i.matches);
    add.Reset();
    add.Bind(i.time_ms)
        .Bind(i.source)
        .Bind(i.kind)
        .Bind(i.action)
        .Bind(i.queue_id)
        .Bind(i.message_id)
        .Bind(i.sender)
        .Bind(absl::StrJoin(i.recipients, separator))
        .Bind(i.subject)
        .Bind(i.client)
        .Bind(i.run_id)
        .Bind(i.file_path)
        .Bind(static_cast<int64_t>(i.file_size))
        .Bind(i.sha256)
        .Bind(i.detail)
        .Bind(absl::StrJoin(i.documents, separator))
        .Bind(i.status)
        .Bind(i.note)
        .Bind(i.reviewed_by)
        .Bind(i.reviewed_ms)
        .Bind(i.mail_state)
        .Bind(i.reference)
        .Bind(i.severity)
        .Bind(i.policy)
        .Bind(i.would_action)
        .Bind(i.method)
        .Bind(i.url)
        .Bind(i.uid)
        .Bind(i.node);
    const int code = add.Step();
    if (code == kSqlDone && !i.uid.empty()) {  // stored before
      stored.Reset();
      stored.Bind(i.uid);
      if (const int found = stored.Step(); found != kSqlRow) {
        return Error(found, "cannot read a stored incident");
      }
      i.id = stored.Int(0);
      continue;
    }
    if (code != kSqlRow) return Error(code, "cannot insert an incident");
    i.id = add.Int(0);
    added.push_back(&i);
    if (absl::Status st = InsertPassages(i, match); !st.ok()) return st;
    if (absl::Status st = InsertDecision(i); !st.ok()) return st;
    if (absl::Status st = InsertOverride(i); !st.ok()) return st;
  }
  if (absl::Status st = CountIncidents(added); !st.ok()) return st;
  return Enqueue([&]() -> absl::StatusOr<std::vector<OutboxEvent>> {
    std::vector<OutboxEvent> events;
    events.reserve(added.size());
    for (const Incident* i : added) events.push_back(IncidentEvent(*i));
    return events;
  });
}

absl::Status IncidentStore::InsertPassages(const Incident& i,
                                           SqlStatement& match) {
  const std::string separator(1, kListSeparator);
  int64_t ordinal = 0;
  for (const IncidentMatch& m : i.matches) {
    match.Reset();
    match.Bind(i.id)
        .Bind(ordinal++)
        .Bind(m.document)
        .Bind(m.source)
        .Bind(absl::StrJoin(m.labels, separator))
        .Bind(m.part)
        .Bind(int64_t{m.byte_begin})
        .Bind(int64_t{m.byte_end})
        .Bind(int64_t{m.words})
        .Bind(m.coverage)
        .Bind(m.snippet)
        .Bind(int64_t{m.snippet_begin})
        .Bind(int64_t{m.snippet_end});
    if (const int code = match.Step(); code != kSqlDone) {
      return Error(code, "cannot insert a match");
    }
  }
  return absl::OkStatus();
}

absl::Status IncidentStore::InsertDecision(const Incident& i) {
  SqlStatement rule(*db_,
                    "INSERT INTO incident_rules (incident_id, ordinal, rule, "
                    "severity, action, monitor, documents) VALUES "
                    "(?,?,?,?,?,?,?)");
  SqlStatement fact(*db_,
                    "INSERT INTO incident_documents (incident_id, ordinal, "
                    "document, labels, words, share) VALUES (?,?,?,?,?,?)");
  if (rule.code() != kSqlOk) return Error(rule.code(), "cannot prepare");
  if (fact.code() != kSqlOk) return Error(fact.code(), "cannot prepare");
  int64_t ordinal = 0;
  for (const IncidentRule& r : i.rules) {
    rule.Reset();
    rule.Bind(i.id)
        .Bind(ordinal++)
        .Bind(r.rule)
        .Bind(r.severity)
        .Bind(r.action)
        .Bind(int64_t{r.monitor ? 1 : 0})
        .Bind(absl::StrJoin(r.documents, std::string(1, kListSeparator)));
    if (const int code = rule.Step(); code != kSqlDone) {
      return Error(code, "cannot insert a rule");
    }
  }
  ordinal = 0;
  for (const IncidentDocument& d : i.facts) {
    fact.Reset();
    fact.Bind(i.id)
        .Bind(ordinal++)
        .Bind(d.document)
        .Bind(absl::StrJoin(d.labels, std::string(1, kListSeparator)))
        .Bind(int64_t{d.words})
        .Bind(d.share);
    if (const int code = fact.Step(); code != kSqlDone) {
      return Error(code, "cannot insert a document's facts");
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<Incident>> IncidentStore::List(
    const IncidentFilter& filter) {
  const Where where = WhereOf(filter, db_->dialect());
  SqlStatement s(
      *db_,
      absl::StrCat("SELECT ", kIncidentColumns, " FROM incidents", where.sql,
                   " ORDER BY time_ms DESC, id DESC LIMIT ? OFFSET ?"));
  BindWhere(s, where);
  s.Bind(static_cast<int64_t>(filter.limit))
      .Bind(static_cast<int64_t>(filter.offset));
  std::vector<Incident> out;
  int code;
  while ((code = s.Step()) == kSqlRow) out.push_back(ReadIncident(s));
  if (code != kSqlDone) return Error(code, "cannot list incidents");
  // Every listing shows the rules that fired (`incidents list --json`'s
  // "rules" was empty before: issue 65).
  for (Incident& i : out) {
    if (absl::Status st = LoadDecision(i); !st.ok()) return st;
  }
  return out;
}

absl::StatusOr<int64_t> IncidentStore::Count(const IncidentFilter& filter) {
  const Where where = WhereOf(filter, db_->dialect());
  SqlStatement s(*db_,
                 absl::StrCat("SELECT COUNT(*) FROM incidents", where.sql));
  BindWhere(s, where);
  if (const int code = s.Step(); code != kSqlRow) {
    return Error(code, "cannot count incidents");
  }
  return s.Int(0);
}

absl::Status IncidentStore::LoadMatches(Incident& incident) {
  if (absl::Status s = LoadPassages(incident); !s.ok()) return s;
  return LoadDecision(incident);
}

absl::Status IncidentStore::LoadPassages(Incident& incident) {
  SqlStatement s(*db_,
                 "SELECT document, source, labels, part, byte_begin, byte_end, "
                 "words, coverage, snippet, snippet_begin, snippet_end FROM "
                 "matches WHERE incident_id = ? ORDER BY ordinal");
  s.Bind(incident.id);
  int code;
  while ((code = s.Step()) == kSqlRow) {
    IncidentMatch m;
    m.document = s.Text(0);
    m.source = s.Text(1);
    m.labels = SplitList(s.Text(2));
    m.part = s.Text(3);
    m.byte_begin = static_cast<uint32_t>(s.Int(4));
    m.byte_end = static_cast<uint32_t>(s.Int(5));
    m.words = static_cast<uint32_t>(s.Int(6));
    m.coverage = s.Real(7);
    m.snippet = s.Text(8);
    m.snippet_begin = static_cast<uint32_t>(s.Int(9));
    m.snippet_end = static_cast<uint32_t>(s.Int(10));
    // A damaged row must not index outside its snippet.
    if (m.snippet_end > m.snippet.size())
      m.snippet_end = static_cast<uint32_t>(m.snippet.size());
    if (m.snippet_begin > m.snippet_end) m.snippet_begin = m.snippet_end;
    incident.matches.push_back(std::move(m));
  }
  if (code != kSqlDone) return Error(code, "cannot read matches");
  return absl::OkStatus();
}

absl::Status IncidentStore::LoadDecision(Incident& incident) {
  int code;
  SqlStatement rules(*db_,
                     "SELECT rule, severity, action, monitor, documents "
                     "FROM incident_rules WHERE incident_id = ? ORDER BY "
                     "ordinal");
  rules.Bind(incident.id);
  while ((code = rules.Step()) == kSqlRow) {
    incident.rules.push_back({rules.Text(0), rules.Text(1), rules.Text(2),
                              rules.Int(3) != 0, SplitList(rules.Text(4))});
  }
  if (code != kSqlDone) return Error(code, "cannot read rules");
  SqlStatement facts(*db_,
                     "SELECT document, labels, words, share FROM "
                     "incident_documents WHERE incident_id = ? ORDER BY "
                     "ordinal");
  facts.Bind(incident.id);
  while ((code = facts.Step()) == kSqlRow) {
    incident.facts.push_back({facts.Text(0), SplitList(facts.Text(1)),
                              static_cast<uint32_t>(facts.Int(2)),
                              facts.Real(3)});
  }
  if (code != kSqlDone) return Error(code, "cannot read facts");
  return absl::OkStatus();
}

absl::Status IncidentStore::ForEach(
    const IncidentFilter& filter,
    const std::function<absl::Status(const Incident&)>& fn, Load load) {
  // Read a page at a time, after the last incident read (time, then id,
  // descending): PostgreSQL's results arrive whole, and a million
  // incidents would be held at once.
  constexpr int64_t kPage = 1000;
  const Where where = WhereOf(filter, db_->dialect());
  const std::string sql = absl::StrCat(
      "SELECT ", kIncidentColumns, " FROM incidents",
      where.sql.empty() ? " WHERE " : absl::StrCat(where.sql, " AND "),
      "(time_ms < ? OR (time_ms = ? AND id < ?)) ORDER BY time_ms DESC, id "
      "DESC LIMIT ?");
  int64_t last_time = std::numeric_limits<int64_t>::max();
  int64_t last_id = std::numeric_limits<int64_t>::max();
  for (int64_t read = kPage; read == kPage;) {
    SqlStatement s(*db_, sql);
    BindWhere(s, where);
    s.Bind(last_time).Bind(last_time).Bind(last_id).Bind(kPage);
    std::vector<Incident> page;
    int code;
    while ((code = s.Step()) == kSqlRow) page.push_back(ReadIncident(s));
    if (code != kSqlDone) return Error(code, "cannot read incidents");
    read = static_cast<int64_t>(page.size());
    for (Incident& i : page) {
      last_time = i.time_ms;
      last_id = i.id;
      absl::Status st = LoadDecision(i);
      // Incidents from before the facts were kept have their matches.
      if (st.ok() && (load == Load::kAll || i.facts.empty())) {
        st = LoadPassages(i);
      }
      if (!st.ok()) return st;
      if (st = fn(i); !st.ok()) return st;
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<Incident> IncidentStore::Get(int64_t id) {
  SqlStatement s(*db_, absl::StrCat("SELECT ", kIncidentColumns,
                                    " FROM incidents WHERE id = ?"));
  s.Bind(id);
  const int code = s.Step();
  if (code == kSqlDone) {
    return absl::NotFoundError(absl::StrCat("no incident ", id));
  }
  if (code != kSqlRow) return Error(code, "cannot read an incident");
  Incident i = ReadIncident(s);
  if (absl::Status st = LoadMatches(i); !st.ok()) return st;
  if (absl::Status st = LoadOverride(i); !st.ok()) return st;
  return i;
}

}  // namespace leakhound
