#include "cli/commands/incidents_command.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "cli/commands/case_escalation.h"
#include "cli/commands/command_line.h"
#include "cli/commands/exit_codes.h"
#include "cli/commands/json_text.h"
#include "cli/commands/outbox_command.h"
#include "cli/gateway/cumulative_facts.h"
#include "cli/gateway/label_facts.h"
#include "cli/incidents/held_mail.h"
#include "cli/incidents/incident_fields.h"
#include "cli/incidents/incident_store.h"
#include "cli/policy/policy_file.h"

namespace leakhound {
namespace {

constexpr char kUsage[] =
    "usage: leakhound incidents ACTION [OPTIONS]\n"
    "  list [--since T] [--until T] [--status S] [--document ID] [--sender "
    "ADDR]\n"
    "       [--recipient ADDR] [--action A] [--source milter|scan|web]\n"
    "       [--kind leak|error|unread] [--severity S] [--rule NAME]\n"
    "       [--reference LH-...] [--workflow "
    "new|in-review|escalated|resolved]\n"
    "       [--owner USER]\n"
    "       [--limit N] [--offset N] [--json]     newest first (default "
    "limit 50)\n"
    "  show ID [--json]                           an incident with its "
    "passages\n"
    "  resolve ID --as confirmed|false-positive|authorised|open [--note "
    "TEXT]\n"
    "  release ID                                 deliver a quarantined "
    "message (postsuper -H)\n"
    "  delete-mail ID                             delete a quarantined "
    "message (postsuper -d)\n"
    "  assign ID --to USER                        give the case to a console "
    "user (--to '': nobody)\n"
    "  comment ID --text TEXT                     add to the case's comments\n"
    "  escalate ID --to WHO [--reason TEXT]       escalate the case to a "
    "group or address\n"
    "  escalate --due --policy FILE [--sendmail COMMAND]  run the policy's "
    "[[escalation]] rules\n"
    "  revoke-override ID                         the sender may no longer "
    "release it\n"
    "                                             (docs/overrides.md)\n"
    "  export --format csv|jsonl [list's filters] every matching incident "
    "on standard output\n"
    "  purge --older-than AGE                     delete incidents older "
    "than AGE (90d)\n"
    "  outbox [--json] [--forget NAME]            what waits for each SIEM "
    "or webhook\n"
    "  forward --policy FILE [--once [--seconds N]]  deliver the outbox "
    "(docs/siem.md)\n"
    "  --incidents FILE   the store (default: $LEAKHOUND_INCIDENTS, else "
    "INDEX_DIR.incidents\n"
    "                     with --index DIR or $LEAKHOUND_INDEX)\n"
    "  --postfix-config DIR  Postfix's configuration directory, for release "
    "and delete-mail\n"
    "  T: an age (90d, 12h, 30m) or a UTC date 2026-11-25[T14:30:00].\n";

absl::StatusOr<IncidentFilter> FilterOf(const CommandLine& line, int64_t now) {
  IncidentFilter f;
  if (auto v = line.Value("since")) {
    auto t = ParseTimeBound(*v, now);
    if (!t.ok()) return t.status();
    f.since_ms = *t;
  }
  if (auto v = line.Value("until")) {
    auto t = ParseTimeBound(*v, now);
    if (!t.ok()) return t.status();
    f.until_ms = *t;
  }
  f.status = line.Value("status").value_or("");
  f.document = line.Value("document").value_or("");
  f.sender = line.Value("sender").value_or("");
  f.recipient = line.Value("recipient").value_or("");
  f.action = line.Value("action").value_or("");
  f.source = line.Value("source").value_or("");
  f.kind = line.Value("kind").value_or("");
  f.severity = line.Value("severity").value_or("");
  f.rule = line.Value("rule").value_or("");
  f.reference = line.Value("reference").value_or("");
  f.workflow = line.Value("workflow").value_or("");
  f.owner = line.Value("owner");
  auto limit = line.Unsigned("limit", 50, 1, 1'000'000);
  if (!limit.ok()) return limit.status();
  auto offset = line.Unsigned("offset", 0, 0, uint64_t{1} << 40);
  if (!offset.ok()) return offset.status();
  f.limit = *limit;
  f.offset = *offset;
  return f;
}

absl::StatusOr<int64_t> IdOperand(const ActionArguments& action) {
  int64_t id = 0;
  if (action.operands.size() != 1 ||
      !absl::SimpleAtoi(action.operands[0], &id) || id <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("incidents ", action.action, " takes one incident id"));
  }
  return id;
}

// "300 words of ID (43 %) sent by the sender within 30 days, with 11
// earlier messages: LH-..., ...".
std::string CumulativeStory(const CumulativeFact& c) {
  return absl::StrCat(
      c.rows > 0 ? absl::StrCat(c.rows, " rows")
                 : absl::StrCat(c.words, " words"),
      " of ", c.target,
      c.rows > 0 ? "" : absl::StrFormat(" (%.0f %%)", 100 * c.share),
      " sent by the ", c.per == "sender" ? "sender" : "sender's domain",
      " within ", c.days, " days", c.earlier.empty() ? "" : ", with ",
      c.earlier.empty() ? ""
                        : absl::StrCat(c.earlier.size(), " earlier messages: ",
                                       absl::StrJoin(c.earlier, ", ")));
}

// Every field through Printable (exit_codes.h): a subject, a sender or a
// file name cannot forge a line ("Bcc: ...", "CEF:0|...") on a reviewer's
// terminal.
void PrintShow(const Incident& i) {
  const auto p = [](std::string_view text) { return Printable(text); };
  std::printf("incident %lld  %s UTC  %s %s, action %s, status %s%s\n",
              static_cast<long long>(i.id), FormatTime(i.time_ms).c_str(),
              p(i.source).c_str(), p(i.kind).c_str(), p(i.action).c_str(),
              p(i.status).c_str(),
              i.mail_state.empty() ? "" : p(", mail " + i.mail_state).c_str());
  auto field = [&p](const char* name, const std::string& value) {
    if (!value.empty()) std::printf("  %-11s %s\n", name, p(value).c_str());
  };
  for (const IncidentField& f : IncidentFields()) {
    if (f.AppliesTo(i)) field(f.short_label, f.Text(i, ", "));
  }
  if (!i.reviewed_by.empty()) {
    field("reviewed", absl::StrCat(i.reviewed_by, " at ",
                                   FormatTime(i.reviewed_ms), " UTC"));
  }
  field("case",
        absl::StrCat(i.workflow, i.owner.empty() ? "" : ", owner ", i.owner,
                     i.escalated_to.empty() ? "" : ", escalated to ",
                     i.escalated_to));
  if (const IncidentOverride& o = i.override_offer; !o.kind.empty()) {
    field(
        "override",
        o.state == "used"
            ? absl::StrCat("used by ", o.used_by, " at ", FormatTime(o.time_ms),
                           " UTC from ", o.address, ": ", o.text)
            : absl::StrCat(o.kind, " (rule ", o.rule, "), ", o.state,
                           o.state == "offered"
                               ? " until " + FormatTime(o.until_ms) + " UTC"
                               : " by " + o.revoked_by));
  }
  for (const IncidentDocument& d : i.facts) {
    if (CumulativeFact c; ReadCumulativeFact(d, &c)) {
      field("cumulative", CumulativeStory(c));
    } else if (PartFacts part; ReadPartFact(d, &part) && !part.labels.empty()) {
      std::vector<std::string> names;
      for (const LabelFact& l : part.labels) {
        names.push_back(l.name.empty() ? l.id : l.name);
      }
      field("labels",
            absl::StrCat(part.name.empty() ? "(its own text)" : part.name, ": ",
                         absl::StrJoin(names, ", ")));
    }
  }
  for (const IncidentMatch& m : i.matches) {
    std::printf("  match %s%s%s: %u words, bytes %u-%u%s, coverage %.0f %%\n",
                p(m.document).c_str(), m.part.empty() ? "" : " in ",
                p(m.part).c_str(), m.words, m.byte_begin, m.byte_end,
                m.source.empty() ? "" : p(" (source " + m.source + ")").c_str(),
                100 * m.coverage);
    if (!m.labels.empty()) {
      std::printf("    labels: %s\n", p(absl::StrJoin(m.labels, ", ")).c_str());
    }
    if (!m.snippet.empty()) {
      const std::string_view s(m.snippet);
      std::printf(
          "    ...%s>>>%s<<<%s...\n", p(s.substr(0, m.snippet_begin)).c_str(),
          p(s.substr(m.snippet_begin, m.snippet_end - m.snippet_begin)).c_str(),
          p(s.substr(m.snippet_end)).c_str());
    }
  }
}

}  // namespace

