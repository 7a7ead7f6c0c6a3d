#include "cli/add_command.h"

#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cli/command_line.h"
#include "cli/exit_codes.h"
#include "cli/input_files.h"
#include "cli/json_text.h"
#include "cli/progress_bar.h"

namespace leakhound {
namespace {

// The usage text, with the default of ExtractionLimits.
const char* AddUsage() {
  static const std::string usage = absl::StrCat(
      "usage: leakhound add --index DIR [--id ID] [--label L]... "
      "[--from-list FILE] [LIMITS] PATH...\n"
      "  Protects files. A directory is walked recursively; each file's id is "
      "its path\n"
      "  relative to the directory given (a file given directly: the path as "
      "given).\n"
      "  Adding an id again replaces the document if its text changed.\n"
      "  --id ID              the id, for a single file only\n"
      "  --label L            a label stored with the documents (repeatable)\n"
      "  --from-list FILE     also read paths from FILE, one per line ('-': "
      "standard input)\n",
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

const char* OutcomeWord(AddOutcome outcome) {
  switch (outcome) {
    case AddOutcome::kAdded: return "added";
    case AddOutcome::kReplaced: return "replaced";
    case AddOutcome::kUnchanged: return "unchanged";
    case AddOutcome::kDuplicateContent: return "duplicate";
  }
  return "?";
}

}  // namespace

int RunAddCommand(int argc, char** argv) {
  static constexpr OptionSpec kSpecs[] = {
      {"index", true}, {"id", true}, {"label", true}, {"from-list", true}};
  static constexpr auto kAllSpecs = WithLimitOptions(kSpecs);
  int exit = kExitOk;
  auto line = ParseCommandLine("add", argc, argv, kAllSpecs, AddUsage(), &exit);
  if (!line) return exit;
  auto limits = FileLimits(*line);
  if (!limits.ok()) return ReportError("add", limits.status());
  auto files = CollectInputs(*line);
  if (!files.ok()) return ReportError("add", files.status());
  const std::optional<std::string> id = line->Value("id");
  if (id && (files->size() != 1 || line->args().size() != 1 ||
             files->front().id != line->args().front())) {
    return ReportError("add", absl::InvalidArgumentError(
                                  "--id needs exactly one file (not a "
                                  "directory)"));
  }
  auto index = OpenIndex(*line, OpenMode::kWrite);
  if (!index.ok()) return ReportError("add", index.status());

  const std::vector<std::string> labels = line->Values("label");
  ProgressBar progress(files->size(), TotalSize(*files));
  size_t counts[4] = {0, 0, 0, 0}, failed = 0, done = 0;
  uint64_t bytes_done = 0;
  for (const InputFile& file : *files) {
    auto text = ExtractFile(file.path, *limits);
    absl::StatusOr<AddResult> added =
        text.ok() ? (*index)->Add(DocumentInput{id.value_or(file.id), file.path,
                                                labels, text->JoinedText()})
                  : absl::StatusOr<AddResult>(text.status());
    progress.Clear();
    if (!added.ok()) {
      exit = ReportError("add", added.status(), file.path);
      ++failed;
    } else {
      ++counts[static_cast<int>(added->outcome)];
      const std::string& shown = id ? *id : file.id;
      if (added->outcome == AddOutcome::kDuplicateContent) {
        std::printf("duplicate %s: same text as %s, not added\n",
                    shown.c_str(), added->existing_id.c_str());
      } else {
        std::printf("%-9s %s (%u fingerprints, %u row%s written)\n",
                    OutcomeWord(added->outcome), shown.c_str(),
                    added->fingerprints, added->rows_written,
                    added->rows_written == 1 ? "" : "s");
      }
    }
    if (text.ok()) {
      for (const SkippedPart& skipped : text->skipped) {
        std::fprintf(stderr, "leakhound add: %s%s%s: skipped: %s\n",
                     file.path.c_str(), kPartSeparator,
                     skipped.name.c_str(), skipped.reason.c_str());
      }
      bytes_done += text->input_bytes;
    }
    progress.Update(++done, bytes_done);
  }
  progress.Clear();
  if (files->size() > 1) {
    std::printf("%zu added, %zu replaced, %zu unchanged, %zu duplicates, "
                "%zu failed\n",
                counts[0], counts[1], counts[2], counts[3], failed);
  }
  return exit;
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

int RunAllowCommand(int argc, char** argv) {
  static constexpr OptionSpec kSpecs[] = {
      {"index", true}, {"name", true}, {"json", false}};
  static constexpr auto kAllSpecs = WithLimitOptions(kSpecs);
  int exit = kExitOk;
  auto line = ParseCommandLine("allow", argc, argv, kAllSpecs, kAllowUsage, &exit);
  if (!line) return exit;
  if (line->args().empty()) {
    std::fputs(kAllowUsage, stderr);
    return kExitError;
  }
  // The action is the first argument; options may come before or after.
  const std::string action = line->args().front();
  const std::vector<std::string> operands(line->args().begin() + 1,
                                          line->args().end());
  if (action == "list") {
    auto index = OpenIndex(*line, OpenMode::kRead);
    if (!index.ok()) return ReportError("allow", index.status());
    const bool json = line->Has("json");
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
  if (action != "add" && action != "remove") {
    ReportError("allow", absl::InvalidArgumentError(absl::StrCat(
                             "unknown action '", action,
                             "' (add, remove or list)")));
    std::fputs(kAllowUsage, stderr);
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
  if (action == "remove") {
    for (const std::string& name : operands) {
      absl::Status s = (*index)->RemoveAllowed(name);
      if (!s.ok()) {
        exit = ReportError("allow", s);
      } else {
        std::printf("removed allow-list entry %s\n", name.c_str());
      }
    }
    return exit;
  }
  auto limits = FileLimits(*line);
  if (!limits.ok()) return ReportError("allow", limits.status());
  auto files = ExpandInputs(operands);
  if (!files.ok()) return ReportError("allow", files.status());
  const std::optional<std::string> name = line->Value("name");
  if (name && files->size() != 1) {
    return ReportError("allow", absl::InvalidArgumentError(
                                    "--name needs exactly one file"));
  }
  for (const InputFile& file : *files) {
    auto text = ExtractFile(file.path, *limits);
    absl::StatusOr<AllowResult> added =
        text.ok() ? (*index)->AddAllowed(name.value_or(file.id), file.path,
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

}  // namespace leakhound
