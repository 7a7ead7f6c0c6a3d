#include "cli/commands/scan_command.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "cli/commands/command_line.h"
#include "cli/commands/envelope_options.h"
#include "cli/commands/exit_codes.h"
#include "cli/commands/file_scan.h"
#include "cli/commands/input_files.h"
#include "cli/commands/ordered_work.h"
#include "cli/commands/progress_bar.h"
#include "cli/commands/scan_output.h"
#include "cli/commands/scan_totals.h"
#include "cli/formats/file_type.h"
#include "cli/formats/mime_extractor.h"
#include "cli/gateway/data_facts.h"
#include "cli/gateway/drip_ledger.h"
#include "cli/gateway/message_verdict.h"
#include "cli/incidents/incident_store.h"
#include "cli/policy/policy_evaluator.h"
#include "cli/policy/policy_file.h"
#include "cli/records/data_scanner.h"
#include "engine/scan/leak_scanner.h"

namespace leakhound {
namespace {

// The usage text, with the defaults of ScanOptions and ExtractionLimits.
const char* ScanUsage() {
  static const std::string usage = absl::StrCat(
      "usage: leakhound scan --index DIR [--json [--candidates]] [--threads N] "
      "[--min-words N]"
      "\n                      [--min-coverage PCT] [--boilerplate-docs N] "
      "[--min-distinctive-words N]\n"
      "                      [--no-word-checks] [--follow-symlinks]"
      "\n"
      "                      [--shard I/N] [LIMITS] PATH...\n"
      "  Scans files, directories (recursively) and '-' (standard input) for "
      "passages\n"
      "  of protected documents. Exit 0: nothing leaked; 1: a leak; 2: an "
      "error.\n"
      "  --json               one JSON object per file (JSON Lines) on "
      "standard output\n"
      "  --candidates         with --json: also the ids of every document the "
      "filter\n"
      "                       proposed (\"candidate_ids\"), matched or "
      "dropped\n"
      "  --threads N          files scanned in parallel (default: the number "
      "of cores)\n",
      MatchRuleUsage(),
      "  --follow-symlinks    inside directories, scan what symlinks point to "
      "(default:\n"
      "                       skip them; each directory is walked once)\n"
      "  --shard I/N          only shard I (0..N-1) of the files: N machines\n"
      "                       given the same PATHs scan disjoint shards that\n"
      "                       together are every file (docs/scale.md)\n"
      "  --on-unreadable skip|error  a file without text leakhound can read "
      "(an image\n"
      "                       OCR finds nothing in, unknown binary data): "
      "listed as\n"
      "                       skipped with its class, or an error (default: "
      "skip\n"
      "                       inside directories, error for files named; "
      "encrypted\n"
      "                       files are always errors)\n"
      "  -q, --quiet          print nothing; the exit code tells (errors "
      "still go to\n"
      "                       standard error)\n"
      "  -i, --leaks-only     print only the files that leak or fail\n"
      "  -v, --verbose        the summary also counts candidate documents, "
      "those the\n"
      "                       second stage dropped, and allow-listed and "
      "boilerplate\n"
      "                       text ignored\n"
      "  --summary            after the files, totals per protected document "
      "(files,\n"
      "                       words), leaking parts (own text or members) "
      "and unread\n"
      "                       parts by class (with --json: one last "
      "\"summary\" line)\n"
      "  --color WHEN         auto (default: a terminal, unless NO_COLOR is "
      "set or\n"
      "                       TERM=dumb), always or never\n"
      "  -r, --recursive      accepted for habit: directories are always "
      "walked\n"
      "  With no PATH and standard input not a terminal, standard input is "
      "scanned.\n"
      "  --record             write one incident per leaking file to the "
      "incident store,\n"
      "                       under one scan-run id (docs/console.md)\n"
      "  --incidents FILE     the store (default INDEX_DIR.incidents)\n"
      "  --store-snippets on|off  keep the text around each passage "
      "(default on)\n"
      "  --policy FILE        apply the rules (docs/policy.md): each file "
      "gets a\n"
      "                       severity, the rules that matched and the "
      "action the\n"
      "                       gateway would take; exit 1 only when an "
      "enforcing rule at\n"
      "                       or above --fail-severity matched. An e-mail is "
      "judged as\n"
      "                       mail (its From, To and Cc), other files as "
      "channel scan\n"
      "  --fail-severity S    info (default), low, medium or high\n"
      "  --channel C, --sender A, --recipient A  judge the files as sent on "
      "channel C\n"
      "                       (mail, scan, web) by A to A (repeatable), "
      "whatever they say\n",
      LimitOptionsUsage());
  return usage.c_str();
}

// Files scanned ahead of the one being printed, per thread, at most.
constexpr size_t kAheadPerThread = 4;

// "scan-20261125T144212Z-12345": when, and which process.
std::string ScanRunId() {
  const time_t now = ::time(nullptr);
  struct tm tm {};
  gmtime_r(&now, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm);
  return absl::StrCat("scan-", stamp, "-", ::getpid());
}

// What `leakhound scan` was asked to do.
struct ScanCommandOptions {
  CommandLine line;  // for the index and the incident store
  UnreadablePolicy unreadable = UnreadablePolicy::kByOrigin;
  size_t threads = 1;
  ScanOptions match{};
  ExtractionLimits limits{};
  bool snippets = true;
  std::optional<Policy> policy{};  // --policy
  Severity fail_severity = Severity::kInfo;
  EnvelopeOverrides envelope{};  // --channel, --sender, --recipient
  std::vector<std::string> paths{};  // "-": standard input
  bool color = false;
  uint32_t shard = 0, shards = 1;
  bool json = false, list_candidates = false, quiet = false, leaks_only = false,
       verbose = false, follow_symlinks = false, record = false,
       summary = false;
};

// --shard I/N into *shard and *shards; InvalidArgument for anything else.
absl::Status ParseShard(const CommandLine& line, uint32_t* shard,
                        uint32_t* shards) {
  auto spec = line.Value("shard");
  if (!spec) return absl::OkStatus();
  const std::vector<std::string> parts = absl::StrSplit(*spec, '/');
  if (parts.size() != 2 || !absl::SimpleAtoi(parts[0], shard) ||
      !absl::SimpleAtoi(parts[1], shards) || *shards == 0 ||
      *shard >= *shards) {
    return absl::InvalidArgumentError(
        absl::StrCat("--shard wants I/N with 0 <= I < N, not '", *spec, "'"));
  }
  return absl::OkStatus();
}

// --policy, --fail-severity and the envelope options into `o`.
absl::Status ParsePolicyOptions(const CommandLine& line,
                                ScanCommandOptions& o) {
  if (auto path = line.Value("policy")) {
    auto policy = ReadPolicyFile(*path);
    if (!policy.ok()) return policy.status();
    o.policy = *std::move(policy);
  }
  if (auto name = line.Value("fail-severity")) {
    std::optional<Severity> severity = SeverityNamed(*name);
    if (!severity) {
      return absl::InvalidArgumentError(
          absl::StrCat("--fail-severity: unknown severity '", *name,
                       "' (info, low, medium, high)"));
    }
    if (!o.policy) {
      return absl::InvalidArgumentError("--fail-severity needs --policy");
    }
    o.fail_severity = *severity;
  }
  auto envelope = EnvelopeOverridesOf(line);
  if (!envelope.ok()) return envelope.status();
  o.envelope = *std::move(envelope);
  return absl::OkStatus();
}

// Step 1: argv to ScanCommandOptions; nullopt after reporting the error,
// with *exit set.
std::optional<ScanCommandOptions> ParseScanOptions(int argc, char** argv,
                                                   int* exit) {
  static constexpr OptionSpec kSpecs[] = {{"index", true},
                                          {"json", false},
                                          {"candidates", false},
                                          {"threads", true},
                                          {"min-words", true},
                                          {"min-coverage", true},
                                          {"boilerplate-docs", true},
                                          {"min-distinctive-words", true},
                                          {"no-word-checks", false},
                                          {"follow-symlinks", false},
                                          {"shard", true},
                                          {"on-unreadable", true},
                                          {"record", false},
                                          {"incidents", true},
                                          {"store-snippets", true},
                                          {"quiet", false},
                                          {"leaks-only", false},
                                          {"color", true},
                                          {"recursive", false},
                                          {"verbose", false},
                                          {"summary", false},
                                          {"policy", true},
                                          {"fail-severity", true},
                                          {"channel", true},
                                          {"sender", true},
                                          {"recipient", true}};
  static constexpr auto kAllSpecs = WithLimitOptions(kSpecs);
  auto line =
      ParseCommandLine("scan", argc, argv, kAllSpecs, ScanUsage(), exit);
  if (!line) return std::nullopt;
  const auto fail = [exit](const absl::Status& s) {
    *exit = ReportError("scan", s);
    return std::nullopt;
  };
  auto unreadable = ParseUnreadablePolicy(line->Value("on-unreadable"));
  if (!unreadable.ok()) return fail(unreadable.status());
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  auto threads = line->Unsigned("threads", cores, 1, 256);
  auto match = MatchRuleOptions(*line);
  auto limits = FileLimits(*line);
  auto snippets = OnOff(*line, "store-snippets", true);
  for (const absl::Status& s :
       {threads.status(), match.status(), limits.status(), snippets.status()}) {
    if (!s.ok()) return fail(s);
  }
  ScanCommandOptions o{*line};
  o.unreadable = *unreadable;
  o.threads = *threads;
  o.match = *match;
  o.limits = *limits;
  o.snippets = *snippets;
  o.json = line->Has("json");
  o.list_candidates = line->Has("candidates");
  o.quiet = line->Has("quiet");
  o.leaks_only = line->Has("leaks-only");
  o.verbose = line->Has("verbose");
  o.summary = line->Has("summary");
  o.follow_symlinks = line->Has("follow-symlinks");
  o.record = line->Has("record");
  if (absl::Status s = ParsePolicyOptions(*line, o); !s.ok()) return fail(s);
  return o;
}

// The rest of step 1, after the incident store is open (a bad store path
// is reported first): the paths, --color and --shard. False after
// reporting the error, with *exit set.
bool ParseScanInputs(ScanCommandOptions* o, int* exit) {
  o->paths = o->line.args();
  if (o->paths.empty()) {
    // ripgrep's habit: piped text is what to scan.
    if (::isatty(STDIN_FILENO) == 1) {
      *exit = UsageError("scan", absl::InvalidArgumentError(
                                     "no files given (and standard input is "
                                     "a terminal)"));
      return false;
    }
    o->paths.push_back("-");
  }
  auto color = UseColor(o->line);
  if (!color.ok()) {
    *exit = UsageError("scan", color.status());
    return false;
  }
  o->color = *color && !o->json;
  if (absl::Status s = ParseShard(o->line, &o->shard, &o->shards); !s.ok()) {
    *exit = ReportError("scan", s);
    return false;
  }
  return true;
}

// --record: the store named by --incidents (or beside the index), opened
// before scanning so that a bad path is reported before any work.
absl::StatusOr<std::unique_ptr<IncidentStore>> OpenRecordStore(
    const CommandLine& line) {
  auto path = line.IncidentsPath();
  if (!path.ok()) return path.status();
  if (!*path) {
    return absl::InvalidArgumentError("--record with --incidents off");
  }
  return IncidentStore::Open(**path);
}

// Step 2: each file's outcome, printed in input order; the totals; the
// incidents recorded at the end.
class ScanRun {
 public:
  ScanRun(const ScanCommandOptions& o, const std::vector<InputFile>& files,
          const ProtectedIndex& index, IncidentStore* store)
      : o_(o),
        files_(files),
        index_(index),
        store_(store),
        run_id_(store != nullptr ? ScanRunId() : ""),
        progress_(files.size(), TotalSize(files)) {
    if (store != nullptr && o.policy) {
      ledger_ = std::make_unique<DripLedger>(store->path());
    }
  }

