#include "cli/policy/policy_file.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <initializer_list>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cli/policy/group_file.h"
#include "cli/policy/policy_bounds.h"
#include "cli/policy/policy_reader.h"
#include "index/trusted_path.h"
#include "shingler/host_name.h"

namespace leakhound {
namespace {

// One [groups] entry that is a table: { directory = DN } or { file = F }.
void ReadGroupTable(PolicyReader& reader, const std::string& group,
                    const toml::node& node, Policy& policy) {
  const toml::table& t = *node.as_table();
  reader.OnlyKeys(t, {"directory", "file"}, "a group table");
  const std::optional<std::string> dn = reader.String(t, "directory");
  const std::optional<std::string> file = reader.String(t, "file");
  if (file && !file->empty()) {
    const auto line = static_cast<uint32_t>(node.source().begin.line);
    std::string error;
    std::vector<std::string> line_errors;
    policy.groups[group] =
        ReadGroupFile(reader.path(), *file, &error, &line_errors);
    if (!error.empty()) reader.FailAt(line, error);
    for (const std::string& e : line_errors) reader.FailInFile(line, e);
  } else if (!dn || dn->empty()) {
    reader.Fail(node.source(),
                "a group table needs 'directory' (the group entry's DN) or "
                "'file' (one address per line)");
  } else {
    policy.directory_groups[group] = *dn;
    policy.groups[group] = {};
  }
}

// [groups]: lists of addresses, { directory = DN } or { file = F }. A
// group may not hold a group: the evaluator does not expand them.
void ReadGroups(PolicyReader& reader, const toml::table& root, Policy& policy) {
  const toml::node* groups = root.get("groups");
  if (groups == nullptr) return;
  if (groups->as_table() == nullptr) {
    reader.Fail(groups->source(), "'groups' must be a table ([groups])");
    return;
  }
  for (const auto& [name, node] : *groups->as_table()) {
    const std::string group(name.str());
    if (node.as_table() != nullptr) {
      ReadGroupTable(reader, group, node, policy);
      continue;
    }
    std::vector<std::string> members =
        reader.Addresses(*groups->as_table(), group);
    for (const std::string& m : members) {
      if (m.starts_with("group:")) {
        reader.Fail(node.source(),
                    absl::StrCat("group '", group, "' holds ", m,
                                 ": a group cannot hold a group; list its "
                                 "addresses"));
      }
    }
    policy.groups[group] = std::move(members);
  }
}

// [[rule]] tables; a rule's name is its own.
void ReadRules(PolicyReader& reader, const toml::table& root, Policy& policy) {
  const toml::node* rules = root.get("rule");
  if (rules == nullptr) return;
  const toml::array* list = rules->as_array();
  if (list == nullptr) {
    reader.Fail(rules->source(), "rules are [[rule]] tables");
    return;
  }
  std::map<std::string, int> lines;  // name -> the first rule's line
  for (const toml::node& item : *list) {
    if (item.as_table() == nullptr) {
      reader.Fail(item.source(), "rules are [[rule]] tables");
      break;
    }
    policy.rules.push_back(reader.Rule(*item.as_table()));
    const PolicyRule& r = policy.rules.back();
    if (r.name.empty()) continue;
    const auto [first, fresh] = lines.emplace(r.name, r.line);
    if (!fresh) {
      reader.Fail(PolicyReader::At(*item.as_table(), "name"),
                  absl::StrCat("a second rule named '", r.name,
                               "' (the first is at line ", first->second,
                               "): incidents and the SIEM tell rules by name"));
    }
  }
}

// [outbox] and [[destination]] tables: the SIEM feed.
void ReadOutbox(PolicyReader& reader, const toml::table& root, Policy& policy) {
  if (const toml::node* outbox = root.get("outbox")) {
    if (outbox->as_table() == nullptr) {
      reader.Fail(outbox->source(), "'outbox' must be a table ([outbox])");
    } else {
      policy.outbox = reader.Outbox(*outbox->as_table());
    }
  }
  if (const toml::node* destinations = root.get("destination")) {
    const toml::array* list = destinations->as_array();
    for (size_t k = 0; list != nullptr && k < list->size(); ++k) {
      if (const toml::table* t = (*list)[k].as_table()) {
        policy.destinations.push_back(reader.Destination(*t));
      } else {
        list = nullptr;
      }
    }
    if (list == nullptr) {
      reader.Fail(destinations->source(),
                  "destinations are [[destination]] tables");
    }
    reader.CheckNames(policy.destinations);
  }
}

// The [[key]] tables of the file, each read by `read`.
template <typename T, typename Read>
void ReadTables(PolicyReader& reader, const toml::table& root, const char* key,
                Read read, std::vector<T>& out) {
  const toml::node* node = root.get(key);
  if (node == nullptr) return;
  const toml::array* list = node->as_array();
  for (size_t k = 0; list != nullptr && k < list->size(); ++k) {
    if (const toml::table* t = (*list)[k].as_table()) {
      out.push_back(read(*t));
    } else {
      list = nullptr;
    }
  }
  if (list == nullptr) {
    reader.Fail(node->source(),
                absl::StrCat("'", key, "' must be [[", key, "]] tables"));
  }
}

// [[identifier]], [[escalation]] and [[report]] tables.
void ReadIdentifiers(PolicyReader& reader, const toml::table& root,
                     Policy& policy) {
  ReadTables(
      reader, root, "identifier",
      [&](const toml::table& t) { return reader.Identifier(t); },
      policy.identifiers);
  ReadTables(
      reader, root, "escalation",
      [&](const toml::table& t) { return reader.Escalation(t); },
      policy.escalations);
  ReadTables(
      reader, root, "report",
      [&](const toml::table& t) { return reader.Report(t); }, policy.reports);
}

}  // namespace

PolicyReport CheckPolicy(std::string_view text, const std::string& path) {
  PolicyReport report;
  // Bounded before toml++ sees it (its recursion would overflow the stack
  // on a header of 40,000 dotted keys): the file is untrusted input.
  if (auto bound = PolicyBoundsError(text)) {
    report.errors.push_back(absl::StrCat(path, ":", bound->line, ": ",
                                         bound->message));
    report.error_lines.push_back(bound->line);
    return report;
  }
  toml::table root;
  try {
    root = toml::parse(text, path);
  } catch (const toml::parse_error& e) {
    const auto line = static_cast<uint32_t>(e.source().begin.line);
    report.errors.push_back(
        absl::StrCat(path, ":", line, ": ", std::string(e.description())));
    report.error_lines.push_back(line);
    return report;
  }
  PolicyReader reader(path);
  reader.OnlyKeys(root,
                  {"internal_domains", "help_url", "directory", "groups",
                   "rule", "destination", "outbox", "identifier", "escalation",
                   "report", "labels", "discover"},
                  "the file");
  Policy policy;
  policy.path = path;
  policy.internal_domains = reader.Domains(root, "internal_domains");
  policy.help_url = reader.String(root, "help_url").value_or("");
  ReadGroups(reader, root, policy);
  if (const toml::node* directory = root.get("directory")) {
    if (directory->as_table() == nullptr) {
      reader.Fail(directory->source(), "'directory' must be a table");
    } else {
      policy.directory = reader.Directory(*directory->as_table());
    }
  }
  if (!policy.directory_groups.empty() && !policy.directory) {
    reader.Fail(root.get("groups")->source(),
                "directory groups need a [directory] table (url, base_dn)");
  }
  if (const toml::node* labels = root.get("labels")) {
    if (labels->as_table() == nullptr) {
      reader.Fail(labels->source(), "'labels' must be a table ([labels])");
    } else {
      policy.sensitivity_labels = reader.Labels(*labels->as_table());
    }
  }
  if (const toml::node* discover = root.get("discover")) {
    if (discover->as_table() == nullptr) {
      reader.Fail(discover->source(),
                  "'discover' must be a table ([discover])");
    } else {
      policy.discover = reader.Discover(*discover->as_table());
    }
  }
  ReadRules(reader, root, policy);
  ReadOutbox(reader, root, policy);
  ReadIdentifiers(reader, root, policy);
  reader.CheckGroups(policy);
  reader.CheckLabelRanks(policy);
  for (auto& [line, message] : reader.errors()) {
    report.errors.push_back(std::move(message));
    report.error_lines.push_back(line);
  }
  CompileLabels(&policy);
  if (report.errors.empty()) {
    report.policy = std::move(policy);
  } else {
    report.parsed = std::move(policy);
  }
  return report;
}

absl::StatusOr<Policy> ParsePolicy(std::string_view text,
                                   const std::string& path) {
  PolicyReport report = CheckPolicy(text, path);
  if (!report.errors.empty()) {
    return absl::InvalidArgumentError(report.errors.front());
  }
  return *std::move(report.policy);
}

absl::StatusOr<std::string> ReadPolicyText(const std::string& path) {
  // A file another user can write or swap would let them choose where the
  // directory's passwords go: refused (index/trusted_path.h).
  if (absl::Status s = CheckTrustedFile(path, "policy file"); !s.ok()) {
    return s;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read ", path));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return absl::NotFoundError(absl::StrCat("cannot read ", path));
  return text.str();
}

absl::StatusOr<Policy> ReadPolicyFile(const std::string& path) {
  absl::StatusOr<std::string> text = ReadPolicyText(path);
  if (!text.ok()) return text.status();
  return ParsePolicy(*text, path);
}

}  // namespace leakhound
