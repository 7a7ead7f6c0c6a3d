#include "cli/commands/policy_desk_command.h"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cli/commands/exit_codes.h"
#include "cli/commands/incidents_command.h"
#include "cli/incidents/incident_store.h"
#include "cli/policy/policy_bounds.h"
#include "cli/policy/policy_file.h"
#include "cli/policy/policy_lint.h"
#include "engine/content_digest.h"

extern char** environ;

namespace leakhound {
namespace {

constexpr const char* kActions[] = {"publish", "versions", "show", "diff",
                                    "rollback"};

absl::StatusOr<std::unique_ptr<IncidentStore>> OpenDesk(
    const CommandLine& line) {
  auto path = line.IncidentsPath();
  if (!path.ok()) return path.status();
  if (!*path) {
    return absl::InvalidArgumentError("the desk is off (--incidents off)");
  }
  return IncidentStore::Open(**path);
}

absl::StatusOr<int64_t> VersionOperand(const std::string& text) {
  std::string digits = text;
  if (!digits.empty() && digits[0] == 'v') digits.erase(0, 1);
  int64_t v = 0;
  if (!absl::SimpleAtoi(digits, &v) || v <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("'", text, "' is not a policy version (1, 2, v3...)"));
  }
  return v;
}

// The text's mistakes as `policy check` prints them; empty when none.
std::vector<std::string> Mistakes(const std::string& text,
                                  const std::string& name) {
  if (auto bound = PolicyBoundsError(text)) {
    return {absl::StrCat(name, ":", bound->line, ": ", bound->message,
                         " (refused unread)")};
  }
  const PolicyReport report = CheckPolicy(text, name);
  std::vector<std::string> out = report.errors;
  if (report.policy) {
    for (const PolicyFinding& f : LintPolicy(*report.policy, nullptr)) {
      if (f.mistake) out.push_back(f.message);
    }
  }
  return out;
}

// Checks `text` and stores it as the newest version (unless it is the
// newest already).
int Publish(IncidentStore& desk, const std::string& text,
            const std::string& name, const std::string& comment) {
  if (std::vector<std::string> m = Mistakes(text, name); !m.empty()) {
    for (const std::string& line : m) std::printf("%s\n", line.c_str());
    std::fprintf(stderr, "leakhound policy: %s not published\n", name.c_str());
    return kExitLeak;
  }
  const std::string digest = absl::BytesToHexString(ContentDigest(text));
  if (auto latest = desk.GetPolicyVersion(0);
      latest.ok() && latest->digest == digest) {
    std::printf("unchanged: version %lld is this text (sha256:%s)\n",
                static_cast<long long>(latest->version), digest.c_str());
    return kExitOk;
  }
  auto version = desk.PublishPolicy(text, digest, CliUser(), comment);
  if (!version.ok()) return ReportError("policy", version.status());
  std::printf("published version %lld (sha256:%s)\n",
              static_cast<long long>(*version), digest.c_str());
  return kExitOk;
}

int Versions(IncidentStore& desk) {
  auto versions = desk.PolicyVersions(100);
  if (!versions.ok()) return ReportError("policy", versions.status());
  auto nodes = desk.Nodes();
  if (!nodes.ok()) return ReportError("policy", nodes.status());
  std::map<std::string, std::vector<std::string>> running;  // digest: nodes
  for (const NodeState& n : *nodes) running[n.policy_digest].push_back(n.name);
  std::printf("%-8s %-20s %-12s %-14s %-24s %s\n", "VERSION", "TIME (UTC)",
              "AUTHOR", "SHA-256", "RUN BY", "COMMENT");
  for (const PolicyVersion& v : *versions) {
    const auto it = running.find(v.digest);
    std::printf(
        "%-8lld %-20s %-12s %-14s %-24s %s\n",
        static_cast<long long>(v.version), FormatTime(v.time_ms).c_str(),
        v.author.c_str(), v.digest.substr(0, 12).c_str(),
        it == running.end() ? "-" : absl::StrJoin(it->second, ",").c_str(),
        v.comment.c_str());
  }
  return kExitOk;
}

// diff -u of two versions (diffutils, Essential in Debian).
int Diff(IncidentStore& desk, int64_t a, int64_t b) {
  auto old_version = desk.GetPolicyVersion(a);
  auto new_version = desk.GetPolicyVersion(b);
  if (!old_version.ok()) return ReportError("policy", old_version.status());
  if (!new_version.ok()) return ReportError("policy", new_version.status());
  char dir[] = "/tmp/leakhound-policy-diff-XXXXXX";
  if (::mkdtemp(dir) == nullptr) {
    return ReportError("policy", absl::InternalError("cannot make a folder"));
  }
  const std::string left = absl::StrCat(dir, "/a"),
                    right = absl::StrCat(dir, "/b");
  std::ofstream(left, std::ios::binary) << old_version->body;
  std::ofstream(right, std::ios::binary) << new_version->body;
  const std::string la = absl::StrCat("v", a), lb = absl::StrCat("v", b);
  std::fflush(stdout);
  const char* argv[] = {"diff",       "-u",          "--label",
                        la.c_str(),   "--label",     lb.c_str(),
                        left.c_str(), right.c_str(), nullptr};
  pid_t pid = 0;
  int status = 0;
  const int spawned = ::posix_spawn(&pid, "/usr/bin/diff", nullptr, nullptr,
                                    const_cast<char**>(argv), environ);
  if (spawned == 0) ::waitpid(pid, &status, 0);
  ::unlink(left.c_str());
  ::unlink(right.c_str());
  ::rmdir(dir);
  if (spawned != 0 || !WIFEXITED(status) || WEXITSTATUS(status) > 1) {
    return ReportError("policy", absl::InternalError("diff(1) failed"));
  }
  return kExitOk;  // the same or not: the output says
}

}  // namespace