  // On the calling thread, in input order.
  void Consume(size_t i, FileOutcome& o) {
    progress_.Clear();
    if (o_.policy) Decide(o);
    const bool shown =
        !o_.quiet && (!o_.leaks_only || o.leak() || !o.error.ok());
    if (shown) {
      const std::string text = o_.json
                                   ? FormatJson(o, o_.list_candidates) + "\n"
                                   : FormatHuman(o, o_.color);
      std::fwrite(text.data(), 1, text.size(), stdout);
      std::fflush(stdout);
    } else if (o_.quiet && !o.error.ok()) {
      ReportError("scan", o.error, o.path);
    }
    if (!o.error.ok()) ++errors_;
    if (o.leak()) ++leaks_;
    if (store_ != nullptr && o.leak()) {
      recorded_.push_back(ScanIncident(o, index_, run_id_, o_.snippets));
      NameSourceFile(o, &recorded_.back());
      if (o.policy) RecordDecision(o, &recorded_.back());
    }
    candidates_ += o.candidates();
    dropped_ += o.false_candidates();
    allowed_ += o.allowed_fingerprints();
    boilerplate_shingles_ += o.boilerplate_shingles();
    bytes_done_ += o.bytes;
    if (o_.summary) totals_.Add(o);
    progress_.Update(i + 1, bytes_done_);
  }

