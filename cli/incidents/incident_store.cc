// The one file that calls SQLite.
#include "cli/incidents/incident_store.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>
#include <variant>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace leakhound {

// A prepared statement (declared in the header for IncidentStore's
// private helpers); binds by position from 1.
class SqlStatement {
 public:
  SqlStatement(sqlite3* db, const std::string& sql) : db_(db) {
    code_ = sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt_, nullptr);
  }
  ~SqlStatement() { sqlite3_finalize(stmt_); }
  SqlStatement(const SqlStatement&) = delete;
  SqlStatement& operator=(const SqlStatement&) = delete;

  int code() const { return code_; }
  SqlStatement& Bind(int64_t v) {
    Note(sqlite3_bind_int64(stmt_, ++next_, v));
    return *this;
  }
  SqlStatement& Bind(double v) {
    Note(sqlite3_bind_double(stmt_, ++next_, v));
    return *this;
  }
  SqlStatement& Bind(std::string_view v) {
    Note(sqlite3_bind_text(stmt_, ++next_, v.data(), static_cast<int>(v.size()),
                           SQLITE_TRANSIENT));
    return *this;
  }
  // SQLITE_ROW, SQLITE_DONE or an error code.
  int Step() {
    if (code_ != SQLITE_OK) return code_;
    return sqlite3_step(stmt_);
  }
  void Reset() {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
    next_ = 0;
  }
  int64_t Int(int col) const { return sqlite3_column_int64(stmt_, col); }
  double Real(int col) const { return sqlite3_column_double(stmt_, col); }
  std::string Text(int col) const {
    const auto* p = sqlite3_column_text(stmt_, col);
    return p != nullptr
               ? std::string(
                     reinterpret_cast<const char*>(p),
                     static_cast<size_t>(sqlite3_column_bytes(stmt_, col)))
               : std::string();
  }

 private:
  void Note(int code) {
    if (code_ == SQLITE_OK && code != SQLITE_OK) code_ = code;
  }
  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
  int code_ = SQLITE_OK;
  int next_ = 0;
};

