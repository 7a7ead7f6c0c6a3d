// IncidentStore: opening the store, its schema and migrations, and the
// transactions every part of it runs in (incident_store.h). The other
// concerns are incident_store_incidents.cc, _reviews.cc, _users.cc and
// _outbox.cc; SQLite itself is called only from sql_statement.cc.
#include "cli/incidents/incident_store.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "cli/incidents/sql_connection.h"
#include "index/trusted_path.h"

namespace leakhound {
namespace {

// PERSISTED: kMigrations[v] takes the schema from version v to v + 1, in
// SQLite's words; PostgreSQL runs them as PostgresDdl translates them.
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
    // 5 -> 6: the fleet's desk (issue 68, docs/fleet.md): the gateway's
    // stable id of an incident (a spool replayed after a crash stores each
    // once) and the node that made it; the nodes' heartbeats; the
    // published policies; the held mail's release and delete requests.
    "ALTER TABLE incidents ADD COLUMN uid TEXT NOT NULL DEFAULT '';"
    "ALTER TABLE incidents ADD COLUMN node TEXT NOT NULL DEFAULT '';"
    "CREATE UNIQUE INDEX incidents_by_uid ON incidents(uid) WHERE uid != '';"
    "CREATE TABLE nodes ("
    "  name TEXT PRIMARY KEY,"
    "  role TEXT NOT NULL,"
    "  version TEXT NOT NULL,"
    "  host TEXT NOT NULL,"
    "  pid INTEGER NOT NULL,"
    "  started_ms INTEGER NOT NULL,"
    "  heartbeat_ms INTEGER NOT NULL,"
    "  index_generation INTEGER NOT NULL,"
    "  index_documents INTEGER NOT NULL,"
    "  generation_ms INTEGER NOT NULL,"
    "  policy_digest TEXT NOT NULL,"
    "  policy_version INTEGER NOT NULL,"
    "  spool_depth INTEGER NOT NULL,"
    "  spool_oldest_ms INTEGER NOT NULL);"
    "CREATE TABLE policy_versions ("
    "  version INTEGER PRIMARY KEY,"
    "  time_ms INTEGER NOT NULL,"
    "  author TEXT NOT NULL,"
    "  digest TEXT NOT NULL,"
    "  comment TEXT NOT NULL,"
    "  body TEXT NOT NULL);"
    "CREATE TABLE mail_requests ("
    "  id INTEGER PRIMARY KEY,"
    "  time_ms INTEGER NOT NULL,"
    "  node TEXT NOT NULL,"
    "  incident_id INTEGER NOT NULL,"
    "  queue_id TEXT NOT NULL,"
    "  action TEXT NOT NULL,"
    "  requested_by TEXT NOT NULL,"
    "  state TEXT NOT NULL,"
    "  detail TEXT NOT NULL DEFAULT '',"
    "  done_ms INTEGER NOT NULL DEFAULT 0);"
    "CREATE INDEX mail_requests_by_node ON mail_requests(node, state, id);"
    "CREATE INDEX mail_requests_by_incident ON mail_requests(incident_id, id);"
    // The dashboard's counts per day (incident_store_counts.cc), filled
    // from the incidents there by the migration.
    "CREATE TABLE incident_counts ("
    "  day INTEGER NOT NULL,"
    "  kind TEXT NOT NULL,"
    "  name TEXT NOT NULL,"
    "  count INTEGER NOT NULL,"
    "  PRIMARY KEY (day, kind, name));",
    // 6 -> 7: overrides (docs/overrides.md): the offer made with an
    // incident, its use, and the one-time links that were opened.
    "CREATE TABLE overrides ("
    "  incident_id INTEGER NOT NULL,"
    "  kind TEXT NOT NULL,"
    "  rule TEXT NOT NULL,"
    "  sender TEXT NOT NULL,"
    "  until_ms INTEGER NOT NULL,"
    "  min_chars INTEGER NOT NULL,"
    "  per_day INTEGER NOT NULL,"
    "  state TEXT NOT NULL,"
    "  used_by TEXT NOT NULL DEFAULT '',"
    "  text TEXT NOT NULL DEFAULT '',"
    "  address TEXT NOT NULL DEFAULT '',"
    "  time_ms INTEGER NOT NULL DEFAULT 0,"
    "  revoked_by TEXT NOT NULL DEFAULT '',"
    "  host TEXT NOT NULL DEFAULT '',"
    "  digest TEXT NOT NULL DEFAULT '',"
    "  token_hash TEXT NOT NULL DEFAULT '',"
    "  retry_until_ms INTEGER NOT NULL DEFAULT 0,"
    "  retried_ms INTEGER NOT NULL DEFAULT 0,"
    "  PRIMARY KEY (incident_id));"
    "CREATE INDEX overrides_by_sender ON overrides(sender, state, time_ms);"
    "CREATE INDEX overrides_by_grant ON overrides(sender, host, digest);"
    "CREATE TABLE override_links ("
    "  nonce TEXT NOT NULL,"
    "  incident_id INTEGER NOT NULL,"
    "  used_ms INTEGER NOT NULL,"
    "  PRIMARY KEY (nonce));"
    // Cases (docs/console.md, "Cases"): an owner, a workflow, escalation
    // and comments; incidents reviewed before count as resolved.
    "ALTER TABLE incidents ADD COLUMN owner TEXT NOT NULL DEFAULT '';"
    "ALTER TABLE incidents ADD COLUMN workflow TEXT NOT NULL DEFAULT 'new';"
    "ALTER TABLE incidents ADD COLUMN escalated_to TEXT NOT NULL DEFAULT '';"
    "ALTER TABLE incidents ADD COLUMN escalated_ms INTEGER NOT NULL "
    "DEFAULT 0;"
    "UPDATE incidents SET workflow = 'resolved' WHERE status != 'open';"
    "CREATE INDEX incidents_by_workflow ON incidents(workflow, time_ms);"
    "CREATE INDEX incidents_by_owner ON incidents(owner, time_ms);"
    "CREATE TABLE comments ("
    "  id INTEGER PRIMARY KEY,"
    "  incident_id INTEGER NOT NULL,"
    "  time_ms INTEGER NOT NULL,"
    "  user TEXT NOT NULL,"
    "  text TEXT NOT NULL);"
    "CREATE INDEX comments_by_incident ON comments(incident_id, id);"
    // Scheduled reports (docs/console.md, "Reports"): when each was sent.
    "CREATE TABLE report_runs ("
    "  name TEXT NOT NULL,"
    "  sent_ms INTEGER NOT NULL,"
    "  PRIMARY KEY (name));",
    // 7 -> 8. The drip ledger (docs/policy.md, "Cumulative"): what each
    // message sent of each protected document (token ranges) or table
    // (keyed row hashes), by sender and domain.
    "CREATE TABLE drip_spans ("
    "  id INTEGER PRIMARY KEY,"
    "  sender TEXT NOT NULL,"
    "  domain TEXT NOT NULL,"
    "  target TEXT NOT NULL,"
    "  time_ms INTEGER NOT NULL,"
    "  begin_token INTEGER NOT NULL,"
    "  end_token INTEGER NOT NULL,"
    "  total INTEGER NOT NULL,"
    "  row_key TEXT NOT NULL,"
    "  channel TEXT NOT NULL,"
    "  reference TEXT NOT NULL);"
    "CREATE INDEX drip_by_sender ON drip_spans(sender, target, begin_token, "
    "end_token);"
    "CREATE INDEX drip_by_domain ON drip_spans(domain, target, time_ms);"
    "CREATE INDEX drip_by_time ON drip_spans(time_ms);",
    // 8 -> 9. Discovery (docs/discover.md): each target's catalogue, the
    // findings with their remediation, the runs.
    "CREATE TABLE discover_files ("
    "  target TEXT NOT NULL,"
    "  path TEXT NOT NULL,"
    "  device INTEGER NOT NULL,"
    "  inode INTEGER NOT NULL,"
    "  size INTEGER NOT NULL,"
    "  mtime_ns INTEGER NOT NULL,"
    "  ctime_ns INTEGER NOT NULL,"
    "  digest TEXT NOT NULL,"
    "  basis TEXT NOT NULL,"
    "  verdict TEXT NOT NULL,"
    "  reference TEXT NOT NULL,"
    "  claim TEXT NOT NULL DEFAULT '',"
    "  PRIMARY KEY (target, path));"
    "CREATE TABLE discover_findings ("
    "  reference TEXT NOT NULL,"
    "  incident_id INTEGER NOT NULL,"
    "  target TEXT NOT NULL,"
    "  path TEXT NOT NULL,"
    "  owner TEXT NOT NULL,"
    "  owner_group TEXT NOT NULL,"
    "  uid INTEGER NOT NULL,"
    "  gid INTEGER NOT NULL,"
    "  mode INTEGER NOT NULL,"
    "  mtime_ms INTEGER NOT NULL,"
    "  size INTEGER NOT NULL,"
    "  exposure TEXT NOT NULL,"
    "  remediation TEXT NOT NULL,"
    "  state TEXT NOT NULL,"
    "  quarantine_path TEXT NOT NULL,"
    "  detail TEXT NOT NULL,"
    "  updated_ms INTEGER NOT NULL,"
    "  PRIMARY KEY (reference));"
    "CREATE INDEX findings_by_target ON discover_findings(target, state);"
    "CREATE TABLE discover_runs ("
    "  target TEXT NOT NULL,"
    "  started_ms INTEGER NOT NULL,"
    "  finished_ms INTEGER NOT NULL,"
    "  files_seen INTEGER NOT NULL,"
    "  files_to_read INTEGER NOT NULL,"
    "  files_read INTEGER NOT NULL,"
    "  findings INTEGER NOT NULL,"
    "  closed INTEGER NOT NULL,"
    "  errors INTEGER NOT NULL,"
    "  PRIMARY KEY (target, started_ms));",
};
// The version whose migration also counts the stored incidents.
constexpr int kCountsVersion = 6;
static_assert(std::size(kMigrations) == kIncidentSchemaVersion);

// A step of kMigrations in PostgreSQL's words: SQLite's INTEGER is 64-bit
// and its REAL a double; a rowid key is an identity column; NOCASE
// columns compare through lower() (SqlDialect::CaselessEquals), so the
// sender's index is on lower(sender); "user" is a reserved word.
std::string PostgresDdl(std::string sql) {
  static constexpr std::pair<const char*, const char*> kSteps[] = {
      {"INTEGER PRIMARY KEY AUTOINCREMENT",
       "BIGINT GENERATED BY DEFAULT AS "
       "IDENTITY PRIMARY KEY"},
      {"INTEGER PRIMARY KEY",
       "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY"},
      {"INTEGER", "BIGINT"},
      {" REAL ", " DOUBLE PRECISION "},
      {" COLLATE NOCASE", ""},
      {") WITHOUT ROWID", ")"},
      {"  user TEXT", "  \"user\" TEXT"},
      {"ON incidents(sender,", "ON incidents(lower(sender),"},
  };
  for (const auto& [from, to] : kSteps) {
    sql = absl::StrReplaceAll(sql, {{from, to}});
  }
  return sql;
}

}  // namespace