  // Records the incidents, prints the summary; the exit code.
  int Finish(size_t skipped_links) {
    progress_.Clear();
    if (store_ != nullptr) {
      absl::Status s = store_->Insert(std::span<Incident>(recorded_));
      if (!s.ok()) {
        ReportError("scan", s);
        ++errors_;
      } else {
        std::fprintf(stderr,
                     "leakhound scan: recorded %zu incidents in %s, run %s\n",
                     recorded_.size(), RedactedTarget(store_->path()).c_str(),
                     run_id_.c_str());
      }
    }
    if (o_.summary && !o_.quiet) {
      const std::string block =
          o_.json ? totals_.Json() + "\n" : totals_.Human();
      std::fwrite(block.data(), 1, block.size(), stdout);
    }
    if (!o_.quiet && (files_.size() > 1 || !o_.json || skipped_links > 0)) {
      std::fprintf(o_.json ? stderr : stdout, "%s\n",
                   Summary(skipped_links).c_str());
    }
    if (errors_ > 0) return kExitError;
    if (o_.policy) return failing_ > 0 ? kExitLeak : kExitOk;
    return leaks_ > 0 ? kExitLeak : kExitOk;
  }

 private:
  // The policy's decision for the file (channel scan: no sender, no
  // recipients); counts it for the exit code.
  void Decide(FileOutcome& o) {
    const Envelope envelope = EnvelopeOfFile(
        o.format == "mail" ? o.mail : std::nullopt, o_.envelope);
    VerdictFacts facts = OutcomeFacts(index_, o);
    facts.channel = envelope.channel;
    facts.sender = envelope.sender;
    facts.recipients = envelope.recipients;
    Accumulate(o, &facts);
    const MessageVerdict::Kind kind = OutcomeKind(facts);
    // The gateway's decision with its default flags (decision.h).
    const Judgement j =
        JudgeFacts(*o_.policy, facts, kind, DefaultsFor(facts.channel));
    const PolicyDecision& d = j.decision;
    DecisionRecord r = RecordOf(d, facts.documents);
    FilePolicyOutcome out;
    out.severity = std::move(r.severity);
    out.action = DispositionName(j.action);
    out.rules = std::move(r.rules);
    out.would_action = std::move(r.would_action);
    out.facts = FactsRecord(facts);
    const bool fails = std::any_of(
        d.matches.begin(), d.matches.end(), [&](const RuleMatch& m) {
          return !m.rule->monitor && m.severity >= o_.fail_severity;
        });
    if (fails) ++failing_;
    o.policy = std::move(out);
  }