namespace {

// PERSISTED: migrations_[v] takes the schema from version v to v + 1.
// Never edit a released step; append one.
constexpr const char* kMigrations[] = {
    // 0 -> 1
    "CREATE TABLE incidents ("
    "  id INTEGER PRIMARY KEY,"
    "  time_ms INTEGER NOT NULL,"
    "  source TEXT NOT NULL,"
    "  kind TEXT NOT NULL,"
    "  action TEXT NOT NULL,"
    "  queue_id TEXT NOT NULL DEFAULT '',"
    "  message_id TEXT NOT NULL DEFAULT '',"
    "  sender TEXT NOT NULL DEFAULT '' COLLATE NOCASE,"
    "  recipients TEXT NOT NULL DEFAULT '',"
    "  subject TEXT NOT NULL DEFAULT '',"
    "  client TEXT NOT NULL DEFAULT '',"
    "  run_id TEXT NOT NULL DEFAULT '',"
    "  file_path TEXT NOT NULL DEFAULT '',"
    "  file_size INTEGER NOT NULL DEFAULT 0,"
    "  sha256 TEXT NOT NULL DEFAULT '',"
    "  detail TEXT NOT NULL DEFAULT '',"
    "  documents TEXT NOT NULL DEFAULT '',"
    "  status TEXT NOT NULL DEFAULT 'open',"
    "  note TEXT NOT NULL DEFAULT '',"
    "  reviewed_by TEXT NOT NULL DEFAULT '',"
    "  reviewed_ms INTEGER NOT NULL DEFAULT 0,"
    "  mail_state TEXT NOT NULL DEFAULT '');"
    "CREATE INDEX incidents_by_time ON incidents(time_ms);"
    "CREATE INDEX incidents_by_status ON incidents(status, time_ms);"
    "CREATE INDEX incidents_by_action ON incidents(action, time_ms);"
    "CREATE INDEX incidents_by_sender ON incidents(sender, time_ms);"
    "CREATE TABLE matches ("
    "  incident_id INTEGER NOT NULL,"
    "  ordinal INTEGER NOT NULL,"
    "  document TEXT NOT NULL,"
    "  source TEXT NOT NULL,"
    "  labels TEXT NOT NULL,"
    "  part TEXT NOT NULL,"
    "  byte_begin INTEGER NOT NULL,"
    "  byte_end INTEGER NOT NULL,"
    "  words INTEGER NOT NULL,"
    "  coverage REAL NOT NULL,"
    "  snippet TEXT NOT NULL,"
    "  snippet_begin INTEGER NOT NULL,"
    "  snippet_end INTEGER NOT NULL,"
    "  PRIMARY KEY (incident_id, ordinal)) WITHOUT ROWID;"
    "CREATE INDEX matches_by_document ON matches(document, incident_id);"
    "CREATE TABLE users ("
    "  name TEXT PRIMARY KEY,"
    "  role TEXT NOT NULL,"
    "  password_hash TEXT NOT NULL,"
    "  created_ms INTEGER NOT NULL);"
    "CREATE TABLE audit ("
    "  id INTEGER PRIMARY KEY,"
    "  time_ms INTEGER NOT NULL,"
    "  user TEXT NOT NULL,"
    "  action TEXT NOT NULL,"
    "  incident_id INTEGER NOT NULL,"
    "  detail TEXT NOT NULL);"
    "CREATE INDEX audit_by_incident ON audit(incident_id, id);",
    // 1 -> 2: the policy's decision (docs/policy.md).
    "ALTER TABLE incidents ADD COLUMN reference TEXT NOT NULL DEFAULT '';"
    "ALTER TABLE incidents ADD COLUMN severity TEXT NOT NULL DEFAULT '';"
    "ALTER TABLE incidents ADD COLUMN policy TEXT NOT NULL DEFAULT '';"
    "ALTER TABLE incidents ADD COLUMN would_action TEXT NOT NULL DEFAULT '';"
    "CREATE INDEX incidents_by_severity ON incidents(severity, time_ms);"
    "CREATE INDEX incidents_by_reference ON incidents(reference);"
    "CREATE TABLE incident_rules ("
    "  incident_id INTEGER NOT NULL,"
    "  ordinal INTEGER NOT NULL,"
    "  rule TEXT NOT NULL,"
    "  severity TEXT NOT NULL,"
    "  action TEXT NOT NULL,"
    "  monitor INTEGER NOT NULL,"
    "  PRIMARY KEY (incident_id, ordinal)) WITHOUT ROWID;"
    "CREATE INDEX incident_rules_by_rule ON incident_rules(rule, incident_id);"
    "CREATE TABLE incident_documents ("
    "  incident_id INTEGER NOT NULL,"
    "  ordinal INTEGER NOT NULL,"
    "  document TEXT NOT NULL,"
    "  labels TEXT NOT NULL,"
    "  words INTEGER NOT NULL,"
    "  share REAL NOT NULL,"
    "  PRIMARY KEY (incident_id, ordinal)) WITHOUT ROWID;",
    // 2 -> 3: the web channel (docs/web-gateway.md).
    "ALTER TABLE incidents ADD COLUMN method TEXT NOT NULL DEFAULT '';"
    "ALTER TABLE incidents ADD COLUMN url TEXT NOT NULL DEFAULT '';"
    "CREATE INDEX incidents_by_source ON incidents(source, time_ms);",
    // 3 -> 4: the outbox to the SIEM and webhooks (docs/siem.md).
    "CREATE TABLE outbox ("
    "  seq INTEGER PRIMARY KEY AUTOINCREMENT,"
    "  event_id TEXT NOT NULL,"
    "  time_ms INTEGER NOT NULL,"
    "  type TEXT NOT NULL,"
    "  incident_id INTEGER NOT NULL,"
    "  payload TEXT NOT NULL);"
    "CREATE TABLE outbox_destinations ("
    "  name TEXT PRIMARY KEY,"
    "  cursor INTEGER NOT NULL,"
    "  delivered INTEGER NOT NULL DEFAULT 0,"
    "  skipped INTEGER NOT NULL DEFAULT 0,"
    "  failed INTEGER NOT NULL DEFAULT 0,"
    "  dropped INTEGER NOT NULL DEFAULT 0,"
    "  retried INTEGER NOT NULL DEFAULT 0,"
    "  last_delivery_ms INTEGER NOT NULL DEFAULT 0,"
    "  last_error TEXT NOT NULL DEFAULT '',"
    "  last_error_ms INTEGER NOT NULL DEFAULT 0,"
    "  lease_owner TEXT NOT NULL DEFAULT '',"
    "  lease_until_ms INTEGER NOT NULL DEFAULT 0);"
    "CREATE TABLE outbox_failures ("
    "  id INTEGER PRIMARY KEY,"
    "  destination TEXT NOT NULL,"
    "  seq INTEGER NOT NULL,"
    "  event_id TEXT NOT NULL,"
    "  time_ms INTEGER NOT NULL,"
    "  error TEXT NOT NULL);",
};
static_assert(std::size(kMigrations) == kIncidentSchemaVersion);

constexpr char kListSeparator = '\n';  // PERSISTED: joins recipients, labels

absl::Status StatusOf(int code, std::string_view path, std::string_view what,
                      const char* message) {
  const std::string text =
      absl::StrCat("incidents ", std::string(path), ": ", std::string(what),
                   ": ", message != nullptr ? message : sqlite3_errstr(code));
  switch (code & 0xFF) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return absl::UnavailableError(text);
    case SQLITE_FULL:
      return absl::ResourceExhaustedError(text);
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
      return absl::DataLossError(text);
    case SQLITE_CANTOPEN:
    case SQLITE_PERM:
    case SQLITE_READONLY:
      return absl::PermissionDeniedError(text);
    default:
      return absl::InternalError(text);
  }
}

std::vector<std::string> SplitList(const std::string& joined) {
  if (joined.empty()) return {};
  return absl::StrSplit(joined, kListSeparator);
}

// The WHERE clause of `f`, and binds its values in order.
struct Where {
  std::string sql;
  std::vector<std::variant<int64_t, std::string>> values;
};

Where WhereOf(const IncidentFilter& f) {
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
  equal("sender", f.sender);
  equal("severity", f.severity);
  equal("reference", f.reference);
  if (!f.rule.empty()) {
    terms.push_back(
        "id IN (SELECT incident_id FROM incident_rules WHERE rule = ?)");
    w.values.emplace_back(f.rule);
  }
  if (!f.recipient.empty()) {
    // The list is joined by kListSeparator ('\n'): a whole entry matches.
    terms.push_back(
        "instr(char(10) || lower(recipients) || char(10), "
        "char(10) || lower(?) || char(10)) > 0");
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

constexpr char kColumns[] =
    "id, time_ms, source, kind, action, queue_id, message_id, sender, "
    "recipients, subject, client, run_id, file_path, file_size, sha256, "
    "detail, documents, status, note, reviewed_by, reviewed_ms, mail_state, "
    "reference, severity, policy, would_action, method, url";

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
  return i;
}

}  // namespace