std::string CliUser() {
  for (const char* name : {"SUDO_USER", "USER", "LOGNAME"}) {
    if (const char* v = std::getenv(name); v != nullptr && *v != '\0') {
      return absl::StrCat("cli:", v);
    }
  }
  return absl::StrCat("cli:uid", ::getuid());
}

std::string IncidentJson(const Incident& i) {
  std::string out = absl::StrCat(
      "{\"id\":", i.id, ",\"time\":", JsonString(FormatTime(i.time_ms) + "Z"),
      ",\"time_ms\":", i.time_ms, ",\"source\":", JsonString(i.source),
      ",\"kind\":", JsonString(i.kind), ",\"action\":", JsonString(i.action),
      ",\"status\":", JsonString(i.status),
      ",\"mail_state\":", JsonString(i.mail_state),
      ",\"workflow\":", JsonString(i.workflow),
      ",\"owner\":", JsonString(i.owner),
      ",\"escalated_to\":", JsonString(i.escalated_to));
  for (const IncidentField& f : IncidentFields()) {
    // The documents come before the note (the JSON's order since 0.1).
    if (std::string_view(f.key) == "note") {
      absl::StrAppend(&out, ",\"documents\":", JsonStrings(i.documents));
    }
    absl::StrAppend(&out, ",\"", f.key, "\":");
    switch (f.type) {
      case IncidentField::Type::kText:
        absl::StrAppend(&out, JsonString(f.text(i)));
        break;
      case IncidentField::Type::kList:
        absl::StrAppend(&out, JsonStrings(f.list(i)));
        break;
      case IncidentField::Type::kNumber:
        absl::StrAppend(&out, f.text(i));
        break;
    }
  }
  absl::StrAppend(&out, ",\"reviewed_by\":", JsonString(i.reviewed_by),
                  ",\"reviewed_ms\":", i.reviewed_ms);
  if (const IncidentOverride& o = i.override_offer; !o.kind.empty()) {
    absl::StrAppend(
        &out, ",\"override\":{\"kind\":", JsonString(o.kind),
        ",\"rule\":", JsonString(o.rule), ",\"until_ms\":", o.until_ms,
        ",\"state\":", JsonString(o.state),
        ",\"used_by\":", JsonString(o.used_by),
        ",\"text\":", JsonString(o.text),
        ",\"address\":", JsonString(o.address), ",\"time_ms\":", o.time_ms,
        ",\"revoked_by\":", JsonString(o.revoked_by), "}");
  }
  std::vector<std::string> sums;
  for (const IncidentDocument& d : i.facts) {
    if (CumulativeFact c; ReadCumulativeFact(d, &c)) {
      sums.push_back(absl::StrCat(
          "{\"target\":", JsonString(c.target), ",\"per\":", JsonString(c.per),
          ",\"days\":", c.days, ",\"words\":", c.words,
          ",\"share\":", absl::StrFormat("%.4f", c.share), ",\"rows\":", c.rows,
          ",\"earlier\":", JsonStrings(c.earlier), "}"));
    }
  }
  if (!sums.empty()) {
    absl::StrAppend(&out, ",\"cumulative\":[", absl::StrJoin(sums, ","), "]");
  }
  if (!i.matches.empty()) {
    std::vector<std::string> matches;
    for (const IncidentMatch& m : i.matches) {
      matches.push_back(absl::StrCat(
          "{\"document\":", JsonString(m.document), ",\"source\":",
          JsonString(m.source), ",\"labels\":", JsonStrings(m.labels),
          ",\"part\":", JsonString(m.part), ",\"byte_begin\":", m.byte_begin,
          ",\"byte_end\":", m.byte_end, ",\"words\":", m.words,
          ",\"coverage\":", absl::StrFormat("%.4f", m.coverage),
          ",\"snippet\":", JsonString(m.snippet), ",\"snippet_begin\":",
          m.snippet_begin, ",\"snippet_end\":", m.snippet_end, "}"));
    }
    absl::StrAppend(&out, ",\"matches\":[", absl::StrJoin(matches, ","), "]");
  }
  return out + "}";
}

