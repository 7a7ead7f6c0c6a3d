#include "cli/commands/add_command.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cli/commands/command_line.h"
#include "cli/commands/exit_codes.h"
#include "cli/commands/input_files.h"
#include "cli/commands/json_text.h"
#include "cli/commands/ordered_work.h"
#include "cli/commands/progress_bar.h"
#include "cli/commands/source_files.h"
#include "cli/console/retained_copy.h"
#include "cli/gateway/document_sensitivity.h"

namespace leakhound {
namespace {

// The usage text, with the default of ExtractionLimits.
const char* AddUsage() {
  static const std::string usage = absl::StrCat(
      "usage: leakhound add --index DIR [--id ID] [--label L]... "
      "[--sensitivity S] [--from-list FILE] [LIMITS] PATH...\n"
      "  Protects files. A directory is walked recursively; each file's id is "
      "the\n"
      "  directory's name and its path below it (share/board/memo.txt; a file "
      "given\n"
      "  directly: the path as given). Adding an id again replaces the "
      "document if\n"
      "  its text changed; an id protected from another file is refused.\n"
      "  --id ID              the id, for a single file only (replaces what "
      "it held)\n"
      "  --label L            a label stored with the documents (repeatable)\n"
      "  --sensitivity S      their sensitivity label (a name or an MSIP "
      "label id),\n"
      "                       instead of the one each file carries "
      "(docs/labels.md)\n"
      "  --from-list FILE     also read paths from FILE, one per line ('-': "
      "standard input)\n"
      "  --threads N          files read and fingerprinted in parallel "
      "(default: the\n"
      "                       number of cores); documents are committed in "
      "batches and\n"
      "                       reported once durable\n"
      "  --batch-bytes N      commit a batch once it holds N bytes of text "
      "(default\n"
      "                       33554432); also every 4096 documents and 2 "
      "seconds\n"
      "  --on-unreadable skip|error  a file without text leakhound can read "
      "(an image\n"
      "                       without text, a binary, a FIFO in a folder): "
      "listed as\n"
      "                       skipped with its class, or an error (default: "
      "skip\n"
      "                       inside directories, error for files named); a "
      "folder or\n"
      "                       file that cannot be read is always an error\n",
      LimitOptionsUsage());
  return usage.c_str();
}

// The files named by the arguments and by --from-list.
absl::StatusOr<std::vector<InputFile>> CollectInputs(const CommandLine& line) {
  std::vector<std::string> paths = line.args();
  if (auto list = line.Value("from-list")) {
    std::ifstream file;
    std::istream* in = &std::cin;
    if (*list != "-") {
      file.open(*list);
      if (!file) {
        return absl::NotFoundError(
            absl::StrCat("cannot read the list ", *list));
      }
      in = &file;
    }
    for (std::string p; std::getline(*in, p);) {
      if (!p.empty() && p.back() == '\r') p.pop_back();
      if (!p.empty()) paths.push_back(p);
    }
  }
  if (paths.empty()) return absl::InvalidArgumentError("no files given");
  return ExpandInputs(paths);
}

// A batch is committed when it holds --batch-bytes of text (default
// kCommitBytes), this many documents, or its first document has waited this
// long; and at the end.
constexpr uint64_t kCommitBytes = uint64_t{32} << 20;
constexpr size_t kCommitDocuments = 4096;
constexpr std::chrono::milliseconds kCommitInterval{2000};
// Files prepared ahead of the one being staged, per thread, at most.
constexpr size_t kAheadPerThread = 4;

// A file extracted, shingled and digested by a worker.
struct PreparedFile {
  absl::StatusOr<PreparedDocument> document =
      absl::UnknownError("not prepared");
  std::vector<SkippedPart> skipped;
  // Set: the file itself holds no readable text and is skipped
  // (--on-unreadable); `document` is then that error.
  bool unreadable = false;
  uint64_t input_bytes = 0;
};

// The one-line error of a file add could not protect; an id held by
// another source says how to give it one of its own.
absl::Status WithHint(const absl::Status& s) {
  if (s.code() != absl::StatusCode::kAlreadyExists) return s;
  return absl::Status(s.code(),
                      absl::StrCat(s.message(), " (--id gives it another id)"));
}

// ", labels added: a, b" for labels an existing document gained.
std::string LabelsAddedText(const AddResult& result) {
  if (result.labels_added.empty() ||
      result.outcome == AddOutcome::kAdded) {
    return "";
  }
  return absl::StrCat("; labels added: ",
                      absl::StrJoin(result.labels_added, ", "));
}

const char* OutcomeWord(AddOutcome outcome) {
  switch (outcome) {
    case AddOutcome::kAdded:
      return "added";
    case AddOutcome::kReplaced:
      return "replaced";
    case AddOutcome::kUnchanged:
      return "unchanged";
    case AddOutcome::kDuplicateContent:
      return "duplicate";
  }
  return "?";
}

}  // namespace

namespace {

// What `leakhound add` was asked to do.
struct AddOptions {
  CommandLine line;  // for the index (OpenIndex)
  ExtractionLimits limits{};
  size_t threads = 1;
  uint64_t batch_bytes = kCommitBytes;
  UnreadablePolicy unreadable = UnreadablePolicy::kByOrigin;
  std::vector<InputFile> files{};
  std::optional<std::string> id{};
  std::vector<std::string> labels{};
  std::optional<std::string> sensitivity{};  // --sensitivity
  // Per file: the labels its source declares (PlaceAddFiles).
  std::vector<std::vector<std::string>> declared{};
};

// Gives the files under a registered source its ids and labels, and leaves
// out those a walk found that its globs do not select. A file given with
// --id keeps that id.
absl::Status PlaceAddFiles(const ProtectedIndex& index, AddOptions& o) {
  auto sources = index.ListSources();
  if (!sources.ok()) return sources.status();
  std::vector<SourcedFile> placed = PlaceFiles(*sources, std::move(o.files));
  o.files.clear();
  for (SourcedFile& p : placed) {
    o.files.push_back(std::move(p.file));
    o.declared.push_back(UnionOfLabels(std::move(p.labels), o.labels));
  }
  return absl::OkStatus();
}

// Step 1: argv to AddOptions; nullopt after reporting the error, with
// *exit set.
std::optional<AddOptions> ParseAddOptions(int argc, char** argv, int* exit) {
  static constexpr OptionSpec kSpecs[] = {
      {"index", true},         {"id", true},         {"label", true},
      {"from-list", true},     {"threads", true},    {"batch-bytes", true},
      {"on-unreadable", true}, {"sensitivity", true}};
  static constexpr auto kAllSpecs = WithLimitOptions(kSpecs);
  auto line = ParseCommandLine("add", argc, argv, kAllSpecs, AddUsage(), exit);
  if (!line) return std::nullopt;
  const auto fail = [exit](const absl::Status& s) {
    *exit = ReportError("add", s);
    return std::nullopt;
  };
  auto limits = FileLimits(*line);
  if (!limits.ok()) return fail(limits.status());
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  auto threads = line->Unsigned("threads", cores, 1, 256);
  if (!threads.ok()) return fail(threads.status());
  auto batch_bytes =
      line->Unsigned("batch-bytes", kCommitBytes, 1, uint64_t{1} << 32);
  if (!batch_bytes.ok()) return fail(batch_bytes.status());
  auto unreadable = ParseUnreadablePolicy(line->Value("on-unreadable"));
  if (!unreadable.ok()) return fail(unreadable.status());
  auto files = CollectInputs(*line);
  if (!files.ok()) return fail(files.status());
  const std::optional<std::string> id = line->Value("id");
  // Standard input has no name: an id of "-" would make a second piped add
  // replace the first.
  for (const InputFile& f : *files) {
    if (f.path == "-" && !id) {
      *exit = UsageError("add", absl::InvalidArgumentError(
                                    "standard input (-) needs --id ID"));
      return std::nullopt;
    }
  }
  if (id && (files->size() != 1 || line->args().size() != 1 ||
             files->front().id != line->args().front())) {
    return fail(absl::InvalidArgumentError(
        "--id needs exactly one file (not a directory)"));
  }
  AddOptions o{*line};
  o.limits = *limits;
  o.threads = *threads;
  o.batch_bytes = *batch_bytes;
  o.unreadable = *unreadable;
  o.files = std::move(*files);
  o.id = id;
  o.labels = line->Values("label");
  o.sensitivity = line->Value("sensitivity");
  if (o.sensitivity && o.sensitivity->empty()) {
    return fail(absl::InvalidArgumentError("--sensitivity needs a label"));
  }
  return o;
}

// Step 2: the files prepared by workers (extracted, shingled, digested)
// and staged in input order by the calling thread, committed in batches.
// A staged document is reported only once its batch is committed
// (durable), so what is printed survives a crash. Once a commit fails
// (disk full, I/O error) the index takes no more writes: the failure is
// reported once, with the number of documents it cost, and the remaining
// files are counted as failed without a line each.
class AddRun {
 public:
  AddRun(const AddOptions& options, ProtectedIndex* index)
      : o_(options),
        index_(index),
        progress_(options.files.size(), TotalSize(options.files)) {}

