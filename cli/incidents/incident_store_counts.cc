// IncidentStore: the dashboard's counts (incident_store.h). Each incident
// is counted once per day and key when it is stored (the table
// incident_counts, docs/storage_format.md), so that a dashboard over a
// million incidents sums a few thousand rows instead of reading them all;
// a purge recounts the days it touched.
#include <cstdint>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "cli/incidents/incident_rows.h"
#include "cli/incidents/incident_store.h"
#include "cli/incidents/sql_connection.h"

namespace leakhound {
namespace {

constexpr int64_t kDayMs = 86'400'000;

// PERSISTED: the kinds of incident_counts, and how each is counted from
// the stored tables (a purge recounts with them): (day, name, count) of
// the incidents before ?1 ms.
constexpr std::pair<const char*, const char*> kRecounts[] = {
    {"action",
     "SELECT time_ms / 86400000, action, COUNT(*) FROM incidents WHERE "
     "time_ms < ?1 GROUP BY time_ms / 86400000, action"},
    {"severity",
     "SELECT time_ms / 86400000, severity, COUNT(*) FROM incidents WHERE "
     "time_ms < ?1 AND severity != '' GROUP BY time_ms / 86400000, severity"},
    {"sender",
     "SELECT time_ms / 86400000, lower(sender), COUNT(*) FROM incidents "
     "WHERE time_ms < ?1 AND sender != '' GROUP BY time_ms / 86400000, "
     "lower(sender)"},
    {"document",
     "SELECT i.time_ms / 86400000, m.document, COUNT(DISTINCT i.id) FROM "
     "matches m JOIN incidents i ON i.id = m.incident_id WHERE i.time_ms < "
     "?1 GROUP BY i.time_ms / 86400000, m.document"},
    {"rule",
     "SELECT i.time_ms / 86400000, r.rule, COUNT(DISTINCT i.id) FROM "
     "incident_rules r JOIN incidents i ON i.id = r.incident_id WHERE "
     "i.time_ms < ?1 GROUP BY i.time_ms / 86400000, r.rule"},
};

// The day of `time_ms` as SQL's integer division makes it (toward zero).
int64_t DayOf(int64_t time_ms) { return time_ms / kDayMs; }

}  // namespace

absl::Status IncidentStore::CountIncidents(
    const std::vector<const Incident*>& added) {
  std::map<std::tuple<int64_t, std::string, std::string>, int64_t> counts;
  for (const Incident* i : added) {
    const int64_t day = DayOf(i->time_ms);
    ++counts[{day, "action", i->action}];
    if (!i->severity.empty()) ++counts[{day, "severity", i->severity}];
    if (!i->sender.empty()) {
      ++counts[{day, "sender", absl::AsciiStrToLower(i->sender)}];
    }
    for (const std::string& d : DistinctDocuments(i->matches)) {
      ++counts[{day, "document", d}];
    }
    std::set<std::string> rules;
    for (const IncidentRule& r : i->rules) rules.insert(r.rule);
    for (const std::string& r : rules) ++counts[{day, "rule", r}];
  }
  SqlStatement add(*db_,
                   "INSERT INTO incident_counts (day, kind, name, count) "
                   "VALUES (?,?,?,?) ON CONFLICT (day, kind, name) DO UPDATE "
                   "SET count = incident_counts.count + excluded.count");
  for (const auto& [key, n] : counts) {
    add.Reset();
    add.Bind(std::get<0>(key)).Bind(std::get<1>(key)).Bind(std::get<2>(key));
    add.Bind(n);
    if (const int code = add.Step(); code != kSqlDone) {
      return Error(code, "cannot count an incident");
    }
  }
  return absl::OkStatus();
}

absl::Status IncidentStore::RecountBefore(int64_t before_ms) {
  // The days the cut touches are counted again from what is left.
  const int64_t last_day =
      DayOf(before_ms == std::numeric_limits<int64_t>::min() ? before_ms
                                                             : before_ms - 1);
  SqlStatement drop(*db_, "DELETE FROM incident_counts WHERE day <= ?");
  drop.Bind(last_day);
  if (const int code = drop.Step(); code != kSqlDone) {
    return Error(code, "cannot recount incidents");
  }
  const int64_t through =
      last_day >= std::numeric_limits<int64_t>::max() / kDayMs - 1
          ? std::numeric_limits<int64_t>::max()
          : (last_day + 1) * kDayMs;
  for (const auto& [kind, select] : kRecounts) {
    SqlStatement s(*db_, absl::StrCat("INSERT INTO incident_counts (day, name,"
                                      " count, kind) SELECT *, '",
                                      kind, "' FROM (", select, ") AS c"));
    s.Bind(through);
    if (const int code = s.Step(); code != kSqlDone) {
      return Error(code, "cannot recount incidents");
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<DayCount>> IncidentStore::PerDay(int64_t since_ms) {
  SqlStatement s(*db_,
                 "SELECT day, name, SUM(count) FROM incident_counts WHERE "
                 "kind = 'action' AND day >= ? GROUP BY day, name ORDER BY "
                 "day, name");
  s.Bind(DayOf(since_ms));
  std::vector<DayCount> out;
  int code;
  while ((code = s.Step()) == kSqlRow) {
    out.push_back({s.Int(0), s.Text(1), s.Int(2)});
  }
  if (code != kSqlDone) return Error(code, "cannot count incidents per day");
  return out;
}

absl::StatusOr<std::vector<NamedCount>> IncidentStore::NamedCounts(
    const std::string& kind, int64_t since_ms, size_t n) {
  SqlStatement s(*db_,
                 "SELECT name, SUM(count) AS c FROM incident_counts WHERE "
                 "kind = ? AND day >= ? GROUP BY name ORDER BY c DESC, name "
                 "LIMIT ?");
  s.Bind(kind).Bind(DayOf(since_ms)).Bind(static_cast<int64_t>(n));
  std::vector<NamedCount> out;
  int code;
  while ((code = s.Step()) == kSqlRow) out.push_back({s.Text(0), s.Int(1)});
  if (code != kSqlDone) return Error(code, "cannot count incidents");
  return out;
}

absl::StatusOr<std::vector<NamedCount>> IncidentStore::TopDocuments(
    int64_t since_ms, size_t n) {
  return NamedCounts("document", since_ms, n);
}

absl::StatusOr<std::vector<NamedCount>> IncidentStore::TopSenders(
    int64_t since_ms, size_t n) {
  return NamedCounts("sender", since_ms, n);
}

absl::StatusOr<std::vector<NamedCount>> IncidentStore::PerSeverity(
    int64_t since_ms) {
  return NamedCounts("severity", since_ms, 4);
}

absl::StatusOr<std::vector<NamedCount>> IncidentStore::PerRule(int64_t since_ms,
                                                               size_t n) {
  return NamedCounts("rule", since_ms, n);
}

}  // namespace leakhound
