// The one file that calls SQLite.
#include "cli/incidents/sql_statement.h"

#include <sqlite3.h>

#include "absl/strings/str_cat.h"

namespace leakhound {

static_assert(kSqlOk == SQLITE_OK && kSqlRow == SQLITE_ROW &&
              kSqlDone == SQLITE_DONE);

SqlStatement::SqlStatement(sqlite3* db, const std::string& sql) {
  code_ = sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt_, nullptr);
}

SqlStatement::~SqlStatement() { sqlite3_finalize(stmt_); }

SqlStatement& SqlStatement::Bind(int64_t v) {
  Note(sqlite3_bind_int64(stmt_, ++next_, v));
  return *this;
}

SqlStatement& SqlStatement::Bind(double v) {
  Note(sqlite3_bind_double(stmt_, ++next_, v));
  return *this;
}

SqlStatement& SqlStatement::Bind(std::string_view v) {
  Note(sqlite3_bind_text(stmt_, ++next_, v.data(), static_cast<int>(v.size()),
                         SQLITE_TRANSIENT));
  return *this;
}

int SqlStatement::Step() {
  if (code_ != SQLITE_OK) return code_;
  return sqlite3_step(stmt_);
}

void SqlStatement::Reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
  next_ = 0;
}

int64_t SqlStatement::Int(int col) const {
  return sqlite3_column_int64(stmt_, col);
}

double SqlStatement::Real(int col) const {
  return sqlite3_column_double(stmt_, col);
}

std::string SqlStatement::Text(int col) const {
  const auto* p = sqlite3_column_text(stmt_, col);
  return p != nullptr
             ? std::string(reinterpret_cast<const char*>(p),
                           static_cast<size_t>(sqlite3_column_bytes(stmt_, col)))
             : std::string();
}

absl::Status SqlStatus(int code, std::string_view path, std::string_view what,
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

absl::Status SqlError(sqlite3* db, int code, std::string_view path,
                      std::string_view what) {
  return SqlStatus(code, path, what, sqlite3_errmsg(db));
}

absl::StatusOr<sqlite3*> SqlOpen(const std::string& path, bool create,
                                 int busy_timeout_ms) {
  sqlite3* db = nullptr;
  const int code = sqlite3_open_v2(
      path.c_str(), &db,
      SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX |
          (create ? SQLITE_OPEN_CREATE : 0),
      nullptr);
  if (code != SQLITE_OK) {
    absl::Status status = SqlStatus(
        code, path, "cannot open", db != nullptr ? sqlite3_errmsg(db) : nullptr);
    sqlite3_close(db);
    return status;
  }
  sqlite3_busy_timeout(db, busy_timeout_ms);
  sqlite3_extended_result_codes(db, 1);
  return db;
}

void SqlClose(sqlite3* db) { sqlite3_close_v2(db); }

absl::Status SqlExec(sqlite3* db, const char* sql, std::string_view path) {
  char* message = nullptr;
  const int code = sqlite3_exec(db, sql, nullptr, nullptr, &message);
  if (code == SQLITE_OK) return absl::OkStatus();
  absl::Status status = SqlStatus(code, path, "statement failed", message);
  sqlite3_free(message);
  return status;
}

int64_t SqlChanges(sqlite3* db) { return sqlite3_changes(db); }

int64_t SqlLastInsertId(sqlite3* db) { return sqlite3_last_insert_rowid(db); }

const char* SqlLibraryVersion() { return sqlite3_libversion(); }

}  // namespace leakhound