  // The shinglers of `workers` threads; the index's errors.
  absl::Status MakeShinglers(size_t workers) {
    for (size_t i = 0; i < workers; ++i) {
      auto shingler = index_->NewShingler();
      if (!shingler.ok()) return shingler.status();
      shinglers_.push_back(std::move(*shingler));
    }
    return absl::OkStatus();
  }

  // On worker `w`.
  PreparedFile Prepare(size_t i, size_t w) const {
    const InputFile& file = o_.files[i];
    PreparedFile out;
    auto text = ExtractInput(file, o_.limits);
    if (!text.ok()) {
      out.unreadable = SkipUnreadable(text.status(), file, o_.unreadable);
      out.document = text.status();
      return out;
    }
    out.input_bytes = text->input_bytes;
    out.skipped = std::move(text->skipped);
    out.document = ProtectedIndex::Prepare(
        *shinglers_[w],
        DocumentInput{o_.id.value_or(file.id), file.Source(), o_.declared[i],
                      text->JoinedText(),
                      /*replace_other_source=*/o_.id.has_value(),
                      SensitivityOf(*text, o_.sensitivity)});
    return out;
  }

  // On the calling thread, in input order.
  void Stage(size_t i, PreparedFile prepared) {
    const InputFile& file = o_.files[i];
    if (write_failed_) {
      ++failed_;
      progress_.Update(++done_, bytes_done_ += prepared.input_bytes);
      return;
    }
    if (prepared.unreadable) {
      progress_.Clear();
      std::printf("skipped   %s\n",
                  SkippedFileText(file, prepared.document.status()).c_str());
      ++skipped_;
      progress_.Update(++done_, bytes_done_);
      return;
    }
    for (const SkippedPart& part : prepared.skipped) {
      progress_.Clear();
      std::fprintf(stderr, "leakhound add: %s\n",
                   Printable(absl::StrCat(file.path, kPartSeparator, part.name,
                                          ": skipped: ", part.reason))
                       .c_str());
    }
    const uint64_t text_bytes =
        prepared.document.ok() ? prepared.document->bytes : 0;
    if (index_->pending() == 0)
      first_staged_ = std::chrono::steady_clock::now();
    waiting_.emplace_back(
        &file, prepared.document.ok()
                   ? index_->Stage(std::move(*prepared.document))
                   : absl::StatusOr<AddResult>(prepared.document.status()));
    staged_bytes_ += text_bytes;
    bytes_done_ += prepared.input_bytes;
    if (index_->pending() == 0) {
      Report();  // nothing is waiting for a commit
    } else if (staged_bytes_ >= o_.batch_bytes ||
               index_->pending() >= kCommitDocuments ||
               std::chrono::steady_clock::now() - first_staged_ >=
                   kCommitInterval) {
      Commit();
    }
    progress_.Update(++done_, bytes_done_);
  }

