// The one file that calls libpq: SqlConnection on a PostgreSQL database.
//
// Statements run with PQexecParams (one round trip: parse, bind, execute),
// parameters typed (int8, float8, text) and results in text form, read
// whole: a cursor never holds the connection, so a loop over one result
// may run other statements. Text that is not UTF-8 is repaired (U+FFFD)
// and NUL becomes U+FFFD: PostgreSQL's text holds neither.
#include <libpq-fe.h>
#include <sys/socket.h>

#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "cli/incidents/sql_connection.h"
#include "cli/incidents/store_target.h"
#include "shingler/text_decoder.h"

namespace leakhound {
namespace {

constexpr int kSqlError = 1;  // the connection keeps its SQLSTATE and text
constexpr unsigned kInt8Oid = 20;
constexpr unsigned kFloat8Oid = 701;
constexpr unsigned kTextOid = 25;
// PERSISTED (advisory lock keys, shared by every leakhound on a database).
constexpr int64_t kSchemaLockKey = 0x6c65616b00000001;
constexpr int64_t kOutboxLockKey = 0x6c65616b00000002;

const SqlDialect kPostgresDialect = {"PostgreSQL", "BEGIN", "GREATEST",
                                     "strpos",     "chr",   true};

// `sql` with SQLite's placeholders as PostgreSQL's: `?N` -> `$N`, and each
// bare `?` -> the next number. Quoted text is left alone. Sets `count` to
// the highest number.
std::string Numbered(const std::string& sql, int& count) {
  std::string out;
  out.reserve(sql.size() + 16);
  int next = 0;
  count = 0;
  bool quoted = false;
  for (size_t i = 0; i < sql.size(); ++i) {
    const char c = sql[i];
    if (c == '\'') quoted = !quoted;
    if (quoted || c != '?') {
      out.push_back(c);
      continue;
    }
    int n = 0;
    size_t j = i + 1;
    while (j < sql.size() && sql[j] >= '0' && sql[j] <= '9') {
      n = n * 10 + (sql[j++] - '0');
    }
    if (j == i + 1) n = ++next;
    i = j - 1;
    if (n > count) count = n;
    absl::StrAppend(&out, "$", n);
  }
  return out;
}

class PostgresConnection;

class PostgresCursor : public SqlCursor {
 public:
  PostgresCursor(PostgresConnection* db, const std::string& sql)
      : db_(db), sql_(Numbered(sql, params_)) {}
  ~PostgresCursor() override { PQclear(result_); }
  int code() const override { return kSqlOk; }
  void Bind(int64_t v) override { Add(kInt8Oid, absl::StrCat(v)); }
  void Bind(double v) override { Add(kFloat8Oid, absl::StrFormat("%.17g", v)); }
  void Bind(std::string_view v) override {
    std::string text;
    for (const char c : RepairUtf8(v)) {
      if (c == '\0') {
        text += "\xEF\xBF\xBD";
      } else {
        text.push_back(c);
      }
    }
    Add(kTextOid, std::move(text));
  }
  int Step() override;
  void Reset() override {
    PQclear(result_);
    result_ = nullptr;
    row_ = -1;
    types_.clear();
    values_.clear();
  }
  int64_t Int(int col) const override {
    return std::strtoll(PQgetvalue(result_, row_, col), nullptr, 10);
  }
  double Real(int col) const override {
    return std::strtod(PQgetvalue(result_, row_, col), nullptr);
  }
  std::string Text(int col) const override {
    return std::string(PQgetvalue(result_, row_, col),
                       static_cast<size_t>(PQgetlength(result_, row_, col)));
  }

 private:
  void Add(unsigned type, std::string value) {
    types_.push_back(type);
    values_.push_back(std::move(value));
  }
  PostgresConnection* db_;
  int params_ = 0;
  const std::string sql_;
  std::vector<unsigned> types_;
  std::vector<std::string> values_;
  PGresult* result_ = nullptr;
  int row_ = -1;  // -1: not run yet
};

class PostgresConnection : public SqlConnection {
 public:
  PostgresConnection(std::string target, PGconn* conn)
      : target_(std::move(target)), conn_(conn) {
    NewCancel();
  }
  ~PostgresConnection() override { PQfinish(conn_); }
  // Ends the session under the statement: a cancel request would reach a
  // server that finished long ago when the time goes to the link (a slow
  // network, a proxy), so the socket is shut down instead, which wakes the
  // owner's libpq call with a lost connection (shutdown(2) may be called
  // from any thread). The next statement reconnects.
  void Interrupt() override {
    std::lock_guard<std::mutex> lock(cancel_mu_);
    if (socket_ >= 0) ::shutdown(socket_, SHUT_RDWR);
  }