  // A recorded file under a registered source is named by its source id
  // too (`leakhound sources`), as add and sync name it.
  void NameSourceFile(const FileOutcome& o, Incident* incident) {
    if (!sources_) {
      auto listed = index_.ListSources();
      sources_ = listed.ok() ? *std::move(listed)
                             : std::vector<ProtectedSource>{};
    }
    if (sources_->empty() || o.path == "-") return;
    const std::string path = InputFile{o.path, o.path}.Source();
    if (auto where = PlaceInSources(*sources_, path)) {
      incident->detail = absl::StrCat("protected source file ", where->id);
    }
  }

  // With --record, an e-mail that quotes a protected document adds what
  // it sent to the drip ledger, as of its Date, and its facts get the
  // sums (docs/policy.md, "Cumulative").
  void Accumulate(FileOutcome& o, VerdictFacts* facts) {
    if (ledger_ == nullptr || !o.leak() || facts->sender.empty()) return;
    std::vector<DripSpan> spans;
    for (const PartOutcome& p : o.parts) AddDripSpans(p.report, p.data, &spans);
    o.reference = NewIncidentReference();
    o.sent_ms = o.mail && o.mail->date_ms > 0 ? o.mail->date_ms : NowUnixMs();
    auto sums = ledger_->Account(*o_.policy, facts->sender, facts->channel,
                                 std::move(spans), o.reference, o.sent_ms,
                                 /*record=*/true);
    if (!sums.ok()) {
      ReportError("scan", sums.status(), o.path);
      ++errors_;
      return;
    }
    facts->cumulative = *std::move(sums);
  }

  void RecordDecision(const FileOutcome& o, Incident* incident) {
    incident->policy = o_.policy->path;
    incident->severity = o.policy->severity;
    incident->rules = o.policy->rules;
    incident->would_action = o.policy->would_action;
    incident->facts = o.policy->facts;
  }