  // Commits what is staged and reports it; the exit code so far.
  int Finish() {
    Commit();
    progress_.Clear();
    if (o_.files.size() > 1) {
      std::printf(
          "%zu added, %zu replaced, %zu unchanged, %s, %zu skipped, "
          "%zu failed\n",
          counts_[0], counts_[1], counts_[2],
          Plural(counts_[3], "duplicate").c_str(), skipped_, failed_);
    }
    return exit_;
  }

 private:
  void Report() {
    progress_.Clear();
    for (auto& [file, added] : waiting_) {
      if (!added.ok()) {
        exit_ = ReportError("add", WithHint(added.status()), file->path);
        ++failed_;
        continue;
      }
      ++counts_[static_cast<int>(added->outcome)];
      const std::string& shown = o_.id ? *o_.id : file->id;
      if (added->outcome == AddOutcome::kDuplicateContent) {
        std::printf("duplicate %s: same text as %s, not added\n",
                    Printable(shown).c_str(),
                    Printable(added->existing_id).c_str());
      } else {
        std::printf("%-9s %s (%u fingerprints, %u row%s written%s)\n",
                    OutcomeWord(added->outcome), Printable(shown).c_str(),
                    added->fingerprints, added->rows_written,
                    added->rows_written == 1 ? "" : "s",
                    LabelsAddedText(*added).c_str());
      }
    }
    std::fflush(stdout);
    waiting_.clear();
    staged_bytes_ = 0;
  }