absl::StatusOr<std::unique_ptr<IncidentStore>> IncidentStore::Open(
    const std::string& path, const Options& options) {
  // The database file is opened by SQLite alone: an open() and close() of
  // it elsewhere in the process would drop the POSIX locks SQLite holds
  // through its connections (fcntl locks are per process and file), and
  // the next process to close the store would then checkpoint and delete
  // the -wal and -shm files under a live writer.
  struct stat st {};
  const bool exists = ::stat(path.c_str(), &st) == 0;
  if (!exists && !options.create) {
    return absl::NotFoundError(
        absl::StrCat("incidents ", path, ": no such file"));
  }
  // A store others can write lets them plant a console admin or rewrite
  // reviews: refused, whoever opens it.
  if (exists && (st.st_mode & S_IWOTH)) {
    return absl::FailedPreconditionError(
        absl::StrCat("incidents ", path, " can be written by anyone (mode ",
                     absl::StrFormat("%04o", st.st_mode & 07777),
                     "); refused: chmod o-w ", path));
  }
  sqlite3* db = nullptr;
  const int code =
      sqlite3_open_v2(path.c_str(), &db,
                      SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX |
                          (options.create ? SQLITE_OPEN_CREATE : 0),
                      nullptr);
  if (code != SQLITE_OK) {
    absl::Status status =
        StatusOf(code, path, "cannot open",
                 db != nullptr ? sqlite3_errmsg(db) : nullptr);
    sqlite3_close(db);
    return status;
  }
  // A new file is made owner-only before anything is written to it (chmod
  // takes no lock); SQLite gives its -wal and -shm files the database
  // file's mode when it creates them.
  if (!exists && ::chmod(path.c_str(), 0600) != 0) {
    const int error = errno;
    sqlite3_close(db);
    return absl::PermissionDeniedError(
        absl::StrCat("incidents ", path,
                     ": cannot make it owner-only: ", std::strerror(error)));
  }
  std::unique_ptr<IncidentStore> store(new IncidentStore(path, db));
  sqlite3_busy_timeout(db, options.busy_timeout_ms);
  sqlite3_extended_result_codes(db, 1);
  // WAL: readers never block the writer; synchronous=NORMAL is durable
  // against a process crash (the WAL is in the OS), and loses at most the
  // last transactions on power loss, never consistency.
  if (absl::Status s = store->Exec("PRAGMA journal_mode=WAL;"); !s.ok())
    return s;
  if (absl::Status s = store->Exec("PRAGMA synchronous=NORMAL;"); !s.ok())
    return s;
  if (absl::Status s = store->Migrate(); !s.ok()) return s;
  return store;
}

IncidentStore::~IncidentStore() { sqlite3_close_v2(db_); }

absl::Status IncidentStore::Error(int code, const char* what) const {
  return StatusOf(code, path_, what, sqlite3_errmsg(db_));
}

absl::Status IncidentStore::Exec(const char* sql) {
  char* message = nullptr;
  const int code = sqlite3_exec(db_, sql, nullptr, nullptr, &message);
  if (code == SQLITE_OK) return absl::OkStatus();
  absl::Status status = StatusOf(code, path_, "statement failed", message);
  sqlite3_free(message);
  return status;
}

absl::Status IncidentStore::Migrate() {
  SqlStatement version(db_, "PRAGMA user_version");
  if (version.Step() != SQLITE_ROW)
    return Error(version.code(), "cannot read the schema version");
  schema_version_ = static_cast<int>(version.Int(0));
  if (schema_version_ > kIncidentSchemaVersion) {
    return absl::FailedPreconditionError(
        absl::StrCat("incidents ", path_, ": schema version ", schema_version_,
                     " is newer than this leakhound's (",
                     kIncidentSchemaVersion, "); upgrade leakhound"));
  }
  while (schema_version_ < kIncidentSchemaVersion) {
    // BEGIN IMMEDIATE: two processes opening a new file migrate it once.
    if (absl::Status s = Exec("BEGIN IMMEDIATE"); !s.ok()) return s;
    SqlStatement again(db_, "PRAGMA user_version");
    if (again.Step() != SQLITE_ROW) {
      Exec("ROLLBACK").IgnoreError();
      return Error(again.code(), "cannot read the schema version");
    }
    schema_version_ = static_cast<int>(again.Int(0));
    if (schema_version_ >= kIncidentSchemaVersion) {
      return Exec("COMMIT");
    }
    absl::Status s = Exec(kMigrations[schema_version_]);
    if (s.ok()) {
      s = Exec(
          absl::StrCat("PRAGMA user_version = ", schema_version_ + 1).c_str());
    }
    if (!s.ok()) {
      Exec("ROLLBACK").IgnoreError();
      return s;
    }
    if (absl::Status c = Exec("COMMIT"); !c.ok()) return c;
    ++schema_version_;
  }
  return absl::OkStatus();
}

absl::Status IncidentStore::UpdatedOne(SqlStatement& update, int64_t id) {
  if (const int code = update.Step(); code != SQLITE_DONE) {
    return Error(code, "cannot update an incident");
  }
  if (sqlite3_changes(db_) == 0) {
    return absl::NotFoundError(absl::StrCat("no incident ", id));
  }
  return absl::OkStatus();
}

