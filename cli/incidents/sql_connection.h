// SqlConnection: one connection to the incident store's database, SQLite
// (a file) or PostgreSQL (a libpq URI), behind one interface, so that the
// store's SQL is written once. Each engine's library is called in one file
// only (sqlite_connection.cc, postgres_connection.cc), which turns its
// errors into absl::Status. Internal to leakhound_incidents.
//
// Statements are written in the dialect both engines agree on, with `?`
// (or `?N`) placeholders; the few places they differ read SqlDialect.
//
// Thread-safety: a connection and its statements are used by one thread at
// a time.
#ifndef LEAKHOUND_CLI_INCIDENTS_SQL_CONNECTION_H_
#define LEAKHOUND_CLI_INCIDENTS_SQL_CONNECTION_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace leakhound {

// Result codes that callers compare Step() with; any other value is an
// error, explained by SqlConnection::Error.
inline constexpr int kSqlOk = 0;
inline constexpr int kSqlRow = 100;
inline constexpr int kSqlDone = 101;

// Where the two engines' SQL differs.
struct SqlDialect {
  const char* name;         // "SQLite", "PostgreSQL"
  const char* begin_write;  // a transaction that will write
  const char* greatest;     // the larger of two values: MAX / GREATEST
  const char* find;         // position of arg 2 in arg 1, 0 if absent
  const char* character;    // the character of a code point
  // `column = ?` without case (ASCII); SQLite's columns declared NOCASE
  // compare so already.
  std::string CaselessEquals(std::string_view column) const;
  // The expression to group `column` by without case.
  std::string CaselessKey(std::string_view column) const;
  bool postgres;
};

// One statement's cursor, as an engine runs it.
class SqlCursor {
 public:
  virtual ~SqlCursor() = default;
  // kSqlOk, or the first error of preparing or binding.
  virtual int code() const = 0;
  virtual void Bind(int64_t v) = 0;
  virtual void Bind(double v) = 0;
  virtual void Bind(std::string_view v) = 0;
  virtual int Step() = 0;
  virtual void Reset() = 0;
  virtual int64_t Int(int col) const = 0;
  virtual double Real(int col) const = 0;
  virtual std::string Text(int col) const = 0;
};

class SqlConnection {
 public:
  virtual ~SqlConnection() = default;
  // Ownership passes to the caller; the connection must outlive it.
  virtual std::unique_ptr<SqlCursor> Prepare(const std::string& sql) = 0;
  // Runs `sql` (one or more statements without results or parameters).
  virtual absl::Status Exec(const std::string& sql) = 0;
  // Rows the last statement changed.
  virtual int64_t Changes() = 0;
  // The one-line error of result `code` while doing `what`: Unavailable
  // (busy, locked, the server unreachable), ResourceExhausted (full),
  // DataLoss (damaged), PermissionDenied, else Internal.
  virtual absl::Status Error(int code, std::string_view what) = 0;
  virtual const SqlDialect& dialect() const = 0;
  // The schema version stored in the database (0: none yet). Set inside
  // the migration's transaction.
  virtual absl::StatusOr<int> SchemaVersion() = 0;
  virtual absl::Status SetSchemaVersion(int version) = 0;
  // Serialises migrations between sessions, around their transactions
  // (a transaction begun after the lock sees what the last holder
  // committed, its catalog included). REQUIRES: outside a transaction.
  virtual absl::Status LockSchema() = 0;
  virtual void UnlockSchema() = 0;
  // Orders the writers of the outbox so that events commit in the order of
  // their sequence numbers. REQUIRES: inside a write transaction.
  virtual absl::Status LockOutbox() = 0;
  // "ok" or the engine's findings.
  virtual absl::StatusOr<std::string> IntegrityCheck() = 0;
  // Makes the statement running now fail (SQLite: sqlite3_interrupt;
  // PostgreSQL: the session is shut down, and the next statement opens a
  // new one). The one method that may be called from another thread.
  virtual void Interrupt() = 0;
};

// A prepared statement; binds by position from 1. `db` must outlive it.
class SqlStatement {
 public:
  SqlStatement(SqlConnection& db, const std::string& sql)
      : cursor_(db.Prepare(sql)) {}
  int code() const { return cursor_->code(); }
  SqlStatement& Bind(int64_t v) {
    cursor_->Bind(v);
    return *this;
  }
  SqlStatement& Bind(double v) {
    cursor_->Bind(v);
    return *this;
  }
  SqlStatement& Bind(std::string_view v) {
    cursor_->Bind(v);
    return *this;
  }
  // kSqlRow, kSqlDone or an error code.
  int Step() { return cursor_->Step(); }
  void Reset() { cursor_->Reset(); }
  int64_t Int(int col) const { return cursor_->Int(col); }
  double Real(int col) const { return cursor_->Real(col); }
  std::string Text(int col) const { return cursor_->Text(col); }

 private:
  std::unique_ptr<SqlCursor> cursor_;
};

// Opens the SQLite file `path` (with `create`, creates it) with
// `busy_timeout_ms`. The caller checks its permissions.
absl::StatusOr<std::unique_ptr<SqlConnection>> OpenSqlite(
    const std::string& path, bool create, int busy_timeout_ms);
// Connects to the PostgreSQL database of `uri`; `lock_timeout_ms` bounds
// a wait for another session's lock.
absl::StatusOr<std::unique_ptr<SqlConnection>> OpenPostgres(
    const std::string& uri, int lock_timeout_ms);

// The libraries' versions (for `leakhound --version`).
const char* SqliteLibraryVersion();
int PostgresLibraryVersion();

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_INCIDENTS_SQL_CONNECTION_H_
