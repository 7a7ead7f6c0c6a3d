// IncidentStore: opening the store, its schema and migrations, and the
// transactions every part of it runs in (incident_store.h). The other
// concerns are incident_store_incidents.cc, _reviews.cc, _users.cc and
// _outbox.cc; SQLite itself is called only from sql_statement.cc.
#include "cli/incidents/incident_store.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "cli/incidents/sql_statement.h"
#include "index/trusted_path.h"

namespace leakhound {
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
    // 4 -> 5: which documents made each rule fire (issue 65), joined by
    // kListSeparator.
    ("ALTER TABLE incident_rules ADD COLUMN documents TEXT NOT NULL "
     "DEFAULT '';"),
};
static_assert(std::size(kMigrations) == kIncidentSchemaVersion);

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
  // A store others can write, or swap through its folder, lets them plant
  // a console admin or rewrite reviews: refused, whoever opens it.
  if (absl::Status s = CheckTrustedFile(path, "incidents"); !s.ok()) {
    return s;
  }
  auto opened = SqlOpen(path, options.create, options.busy_timeout_ms);
  if (!opened.ok()) return opened.status();
  sqlite3* db = *opened;
  // A new file is made owner-only before anything is written to it (chmod
  // takes no lock); SQLite gives its -wal and -shm files the database
  // file's mode when it creates them.
  if (!exists && ::chmod(path.c_str(), 0600) != 0) {
    const int error = errno;
    SqlClose(db);
    return absl::PermissionDeniedError(
        absl::StrCat("incidents ", path,
                     ": cannot make it owner-only: ", std::strerror(error)));
  }
  std::unique_ptr<IncidentStore> store(new IncidentStore(path, db));
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

IncidentStore::~IncidentStore() { SqlClose(db_); }

absl::Status IncidentStore::Error(int code, const char* what) const {
  return SqlError(db_, code, path_, what);
}

absl::Status IncidentStore::Exec(const char* sql) {
  return SqlExec(db_, sql, path_);
}

absl::Status IncidentStore::Migrate() {
  SqlStatement version(db_, "PRAGMA user_version");
  if (version.Step() != kSqlRow)
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
    if (again.Step() != kSqlRow) {
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
  if (const int code = update.Step(); code != kSqlDone) {
    return Error(code, "cannot update an incident");
  }
  if (SqlChanges(db_) == 0) {
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

absl::StatusOr<std::string> IncidentStore::IntegrityCheck() {
  SqlStatement s(db_, "PRAGMA integrity_check");
  std::vector<std::string> lines;
  int code;
  while ((code = s.Step()) == kSqlRow) lines.push_back(s.Text(0));
  if (code != kSqlDone) return Error(code, "integrity check failed to run");
  return absl::StrJoin(lines, "; ");
}

std::string SqliteVersion() { return SqlLibraryVersion(); }

}  // namespace leakhound