  std::string Summary(size_t skipped_links) const {
    std::string summary = absl::StrCat(
        o_.json ? "leakhound scan: " : "", Plural(files_.size(), "file"),
        " scanned: ", leaks_, " leaked, ", files_.size() - leaks_ - errors_,
        " clean, ", Plural(errors_, "error"));
    if (o_.verbose) {
      absl::StrAppend(&summary, "; ", Plural(candidates_, "candidate document"),
                      ", ", dropped_, " dropped by verification; ",
                      Plural(allowed_, "allow-listed fingerprint"), " and ",
                      Plural(boilerplate_shingles_, "boilerplate shingle"),
                      " ignored");
    }
    if (skipped_links > 0) {
      absl::StrAppend(&summary, "; ", Plural(skipped_links, "symlink"),
                      " skipped (--follow-symlinks follows them)");
    }
    return summary;
  }

  const ScanCommandOptions& o_;
  const std::vector<InputFile>& files_;
  std::optional<std::vector<ProtectedSource>> sources_;  // read once
  const ProtectedIndex& index_;
  IncidentStore* store_;  // null without --record
  std::unique_ptr<DripLedger> ledger_;  // with --record --policy
  const std::string run_id_;
  ProgressBar progress_;
  size_t leaks_ = 0, errors_ = 0;
  uint64_t candidates_ = 0, dropped_ = 0, allowed_ = 0,
           boilerplate_shingles_ = 0, bytes_done_ = 0;
  std::vector<Incident> recorded_;
  ScanTotals totals_;   // with --summary
  size_t failing_ = 0;  // files where an enforcing rule >= fail_severity
};

}  // namespace

int RunScanCommand(int argc, char** argv) {
  int exit = kExitOk;
  std::optional<ScanCommandOptions> o = ParseScanOptions(argc, argv, &exit);
  if (!o) return exit;
  std::unique_ptr<IncidentStore> store;
  if (o->record) {
    auto opened = OpenRecordStore(o->line);
    if (!opened.ok()) return ReportError("scan", opened.status());
    store = std::move(*opened);
    // The policy's destinations get what this scan records (docs/siem.md).
    for (const DestinationSettings& d :
         o->policy ? o->policy->destinations
                   : std::vector<DestinationSettings>()) {
      if (absl::Status s = store->RegisterDestination(d.name); !s.ok()) {
        return ReportError("scan", s);
      }
    }
  }
  if (!ParseScanInputs(&*o, &exit)) return exit;
  ExpandNotes expanded;
  std::vector<InputFile> files =
      ExpandInputs(o->paths, o->follow_symlinks, &expanded);
  // A scan of nothing is not a clean share: an empty folder is named.
  for (const std::string& folder : expanded.empty_folders) {
    std::fprintf(stderr, "leakhound scan: %s: no files in it to scan\n",
                 Printable(folder).c_str());
  }
  if (o->shards > 1) files = ShardOf(std::move(files), o->shard, o->shards);
  auto index = OpenIndex(o->line, OpenMode::kRead);
  if (!index.ok()) return ReportError("scan", index.status());
  const size_t workers =
      std::max<size_t>(1, std::min<size_t>(o->threads, files.size()));
  std::vector<std::unique_ptr<LeakScanner>> scanners;
  for (size_t i = 0; i < workers; ++i) {
    auto scanner = LeakScanner::Create(**index, o->match);
    if (!scanner.ok()) return ReportError("scan", scanner.status());
    scanners.push_back(std::move(*scanner));
  }
  // Protected tables and data identifiers, in the same pass over each
  // part's text (docs/records.md).
  auto identifiers = PolicyIdentifiers(o->policy ? &*o->policy : nullptr);
  if (!identifiers.ok()) return ReportError("scan", identifiers.status());
  auto data_scanner =
      DataScanner::Create(*std::move(identifiers), (*index)->record_tables(),
                          &(*index)->store(), (*index)->store().key());
  if (!data_scanner.ok()) return ReportError("scan", data_scanner.status());
  std::vector<std::unique_ptr<DataScanner::Session>> sessions;
  for (size_t i = 0; i < workers; ++i) {
    auto session = (*data_scanner)->NewSession();
    if (!session.ok()) return ReportError("scan", session.status());
    sessions.push_back(std::move(*session));
  }
  ScanRun run(*o, files, **index, store.get());
  RunInOrder<FileOutcome>(
      files.size(), workers, workers * kAheadPerThread,
      [&](size_t i, size_t w) {
        return ScanOne(files[i], scanners[w].get(), **data_scanner,
                       *sessions[w], o->limits, !o->json || store != nullptr,
                       o->list_candidates ? index->get() : nullptr,
                       o->unreadable,
                       store != nullptr || o->policy ? FileRecord::kSha256
                                                     : FileRecord::kNone);
      },
      [&run](size_t i, FileOutcome outcome) { run.Consume(i, outcome); });
  return run.Finish(expanded.skipped_links);
}

}  // namespace leakhound
