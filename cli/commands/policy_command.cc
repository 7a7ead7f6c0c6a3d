#include "cli/commands/policy_command.h"

#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "cli/commands/command_line.h"
#include "cli/commands/envelope_options.h"
#include "cli/commands/exit_codes.h"
#include "cli/commands/json_text.h"
#include "cli/commands/policy_desk_command.h"
#include "cli/commands/policy_replay.h"
#include "cli/formats/file_type.h"
#include "cli/gateway/data_facts.h"
#include "cli/gateway/directory_groups.h"
#include "cli/gateway/drip_ledger.h"
#include "cli/gateway/index_holder.h"
#include "cli/gateway/message_verdict.h"
#include "cli/incidents/incident_store.h"
#include "cli/policy/label_conditions.h"
#include "cli/policy/policy_bounds.h"
#include "cli/policy/policy_evaluator.h"
#include "cli/policy/policy_file.h"
#include "cli/policy/policy_lint.h"
#include "cli/records/data_scanner.h"

namespace leakhound {
namespace {

constexpr OptionSpec kPolicyOwnOptions[] = {{"policy", true},
                                            {"index", true},
                                            {"incidents", true},
                                            {"since", true},
                                            {"until", true},
                                            {"channel", true},
                                            {"sender", true},
                                            {"recipient", true},
                                            {"json", false},
                                            {"min-words", true},
                                            {"min-coverage", true},
                                            {"boilerplate-docs", true},
                                            {"min-distinctive-words", true},
                                            {"no-word-checks", false},
                                            {"comment", true}};
constexpr auto kPolicyOptions = WithLimitOptions(kPolicyOwnOptions);

constexpr char kUsage[] =
    "usage: leakhound policy ACTION [OPTIONS]\n"
    "  check FILE [--index DIR]\n"
    "      every mistake as FILE:LINE: message (exit 1 when there is one);\n"
    "      with an index, labels no protected document has are warnings\n"
    "  explain --policy FILE [--index DIR] [--channel mail|scan|web]\n"
    "          [--sender ADDR] [--recipient ADDR]... MESSAGE.eml|FILE\n"
    "      scans the file as the gateway would (a .eml as mail, its From,\n"
    "      To and Cc as the envelope unless given) and prints which rules\n"
    "      match, why, and the final action\n"
    "  replay --policy FILE [--incidents FILE] [--since T] [--until T] "
    "[--json]\n"
    "      runs FILE over the stored incidents and prints, per rule, how\n"
    "      many would change action (old -> new); no mail is touched\n"
    "  T: an age (30d, 12h) or a UTC date 2026-11-25[T14:30:00].\n"
    "The fleet's desk (--incidents postgresql://...):\n";

// The labels and protected tables of the index `line` names.
absl::StatusOr<IndexNames> NamesInIndex(const CommandLine& line) {
  auto index = OpenIndex(line, OpenMode::kRead);
  if (!index.ok()) return index.status();
  IndexNames names;
  absl::Status s =
      (*index)->ForEachDocument([&](uint32_t, const DocumentRecord& record) {
        names.labels.insert(record.labels.begin(), record.labels.end());
        return absl::OkStatus();
      });
  if (!s.ok()) return s;
  for (const auto& t : (*index)->record_tables()->tables()) {
    names.tables.insert(t->name);
  }
  return names;
}

// The data identifiers as a daemon loads them: validators known, names
// unique and defined, patterns compiled (docs/records.md). "" when fine.
std::string IdentifierMistake(const Policy& policy) {
  auto specs = PolicyIdentifiers(&policy);
  absl::Status identifiers = specs.status();
  if (specs.ok()) {
    identifiers =
        DataScanner::Create(*std::move(specs), nullptr, nullptr, "").status();
  }
  if (identifiers.ok()) return "";
  return absl::StrCat(policy.path, ": identifiers: ", identifiers.message());
}

// check: every mistake of the file in one run, in line order (parse
// errors, identifiers, rules that can never match, names the index does
// not have); exit 1 when there is one.
int CheckCommand(const CommandLine& line, const ActionArguments& action) {
  if (action.operands.size() != 1) {
    return UsageError(
        "policy", absl::InvalidArgumentError("policy check takes one FILE"));
  }
  const std::string& path = action.operands[0];
  auto text = ReadPolicyText(path);
  if (!text.ok()) return ReportError("policy", text.status());
  // A file past the bounds (policy_bounds.h) is not a policy with a
  // mistake but input refused unread: exit 2, like an unreadable file.
  if (auto bound = PolicyBoundsError(*text)) {
    return ReportError("policy", absl::InvalidArgumentError(absl::StrCat(
                                     path, ":", bound->line, ": ",
                                     bound->message, " (refused unread)")));
  }
  const PolicyReport report = CheckPolicy(*text, path);
  std::vector<PolicyFinding> findings;
  for (size_t i = 0; i < report.errors.size(); ++i) {
    findings.push_back({true, report.error_lines[i], report.errors[i]});
  }
  const Policy* policy = report.policy ? &*report.policy
                         : report.parsed ? &*report.parsed
                                         : nullptr;
  if (policy != nullptr) {
    if (std::string m = IdentifierMistake(*policy); !m.empty()) {
      findings.push_back({true, 0, m});
    }
    std::optional<IndexNames> names;
    if (line.Has("index") || std::getenv("LEAKHOUND_INDEX")) {
      auto read = NamesInIndex(line);
      if (!read.ok()) return ReportError("policy", read.status());
      names = std::move(*read);
    }
    for (PolicyFinding& f : LintPolicy(*policy, names ? &*names : nullptr)) {
      findings.push_back(std::move(f));
    }
  }
  std::stable_sort(findings.begin(), findings.end(),
                   [](const auto& a, const auto& b) { return a.line < b.line; });
  bool mistakes = false;
  for (const PolicyFinding& f : findings) {
    std::printf("%s\n", f.message.c_str());
    mistakes |= f.mistake;
  }
  if (mistakes) return kExitLeak;
  std::printf("%s: %s, no mistakes\n", path.c_str(),
              Plural(report.policy->rules.size(), "rule").c_str());
  return kExitOk;
}

// "Confidential (f42aa342-...)" for a label [labels] or the file names,
// its id alone else.
std::string LabelText(const LabelSettings& settings, const LabelFact& l) {
  const std::string name = LabelName(settings, l);
  return name == l.id || l.id.empty() ? name
                                      : absl::StrCat(name, " (", l.id, ")");
}

void PrintFacts(const LabelSettings& labels, const VerdictFacts& f,
                const MessageVerdict& v) {
  std::printf("verdict: %s%s%s\n", VerdictName(v.kind),
              v.error.empty() ? "" : ": ", v.error.c_str());
  std::printf("channel %s, sender %s, recipients %s\n", f.channel.c_str(),
              f.sender.empty() ? "(none)" : f.sender.c_str(),
              f.recipients.empty() ? "(none)"
                                   : absl::StrJoin(f.recipients, ", ").c_str());
  for (const MatchedDocument& d : f.documents) {
    std::printf("  document %s: %u words, %.0f %% of it%s%s\n", d.id.c_str(),
                d.words, 100 * d.share, d.labels.empty() ? "" : ", labels ",
                absl::StrJoin(d.labels, ", ").c_str());
    for (const LabelFact& l : d.sensitivity) {
      std::printf("    its sensitivity: %s\n", LabelText(labels, l).c_str());
    }
  }
  for (const CumulativeFact& c : f.cumulative) {
    std::printf("  cumulative (per %s, %u days) %s: %u words, %.0f %% of it, "
                "%u rows, with %zu earlier messages\n",
                c.per.c_str(), c.days, c.target.c_str(), c.words,
                100 * c.share, c.rows, c.earlier.size());
  }
  for (const PartFacts& p : f.parts) {
    std::vector<std::string> shown;
    for (const LabelFact& l : p.labels) shown.push_back(LabelText(labels, l));
    std::printf("  part %s: %s%s%s\n",
                p.name.empty() ? "(its own text)" : p.name.c_str(),
                shown.empty()
                    ? (p.labellable ? "no label" : "cannot carry a label")
                    : ("label " + absl::StrJoin(shown, ", ")).c_str(),
                p.documents.empty() ? "" : ", quotes ",
                absl::StrJoin(p.documents, ", ").c_str());
  }
  for (const auto& [table, rows] : f.records) {
    std::printf("  records: %s of table %s\n", Plural(rows, "row").c_str(),
                table.c_str());
  }
  for (const auto& [name, distinct] : f.identifiers) {
    std::printf("  identifier %s: %u distinct valid values\n", name.c_str(),
                distinct);
  }
  for (const std::string& u : v.unread) std::printf("  unread %s\n", u.c_str());
}

// The policy of `explain`, its directory groups read as the gateway
// reads them (a group that cannot be read is a warning).
absl::StatusOr<Policy> ExplainPolicy(const std::string& path) {
  auto policy = ReadPolicyFile(path);
  if (!policy.ok() || policy->directory_groups.empty()) return policy;
  auto directory = OpenDirectory(*policy->directory);
  if (!directory.ok()) return directory.status();
  std::vector<std::string> errors;
  Policy expanded = ExpandDirectoryGroups(*policy, *directory, nullptr, &errors);
  for (const std::string& e : errors) {
    std::printf("warning: directory %s: its members are unknown here\n",
                e.c_str());
  }
  return expanded;
}

// The rules' verdicts on `f`, the decision and the action, as the gateway
// with its default flags takes it (JudgeFacts); the exit code.
int PrintDecision(const Policy& policy, const VerdictFacts& f,
                  MessageVerdict::Kind kind) {
  for (const PolicyRule& r : policy.rules) {
    std::printf("rule '%s' (line %d, %s%s): %s\n", r.name.c_str(), r.line,
                r.monitor ? "monitor, would " : "",
                DispositionName(r.disposition),
                ExplainRule(policy, r, f).c_str());
  }
  const Judgement j = JudgeFacts(policy, f, kind, DefaultsFor(f.channel));
  const PolicyDecision& d = j.decision;
  if (d.matches.empty()) {
    std::printf("decision: no rule matches: %s%s\n", DispositionName(j.action),
                kind == MessageVerdict::Kind::kClean && !f.unread
                    ? " (delivered)"
                    : " (the daemon's --on-error / --on-unreadable / "
                      "--on-unread-limit, at their defaults)");
    return j.action == Disposition::kLog ? kExitOk : kExitLeak;
  }
  std::printf("decision: %s%s%s, severity %s", DispositionName(j.action),
              d.deciding != nullptr ? " by rule '" : "",
              d.deciding != nullptr ? (d.deciding->name + "'").c_str() : "",
              SeverityName(d.severity));
  if (d.disposition == Disposition::kRemoveExternalRecipients &&
      j.action == Disposition::kReject) {
    std::printf(" (%s would leave no recipient: refused)",
                DispositionName(d.disposition));
  }
  for (const RuleMatch& m : d.matches) {
    if (m.rule->monitor) {
      std::printf("; monitor rules would %s", DispositionName(d.would));
      break;
    }
  }
  std::printf("\n");
  if (d.notify_sender) {
    std::printf("notice: the sender%s is told\n",
                f.sender.empty() ? " (none: nobody)" : (" " + f.sender).c_str());
  }
  for (const std::string& n : d.notify) std::printf("notice: %s\n", n.c_str());
  for (const std::string& b : d.bcc) std::printf("bcc: %s\n", b.c_str());
  return j.action == Disposition::kLog ? kExitOk : kExitLeak;
}

// With --incidents, the drip ledger's sums for `v` as the gateway would
// read them now (or at the mail's Date), recording nothing.
absl::Status ExplainCumulative(const CommandLine& line, const Policy& policy,
                               const Envelope& envelope,
                               const std::optional<MailHeaders>& mail,
                               MessageVerdict* v) {
  const std::optional<std::string> store = line.Value("incidents");
  if (!store || CumulativeWindows(policy).empty()) return absl::OkStatus();
  DripLedger ledger(*store);
  const int64_t at =
      mail && mail->date_ms > 0 && !line.Has("sender") ? mail->date_ms
                                                       : NowUnixMs();
  auto sums = ledger.Account(policy, envelope.sender, envelope.channel,
                             v->spans, "", at, /*record=*/false);
  if (!sums.ok()) return sums.status();
  v->cumulative = *std::move(sums);
  return absl::OkStatus();
}

int ExplainCommand(const CommandLine& line, const ActionArguments& action) {
  if (action.operands.size() != 1 || !line.Has("policy")) {
    return UsageError("policy", absl::InvalidArgumentError(
                                    "policy explain takes --policy FILE and "
                                    "one MESSAGE or FILE"));
  }
  auto policy = ExplainPolicy(*line.Value("policy"));
  if (!policy.ok()) return ReportError("policy", policy.status());
  auto dir = line.IndexDir();
  if (!dir.ok()) return ReportError("policy", dir.status());
  auto match = MatchRuleOptions(line);
  if (!match.ok()) return ReportError("policy", match.status());
  auto limits = FileLimits(line);
  if (!limits.ok()) return ReportError("policy", limits.status());
  auto holder = IndexHolder::Open(*dir);
  if (!holder.ok()) return ReportError("policy", holder.status());
  const std::string& path = action.operands[0];
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return ReportError("policy",
                       absl::NotFoundError(absl::StrCat("cannot read ", path)));
  }
  std::ostringstream bytes;
  bytes << in.rdbuf();
  auto overrides = EnvelopeOverridesOf(line);
  if (!overrides.ok()) return UsageError("policy", overrides.status());
  const std::string message = bytes.str();
  // An e-mail as the scan's file typing tells one (file_type.h).
  const std::optional<MailHeaders> mail =
      LooksLikeMailHeaders(std::string_view(message).substr(0, kTypeHeadBytes))
          ? ReadMailHeaders(message)
          : std::nullopt;
  const Envelope envelope = EnvelopeOfFile(mail, *overrides);
  const MessageScanner scanner(holder->get(), nullptr, *match, *limits);
  MessageVerdict v = envelope.channel == "mail"
                         ? scanner.Scan(message)
                         : scanner.ScanFile(path, message);
  if (absl::Status s = ExplainCumulative(line, *policy, envelope, mail, &v);
      !s.ok()) {
    return ReportError("policy", s);
  }
  const VerdictFacts f = FactsOf(envelope, v);
  PrintFacts(policy->sensitivity_labels, f, v);
  return PrintDecision(*policy, f, v.kind);
}

void PrintReplay(const ReplayReport& r, bool json) {
  if (json) {
    std::vector<std::string> rules;
    for (const RuleReplay& rule : r.rules) {
      std::vector<std::string> t;
      for (const auto& [change, n] : rule.transitions) {
        t.push_back(absl::StrCat("{\"from\":", JsonString(change.first),
                                 ",\"to\":", JsonString(change.second),
                                 ",\"incidents\":", n, "}"));
      }
      rules.push_back(absl::StrCat(
          "{\"rule\":", JsonString(rule.rule), ",\"matched\":", rule.matched,
          ",\"changed\":", rule.changed, ",\"changes\":[",
          absl::StrJoin(t, ","), "]}"));
    }
    std::printf(
        "{\"incidents\":%llu,\"skipped\":%llu,\"changed\":%llu,\"rules\":[%s]}"
        "\n",
        static_cast<unsigned long long>(r.incidents),
        static_cast<unsigned long long>(r.skipped),
        static_cast<unsigned long long>(r.changed),
        absl::StrJoin(rules, ",").c_str());
    return;
  }
  for (const RuleReplay& rule : r.rules) {
    if (rule.matched == 0 && rule.changed == 0) {
      std::printf("rule '%s': matches no incident\n", rule.rule.c_str());
      continue;
    }
    std::vector<std::string> t;
    for (const auto& [change, n] : rule.transitions) {
      t.push_back(absl::StrCat(change.first, " -> ", change.second, " ", n));
    }
    std::printf("rule '%s': matches %llu, changes %llu%s%s\n",
                rule.rule.c_str(),
                static_cast<unsigned long long>(rule.matched),
                static_cast<unsigned long long>(rule.changed),
                t.empty() ? "" : ": ", absl::StrJoin(t, ", ").c_str());
  }
  std::printf("%s replayed, %llu would change action%s\n",
              Plural(r.incidents, "incident").c_str(),
              static_cast<unsigned long long>(r.changed),
              r.skipped == 0
                  ? ""
                  : absl::StrCat(" (", r.skipped,
                                 " scan reports skipped: they take no action)")
                        .c_str());
}

int ReplayCommand(const CommandLine& line) {
  if (!line.Has("policy")) {
    return UsageError("policy", absl::InvalidArgumentError(
                                    "policy replay takes --policy FILE"));
  }
  auto policy = ReadPolicyFile(*line.Value("policy"));
  if (!policy.ok()) return ReportError("policy", policy.status());
  auto path = line.IncidentsPath();
  if (!path.ok()) return ReportError("policy", path.status());
  if (!*path) {
    return ReportError("policy",
                       absl::InvalidArgumentError("--incidents off: no store"));
  }
  IncidentFilter filter;
  const int64_t now = NowUnixMs();
  for (auto [name, bound] : {std::pair{"since", &filter.since_ms},
                             std::pair{"until", &filter.until_ms}}) {
    if (auto v = line.Value(name)) {
      auto t = ParseTimeBound(*v, now);
      if (!t.ok()) return UsageError("policy", t.status());
      *bound = *t;
    }
  }
  IncidentStore::Options open;
  open.create = false;
  auto store = IncidentStore::Open(**path, open);
  if (!store.ok()) return ReportError("policy", store.status());
  auto report = ReplayPolicy(**store, filter, *policy);
  if (!report.ok()) return ReportError("policy", report.status());
  PrintReplay(*report, line.Has("json"));
  return kExitOk;
}

}  // namespace

int RunPolicyCommand(int argc, char** argv) {
  int exit = kExitOk;
  auto line =
      ParseCommandLine("policy", argc, argv, kPolicyOptions,
                       (std::string(kUsage) + kPolicyDeskUsage).c_str(), &exit);
  if (!line) return exit;
  auto action = SplitAction("policy", *line);
  if (!action) return kExitError;
  if (action->action == "check") return CheckCommand(*line, *action);
  if (action->action == "explain") return ExplainCommand(*line, *action);
  if (action->action == "replay") return ReplayCommand(*line);
  if (IsPolicyDeskAction(action->action)) {
    return RunPolicyDeskAction(*line, *action);
  }
  return UsageError(
      "policy", absl::InvalidArgumentError(absl::StrCat(
                    "unknown action '", action->action,
                    "' (check, explain, replay, publish, versions, show, diff, "
                    "rollback)")));
}

}  // namespace leakhound
