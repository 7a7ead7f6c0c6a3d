// How incidents are kept in the store's tables: the list separator, the
// columns read and their decoding, and the WHERE clause of a filter.
// Internal to leakhound_incidents (the incident_store*.cc files).
//
// Thread-safety: constants and pure functions.
#ifndef LEAKHOUND_CLI_INCIDENTS_INCIDENT_ROWS_H_
#define LEAKHOUND_CLI_INCIDENTS_INCIDENT_ROWS_H_

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "cli/incidents/incident.h"
#include "cli/incidents/incident_store.h"
#include "cli/incidents/sql_connection.h"

namespace leakhound {

// PERSISTED: joins recipients, labels and documents in one column.
inline constexpr char kListSeparator = '\n';

// A joined list split again (empty: no entries).
std::vector<std::string> SplitList(const std::string& joined);

// The WHERE clause of a filter and the values it binds, in order.
struct Where {
  std::string sql;
  std::vector<std::variant<int64_t, std::string>> values;
};
Where WhereOf(const IncidentFilter& f, const SqlDialect& dialect);
void BindWhere(SqlStatement& s, const Where& w);

// The incidents table's columns ReadIncident reads, in its order.
extern const char kIncidentColumns[];
// The incident of the row `s` is on (selected with kIncidentColumns).
Incident ReadIncident(const SqlStatement& s);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_INCIDENTS_INCIDENT_ROWS_H_
