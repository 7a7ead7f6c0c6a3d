#include "cli/commands/fleet_command.h"

#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "cli/commands/command_line.h"
#include "cli/commands/exit_codes.h"
#include "cli/commands/json_text.h"
#include "cli/incidents/fleet_status.h"
#include "cli/incidents/incident_store.h"
#include "cli/incidents/outbox_event.h"
#include "engine/protected_index.h"

namespace leakhound {
namespace {

constexpr OptionSpec kFleetOptions[] = {
    {"incidents", true},     {"index", true},     {"json", false},
    {"role", true},          {"node-name", true}, {"silent-seconds", true},
    {"behind-minutes", true}};

constexpr char kUsage[] =
    "usage: leakhound fleet ACTION [OPTIONS]   (docs/fleet.md)\n"
    "  nodes [--incidents URI] [--json] [--silent-seconds S]\n"
    "        [--behind-minutes M]\n"
    "      every node the desk knows: role, version, heartbeat, index\n"
    "      generation, policy and spool; flags a node silent for S seconds\n"
    "      (default 60), behind the writer's index generation for M\n"
    "      minutes (default 10), or enforcing another policy than the\n"
    "      published one. Exit 1 when a node is flagged.\n"
    "  report --index DIR [--role writer] [--node-name NAME]\n"
    "         [--incidents URI]\n"
    "      reports this host's index to the desk once (for the index\n"
    "      writer's timer, after `sync`): the generation the nodes must\n"
    "      reach\n";

std::string Flags(const NodeAssessment& a) {
  std::vector<std::string> flags;
  if (a.silent) flags.push_back("silent");
  if (a.behind) flags.push_back("behind");
  if (a.other_policy) flags.push_back("other-policy");
  return flags.empty() ? "ok" : absl::StrJoin(flags, ",");
}

std::string Seconds(int64_t since_ms, int64_t now_ms) {
  if (since_ms == 0) return "-";
  return absl::StrFormat("%llds",
                         static_cast<long long>((now_ms - since_ms) / 1000));
}

void PrintJson(const FleetAssessment& f, int64_t now) {
  std::vector<std::string> nodes;
  for (const NodeAssessment& a : f.nodes) {
    const NodeState& n = a.node;
    nodes.push_back(absl::StrCat(
        "{\"name\":", JsonString(n.name), ",\"role\":", JsonString(n.role),
        ",\"version\":", JsonString(n.version),
        ",\"host\":", JsonString(n.host),
        ",\"heartbeat_seconds_ago\":", (now - n.heartbeat_ms) / 1000,
        ",\"index_generation\":", n.index_generation, ",\"index_documents\":",
        n.index_documents, ",\"policy_version\":", n.policy_version,
        ",\"policy_digest\":", JsonString(n.policy_digest), ",\"spool_depth\":",
        n.spool_depth, ",\"silent\":", a.silent ? "true" : "false",
        ",\"behind\":", a.behind ? "true" : "false",
        ",\"other_policy\":", a.other_policy ? "true" : "false", "}"));
  }
  std::printf(
      "{\"reference_generation\":%lld,\"published_version\":%lld,"
      "\"nodes\":[%s]}\n",
      static_cast<long long>(f.reference_generation),
      static_cast<long long>(f.published_version),
      absl::StrJoin(nodes, ",").c_str());
}

int Nodes(const CommandLine& line, IncidentStore& desk) {
  auto silent = line.Unsigned("silent-seconds", 60, 1, 86400 * 30);
  auto behind = line.Unsigned("behind-minutes", 10, 0, 60 * 24 * 30);
  if (!silent.ok()) return UsageError("fleet", silent.status());
  if (!behind.ok()) return UsageError("fleet", behind.status());
  auto nodes = desk.Nodes();
  if (!nodes.ok()) return ReportError("fleet", nodes.status());
  auto published = desk.GetPolicyVersion(0);
  if (!published.ok() && !absl::IsNotFound(published.status())) {
    return ReportError("fleet", published.status());
  }
  const int64_t now = NowUnixMs();
  const FleetAssessment f = AssessFleet(
      *nodes,
      published.ok() ? std::optional<PolicyVersion>(*published) : std::nullopt,
      now,
      FleetThresholds{static_cast<int64_t>(*silent) * 1000,
                      static_cast<int64_t>(*behind) * 60'000});
  bool flagged = false;
  for (const NodeAssessment& a : f.nodes) flagged |= !a.ok();
  if (line.Has("json")) {
    PrintJson(f, now);
    return flagged ? kExitLeak : kExitOk;
  }
  std::printf("writer's generation %lld, published policy %s\n",
              static_cast<long long>(f.reference_generation),
              f.published_version == 0
                  ? "none"
                  : absl::StrCat("v", f.published_version).c_str());
  std::printf("%-16s %-7s %-8s %-9s %-10s %-9s %-8s %s\n", "NODE", "ROLE",
              "VERSION", "HEARTBEAT", "GENERATION", "POLICY", "SPOOL", "FLAGS");
  for (const NodeAssessment& a : f.nodes) {
    const NodeState& n = a.node;
    std::printf(
        "%-16s %-7s %-8s %-9s %-10lld %-9s %-8lld %s\n", n.name.c_str(),
        n.role.c_str(), n.version.c_str(), Seconds(n.heartbeat_ms, now).c_str(),
        static_cast<long long>(n.index_generation),
        n.policy_version > 0 ? absl::StrCat("v", n.policy_version).c_str()
                             : n.policy_digest.substr(0, 8).c_str(),
        static_cast<long long>(n.spool_depth), Flags(a).c_str());
  }
  return flagged ? kExitLeak : kExitOk;
}

int Report(const CommandLine& line, IncidentStore& desk) {
  auto dir = line.IndexDir();
  if (!dir.ok()) return UsageError("fleet", dir.status());
  auto index = ProtectedIndex::Open(*dir, OpenMode::kRead);
  if (!index.ok()) return ReportError("fleet", index.status());
  NodeState n;
  n.host = LocalHostName();
  n.name = line.Value("node-name").value_or(n.host);
  n.role = line.Value("role").value_or("writer");
  n.version = LEAKHOUND_VERSION;
  n.pid = ::getpid();
  n.started_ms = n.heartbeat_ms = NowUnixMs();
  n.index_generation = static_cast<int64_t>((*index)->generation());
  n.index_documents = static_cast<int64_t>((*index)->matrix().documents());
  if (absl::Status s = desk.Heartbeat(n); !s.ok()) {
    return ReportError("fleet", s);
  }
  std::printf("reported %s (%s): generation %lld, %lld documents\n",
              n.name.c_str(), n.role.c_str(),
              static_cast<long long>(n.index_generation),
              static_cast<long long>(n.index_documents));
  return kExitOk;
}

}  // namespace

int RunFleetCommand(int argc, char** argv) {
  int exit = kExitOk;
  auto line =
      ParseCommandLine("fleet", argc, argv, kFleetOptions, kUsage, &exit);
  if (!line) return exit;
  auto action = SplitAction("fleet", *line);
  if (!action) return kExitError;
  if (action->action != "nodes" && action->action != "report") {
    return UsageError(
        "fleet", absl::InvalidArgumentError(absl::StrCat(
                     "unknown action '", action->action, "' (nodes, report)")));
  }
  if (!action->operands.empty()) {
    return UsageError("fleet",
                      absl::InvalidArgumentError(absl::StrCat(
                          "unexpected argument '", action->operands[0], "'")));
  }
  auto path = line->IncidentsPath();
  if (!path.ok()) return UsageError("fleet", path.status());
  if (!*path) {
    return UsageError("fleet", absl::InvalidArgumentError(
                                   "the desk is off (--incidents off)"));
  }
  IncidentStore::Options o;
  o.create = false;
  auto desk = IncidentStore::Open(**path, o);
  if (!desk.ok()) return ReportError("fleet", desk.status());
  return action->action == "nodes" ? Nodes(*line, **desk)
                                   : Report(*line, **desk);
}

}  // namespace leakhound