absl::Status IncidentStore::InTransaction(
    const std::function<absl::Status()>& body) {
  if (absl::Status s = Exec("BEGIN IMMEDIATE"); !s.ok()) return s;
  absl::Status s = body();
  if (s.ok()) s = Exec("COMMIT");
  if (!s.ok()) Exec("ROLLBACK").IgnoreError();
  return s;
}

absl::Status IncidentStore::Insert(std::span<Incident> incidents) {
  absl::Status s = InTransaction([&] { return InsertAll(incidents); });
  if (!s.ok()) {
    for (Incident& i : incidents) i.id = 0;
  }
  return s;
}

absl::Status IncidentStore::InsertAll(std::span<Incident> incidents) {
  SqlStatement add(db_,
                   "INSERT INTO incidents (time_ms, source, kind, action, "
                   "queue_id, message_id, sender, recipients, subject, client, "
                   "run_id, file_path, file_size, sha256, detail, documents, "
                   "status, note, reviewed_by, reviewed_ms, mail_state, "
                   "reference, severity, policy, would_action, method, url) "
                   "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,"
                   "?,?)");
  SqlStatement match(
      db_,
      "INSERT INTO matches (incident_id, ordinal, document, source, "
      "labels, part, byte_begin, byte_end, words, coverage, snippet, "
      "snippet_begin, snippet_end) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)");
  if (add.code() != SQLITE_OK) return Error(add.code(), "cannot prepare");
  if (match.code() != SQLITE_OK) return Error(match.code(), "cannot prepare");
  const std::string separator(1, kListSeparator);
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
        .Bind(i.url);
    if (const int code = add.Step(); code != SQLITE_DONE) {
      return Error(code, "cannot insert an incident");
    }
    i.id = sqlite3_last_insert_rowid(db_);
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
      if (const int code = match.Step(); code != SQLITE_DONE) {
        return Error(code, "cannot insert a match");
      }
    }
    if (absl::Status st = InsertDecision(i); !st.ok()) return st;
  }
  return Enqueue([&]() -> absl::StatusOr<std::vector<OutboxEvent>> {
    std::vector<OutboxEvent> events;
    events.reserve(incidents.size());
    for (const Incident& i : incidents) events.push_back(IncidentEvent(i));
    return events;
  });
}

