// The one file that calls SQLite: SqlConnection on a database file.
#include <sqlite3.h>

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cli/incidents/sql_connection.h"

namespace leakhound {
namespace {

static_assert(kSqlOk == SQLITE_OK && kSqlRow == SQLITE_ROW &&
              kSqlDone == SQLITE_DONE);

class SqliteCursor : public SqlCursor {
 public:
  SqliteCursor(sqlite3* db, const std::string& sql) {
    code_ = sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt_, nullptr);
  }
  ~SqliteCursor() override { sqlite3_finalize(stmt_); }
  int code() const override { return code_; }
  void Bind(int64_t v) override { Note(sqlite3_bind_int64(stmt_, ++next_, v)); }
  void Bind(double v) override { Note(sqlite3_bind_double(stmt_, ++next_, v)); }
  void Bind(std::string_view v) override {
    Note(sqlite3_bind_text(stmt_, ++next_, v.data(), static_cast<int>(v.size()),
                           SQLITE_TRANSIENT));
  }
  int Step() override {
    if (code_ != SQLITE_OK) return code_;
    return sqlite3_step(stmt_);
  }
  void Reset() override {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
    next_ = 0;
  }
  int64_t Int(int col) const override {
    return sqlite3_column_int64(stmt_, col);
  }
  double Real(int col) const override {
    return sqlite3_column_double(stmt_, col);
  }
  std::string Text(int col) const override {
    const auto* p = sqlite3_column_text(stmt_, col);
    if (p == nullptr) return std::string();
    return std::string(reinterpret_cast<const char*>(p),
                       static_cast<size_t>(sqlite3_column_bytes(stmt_, col)));
  }

 private:
  void Note(int code) {
    if (code_ == SQLITE_OK && code != SQLITE_OK) code_ = code;
  }
  sqlite3_stmt* stmt_ = nullptr;
  int code_ = SQLITE_OK;
  int next_ = 0;
};

const SqlDialect kSqliteDialect = {
    "SQLite", "BEGIN IMMEDIATE", "MAX", "instr", "char", false};

// The one-line error of SQLite result `code` on `path` while doing `what`.
absl::Status SqliteStatus(int code, std::string_view path,
                          std::string_view what, const char* message) {
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

class SqliteConnection : public SqlConnection {
 public:
  SqliteConnection(std::string path, sqlite3* db)
      : path_(std::move(path)), db_(db) {}
  ~SqliteConnection() override { sqlite3_close_v2(db_); }

  std::unique_ptr<SqlCursor> Prepare(const std::string& sql) override {
    return std::make_unique<SqliteCursor>(db_, sql);
  }
  absl::Status Exec(const std::string& sql) override {
    char* message = nullptr;
    const int code = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &message);
    if (code == SQLITE_OK) return absl::OkStatus();
    absl::Status status =
        SqliteStatus(code, path_, "statement failed", message);
    sqlite3_free(message);
    return status;
  }
  int64_t Changes() override { return sqlite3_changes(db_); }
  absl::Status Error(int code, std::string_view what) override {
    return SqliteStatus(code, path_, what, sqlite3_errmsg(db_));
  }
  const SqlDialect& dialect() const override { return kSqliteDialect; }
  absl::StatusOr<int> SchemaVersion() override {
    SqliteCursor version(db_, "PRAGMA user_version");
    if (const int code = version.Step(); code != SQLITE_ROW) {
      return Error(code, "cannot read the schema version");
    }
    return static_cast<int>(version.Int(0));
  }
  absl::Status SetSchemaVersion(int version) override {
    return Exec(absl::StrCat("PRAGMA user_version = ", version));
  }
  // BEGIN IMMEDIATE already holds the one write lock.
  absl::Status LockSchema() override { return absl::OkStatus(); }
  void UnlockSchema() override {}
  absl::Status LockOutbox() override { return absl::OkStatus(); }
  void Interrupt() override { sqlite3_interrupt(db_); }
  absl::StatusOr<std::string> IntegrityCheck() override {
    SqliteCursor s(db_, "PRAGMA integrity_check");
    std::vector<std::string> lines;
    int code;
    while ((code = s.Step()) == SQLITE_ROW) lines.push_back(s.Text(0));
    if (code != SQLITE_DONE)
      return Error(code, "integrity check failed to run");
    return absl::StrJoin(lines, "; ");
  }

 private:
  const std::string path_;
  sqlite3* db_;  // owned
};

}  // namespace

absl::StatusOr<std::unique_ptr<SqlConnection>> OpenSqlite(
    const std::string& path, bool create, int busy_timeout_ms) {
  sqlite3* db = nullptr;
  const int code = sqlite3_open_v2(path.c_str(), &db,
                                   SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX |
                                       (create ? SQLITE_OPEN_CREATE : 0),
                                   nullptr);
  if (code != SQLITE_OK) {
    absl::Status status =
        SqliteStatus(code, path, "cannot open",
                     db != nullptr ? sqlite3_errmsg(db) : nullptr);
    sqlite3_close(db);
    return status;
  }
  sqlite3_busy_timeout(db, busy_timeout_ms);
  sqlite3_extended_result_codes(db, 1);
  return std::unique_ptr<SqlConnection>(new SqliteConnection(path, db));
}

const char* SqliteLibraryVersion() { return sqlite3_libversion(); }

}  // namespace leakhound