namespace {

// `incidents list`: a table, or JSON Lines with --json. The FROM/FILE
// column is as wide as its longest entry (at most kOriginWidth; longer
// ones are cut with "..." in the middle), so the columns after it stay
// aligned.
int ListIncidents(const CommandLine& line, IncidentStore& store,
                  const IncidentFilter& filter) {
  auto rows = store.List(filter);
  if (!rows.ok()) return ReportError("incidents", rows.status());
  constexpr size_t kOriginWidth = 48;
  size_t width = std::string_view("FROM/FILE").size();
  for (const Incident& i : *rows) {
    width = std::max(width, std::min(IncidentOrigin(i).size(), kOriginWidth));
  }
  auto fitted = [&](std::string text) {
    text = Printable(text);
    if (text.size() <= width) return text;
    const size_t keep = width - 3;
    return absl::StrCat(text.substr(0, keep / 2), "...",
                        text.substr(text.size() - (keep - keep / 2)));
  };
  const int w = static_cast<int>(width);
  if (!line.Has("json")) {
    std::printf("%-8s %-19s %-6s %-6s %-10s %-14s %-*s %s\n", "ID",
                "TIME (UTC)", "SOURCE", "KIND", "ACTION", "STATUS", w,
                "FROM/FILE", "DOCUMENTS");
  }
  for (const Incident& i : *rows) {
    if (line.Has("json")) {
      std::printf("%s\n", IncidentJson(i).c_str());
    } else {
      std::printf("%-8lld %-19s %-6s %-6s %-10s %-14s %-*s %s\n",
                  static_cast<long long>(i.id), FormatTime(i.time_ms).c_str(),
                  i.source.c_str(), i.kind.c_str(), i.action.c_str(),
                  i.status.c_str(), w, fitted(IncidentOrigin(i)).c_str(),
                  Printable(absl::StrJoin(i.documents, ",")).c_str());
    }
  }
  return kExitOk;
}

// The CSV export's header and one incident's row, columns from
// IncidentFields() between the verdict's and the reviewer.
std::string CsvHeader() {
  std::vector<std::string> header = {"id",     "time_utc", "source",    "kind",
                                     "action", "status",   "mail_state"};
  for (const IncidentField& f : IncidentFields()) {
    // The documents come before the detail (the CSV's columns since 0.1).
    if (std::string_view(f.key) == "detail") header.push_back("documents");
    header.push_back(f.key);
  }
  header.push_back("reviewed_by");
  return absl::StrJoin(header, ",");
}

std::string CsvRow(const Incident& i) {
  std::vector<std::string> cells = {
      absl::StrCat(i.id), FormatTime(i.time_ms), i.source, i.kind, i.action,
      i.status,           i.mail_state};
  for (const IncidentField& f : IncidentFields()) {
    if (std::string_view(f.key) == "detail") {
      cells.push_back(absl::StrJoin(i.documents, " "));
    }
    cells.push_back(f.Text(i, " "));
  }
  cells.push_back(i.reviewed_by);
  for (std::string& c : cells) c = CsvField(c);
  return absl::StrJoin(cells, ",");
}

// `incidents export --format csv|jsonl`.
int ExportIncidents(const CommandLine& line, IncidentStore& store,
                    const IncidentFilter& filter) {
  const std::string format = line.Value("format").value_or("");
  if (format != "csv" && format != "jsonl") {
    return ReportError("incidents", absl::InvalidArgumentError(
                                        "export needs --format csv or jsonl"));
  }
  if (format == "csv") std::printf("%s\n", CsvHeader().c_str());
  absl::Status s = store.ForEach(filter, [&](const Incident& i) {
    const std::string text = format == "jsonl" ? IncidentJson(i) : CsvRow(i);
    std::printf("%s\n", text.c_str());
    return absl::OkStatus();
  });
  if (!s.ok()) return ReportError("incidents", s);
  return kExitOk;
}

// `incidents purge --older-than AGE`.
int PurgeIncidents(const CommandLine& line, IncidentStore& store, int64_t now) {
  auto age = line.Value("older-than");
  if (!age) {
    return ReportError("incidents", absl::InvalidArgumentError(
                                        "purge needs --older-than AGE (90d)"));
  }
  auto before = ParseTimeBound(*age, now);
  if (!before.ok()) return ReportError("incidents", before.status());
  auto n = store.Purge(*before, CliUser());
  if (!n.ok()) return ReportError("incidents", n.status());
  std::printf("purged %lld incidents older than %s UTC\n",
              static_cast<long long>(*n), FormatTime(*before).c_str());
  return kExitOk;
}

// `escalate --due`: the policy's [[escalation]] rules (case_escalation.h).
int EscalateDue(const CommandLine& line, IncidentStore& store, int64_t now) {
  const std::optional<std::string> file = line.Value("policy");
  if (!file) {
    return ReportError("incidents", absl::InvalidArgumentError(
                                        "escalate --due needs --policy FILE"));
  }
  auto policy = ReadPolicyFile(*file);
  if (!policy.ok()) return ReportError("incidents", policy.status());
  EscalationRun run;
  if (auto sendmail = line.Value("sendmail")) {
    run.sendmail = absl::StrSplit(*sendmail, ' ', absl::SkipEmpty());
  }
  run.console_url = line.Value("console-url").value_or("");
  run.now_ms = now;
  auto outcomes = RunEscalations(*policy, store, run);
  if (!outcomes.ok()) return ReportError("incidents", outcomes.status());
  for (const EscalationOutcome& o : *outcomes) {
    std::printf("escalation %s: %zu cases%s%s\n", Printable(o.rule).c_str(),
                o.references.size(), o.references.empty() ? "" : ": ",
                absl::StrJoin(o.references, " ").c_str());
    if (!o.told.empty()) {
      std::printf("  told %s\n",
                  Printable(absl::StrJoin(o.told, ", ")).c_str());
    }
    for (const std::string& n : o.not_told) {
      std::fprintf(stderr, "leakhound incidents: not told %s\n",
                   Printable(n).c_str());
    }
  }
  return kExitOk;
}

// A case's actions: assign, comment, escalate (docs/console.md, "Cases").
int WorkCase(const CommandLine& line, IncidentStore& store,
             const std::string& verb, int64_t id) {
  const std::optional<std::string> to = line.Value("to");
  absl::Status s;
  if (verb == "assign") {
    s = to ? store.Assign(id, *to, CliUser())
           : absl::InvalidArgumentError("assign needs --to USER ('': nobody)");
  } else if (verb == "comment") {
    s = store.AddComment(id, line.Value("text").value_or(""), CliUser());
  } else if (!to || to->empty()) {
    s = absl::InvalidArgumentError("escalate needs --to WHO");
  } else {
    s = store.Escalate(id, *to, line.Value("reason").value_or(""), CliUser());
  }
  if (!s.ok()) return ReportError("incidents", s);
  std::printf("incident %lld: %s\n", static_cast<long long>(id),
              verb == "assign"    ? "assigned"
              : verb == "comment" ? "commented"
                                  : "escalated");
  return kExitOk;
}

// The actions on one incident: show, resolve, release, delete-mail.
int ActOnIncident(const CommandLine& line, IncidentStore& store,
                  const std::string& verb, int64_t id) {
  if (verb == "show") {
    auto incident = store.Get(id);
    if (!incident.ok()) return ReportError("incidents", incident.status());
    auto comments = store.Comments(id);
    if (!comments.ok()) return ReportError("incidents", comments.status());
    if (line.Has("json")) {
      std::printf("%s\n", IncidentJson(*incident).c_str());
      return kExitOk;
    }
    PrintShow(*incident);
    for (const CaseComment& c : *comments) {
      std::printf("  comment %s UTC %s: %s\n", FormatTime(c.time_ms).c_str(),
                  Printable(c.user).c_str(), Printable(c.text).c_str());
    }
    return kExitOk;
  }
  if (verb == "resolve") {
    auto as = line.Value("as");
    if (!as) {
      return ReportError("incidents",
                         absl::InvalidArgumentError(
                             "resolve needs --as confirmed or false-positive"));
    }
    absl::Status s =
        store.Resolve(id, *as, line.Value("note").value_or(""), CliUser());
    if (!s.ok()) return ReportError("incidents", s);
    std::printf("incident %lld: %s\n", static_cast<long long>(id), as->c_str());
    return kExitOk;
  }
  if (verb == "assign" || verb == "comment" || verb == "escalate") {
    return WorkCase(line, store, verb, id);
  }
  if (verb == "revoke-override") {
    if (absl::Status s = store.RevokeOverride(id, CliUser()); !s.ok()) {
      return ReportError("incidents", s);
    }
    std::printf("incident %lld: override revoked\n",
                static_cast<long long>(id));
    return kExitOk;
  }
  if (verb == "release" || verb == "delete-mail") {
    HeldMailOptions options;
    options.postfix_config = line.Value("postfix-config").value_or("");
    auto done = ActOnHeldMail(store, id, verb == "release", CliUser(), options);
    if (!done.ok()) return ReportError("incidents", done.status());
    std::printf("incident %lld: %s\n", static_cast<long long>(id),
                done->c_str());
    return kExitOk;
  }
  return ReportError("incidents", absl::InvalidArgumentError(absl::StrCat(
                                      "unknown action '", verb, "'")));
}

}  // namespace

