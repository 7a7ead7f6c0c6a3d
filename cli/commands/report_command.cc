#include "cli/commands/report_command.h"

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "cli/commands/case_escalation.h"
#include "cli/commands/command_line.h"
#include "cli/commands/exit_codes.h"
#include "cli/console/report_render.h"
#include "cli/gateway/sendmail.h"
#include "cli/incidents/desk_report.h"
#include "cli/incidents/incident_store.h"
#include "cli/policy/policy_file.h"

namespace leakhound {
namespace {

constexpr char kUsage[] =
    "usage: leakhound report [--period AGE] [--to FILE.html] [--csv FILE]\n"
    "                        [--policy FILE --name NAME] [--incidents "
    "STORE]\n"
    "       leakhound report --due --policy FILE --sendmail COMMAND [--from "
    "ADDR]\n"
    "  The desk's report (docs/console.md, \"Reports\"): incidents by "
    "severity, rule,\n"
    "  channel, sender and document, the overrides used with their "
    "justifications,\n"
    "  and the time to review.\n"
    "  --period AGE   the period ending now (default 7d; 24h, 30d, ...)\n"
    "  --to FILE      the HTML report (default: standard output)\n"
    "  --csv FILE     the same figures as CSV\n"
    "  --name NAME    the policy's [[report]] NAME: its filters and "
    "sections\n"
    "  --due          mail each [[report]] whose period passed since it was "
    "last sent\n";

constexpr int64_t kDayMs = 86'400'000;

ReportSpec SpecOf(const ReportSettings& r, int64_t since, int64_t until) {
  ReportSpec spec;
  spec.title = absl::StrCat("leakhound report: ", r.name);
  spec.since_ms = since;
  spec.until_ms = until;
  spec.channels = r.channels;
  spec.severities = r.severities;
  spec.sections = r.sections;
  return spec;
}

bool WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  return static_cast<bool>(out.flush());
}

// By hand: one report to files (or standard output).
int RenderReport(const CommandLine& line, IncidentStore& store,
                 const Policy* policy, int64_t now) {
  auto since = ParseTimeBound(line.Value("period").value_or("7d"), now);
  if (!since.ok()) return ReportError("report", since.status());
  ReportSpec spec;
  spec.since_ms = *since;
  spec.until_ms = now;
  if (auto name = line.Value("name")) {
    const ReportSettings* found = nullptr;
    for (size_t k = 0; policy != nullptr && k < policy->reports.size(); ++k) {
      if (policy->reports[k].name == *name) found = &policy->reports[k];
    }
    if (found == nullptr) {
      return ReportError("report", absl::NotFoundError(absl::StrCat(
                                       "no [[report]] named '", *name,
                                       "' in the policy (--policy FILE)")));
    }
    spec = SpecOf(*found, *since, now);
  }
  auto report = BuildDeskReport(store, spec);
  if (!report.ok()) return ReportError("report", report.status());
  const std::string html = ReportHtml(*report);
  if (auto to = line.Value("to")) {
    if (!WriteFile(*to, html)) {
      return ReportError("report",
                         absl::UnavailableError("cannot write " + *to));
    }
  } else {
    std::fputs(html.c_str(), stdout);
  }
  if (auto csv = line.Value("csv");
      csv && !WriteFile(*csv, ReportCsv(*report))) {
    return ReportError("report",
                       absl::UnavailableError("cannot write " + *csv));
  }
  std::fprintf(stderr, "leakhound report: %lld incidents from %s to %s UTC\n",
               static_cast<long long>(report->incidents),
               FormatTime(spec.since_ms).c_str(), FormatTime(now).c_str());
  return kExitOk;
}

// --due: mails each [[report]] whose period passed since it was sent.
int MailDue(const CommandLine& line, IncidentStore& store, const Policy& policy,
            int64_t now) {
  std::vector<std::string> sendmail;
  if (auto s = line.Value("sendmail")) {
    sendmail = absl::StrSplit(*s, ' ', absl::SkipEmpty());
  }
  if (sendmail.empty()) {
    return ReportError(
        "report", absl::InvalidArgumentError("--due needs --sendmail COMMAND"));
  }
  const std::string from = line.Value("from").value_or("leakhound");
  int exit = kExitOk;
  for (const ReportSettings& r : policy.reports) {
    const int64_t period = r.period == "daily" ? kDayMs : 7 * kDayMs;
    auto sent = store.ReportSent(r.name);
    if (!sent.ok()) return ReportError("report", sent.status());
    if (*sent != 0 && now - *sent < period) continue;
    auto report = BuildDeskReport(store, SpecOf(r, now - period, now));
    if (!report.ok()) return ReportError("report", report.status());
    std::vector<std::string> not_told;
    size_t told = 0;
    for (const std::string& to : PolicyMailboxes(policy, r.to, &not_told)) {
      const absl::Status s =
          SendMail(sendmail, to, ReportMail(*report, from, to));
      if (s.ok()) {
        ++told;
      } else {
        not_told.push_back(absl::StrCat(to, ": ", s.message()));
      }
    }
    for (const std::string& n : not_told) {
      std::fprintf(stderr, "leakhound report: %s: not sent to %s\n",
                   Printable(r.name).c_str(), Printable(n).c_str());
      exit = kExitError;
    }
    if (told > 0) {
      if (absl::Status s = store.NoteReportSent(r.name, now); !s.ok()) {
        return ReportError("report", s);
      }
    }
    std::printf("report %s: %lld incidents, sent to %zu\n",
                Printable(r.name).c_str(),
                static_cast<long long>(report->incidents), told);
  }
  return exit;
}

}  // namespace

int RunReportCommand(int argc, char** argv) {
  static constexpr OptionSpec kSpecs[] = {
      {"incidents", true}, {"index", true},  {"period", true}, {"to", true},
      {"csv", true},       {"policy", true}, {"name", true},   {"due", false},
      {"sendmail", true},  {"from", true}};
  int exit = kExitOk;
  auto line = ParseCommandLine("report", argc, argv, kSpecs, kUsage, &exit);
  if (!line) return exit;
  auto path = line->IncidentsPath();
  if (!path.ok()) return ReportError("report", path.status());
  if (!*path) {
    return ReportError("report",
                       absl::InvalidArgumentError("--incidents off: no store"));
  }
  IncidentStore::Options open;
  open.create = false;
  auto store = IncidentStore::Open(**path, open);
  if (!store.ok()) return ReportError("report", store.status());
  std::optional<Policy> policy;
  if (auto file = line->Value("policy")) {
    auto read = ReadPolicyFile(*file);
    if (!read.ok()) return ReportError("report", read.status());
    policy = *std::move(read);
  }
  const int64_t now = NowUnixMs();
  if (line->Has("due")) {
    if (!policy) {
      return ReportError(
          "report", absl::InvalidArgumentError("--due needs --policy FILE"));
    }
    return MailDue(*line, **store, *policy, now);
  }
  return RenderReport(*line, **store, policy ? &*policy : nullptr, now);
}

}  // namespace leakhound