absl::Status IncidentStore::InsertDecision(const Incident& i) {
  SqlStatement rule(db_,
                    "INSERT INTO incident_rules (incident_id, ordinal, rule, "
                    "severity, action, monitor) VALUES (?,?,?,?,?,?)");
  SqlStatement fact(db_,
                    "INSERT INTO incident_documents (incident_id, ordinal, "
                    "document, labels, words, share) VALUES (?,?,?,?,?,?)");
  if (rule.code() != SQLITE_OK) return Error(rule.code(), "cannot prepare");
  if (fact.code() != SQLITE_OK) return Error(fact.code(), "cannot prepare");
  int64_t ordinal = 0;
  for (const IncidentRule& r : i.rules) {
    rule.Reset();
    rule.Bind(i.id)
        .Bind(ordinal++)
        .Bind(r.rule)
        .Bind(r.severity)
        .Bind(r.action)
        .Bind(int64_t{r.monitor ? 1 : 0});
    if (const int code = rule.Step(); code != SQLITE_DONE) {
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
    if (const int code = fact.Step(); code != SQLITE_DONE) {
      return Error(code, "cannot insert a document's facts");
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<Incident>> IncidentStore::List(
    const IncidentFilter& filter) {
  const Where where = WhereOf(filter);
  SqlStatement s(
      db_, absl::StrCat("SELECT ", kColumns, " FROM incidents", where.sql,
                        " ORDER BY time_ms DESC, id DESC LIMIT ? OFFSET ?"));
  BindWhere(s, where);
  s.Bind(static_cast<int64_t>(filter.limit))
      .Bind(static_cast<int64_t>(filter.offset));
  std::vector<Incident> out;
  int code;
  while ((code = s.Step()) == SQLITE_ROW) out.push_back(ReadIncident(s));
  if (code != SQLITE_DONE) return Error(code, "cannot list incidents");
  return out;
}

absl::StatusOr<int64_t> IncidentStore::Count(const IncidentFilter& filter) {
  const Where where = WhereOf(filter);
  SqlStatement s(db_,
                 absl::StrCat("SELECT COUNT(*) FROM incidents", where.sql));
  BindWhere(s, where);
  if (const int code = s.Step(); code != SQLITE_ROW) {
    return Error(code, "cannot count incidents");
  }
  return s.Int(0);
}

absl::Status IncidentStore::LoadMatches(Incident& incident) {
  if (absl::Status s = LoadPassages(incident); !s.ok()) return s;
  return LoadDecision(incident);
}

absl::Status IncidentStore::LoadPassages(Incident& incident) {
  SqlStatement s(db_,
                 "SELECT document, source, labels, part, byte_begin, byte_end, "
                 "words, coverage, snippet, snippet_begin, snippet_end FROM "
                 "matches WHERE incident_id = ? ORDER BY ordinal");
  s.Bind(incident.id);
  int code;
  while ((code = s.Step()) == SQLITE_ROW) {
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
  if (code != SQLITE_DONE) return Error(code, "cannot read matches");
  return absl::OkStatus();
}

absl::Status IncidentStore::LoadDecision(Incident& incident) {
  int code;
  SqlStatement rules(db_,
                     "SELECT rule, severity, action, monitor FROM "
                     "incident_rules WHERE incident_id = ? ORDER BY ordinal");
  rules.Bind(incident.id);
  while ((code = rules.Step()) == SQLITE_ROW) {
    incident.rules.push_back(
        {rules.Text(0), rules.Text(1), rules.Text(2), rules.Int(3) != 0});
  }
  if (code != SQLITE_DONE) return Error(code, "cannot read rules");
  SqlStatement facts(db_,
                     "SELECT document, labels, words, share FROM "
                     "incident_documents WHERE incident_id = ? ORDER BY "
                     "ordinal");
  facts.Bind(incident.id);
  while ((code = facts.Step()) == SQLITE_ROW) {
    incident.facts.push_back({facts.Text(0), SplitList(facts.Text(1)),
                              static_cast<uint32_t>(facts.Int(2)),
                              facts.Real(3)});
  }
  if (code != SQLITE_DONE) return Error(code, "cannot read facts");
  return absl::OkStatus();
}

absl::Status IncidentStore::ForEach(
    const IncidentFilter& filter,
    const std::function<absl::Status(const Incident&)>& fn, Load load) {
  const Where where = WhereOf(filter);
  SqlStatement s(db_,
                 absl::StrCat("SELECT ", kColumns, " FROM incidents", where.sql,
                              " ORDER BY time_ms DESC, id DESC"));
  BindWhere(s, where);
  int code;
  while ((code = s.Step()) == SQLITE_ROW) {
    Incident i = ReadIncident(s);
    absl::Status st = LoadDecision(i);
    // Incidents from before the facts were kept have their matches.
    if (st.ok() && (load == Load::kAll || i.facts.empty())) {
      st = LoadPassages(i);
    }
    if (!st.ok()) return st;
    if (st = fn(i); !st.ok()) return st;
  }
  if (code != SQLITE_DONE) return Error(code, "cannot read incidents");
  return absl::OkStatus();
}

absl::StatusOr<Incident> IncidentStore::Get(int64_t id) {
  SqlStatement s(
      db_, absl::StrCat("SELECT ", kColumns, " FROM incidents WHERE id = ?"));
  s.Bind(id);
  const int code = s.Step();
  if (code == SQLITE_DONE) {
    return absl::NotFoundError(absl::StrCat("no incident ", id));
  }
  if (code != SQLITE_ROW) return Error(code, "cannot read an incident");
  Incident i = ReadIncident(s);
  if (absl::Status st = LoadMatches(i); !st.ok()) return st;
  return i;
}

absl::Status IncidentStore::Resolve(int64_t id, const std::string& status,
                                    const std::string& note,
                                    const std::string& user) {
  if (status != "confirmed" && status != "false-positive" && status != "open") {
    return absl::InvalidArgumentError(absl::StrCat(
        "bad status '", status, "' (confirmed, false-positive or open)"));
  }
  return InTransaction([&]() -> absl::Status {
    SqlStatement s(
        db_,
        "UPDATE incidents SET status = ?, note = ?, reviewed_by = ?, "
        "reviewed_ms = ? WHERE id = ?");
    s.Bind(status).Bind(note).Bind(user).Bind(NowUnixMs()).Bind(id);
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
    SqlStatement s(db_, "UPDATE incidents SET mail_state = ? WHERE id = ?");
    s.Bind(state).Bind(id);
    if (absl::Status st = UpdatedOne(s, id); !st.ok()) return st;
    if (state == "released" || state == "deleted") {
      if (absl::Status st = EnqueueReview(id, state, user, detail); !st.ok())
        return st;
    }
    return Audit(user, "mail " + state, id, detail);
  });
}

absl::StatusOr<int64_t> IncidentStore::Purge(int64_t before_ms,
                                             const std::string& user) {
  int64_t deleted = 0;
  absl::Status s = InTransaction([&]() -> absl::Status {
    int code = SQLITE_DONE;
    for (const char* table :
         {"matches", "incident_rules", "incident_documents"}) {
      SqlStatement m(db_, absl::StrCat("DELETE FROM ", table,
                                       " WHERE incident_id IN (SELECT id FROM "
                                       "incidents WHERE time_ms < ?)"));
      m.Bind(before_ms);
      if (code == SQLITE_DONE) code = m.Step();
    }
    SqlStatement i(db_, "DELETE FROM incidents WHERE time_ms < ?");
    i.Bind(before_ms);
    if (code == SQLITE_DONE) code = i.Step();
    if (code != SQLITE_DONE) return Error(code, "cannot purge");
    deleted = sqlite3_changes(db_);
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

absl::Status IncidentStore::Enqueue(const EventMaker& make) {
  SqlStatement any(db_, "SELECT 1 FROM outbox_destinations LIMIT 1");
  const int found = any.Step();
  if (found == SQLITE_DONE) return absl::OkStatus();
  if (found != SQLITE_ROW) return Error(found, "cannot read the outbox");
  absl::StatusOr<std::vector<OutboxEvent>> events = make();
  if (!events.ok()) return events.status();
  SqlStatement add(db_,
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
    if (const int code = add.Step(); code != SQLITE_DONE) {
      return Error(code, "cannot queue an event");
    }
  }
  return absl::OkStatus();
}

absl::Status IncidentStore::EnqueueReview(int64_t id, std::string_view review,
                                          const std::string& user,
                                          const std::string& note) {
  return Enqueue([&]() -> absl::StatusOr<std::vector<OutboxEvent>> {
    SqlStatement s(
        db_, absl::StrCat("SELECT ", kColumns, " FROM incidents WHERE id = ?"));
    s.Bind(id);
    if (const int code = s.Step(); code != SQLITE_ROW) {
      return Error(code, "cannot read an incident");
    }
    Incident incident = ReadIncident(s);
    if (absl::Status st = LoadDecision(incident); !st.ok()) return st;
    return std::vector<OutboxEvent>{ReviewEvent(incident, review, user, note)};
  });
}

absl::Status IncidentStore::RegisterDestination(const std::string& name) {
  SqlStatement s(db_,
                 "INSERT OR IGNORE INTO outbox_destinations (name, cursor) "
                 "VALUES (?, (SELECT IFNULL(MAX(seq), 0) FROM outbox))");
  s.Bind(name);
  if (const int code = s.Step(); code != SQLITE_DONE) {
    return Error(code, "cannot register a destination");
  }
  return absl::OkStatus();
}

absl::Status IncidentStore::ForgetDestination(const std::string& name) {
  SqlStatement s(db_, "DELETE FROM outbox_destinations WHERE name = ?");
  s.Bind(name);
  if (const int code = s.Step(); code != SQLITE_DONE) {
    return Error(code, "cannot forget a destination");
  }
  if (sqlite3_changes(db_) == 0) {
    return absl::NotFoundError(absl::StrCat("no destination '", name, "'"));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> IncidentStore::TakeLease(
    const std::string& name, const std::string& owner, int64_t now_ms,
    int64_t until_ms, const std::string& stale_owner) {
  SqlStatement s(db_,
                 "UPDATE outbox_destinations SET lease_owner = ?, "
                 "lease_until_ms = ? WHERE name = ? AND (lease_owner IN "
                 "('', ?, ?) OR lease_until_ms < ?)");
  s.Bind(owner).Bind(until_ms).Bind(name).Bind(owner);
  s.Bind(stale_owner.empty() ? owner : stale_owner).Bind(now_ms);
  if (const int code = s.Step(); code != SQLITE_DONE) {
    return Error(code, "cannot take a destination's lease");
  }
  SqlStatement holder(
      db_, "SELECT lease_owner FROM outbox_destinations WHERE name = ?");
  holder.Bind(name);
  const int code = holder.Step();
  if (code == SQLITE_DONE) {
    return absl::NotFoundError(absl::StrCat("no destination '", name, "'"));
  }
  if (code != SQLITE_ROW) return Error(code, "cannot read a lease");
  return holder.Text(0);
}

absl::Status IncidentStore::ReleaseLease(const std::string& name,
                                         const std::string& owner) {
  SqlStatement s(db_,
                 "UPDATE outbox_destinations SET lease_owner = '', "
                 "lease_until_ms = 0 WHERE name = ? AND lease_owner = ?");
  s.Bind(name).Bind(owner);
  if (const int code = s.Step(); code != SQLITE_DONE) {
    return Error(code, "cannot release a destination's lease");
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<OutboxEvent>> IncidentStore::PendingEvents(
    const std::string& name, size_t limit) {
  SqlStatement s(db_,
                 "SELECT seq, event_id, time_ms, payload FROM outbox WHERE "
                 "seq > (SELECT cursor FROM outbox_destinations WHERE name = "
                 "?) ORDER BY seq LIMIT ?");
  s.Bind(name).Bind(static_cast<int64_t>(limit));
  std::vector<OutboxEvent> out;
  int code;
  while ((code = s.Step()) == SQLITE_ROW) {
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
  if (code != SQLITE_DONE) return Error(code, "cannot read the outbox");
  return out;
}

absl::Status IncidentStore::Advance(const std::string& name,
                                    const std::string& owner,
                                    const OutboxProgress& p) {
  return InTransaction([&]() -> absl::Status {
    const int64_t now = NowUnixMs();
    SqlStatement s(
        db_,
        "UPDATE outbox_destinations SET cursor = ?, delivered = delivered + "
        "?, skipped = skipped + ?, failed = failed + ?, last_delivery_ms = "
        "CASE WHEN ? > 0 THEN ? ELSE last_delivery_ms END, last_error = CASE "
        "WHEN ? > 0 THEN ? ELSE last_error END, last_error_ms = CASE WHEN ? > "
        "0 THEN ? ELSE last_error_ms END WHERE name = ? AND lease_owner = ? "
        "AND cursor < ?");
    s.Bind(p.cursor).Bind(p.delivered).Bind(p.skipped).Bind(p.failed);
    s.Bind(p.delivered).Bind(now).Bind(p.failed).Bind(p.error);
    s.Bind(p.failed).Bind(now).Bind(name).Bind(owner).Bind(p.cursor);
    if (const int code = s.Step(); code != SQLITE_DONE) {
      return Error(code, "cannot move a destination's cursor");
    }
    if (sqlite3_changes(db_) == 0) {
      return absl::FailedPreconditionError(
          absl::StrCat("outbox destination '", name,
                       "': the lease is no longer ", owner, "'s"));
    }
    if (p.failed == 0) return absl::OkStatus();
    SqlStatement f(db_,
                   "INSERT INTO outbox_failures (destination, seq, event_id, "
                   "time_ms, error) VALUES (?,?,?,?,?)");
    f.Bind(name).Bind(p.cursor).Bind(p.failed_event_id).Bind(now).Bind(p.error);
    SqlStatement trim(db_,
                      "DELETE FROM outbox_failures WHERE id <= (SELECT "
                      "MAX(id) FROM outbox_failures) - 1000");
    int code = f.Step();
    if (code == SQLITE_DONE) code = trim.Step();
    if (code != SQLITE_DONE) return Error(code, "cannot record a failure");
    return absl::OkStatus();
  });
}

absl::Status IncidentStore::NoteRetry(const std::string& name,
                                      const std::string& owner,
                                      const std::string& error) {
  SqlStatement s(db_,
                 "UPDATE outbox_destinations SET retried = retried + 1, "
                 "last_error = ?, last_error_ms = ? WHERE name = ? AND "
                 "lease_owner = ?");
  s.Bind(error).Bind(NowUnixMs()).Bind(name).Bind(owner);
  if (const int code = s.Step(); code != SQLITE_DONE) {
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
    SqlStatement last(
        db_,
        "SELECT MAX(IFNULL((SELECT seq FROM outbox WHERE time_ms >= ? ORDER "
        "BY seq LIMIT 1) - 1, (SELECT IFNULL(MAX(seq), 0) FROM outbox)), "
        "IFNULL((SELECT seq FROM outbox ORDER BY seq DESC LIMIT 1 OFFSET ?), "
        "0))");
    last.Bind(before_ms).Bind(max_events);
    if (const int code = last.Step(); code != SQLITE_ROW) {
      return Error(code, "cannot prune the outbox");
    }
    const int64_t cut = last.Int(0);
    SqlStatement lost(db_,
                      "SELECT IFNULL(SUM((SELECT COUNT(*) FROM outbox WHERE "
                      "seq > d.cursor AND seq <= ?)), 0) FROM "
                      "outbox_destinations d");
    lost.Bind(cut);
    if (const int code = lost.Step(); code != SQLITE_ROW) {
      return Error(code, "cannot prune the outbox");
    }
    dropped = lost.Int(0);
    SqlStatement count(db_,
                       "UPDATE outbox_destinations SET dropped = dropped + "
                       "(SELECT COUNT(*) FROM outbox WHERE seq > cursor AND "
                       "seq <= ?1), cursor = MAX(cursor, ?1)");
    count.Bind(cut);
    if (const int code = count.Step(); code != SQLITE_DONE) {
      return Error(code, "cannot prune the outbox");
    }
    SqlStatement done(db_,
                      "DELETE FROM outbox WHERE seq <= MAX(?, IFNULL((SELECT "
                      "MIN(cursor) FROM outbox_destinations), (SELECT "
                      "IFNULL(MAX(seq), 0) FROM outbox)))");
    done.Bind(cut);
    if (const int code = done.Step(); code != SQLITE_DONE) {
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
      db_,
      "SELECT name, cursor, delivered, skipped, failed, dropped, retried, "
      "(SELECT COUNT(*) FROM outbox WHERE seq > d.cursor), IFNULL((SELECT "
      "time_ms FROM outbox WHERE seq > d.cursor ORDER BY seq LIMIT 1), 0), "
      "last_delivery_ms, last_error, last_error_ms, lease_owner, "
      "lease_until_ms FROM outbox_destinations d ORDER BY name");
  std::vector<OutboxDestinationState> out;
  int code;
  while ((code = s.Step()) == SQLITE_ROW) {
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
  if (code != SQLITE_DONE) return Error(code, "cannot read the outbox");
  return out;
}

absl::StatusOr<std::vector<OutboxFailure>> IncidentStore::OutboxFailures(
    size_t limit) {
  SqlStatement s(db_,
                 "SELECT destination, seq, event_id, time_ms, error FROM "
                 "outbox_failures ORDER BY id DESC LIMIT ?");
  s.Bind(static_cast<int64_t>(limit));
  std::vector<OutboxFailure> out;
  int code;
  while ((code = s.Step()) == SQLITE_ROW) {
    out.push_back({s.Text(0), s.Int(1), s.Text(2), s.Int(3), s.Text(4)});
  }
  if (code != SQLITE_DONE) return Error(code, "cannot read the outbox");
  return out;
}

absl::StatusOr<int64_t> IncidentStore::OutboxSize() {
  SqlStatement s(db_, "SELECT COUNT(*) FROM outbox");
  if (const int code = s.Step(); code != SQLITE_ROW) {
    return Error(code, "cannot read the outbox");
  }
  return s.Int(0);
}

absl::Status IncidentStore::Audit(const std::string& user,
                                  const std::string& action,
                                  int64_t incident_id,
                                  const std::string& detail) {
  SqlStatement s(
      db_,
      "INSERT INTO audit (time_ms, user, action, incident_id, detail) "
      "VALUES (?,?,?,?,?)");
  s.Bind(NowUnixMs()).Bind(user).Bind(action).Bind(incident_id).Bind(detail);
  if (const int code = s.Step(); code != SQLITE_DONE) {
    return Error(code, "cannot write the audit trail");
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<AuditEntry>> IncidentStore::AuditTrail(
    int64_t incident_id, size_t limit) {
  SqlStatement s(
      db_,
      "SELECT id, time_ms, user, action, incident_id, detail FROM audit "
      "WHERE incident_id = ? ORDER BY id DESC LIMIT ?");
  s.Bind(incident_id).Bind(static_cast<int64_t>(limit));
  std::vector<AuditEntry> out;
  int code;
  while ((code = s.Step()) == SQLITE_ROW) {
    out.push_back(
        {s.Int(0), s.Int(1), s.Text(2), s.Text(3), s.Int(4), s.Text(5)});
  }
  if (code != SQLITE_DONE) return Error(code, "cannot read the audit trail");
  return out;
}

absl::Status IncidentStore::PutUser(const ConsoleUser& user) {
  SqlStatement s(db_,
                 "INSERT OR REPLACE INTO users (name, role, password_hash, "
                 "created_ms) VALUES (?,?,?,?)");
  s.Bind(user.name)
      .Bind(user.role)
      .Bind(user.password_hash)
      .Bind(user.created_ms);
  if (const int code = s.Step(); code != SQLITE_DONE) {
    return Error(code, "cannot write a user");
  }
  return absl::OkStatus();
}

absl::Status IncidentStore::RemoveUser(const std::string& name) {
  SqlStatement s(db_, "DELETE FROM users WHERE name = ? COLLATE NOCASE");
  s.Bind(name);
  if (const int code = s.Step(); code != SQLITE_DONE) {
    return Error(code, "cannot remove a user");
  }
  if (sqlite3_changes(db_) == 0) {
    return absl::NotFoundError(absl::StrCat("no user '", name, "'"));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::optional<ConsoleUser>> IncidentStore::GetUser(
    const std::string& name) {
  SqlStatement s(
      db_,
      "SELECT name, role, password_hash, created_ms FROM users WHERE "
      "name = ? COLLATE NOCASE");
  s.Bind(name);
  const int code = s.Step();
  if (code == SQLITE_DONE) return std::nullopt;
  if (code != SQLITE_ROW) return Error(code, "cannot read a user");
  return ConsoleUser{s.Text(0), s.Text(1), s.Text(2), s.Int(3)};
}

absl::StatusOr<std::vector<ConsoleUser>> IncidentStore::ListUsers() {
  SqlStatement s(
      db_,
      "SELECT name, role, password_hash, created_ms FROM users ORDER "
      "BY name");
  std::vector<ConsoleUser> out;
  int code;
  while ((code = s.Step()) == SQLITE_ROW) {
    out.push_back({s.Text(0), s.Text(1), s.Text(2), s.Int(3)});
  }
  if (code != SQLITE_DONE) return Error(code, "cannot list users");
  return out;
}

absl::StatusOr<std::vector<DayCount>> IncidentStore::PerDay(int64_t since_ms) {
  SqlStatement s(
      db_,
      "SELECT time_ms / 86400000 AS day, action, COUNT(*) FROM "
      "incidents WHERE time_ms >= ? GROUP BY day, action ORDER BY day");
  s.Bind(since_ms);
  std::vector<DayCount> out;
  int code;
  while ((code = s.Step()) == SQLITE_ROW) {
    out.push_back({s.Int(0), s.Text(1), s.Int(2)});
  }
  if (code != SQLITE_DONE) return Error(code, "cannot count incidents per day");
  return out;
}

absl::StatusOr<std::vector<NamedCount>> IncidentStore::NamedCounts(
    const char* sql, int64_t since_ms, size_t n) {
  SqlStatement s(db_, sql);
  s.Bind(since_ms).Bind(static_cast<int64_t>(n));
  std::vector<NamedCount> out;
  int code;
  while ((code = s.Step()) == SQLITE_ROW) out.push_back({s.Text(0), s.Int(1)});
  if (code != SQLITE_DONE) return Error(code, "cannot count incidents");
  return out;
}

absl::StatusOr<std::vector<NamedCount>> IncidentStore::TopDocuments(
    int64_t since_ms, size_t n) {
  return NamedCounts(
      "SELECT m.document, COUNT(DISTINCT m.incident_id) AS c FROM matches m "
      "JOIN incidents i ON i.id = m.incident_id WHERE i.time_ms >= ? GROUP BY "
      "m.document ORDER BY c DESC, m.document LIMIT ?",
      since_ms, n);
}

absl::StatusOr<std::vector<NamedCount>> IncidentStore::TopSenders(
    int64_t since_ms, size_t n) {
  return NamedCounts(
      "SELECT sender, COUNT(*) AS c FROM incidents WHERE time_ms >= ? AND "
      "sender != '' GROUP BY sender ORDER BY c DESC, sender LIMIT ?",
      since_ms, n);
}

absl::StatusOr<std::vector<NamedCount>> IncidentStore::PerSeverity(
    int64_t since_ms) {
  return NamedCounts(
      "SELECT severity, COUNT(*) AS c FROM incidents WHERE time_ms >= ? AND "
      "severity != '' GROUP BY severity ORDER BY c DESC, severity LIMIT ?",
      since_ms, 4);
}

absl::StatusOr<std::vector<NamedCount>> IncidentStore::PerRule(int64_t since_ms,
                                                               size_t n) {
  return NamedCounts(
      "SELECT r.rule, COUNT(DISTINCT r.incident_id) AS c FROM incident_rules "
      "r JOIN incidents i ON i.id = r.incident_id WHERE i.time_ms >= ? GROUP "
      "BY r.rule ORDER BY c DESC, r.rule LIMIT ?",
      since_ms, n);
}

absl::StatusOr<std::string> IncidentStore::IntegrityCheck() {
  SqlStatement s(db_, "PRAGMA integrity_check");
  std::vector<std::string> lines;
  int code;
  while ((code = s.Step()) == SQLITE_ROW) lines.push_back(s.Text(0));
  if (code != SQLITE_DONE) return Error(code, "integrity check failed to run");
  return absl::StrJoin(lines, "; ");
}

std::string SqliteVersion() { return sqlite3_libversion(); }

}  // namespace leakhound