absl::StatusOr<std::unique_ptr<IncidentStore>> IncidentStore::Open(
    const std::string& path, const Options& options) {
  if (IsDatabaseUri(path)) {
    auto db = OpenPostgres(path, options.busy_timeout_ms);
    if (!db.ok()) return db.status();
    std::unique_ptr<IncidentStore> store(
        new IncidentStore(path, *std::move(db)));
    if (absl::Status s = store->Migrate(); !s.ok()) return s;
    return store;
  }
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
  auto db = OpenSqlite(path, options.create, options.busy_timeout_ms);
  if (!db.ok()) return db.status();
  // A new file is made owner-only before anything is written to it (chmod
  // takes no lock); SQLite gives its -wal and -shm files the database
  // file's mode when it creates them.
  if (!exists && ::chmod(path.c_str(), 0600) != 0) {
    const int error = errno;
    return absl::PermissionDeniedError(
        absl::StrCat("incidents ", path,
                     ": cannot make it owner-only: ", std::strerror(error)));
  }
  std::unique_ptr<IncidentStore> store(new IncidentStore(path, *std::move(db)));
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

IncidentStore::IncidentStore(std::string path,
                             std::unique_ptr<SqlConnection> db)
    : path_(std::move(path)), db_(std::move(db)) {}

IncidentStore::~IncidentStore() = default;

absl::Status IncidentStore::Error(int code, const char* what) const {
  return db_->Error(code, what);
}

absl::Status IncidentStore::Exec(const char* sql) { return db_->Exec(sql); }

void IncidentStore::Interrupt() { db_->Interrupt(); }

absl::Status IncidentStore::Migrate() {
  auto version = db_->SchemaVersion();
  if (!version.ok()) return version.status();
  schema_version_ = *version;
  if (schema_version_ > kIncidentSchemaVersion) {
    return absl::FailedPreconditionError(
        absl::StrCat("incidents ", RedactedTarget(path_), ": schema version ",
                     schema_version_, " is newer than this leakhound's (",
                     kIncidentSchemaVersion, "); upgrade leakhound"));
  }
  if (schema_version_ == kIncidentSchemaVersion) return absl::OkStatus();
  // The schema lock and a write transaction per step: two processes
  // opening a new store migrate it once.
  if (absl::Status s = db_->LockSchema(); !s.ok()) return s;
  absl::Status s;
  while (s.ok() && schema_version_ < kIncidentSchemaVersion) {
    if (s = Exec(db_->dialect().begin_write); !s.ok()) break;
    version = db_->SchemaVersion();
    if (!version.ok()) s = version.status();
    if (s.ok() && *version < kIncidentSchemaVersion) {
      const char* step = kMigrations[*version];
      s = db_->Exec(db_->dialect().postgres ? PostgresDdl(step) : step);
      if (s.ok() && *version + 1 == kCountsVersion) {
        s = RecountBefore(std::numeric_limits<int64_t>::max());
      }
      if (s.ok()) s = db_->SetSchemaVersion(*version + 1);
    }
    if (!s.ok()) {
      Exec("ROLLBACK").IgnoreError();
      break;
    }
    if (s = Exec("COMMIT"); s.ok()) {
      schema_version_ = std::min(*version + 1, kIncidentSchemaVersion);
    }
  }
  db_->UnlockSchema();
  return s;
}

absl::Status IncidentStore::UpdatedOne(SqlStatement& update, int64_t id) {
  if (const int code = update.Step(); code != kSqlDone) {
    return Error(code, "cannot update an incident");
  }
  if (db_->Changes() == 0) {
    return absl::NotFoundError(absl::StrCat("no incident ", id));
  }
  return absl::OkStatus();
}

absl::Status IncidentStore::InTransaction(
    const std::function<absl::Status()>& body) {
  if (absl::Status s = Exec(db_->dialect().begin_write); !s.ok()) return s;
  absl::Status s = body();
  if (s.ok()) s = Exec("COMMIT");
  if (!s.ok()) Exec("ROLLBACK").IgnoreError();
  return s;
}

absl::StatusOr<std::string> IncidentStore::IntegrityCheck() {
  return db_->IntegrityCheck();
}

std::string SqliteVersion() { return SqliteLibraryVersion(); }

std::string LibpqVersion() {
  const int v = PostgresLibraryVersion();
  return absl::StrCat(v / 10000, ".", v % 10000);
}

}  // namespace leakhound