const char kPolicyDeskUsage[] =
    "  publish FILE [--comment TEXT] [--incidents URI]\n"
    "      checks FILE as `check` does and stores it on the desk as the\n"
    "      newest version; gateways run with --policy desk take it on\n"
    "      their reload timer (docs/fleet.md)\n"
    "  versions | show [N] | diff A B | rollback N [--incidents URI]\n"
    "      the published versions and the nodes running each; one\n"
    "      version's text (newest by default); what changed from A to B;\n"
    "      publish version N's text again as the newest\n";

bool IsPolicyDeskAction(const std::string& action) {
  for (const char* a : kActions) {
    if (action == a) return true;
  }
  return false;
}

int RunPolicyDeskAction(const CommandLine& line,
                        const ActionArguments& action) {
  const std::vector<std::string>& args = action.operands;
  const size_t wanted =
      action.action == "publish" || action.action == "rollback" ? 1
      : action.action == "diff"                                 ? 2
                                                                : 0;
  if (args.size() != wanted && !(action.action == "show" && args.size() <= 1)) {
    return UsageError("policy", absl::InvalidArgumentError(absl::StrCat(
                                    "policy ", action.action, " takes ", wanted,
                                    wanted == 1 ? " argument" : " arguments")));
  }
  std::vector<int64_t> versions;
  if (action.action != "publish") {
    for (const std::string& a : args) {
      auto v = VersionOperand(a);
      if (!v.ok()) return UsageError("policy", v.status());
      versions.push_back(*v);
    }
  }
  auto desk = OpenDesk(line);
  if (!desk.ok()) return ReportError("policy", desk.status());
  if (action.action == "publish") {
    auto text = ReadPolicyText(args[0]);
    if (!text.ok()) return ReportError("policy", text.status());
    return Publish(**desk, *text, args[0], line.Value("comment").value_or(""));
  }
  if (action.action == "versions") return Versions(**desk);
  if (action.action == "diff") return Diff(**desk, versions[0], versions[1]);
  auto version = (*desk)->GetPolicyVersion(versions.empty() ? 0 : versions[0]);
  if (!version.ok()) return ReportError("policy", version.status());
  if (action.action == "show") {
    std::fwrite(version->body.data(), 1, version->body.size(), stdout);
    return kExitOk;
  }
  return Publish(
      **desk, version->body, absl::StrCat("v", version->version),
      absl::StrCat(
          "rollback to v", version->version,
          line.Has("comment") ? ": " + *line.Value("comment") : std::string()));
}

}  // namespace leakhound
