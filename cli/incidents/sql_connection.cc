// SqlDialect's helpers (sql_connection.h).
#include "cli/incidents/sql_connection.h"

#include "absl/strings/str_cat.h"

namespace leakhound {

std::string SqlDialect::CaselessEquals(std::string_view column) const {
  if (postgres)
    return absl::StrCat("lower(", std::string(column), ") = lower(?)");
  return absl::StrCat(std::string(column), " = ? COLLATE NOCASE");
}

std::string SqlDialect::CaselessKey(std::string_view column) const {
  if (postgres) return absl::StrCat("lower(", std::string(column), ")");
  return absl::StrCat(std::string(column), " COLLATE NOCASE");
}

}  // namespace leakhound
