// PolicyReader: the [discover] table and its [[discover.target]] tables
// (policy_reader.h, docs/discover.md).
#include <set>
#include <string>

#include "absl/strings/str_cat.h"
#include "cli/policy/policy_reader.h"

namespace leakhound {
namespace {

DiscoverTarget ReadTarget(PolicyReader& reader, const toml::table& t) {
  reader.OnlyKeys(t, {"name", "paths", "exclude", "schedule"},
                  "a [[discover.target]]");
  DiscoverTarget target;
  target.line = static_cast<int>(t.source().begin.line);
  target.name = reader.String(t, "name").value_or("");
  if (target.name.empty() ||
      target.name.find_first_of("/\\\t\n ") != std::string::npos) {
    reader.Fail(t.source(),
                "a [[discover.target]] needs a name without spaces or "
                "slashes");
  }
  target.paths = reader.Strings(t, "paths");
  if (target.paths.empty()) {
    reader.Fail(t.source(),
                absl::StrCat("target '", target.name, "' needs paths = [...]"));
  }
  for (const std::string& p : target.paths) {
    if (p.empty() || p.front() != '/') {
      reader.Fail(t.get("paths")->source(),
                  absl::StrCat("target '", target.name, "': path '", p,
                               "' is not absolute"));
    }
  }
  target.exclude = reader.Strings(t, "exclude");
  target.schedule = reader.String(t, "schedule").value_or("daily");
  if (target.schedule != "hourly" && target.schedule != "daily" &&
      target.schedule != "weekly" && target.schedule != "manual") {
    reader.Fail(t.get("schedule")->source(),
                absl::StrCat("unknown schedule '", target.schedule,
                             "' (hourly, daily, weekly, manual)"));
  }
  return target;
}

}  // namespace

DiscoverSettings PolicyReader::Discover(const toml::table& t) {
  OnlyKeys(t, {"quarantine_dir", "owner_mail", "from", "target"}, "[discover]");
  DiscoverSettings d;
  d.quarantine_dir = String(t, "quarantine_dir").value_or("");
  if (!d.quarantine_dir.empty() && d.quarantine_dir.front() != '/') {
    Fail(t.get("quarantine_dir")->source(),
         "[discover] quarantine_dir must be an absolute path");
  }
  d.owner_mail = String(t, "owner_mail").value_or("");
  if (!d.owner_mail.empty() && d.owner_mail.find("%u") == std::string::npos) {
    Fail(t.get("owner_mail")->source(),
         "[discover] owner_mail needs %u (the owner's user name)");
  }
  d.from = String(t, "from").value_or(d.from);
  const toml::node* targets = t.get("target");
  if (targets == nullptr) return d;
  const toml::array* list = targets->as_array();
  if (list == nullptr) {
    Fail(targets->source(), "'target' must be [[discover.target]] tables");
    return d;
  }
  std::set<std::string> names;
  for (const toml::node& item : *list) {
    const toml::table* table = item.as_table();
    if (table == nullptr) {
      Fail(item.source(), "'target' must be [[discover.target]] tables");
      break;
    }
    d.targets.push_back(ReadTarget(*this, *table));
    if (!names.insert(d.targets.back().name).second) {
      Fail(table->source(),
           absl::StrCat("a second target named '", d.targets.back().name, "'"));
    }
  }
  return d;
}

}  // namespace leakhound
