// SqlStatement and the SQLite calls of the incident store: the one file that
// calls SQLite (sql_statement.cc) turns its result codes into absl::Status.
// Internal to leakhound_incidents.
//
// Thread-safety: a statement belongs to one connection, used by one thread
// at a time; the free functions are as thread-safe as the connection.
#ifndef LEAKHOUND_CLI_INCIDENTS_SQL_STATEMENT_H_
#define LEAKHOUND_CLI_INCIDENTS_SQL_STATEMENT_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

struct sqlite3;
struct sqlite3_stmt;

namespace leakhound {

// SQLite's result codes that callers compare Step() with (static_assert'ed
// against sqlite3.h in the .cc).
inline constexpr int kSqlOk = 0;
inline constexpr int kSqlRow = 100;
inline constexpr int kSqlDone = 101;

// A prepared statement; binds by position from 1. `db` must outlive it.
class SqlStatement {
 public:
  SqlStatement(sqlite3* db, const std::string& sql);
  ~SqlStatement();
  SqlStatement(const SqlStatement&) = delete;
  SqlStatement& operator=(const SqlStatement&) = delete;

  // kSqlOk, or the first error of preparing or binding.
  int code() const { return code_; }
  SqlStatement& Bind(int64_t v);
  SqlStatement& Bind(double v);
  SqlStatement& Bind(std::string_view v);
  // kSqlRow, kSqlDone or an error code.
  int Step();
  void Reset();
  int64_t Int(int col) const;
  double Real(int col) const;
  std::string Text(int col) const;

 private:
  void Note(int code) {
    if (code_ == kSqlOk && code != kSqlOk) code_ = code;
  }
  sqlite3_stmt* stmt_ = nullptr;
  int code_ = kSqlOk;
  int next_ = 0;
};

// The one-line error of SQLite result `code` on store `path` while doing
// `what`: Unavailable (busy, locked), ResourceExhausted (full), DataLoss
// (corrupt, not a database), PermissionDenied, else Internal. `message`
// (may be null: SQLite's text for the code) ends it.
absl::Status SqlStatus(int code, std::string_view path, std::string_view what,
                       const char* message);
// SqlStatus with the connection's last error message.
absl::Status SqlError(sqlite3* db, int code, std::string_view path,
                      std::string_view what);

// Opens (with `create`, creates) the database file read-write without
// SQLite's mutex, with extended result codes and `busy_timeout_ms`.
// Ownership of the connection passes to the caller (SqlClose).
absl::StatusOr<sqlite3*> SqlOpen(const std::string& path, bool create,
                                 int busy_timeout_ms);
void SqlClose(sqlite3* db);
// Runs `sql` (one or more statements without results).
absl::Status SqlExec(sqlite3* db, const char* sql, std::string_view path);
// Rows the last statement changed; the row id of the last insert.
int64_t SqlChanges(sqlite3* db);
int64_t SqlLastInsertId(sqlite3* db);
// The SQLite library's version ("3.40.1").
const char* SqlLibraryVersion();

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_INCIDENTS_SQL_STATEMENT_H_
