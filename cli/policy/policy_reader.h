// PolicyReader: reads the tables of a policy file's TOML (toml++'s node
// API) into the model of policy.h, collecting every error with its line
// ("FILE:LINE: message"). policy_file.cc parses the file and walks its
// top-level tables with it; nothing else uses toml++.
//
// Thread-safety: a reader belongs to one parse.
#ifndef LEAKHOUND_CLI_POLICY_POLICY_READER_H_
#define LEAKHOUND_CLI_POLICY_POLICY_READER_H_

#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cli/policy/policy.h"

// toml++ is built with exceptions (Debian's libtomlplusplus3); only its
// parse throws, and policy_file.cc catches that. The node API used here
// does not throw.
#include <toml++/toml.h>

namespace leakhound {

class PolicyReader {
 public:
  explicit PolicyReader(std::string path) : path_(std::move(path)) {}

  const std::string& path() const { return path_; }
  // Every error, "FILE:LINE: message", with the policy's line it is
  // sorted by (a group file's: its group's), in line order.
  std::vector<std::pair<uint32_t, std::string>> errors() const;

  void Fail(const toml::source_region& at, const std::string& message);
  void FailAt(uint32_t line, const std::string& message);
  // An error in another file (a group's), placed at `line` of the policy.
  void FailInFile(uint32_t line, const std::string& located_message);
  // Where to report a problem with `key` of `t`: the key's line when it is
  // there, else the table's.
  static const toml::source_region& At(const toml::table& t,
                                       const std::string& key);

  // Fails on a key of `table` not in `known`.
  void OnlyKeys(const toml::table& table,
                std::initializer_list<const char*> known,
                const std::string& where);

  std::optional<std::string> String(const toml::table& t,
                                    const std::string& key);

  std::optional<bool> Bool(const toml::table& t, const std::string& key);

  std::optional<uint32_t> Count(const toml::table& t, const std::string& key);

  // A share: 0..1 (50 % is 0.5).
  std::optional<double> Share(const toml::table& t, const std::string& key);

  std::vector<std::string> Strings(const toml::table& t,
                                   const std::string& key);

  std::optional<Severity> SeverityAt(const toml::table& t,
                                     const std::string& key);

  // Address patterns: user@domain, @domain or group:NAME; the domain a
  // host name (HostName), kept in its ASCII form.
  std::vector<std::string> Addresses(const toml::table& t,
                                     const std::string& key);

  std::vector<std::string> Domains(const toml::table& t,
                                   const std::string& key);

  PolicyConditions Conditions(const toml::table& t, const std::string& where);

  // The label conditions of `t` into `c` (docs/labels.md).
  void SensitivityConditions(const toml::table& t, PolicyConditions& c);

  // A cumulative condition's table ({ words = N, days = D, per = P }).
  std::optional<CumulativeCondition> Cumulative(const toml::node& n);

  // The [labels] table: label ids -> names, and `order`.
  LabelSettings Labels(const toml::table& t);

  // Every label rank the conditions use is in [labels] order, and
  // label_downgrade has an order to rank by.
  void CheckLabelRanks(const Policy& policy);

  IdentifierDefinition Identifier(const toml::table& t);

  std::optional<Disposition> Action(const toml::table& t);

  std::vector<SeverityStep> Steps(const toml::table& t);
  // A rule for the discover channel: its remediation and tombstone
  // (docs/discover.md); restrict and notify-owner are refused elsewhere.
  void DiscoverAction(const toml::table& t, PolicyRule& r,
                      const std::string& where);
  // The [discover] table and its [[discover.target]] tables.
  DiscoverSettings Discover(const toml::table& t);

  PolicyRule Rule(const toml::table& t);

  // The rule's override (docs/overrides.md): it must block to offer one.
  OverrideSettings Override(const toml::table& t, const PolicyRule& r,
                            const std::string& where);

  EscalationRule Escalation(const toml::table& t);

  ReportSettings Report(const toml::table& t);

  std::vector<Severity> Severities(const toml::table& t,
                                   const std::string& key);

  // A list of strings each of which is in `known`.
  std::vector<std::string> OneOf(const toml::table& t, const std::string& key,
                                 std::initializer_list<const char*> known);

  // Seconds above 0, at most a day, into `field` when set.
  void Seconds(const toml::table& t, const char* key, double& field);

  DirectorySettings Directory(const toml::table& t);

  DestinationSettings Destination(const toml::table& t);

  OutboxSettings Outbox(const toml::table& t);

  // Destination names are distinct.
  void CheckNames(const std::vector<DestinationSettings>& destinations);

  // Every group:NAME used is defined.
  void CheckGroups(const Policy& policy);

 private:
  const std::string path_;
  std::vector<std::pair<uint32_t, std::string>> errors_;  // (line, message)
  std::map<std::string, toml::source_region> groups_used_;
  // sensitivity_at_least names ("" for label_downgrade) and where.
  std::map<std::string, toml::source_region> label_ranks_used_;
};

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_POLICY_POLICY_READER_H_
