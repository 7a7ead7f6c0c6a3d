// IncidentStore: the console's users (incident_store.h).
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cli/incidents/incident_rows.h"
#include "cli/incidents/incident_store.h"
#include "cli/incidents/sql_connection.h"

namespace leakhound {

absl::Status IncidentStore::PutUser(const ConsoleUser& user) {
  SqlStatement s(*db_,
                 "INSERT INTO users (name, role, password_hash, created_ms) "
                 "VALUES (?,?,?,?) ON CONFLICT (name) DO UPDATE SET role = "
                 "excluded.role, password_hash = excluded.password_hash, "
                 "created_ms = excluded.created_ms");
  s.Bind(user.name)
      .Bind(user.role)
      .Bind(user.password_hash)
      .Bind(user.created_ms);
  if (const int code = s.Step(); code != kSqlDone) {
    return Error(code, "cannot write a user");
  }
  return absl::OkStatus();
}

absl::Status IncidentStore::RemoveUser(const std::string& name) {
  SqlStatement s(
      *db_, "DELETE FROM users WHERE " + db_->dialect().CaselessEquals("name"));
  s.Bind(name);
  if (const int code = s.Step(); code != kSqlDone) {
    return Error(code, "cannot remove a user");
  }
  if (db_->Changes() == 0) {
    return absl::NotFoundError(absl::StrCat("no user '", name, "'"));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::optional<ConsoleUser>> IncidentStore::GetUser(
    const std::string& name) {
  SqlStatement s(
      *db_, "SELECT name, role, password_hash, created_ms FROM users WHERE " +
                db_->dialect().CaselessEquals("name"));
  s.Bind(name);
  const int code = s.Step();
  if (code == kSqlDone) return std::nullopt;
  if (code != kSqlRow) return Error(code, "cannot read a user");
  return ConsoleUser{s.Text(0), s.Text(1), s.Text(2), s.Int(3)};
}

absl::StatusOr<std::vector<ConsoleUser>> IncidentStore::ListUsers() {
  SqlStatement s(
      *db_,
      "SELECT name, role, password_hash, created_ms FROM users ORDER "
      "BY name");
  std::vector<ConsoleUser> out;
  int code;
  while ((code = s.Step()) == kSqlRow) {
    out.push_back({s.Text(0), s.Text(1), s.Text(2), s.Int(3)});
  }
  if (code != kSqlDone) return Error(code, "cannot list users");
  return out;
}

}  // namespace leakhound