  void Commit() {
    absl::Status s = index_->Commit();
    if (!s.ok()) {
      size_t lost = 0;
      std::erase_if(waiting_, [&](const auto& entry) {
        const absl::StatusOr<AddResult>& added = entry.second;
        const bool written =
            added.ok() && (added->outcome == AddOutcome::kAdded ||
                           added->outcome == AddOutcome::kReplaced);
        lost += written ? 1 : 0;
        return written;
      });
      progress_.Clear();
      exit_ = ReportError(
          "add",
          absl::Status(s.code(), absl::StrCat(s.message(), "; the ", lost,
                                              " document(s) of this batch were "
                                              "not added and the index is as "
                                              "before them; no further files "
                                              "are added")));
      failed_ += lost;
      write_failed_ = true;
    }
    Report();
  }

  const AddOptions& o_;
  ProtectedIndex* index_;
  std::vector<std::unique_ptr<Shingler>> shinglers_;
  ProgressBar progress_;
  int exit_ = kExitOk;
  size_t counts_[4] = {0, 0, 0, 0};  // by AddOutcome
  size_t failed_ = 0, skipped_ = 0, done_ = 0;
  uint64_t bytes_done_ = 0;
  // Outcomes not printed yet: staged, not committed.
  std::vector<std::pair<const InputFile*, absl::StatusOr<AddResult>>> waiting_;
  uint64_t staged_bytes_ = 0;
  std::chrono::steady_clock::time_point first_staged_;
  bool write_failed_ = false;
};

}  // namespace

int RunAddCommand(int argc, char** argv) {
  int exit = kExitOk;
  std::optional<AddOptions> options = ParseAddOptions(argc, argv, &exit);
  if (!options) return exit;
  auto index = OpenIndex(options->line, OpenMode::kWrite);
  if (!index.ok()) return ReportError("add", index.status());
  if (absl::Status s = PlaceAddFiles(**index, *options); !s.ok()) {
    return ReportError("add", s);
  }
  const size_t workers = std::max<size_t>(
      1, std::min<size_t>(options->threads, options->files.size()));
  AddRun run(*options, index->get());
  if (absl::Status s = run.MakeShinglers(workers); !s.ok()) {
    return ReportError("add", s);
  }
  RunInOrder<PreparedFile>(
      options->files.size(), workers, workers * kAheadPerThread,
      [&run](size_t i, size_t w) { return run.Prepare(i, w); },
      [&run](size_t i, PreparedFile prepared) {
        run.Stage(i, std::move(prepared));
      });
  return run.Finish();
}

// --- allow ------------------------------------------------------------------

namespace {
constexpr char kAllowUsage[] =
    "usage: leakhound allow add --index DIR [--name NAME] [LIMITS] PATH...\n"
    "       leakhound allow remove --index DIR NAME...\n"
    "       leakhound allow list --index DIR [--json]\n"
    "  The allow-list: benign text (disclaimers, licence headers, templates) "
    "whose\n"
    "  shingles never count toward a match. An entry's name defaults to the "
    "file's id\n"
    "  as for add. LIMITS: the --max-* options of add.\n";
}  // namespace

namespace {

// `allow list`: the entries, a line or a JSON object each.
int ListAllowed(const CommandLine& line) {
  auto index = OpenIndex(line, OpenMode::kRead);
  if (!index.ok()) return ReportError("allow", index.status());
  const bool json = line.Has("json");
  absl::Status s = (*index)->store().ForEachAllowEntry(
      [&](std::string_view name, const AllowRecord& r) {
        if (json) {
          std::printf("{\"name\":%s,\"source\":%s,\"fingerprints\":%zu}\n",
                      JsonString(name).c_str(), JsonString(r.source).c_str(),
                      r.fingerprints.size());
        } else {
          std::printf("%-40s %6zu fingerprints  %s\n",
                      std::string(name).c_str(), r.fingerprints.size(),
                      r.source.c_str());
        }
        return absl::OkStatus();
      });
  return s.ok() ? kExitOk : ReportError("allow", s);
}

// `allow remove NAME...`; a console allow-listing's retained copy goes
// with its entry.
int RemoveAllowed(const CommandLine& line, ProtectedIndex& index,
                  const std::vector<std::string>& names) {
  int exit = kExitOk;
  for (const std::string& name : names) {
    auto entry = index.store().ReadAllowEntry(name);
    absl::Status s = index.RemoveAllowed(name);
    if (s.ok() && entry.ok() && entry->has_value()) {
      if (auto dir = line.IndexDir(); dir.ok()) {
        DropRetainedCopy(*dir, (*entry)->source).IgnoreError();
      }
    }
    if (!s.ok()) {
      exit = ReportError("allow", s);
    } else {
      std::printf("removed allow-list entry %s\n", name.c_str());
    }
  }
  return exit;
}

// `allow add [--name NAME] PATH...`.
int AddAllowed(const CommandLine& line, ProtectedIndex& index,
               const std::vector<std::string>& paths) {
  auto limits = FileLimits(line);
  if (!limits.ok()) return ReportError("allow", limits.status());
  const std::vector<InputFile> files = ExpandInputs(paths);
  const std::optional<std::string> name = line.Value("name");
  if (name && files.size() != 1) {
    return ReportError(
        "allow", absl::InvalidArgumentError("--name needs exactly one file"));
  }
  int exit = kExitOk;
  for (const InputFile& file : files) {
    auto text = ExtractInput(file, *limits);
    absl::StatusOr<AllowResult> added =
        text.ok() ? index.AddAllowed(name.value_or(file.id), file.Source(),
                                     text->JoinedText())
                  : absl::StatusOr<AllowResult>(text.status());
    if (!added.ok()) {
      exit = ReportError("allow", added.status(), file.path);
      continue;
    }
    std::printf("%-9s allow-list entry %s (%u fingerprints)\n",
                OutcomeWord(added->outcome), name.value_or(file.id).c_str(),
                added->fingerprints);
  }
  return exit;
}

}  // namespace

int RunAllowCommand(int argc, char** argv) {
  static constexpr OptionSpec kSpecs[] = {
      {"index", true}, {"name", true}, {"json", false}};
  static constexpr auto kAllSpecs = WithLimitOptions(kSpecs);
  int exit = kExitOk;
  auto line =
      ParseCommandLine("allow", argc, argv, kAllSpecs, kAllowUsage, &exit);
  if (!line) return exit;
  auto split = SplitAction("allow", *line);
  if (!split) return kExitError;
  const auto& [action, operands] = *split;
  if (action == "list") return ListAllowed(*line);
  if (action != "add" && action != "remove") {
    UsageError("allow",
               absl::InvalidArgumentError(absl::StrCat(
                   "unknown action '", action, "' (add, remove or list)")));
    return kExitError;
  }
  if (operands.empty()) {
    ReportError("allow", absl::InvalidArgumentError(
                             action == "add" ? "no files given"
                                             : "no entry name given"));
    return kExitError;
  }
  auto index = OpenIndex(*line, OpenMode::kWrite);
  if (!index.ok()) return ReportError("allow", index.status());
  return action == "remove" ? RemoveAllowed(*line, **index, operands)
                            : AddAllowed(*line, **index, operands);
}

}  // namespace leakhound
