#include "cli/commands/discover_command.h"

#include <unistd.h>

#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "cli/commands/command_line.h"
#include "cli/commands/discover_run.h"
#include "cli/commands/exit_codes.h"
#include "cli/commands/input_files.h"
#include "cli/commands/json_text.h"
#include "cli/discover/file_facts.h"
#include "cli/discover/finding_restore.h"
#include "cli/gateway/printable.h"
#include "cli/incidents/incident_store.h"
#include "cli/policy/policy_file.h"

namespace leakhound {
namespace {

constexpr char kUsage[] =
    "usage: leakhound discover run --policy FILE [--index DIR] "
    "[--incidents STORE]\n"
    "                              [--target NAME]... [--due] [--threads N]\n"
    "                              [--sendmail COMMAND] [-q] [LIMITS]\n"
    "                              [--plan | --claim WORKER]  (one --target)\n"
    "       leakhound discover restore REFERENCE... [--incidents STORE] "
    "[--user NAME]\n"
    "       leakhound discover findings [--target NAME] [--state STATE] "
    "[--json]\n"
    "                                   [--incidents STORE]\n"
    "  run        crawls the policy's [[discover.target]] shares (all, the "
    "--target\n"
    "             ones, or with --due those whose schedule is due), reads "
    "only the\n"
    "             files that changed or whose verdict may have (the "
    "protected set or\n"
    "             the policy changed), records each finding as an incident "
    "of source\n"
    "             discover and remediates it as the rules of channel "
    "discover say:\n"
    "             quarantine, restrict, notify-owner or log. Exit 0: no new "
    "finding;\n"
    "             1: a new finding; 2: an error (an unreadable folder or "
    "file too)\n"
    "  restore    undoes a finding's remediation: a quarantined file goes "
    "back with\n"
    "             its mode and owner, a restricted one gets its mode back\n"
    "  findings   lists the findings: reference, state, remediation, path, "
    "owner,\n"
    "             mode, exposure\n"
    "  --sendmail COMMAND  how notify-owner mails (\"/usr/sbin/sendmail\")\n"
    "  --plan     walks the target and hands what is to read out to workers "
    "in the\n"
    "             store; --claim WORKER reads what is handed out until none "
    "is left\n"
    "             (cli/cluster/dask_discover.py); a run without them then "
    "finishes\n"
    "  docs/discover.md has the policy's [discover] tables.\n";

// The period of a schedule, in ms; 0 for "manual".
int64_t PeriodMs(const std::string& schedule) {
  constexpr int64_t kHour = 3'600'000;
  if (schedule == "hourly") return kHour;
  if (schedule == "daily") return 24 * kHour;
  if (schedule == "weekly") return 7 * 24 * kHour;
  return 0;
}

// The targets to run: --target's, else with --due those due, else all.
absl::StatusOr<std::vector<const DiscoverTarget*>> Chosen(
    const CommandLine& line, const Policy& policy, IncidentStore& store) {
  std::vector<const DiscoverTarget*> out;
  const std::vector<std::string> named = line.Values("target");
  for (const std::string& name : named) {
    const DiscoverTarget* found = nullptr;
    for (const DiscoverTarget& t : policy.discover.targets) {
      if (t.name == name) found = &t;
    }
    if (found == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(
          "no [[discover.target]] named '", name, "' in ", policy.path));
    }
    out.push_back(found);
  }
  if (!named.empty()) return out;
  auto runs = store.LatestDiscoverRuns();
  if (!runs.ok()) return runs.status();
  const int64_t now = NowUnixMs();
  constexpr int64_t kSlackMs = 300'000;  // a timer's jitter
  for (const DiscoverTarget& t : policy.discover.targets) {
    if (line.Has("due")) {
      const int64_t period = PeriodMs(t.schedule);
      if (period == 0) continue;
      bool due = true;
      for (const DiscoverRun& r : *runs) {
        if (r.target == t.name && now - r.started_ms < period - kSlackMs) {
          due = false;
        }
      }
      if (!due) continue;
    }
    out.push_back(&t);
  }
  if (out.empty() && !line.Has("due")) {
    return absl::FailedPreconditionError(
        absl::StrCat(policy.path, " declares no [[discover.target]]"));
  }
  return out;
}

std::string SummaryLine(const TargetSummary& s, const DiscoverRunOptions& o) {
  const DiscoverRun& r = s.run;
  if (o.mode == DiscoverRunOptions::Mode::kPlan) {
    return absl::StrCat("discover ", r.target, ": ",
                        Plural(static_cast<uint64_t>(r.seen), "file"), ", ",
                        r.to_read, " handed out to workers, ", s.unchanged,
                        " unchanged; ", r.closed, " closed, ",
                        Plural(static_cast<uint64_t>(r.errors), "error"));
  }
  if (o.mode == DiscoverRunOptions::Mode::kClaim) {
    return absl::StrCat(
        "discover ", r.target, " worker ", o.worker, ": ", r.read, " read; ",
        Plural(static_cast<uint64_t>(r.findings), "new finding"), ", ",
        Plural(static_cast<uint64_t>(r.errors), "error"));
  }
  std::string line =
      absl::StrCat("discover ", r.target, ": ",
                   Plural(static_cast<uint64_t>(r.seen), "file"), ", ", r.read,
                   " read, ", s.unchanged, " unchanged");
  if (s.basis_changed > 0) {
    absl::StrAppend(&line, " (", s.basis_changed,
                    " read again because the protected set or the policy "
                    "changed: every file judged before is read again)");
  }
  absl::StrAppend(
      &line, "; ", Plural(static_cast<uint64_t>(r.findings), "new finding"),
      " (", s.quarantined, " quarantined, ", s.restricted, " restricted, ",
      s.notified, " owners told, ", s.logged, " logged), ", r.closed,
      " closed, ", Plural(static_cast<uint64_t>(r.errors), "error"));
  if (s.recovered > 0) {
    absl::StrAppend(&line, "; ", s.recovered,
                    " interrupted quarantines finished");
  }
  return absl::StrCat(line, "; ",
                      static_cast<double>(r.finished_ms - r.started_ms) / 1000,
                      " s");
}

absl::StatusOr<std::unique_ptr<IncidentStore>> OpenStore(
    const CommandLine& line, bool create) {
  auto path = line.IncidentsPath();
  if (!path.ok()) return path.status();
  if (!*path) return absl::InvalidArgumentError("--incidents off: no store");
  IncidentStore::Options open;
  open.create = create;
  return IncidentStore::Open(**path, open);
}

absl::StatusOr<DiscoverRunOptions> RunOptions(const CommandLine& line,
                                              const Policy& policy) {
  DiscoverRunOptions o;
  o.policy = &policy;
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  auto threads = line.Unsigned("threads", cores, 1, 256);
  auto match = MatchRuleOptions(line);
  auto limits = FileLimits(line);
  auto snippets = OnOff(line, "store-snippets", true);
  for (const absl::Status& s :
       {threads.status(), match.status(), limits.status(), snippets.status()}) {
    if (!s.ok()) return s;
  }
  o.threads = *threads;
  o.match = *match;
  o.limits = *limits;
  o.snippets = *snippets;
  if (auto s = line.Value("sendmail")) {
    o.sendmail = absl::StrSplit(*s, ' ', absl::SkipEmpty());
  }
  o.quiet = line.Has("quiet");
  o.progress = !o.quiet && ::isatty(STDERR_FILENO) == 1;
  if (line.Has("plan") || line.Has("claim")) {
    if (line.Has("plan") && line.Has("claim")) {
      return absl::InvalidArgumentError("--plan or --claim, not both");
    }
    if (line.Values("target").size() != 1) {
      return absl::InvalidArgumentError(
          "--plan and --claim take exactly one --target");
    }
    o.mode = line.Has("plan") ? DiscoverRunOptions::Mode::kPlan
                              : DiscoverRunOptions::Mode::kClaim;
    o.worker = line.Value("claim").value_or("");
    if (line.Has("claim") && o.worker.empty()) {
      return absl::InvalidArgumentError("--claim needs a worker name");
    }
  }
  return o;
}

int Run(const CommandLine& line) {
  auto policy_path = line.Value("policy");
  if (!policy_path) {
    return ReportError("discover",
                       absl::InvalidArgumentError("run needs --policy FILE"));
  }
  auto policy = ReadPolicyFile(*policy_path);
  if (!policy.ok()) return ReportError("discover", policy.status());
  auto bytes = ReadFileBounded(*policy_path, 64 << 20);
  if (!bytes.ok()) return ReportError("discover", bytes.status(), *policy_path);
  auto options = RunOptions(line, *policy);
  if (!options.ok()) return ReportError("discover", options.status());
  auto store = OpenStore(line, true);
  if (!store.ok()) return ReportError("discover", store.status());
  auto targets = Chosen(line, *policy, **store);
  if (!targets.ok()) return ReportError("discover", targets.status());
  if (targets->empty()) {
    if (!options->quiet) std::printf("discover: no target is due\n");
    return kExitOk;
  }
  auto index = OpenIndex(line, OpenMode::kRead);
  if (!index.ok()) return ReportError("discover", index.status());
  options->basis = DiscoverBasis(**index, *bytes);
  int exit = kExitOk;
  for (const DiscoverTarget* t : *targets) {
    auto summary = RunDiscoverTarget(*t, *options, **index, **store);
    if (!summary.ok()) return ReportError("discover", summary.status());
    if (!options->quiet) {
      std::printf("%s\n", SummaryLine(*summary, *options).c_str());
    }
    if (summary->run.errors > 0) exit = kExitError;
    if (summary->run.findings > 0 && exit == kExitOk) exit = kExitLeak;
  }
  return exit;
}

int Restore(const CommandLine& line, const std::vector<std::string>& refs) {
  if (refs.empty()) {
    return UsageError("discover", absl::InvalidArgumentError(
                                      "restore needs a finding's reference"));
  }
  auto store = OpenStore(line, false);
  if (!store.ok()) return ReportError("discover", store.status());
  const char* login = ::getlogin();
  const std::string user = line.Value("user").value_or(
      login != nullptr ? login : absl::StrCat("uid ", ::getuid()));
  int exit = kExitOk;
  for (const std::string& ref : refs) {
    auto said = RestoreFinding(**store, ref, user);
    if (!said.ok()) {
      exit = ReportError("discover", said.status(), ref);
      continue;
    }
    std::printf("restored %s\n", Printable(*said).c_str());
  }
  return exit;
}

std::string FindingJson(const DiscoverFinding& f) {
  return absl::StrCat(
      "{\"reference\":", JsonString(f.reference),
      ",\"incident\":", f.incident_id, ",\"target\":", JsonString(f.target),
      ",\"path\":", JsonString(f.path), ",\"owner\":", JsonString(f.owner),
      ",\"group\":", JsonString(f.group),
      ",\"mode\":", JsonString(ModeText(f.mode)), ",\"size\":", f.size,
      ",\"mtime\":", JsonString(FormatTime(f.mtime_ms)),
      ",\"exposure\":", JsonString(f.exposure),
      ",\"remediation\":", JsonString(f.remediation),
      ",\"state\":", JsonString(f.state),
      ",\"quarantine_path\":", JsonString(f.quarantine_path),
      ",\"detail\":", JsonString(f.detail), "}");
}

int Findings(const CommandLine& line) {
  auto store = OpenStore(line, false);
  if (!store.ok()) return ReportError("discover", store.status());
  std::vector<std::string> states = line.Values("state");
  auto found = (*store)->Findings(line.Value("target").value_or(""), states);
  if (!found.ok()) return ReportError("discover", found.status());
  for (const DiscoverFinding& f : *found) {
    const std::string text =
        line.Has("json")
            ? FindingJson(f)
            : absl::StrCat(f.reference, "  ", f.state, "  ", f.remediation,
                           "  ", Printable(f.path), "  ", f.owner, ":", f.group,
                           " ", ModeText(f.mode), "  ", f.exposure,
                           f.detail.empty() ? "" : "  (" + f.detail + ")");
    std::printf("%s\n", text.c_str());
  }
  return kExitOk;
}

}  // namespace