  std::unique_ptr<SqlCursor> Prepare(const std::string& sql) override {
    return std::make_unique<PostgresCursor>(this, sql);
  }
  absl::Status Exec(const std::string& sql) override {
    if (PQstatus(conn_) == CONNECTION_BAD) Reset();
    const bool idle = PQtransactionStatus(conn_) == PQTRANS_IDLE;
    bool ok = ExecOnce(sql);
    if (!ok && idle && PQstatus(conn_) == CONNECTION_BAD) {  // as Run
      Reset();
      ok = PQstatus(conn_) == CONNECTION_OK && ExecOnce(sql);
    }
    return ok ? absl::OkStatus() : Error(kSqlError, "statement failed");
  }
  bool ExecOnce(const std::string& sql) {
    PGresult* r = PQexec(conn_, sql.c_str());
    const bool ok = Finished(r);
    PQclear(r);
    return ok;
  }
  int64_t Changes() override { return changes_; }
  absl::Status Error(int code, std::string_view what) override;
  const SqlDialect& dialect() const override { return kPostgresDialect; }
  absl::StatusOr<int> SchemaVersion() override;
  absl::Status SetSchemaVersion(int version) override {
    return Exec(absl::StrCat(
        "CREATE TABLE IF NOT EXISTS leakhound_schema (version BIGINT NOT "
        "NULL); DELETE FROM leakhound_schema; INSERT INTO leakhound_schema "
        "VALUES (",
        version, ")"));
  }
  absl::Status LockSchema() override {
    return Exec(absl::StrCat("SELECT pg_advisory_lock(", kSchemaLockKey, ")"));
  }
  void UnlockSchema() override {
    Exec(absl::StrCat("SELECT pg_advisory_unlock(", kSchemaLockKey, ")"))
        .IgnoreError();
  }
  absl::Status LockOutbox() override {
    return Exec(
        absl::StrCat("SELECT pg_advisory_xact_lock(", kOutboxLockKey, ")"));
  }
  absl::StatusOr<std::string> IntegrityCheck() override;

  // Runs a statement; on failure keeps its SQLSTATE and message (null).
  PGresult* Run(const std::string& sql, int params,
                const std::vector<unsigned>& types,
                const std::vector<std::string>& values);
  PGresult* RunOnce(const std::string& sql, int params,
                    const std::vector<unsigned>& types,
                    const std::vector<std::string>& values);
  // True when `r` succeeded; records the changed rows or the error.
  bool Finished(PGresult* r);

 private:
  // The socket of the session now (a reset makes a new session).
  void NewCancel() {
    std::lock_guard<std::mutex> lock(cancel_mu_);
    socket_ = PQsocket(conn_);
  }
  void Reset() {
    PQreset(conn_);
    NewCancel();
  }