int RunIncidentsCommand(int argc, char** argv) {
  static constexpr OptionSpec kSpecs[] = {
      {"incidents", true},  {"index", true},      {"since", true},
      {"until", true},      {"status", true},     {"document", true},
      {"sender", true},     {"action", true},     {"source", true},
      {"kind", true},       {"limit", true},      {"offset", true},
      {"json", false},      {"as", true},         {"note", true},
      {"format", true},     {"older-than", true}, {"postfix-config", true},
      {"recipient", true},  {"severity", true},   {"rule", true},
      {"reference", true},  {"forget", true},     {"policy", true},
      {"once", false},      {"seconds", true},    {"to", true},
      {"text", true},       {"reason", true},     {"workflow", true},
      {"owner", true},      {"due", false},       {"sendmail", true},
      {"console-url", true}};
  int exit = kExitOk;
  auto line = ParseCommandLine("incidents", argc, argv, kSpecs, kUsage, &exit);
  if (!line) return exit;
  auto action = SplitAction("incidents", *line);
  if (!action) return kExitError;
  auto path = line->IncidentsPath();
  if (!path.ok()) return ReportError("incidents", path.status());
  if (!*path) {
    return ReportError("incidents",
                       absl::InvalidArgumentError("--incidents off: no store"));
  }
  IncidentStore::Options open;
  open.create = false;
  auto store = IncidentStore::Open(**path, open);
  if (!store.ok()) return ReportError("incidents", store.status());
  const int64_t now = NowUnixMs();
  const std::string& verb = action->action;
  if (verb == "list" || verb == "export") {
    auto filter = FilterOf(*line, now);
    if (!filter.ok()) return ReportError("incidents", filter.status());
    return verb == "list" ? ListIncidents(*line, **store, *filter)
                          : ExportIncidents(*line, **store, *filter);
  }
  if (verb == "purge") return PurgeIncidents(*line, **store, now);
  if (verb == "outbox") return ShowOutbox(*line, **store);
  if (verb == "forward") return ForwardOutbox(*line, **path);
  if (verb == "escalate" && line->Has("due")) {
    return EscalateDue(*line, **store, now);
  }
  auto id = IdOperand(*action);
  if (!id.ok()) return ReportError("incidents", id.status());
  return ActOnIncident(*line, **store, verb, *id);
}

}  // namespace leakhound