int RunDiscoverCommand(int argc, char** argv) {
  static constexpr OptionSpec kSpecs[] = {{"policy", true},
                                          {"index", true},
                                          {"incidents", true},
                                          {"target", true},
                                          {"due", false},
                                          {"plan", false},
                                          {"claim", true},
                                          {"threads", true},
                                          {"sendmail", true},
                                          {"quiet", false},
                                          {"user", true},
                                          {"state", true},
                                          {"json", false},
                                          {"store-snippets", true},
                                          {"min-words", true},
                                          {"min-coverage", true},
                                          {"boilerplate-docs", true},
                                          {"min-distinctive-words", true},
                                          {"no-word-checks", false}};
  static constexpr auto kAllSpecs = WithLimitOptions(kSpecs);
  int exit = kExitOk;
  auto line =
      ParseCommandLine("discover", argc, argv, kAllSpecs, kUsage, &exit);
  if (!line) return exit;
  auto action = SplitAction("discover", *line);
  if (!action) return kExitError;
  if (action->action == "run") {
    if (!action->operands.empty()) {
      return UsageError(
          "discover", absl::InvalidArgumentError(absl::StrCat(
                          "unexpected argument '", action->operands[0], "'")));
    }
    return Run(*line);
  }
  if (action->action == "restore") return Restore(*line, action->operands);
  if (action->action == "findings") return Findings(*line);
  return UsageError("discover", absl::InvalidArgumentError(absl::StrCat(
                                    "unknown action '", action->action,
                                    "' (run, restore, findings)")));
}

}  // namespace leakhound