  const std::string target_;  // redacted
  PGconn* conn_;              // owned
  std::mutex cancel_mu_;      // Interrupt's, from another thread
  int socket_ = -1;           // conn_'s; -1: none
  int64_t changes_ = 0;
  std::string sqlstate_;
  std::string message_;
};

PGresult* PostgresConnection::Run(const std::string& sql, int params,
                                  const std::vector<unsigned>& types,
                                  const std::vector<std::string>& values) {
  if (PQstatus(conn_) == CONNECTION_BAD) Reset();
  // A statement outside a transaction that finds the session gone (the
  // server restarted since the last one) runs once more on a new session.
  // Inside a transaction it fails: the transaction's work is gone. (A
  // server that died while running an autocommit statement may have done
  // it: only the audit trail's inserts are not idempotent among those.)
  const bool idle = PQtransactionStatus(conn_) == PQTRANS_IDLE;
  PGresult* r = RunOnce(sql, params, types, values);
  if (r == nullptr && idle && PQstatus(conn_) == CONNECTION_BAD) {
    Reset();
    if (PQstatus(conn_) == CONNECTION_OK) {
      r = RunOnce(sql, params, types, values);
    }
  }
  return r;
}

PGresult* PostgresConnection::RunOnce(const std::string& sql, int params,
                                      const std::vector<unsigned>& types,
                                      const std::vector<std::string>& values) {
  std::vector<const char*> pointers;
  pointers.reserve(values.size());
  for (const std::string& v : values) pointers.push_back(v.c_str());
  // Parameters bound beyond those numbered are ignored, as SQLite would
  // refuse them; missing ones are NULL.
  std::vector<Oid> oids(static_cast<size_t>(params), 0);
  pointers.resize(static_cast<size_t>(params), nullptr);
  for (size_t i = 0; i < oids.size() && i < types.size(); ++i) {
    oids[i] = types[i];
  }
  PGresult* r = PQexecParams(conn_, sql.c_str(), params, oids.data(),
                             pointers.data(), nullptr, nullptr, 0);
  if (!Finished(r)) {
    PQclear(r);
    return nullptr;
  }
  return r;
}

bool PostgresConnection::Finished(PGresult* r) {
  const ExecStatusType status = PQresultStatus(r);
  if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) {
    const char* changed = PQcmdTuples(r);
    changes_ = changed[0] != '\0' ? std::strtoll(changed, nullptr, 10) : 0;
    return true;
  }
  const char* state =
      r != nullptr ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : nullptr;
  sqlstate_ = state != nullptr ? state : "";
  message_ = r != nullptr ? PQresultErrorMessage(r) : PQerrorMessage(conn_);
  if (message_.empty()) message_ = PQerrorMessage(conn_);
  while (!message_.empty() &&
         (message_.back() == '\n' || message_.back() == ' ')) {
    message_.pop_back();
  }
  return false;
}

absl::Status PostgresConnection::Error(int, std::string_view what) {
  std::string oneline = absl::StrReplaceAll(message_, {{"\n", " "}});
  const std::string text = absl::StrCat(
      "incidents ", target_, ": ", std::string(what), ": ", oneline,
      sqlstate_.empty() ? "" : absl::StrCat(" (", sqlstate_, ")"));
  const std::string_view cls = std::string_view(sqlstate_).substr(0, 2);
  if (sqlstate_.empty() || cls == "08" || cls == "40" || cls == "57" ||
      sqlstate_ == "53300" || sqlstate_ == "55P03") {
    return absl::UnavailableError(text);  // unreachable, busy, restarting
  }
  if (cls == "53") return absl::ResourceExhaustedError(text);
  if (cls == "28" || sqlstate_ == "42501") {
    return absl::PermissionDeniedError(text);
  }
  if (sqlstate_ == "XX001" || sqlstate_ == "XX002") {
    return absl::DataLossError(text);
  }
  return absl::InternalError(text);
}

absl::StatusOr<int> PostgresConnection::SchemaVersion() {
  // Two statements: one naming a missing table fails, and would abort the
  // migration's transaction.
  PGresult* exists =
      Run("SELECT to_regclass('leakhound_schema') IS NOT NULL", 0, {}, {});
  if (exists == nullptr) {
    return Error(kSqlError, "cannot read the schema version");
  }
  const bool present = PQgetvalue(exists, 0, 0)[0] == 't';
  PQclear(exists);
  if (!present) return 0;
  PGresult* r =
      Run("SELECT COALESCE(MAX(version), 0) FROM leakhound_schema", 0, {}, {});
  if (r == nullptr) return Error(kSqlError, "cannot read the schema version");
  const int version = std::atoi(PQgetvalue(r, 0, 0));
  PQclear(r);
  return version;
}

absl::StatusOr<std::string> PostgresConnection::IntegrityCheck() {
  // PostgreSQL checks its own pages (data checksums, amcheck); what is
  // checked here is that every table of the store reads.
  for (const char* table :
       {"incidents", "matches", "incident_rules", "incident_documents", "users",
        "audit", "outbox", "outbox_destinations", "outbox_failures"}) {
    PGresult* r = Run(absl::StrCat("SELECT COUNT(*) FROM ", table), 0, {}, {});
    if (r == nullptr) return std::string(message_);
    PQclear(r);
  }
  return std::string("ok");
}

int PostgresCursor::Step() {
  if (row_ < 0) {
    result_ = db_->Run(sql_, params_, types_, values_);
    if (result_ == nullptr) return kSqlError;
  }
  ++row_;
  return row_ < PQntuples(result_) ? kSqlRow : kSqlDone;
}

}  // namespace

absl::StatusOr<std::unique_ptr<SqlConnection>> OpenPostgres(
    const std::string& uri, int lock_timeout_ms) {
  // Defaults first: what the URI names overrides them.
  const std::string options = absl::StrCat("-c lock_timeout=", lock_timeout_ms);
  const char* keys[] = {"connect_timeout", "application_name", "options",
                        "dbname", nullptr};
  const char* values[] = {"5", "leakhound", options.c_str(), uri.c_str(),
                          nullptr};
  PGconn* conn = PQconnectdbParams(keys, values, /*expand_dbname=*/1);
  if (conn == nullptr) {
    return absl::ResourceExhaustedError("incidents: out of memory");
  }
  if (PQstatus(conn) != CONNECTION_OK) {
    std::string message = PQerrorMessage(conn);
    PQfinish(conn);
    message = absl::StrReplaceAll(message, {{"\n", " "}});
    while (!message.empty() && message.back() == ' ') message.pop_back();
    return absl::UnavailableError(absl::StrCat(
        "incidents ", RedactedTarget(uri), ": cannot connect: ", message));
  }
  // Quiet the server's notices ("relation already exists, skipping").
  PQsetNoticeProcessor(
      conn, [](void*, const char*) {}, nullptr);
  PGresult* r = PQexec(conn, "SET client_encoding = 'UTF8'");
  PQclear(r);
  return std::unique_ptr<SqlConnection>(
      new PostgresConnection(RedactedTarget(uri), conn));
}

int PostgresLibraryVersion() { return PQlibVersion(); }

}  // namespace leakhound
