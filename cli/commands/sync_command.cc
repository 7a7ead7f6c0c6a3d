#include "cli/commands/sync_command.h"

#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cli/commands/command_line.h"
#include "cli/commands/exit_codes.h"
#include "cli/commands/input_files.h"
#include "engine/content_digest.h"
#include "engine/protected_index.h"

namespace leakhound {
namespace {

const char* SyncUsage() {
  static const std::string usage = absl::StrCat(
      "usage: leakhound sync --index DIR [--dry-run] [--label L]... "
      "[--on-unreadable skip|error] [LIMITS] SOURCE...\n"
      "  Makes the documents protected from under the SOURCE files and "
      "directories\n"
      "  equal to them: adds new files, replaces changed ones (by the SHA-256 "
      "of their\n"
      "  text), removes those whose file is gone. Documents added from "
      "elsewhere stay.\n"
      "  -d, --index DIR   the index\n"
      "  --dry-run         say what would change, change nothing\n"
      "  --label L         labels of the documents added (repeatable)\n"
      "  --on-unreadable skip|error  a file without text leakhound can read "
      "(an image\n"
      "                    without text, a binary): listed as skipped, or an "
      "error\n"
      "                    (default: skip inside directories); either way its "
      "document\n"
      "                    stays. A folder or file that cannot be read is an "
      "error and\n"
      "                    keeps every document under it.\n"
      "  Ids are as add gives them (the folder's name, then the path below "
      "it); a\n"
      "  document keeps the id it was added with.\n",
      LimitOptionsUsage());
  return usage.c_str();
}

// A protected document that came from under one of the sources.
struct Known {
  std::string id;
  std::string digest;
};

// Whether `source` (an absolute path) is `root` or lies under it.
bool Under(const std::string& source, const std::string& root) {
  return source == root ||
         (source.size() > root.size() && source.starts_with(root) &&
          (root.ends_with('/') || source[root.size()] == '/'));
}

// The sources the arguments name (InputFile::Source), or nullopt after
// reporting why one cannot be synced, with *exit set.
std::optional<std::vector<std::string>> SyncRoots(const CommandLine& line,
                                                  int* exit) {
  std::vector<std::string> roots;
  for (const std::string& arg : line.args()) {
    if (arg == "-") {
      *exit = UsageError("sync", absl::InvalidArgumentError(
                                     "standard input cannot be synced"));
      return std::nullopt;
    }
    std::error_code ec;
    if (!std::filesystem::exists(arg, ec)) {
      // A missing source would make sync remove everything it protected:
      // refused, not taken as empty.
      *exit = ReportError("sync", absl::NotFoundError(absl::StrCat(
                                      arg, ": no such file or directory")));
      return std::nullopt;
    }
    roots.push_back(InputFile{arg, arg}.Source());
  }
  return roots;
}

// The documents of the index added from under one of `roots`, by source.
absl::StatusOr<std::map<std::string, Known>> KnownDocuments(
    ProtectedIndex& index, const std::vector<std::string>& roots) {
  std::map<std::string, Known> known;
  absl::Status listed =
      index.ForEachDocument([&](uint32_t, const DocumentRecord& d) {
        for (const std::string& root : roots) {
          if (Under(d.source, root)) {
            known[d.source] = Known{d.external_id, d.digest};
            break;
          }
        }
        return absl::OkStatus();
      });
  if (!listed.ok()) return listed;
  return known;
}

// Brings the index in line with the files: each file added, replaced or
// found unchanged (SyncFile), then what is left of `known` removed
// (RemoveGone). With `dry`, only says what it would do.
class SyncRun {
 public:
  SyncRun(ProtectedIndex* index, std::map<std::string, Known> known,
          const ExtractionLimits& limits, UnreadablePolicy unreadable,
          std::vector<std::string> labels, bool dry)
      : index_(index),
        known_(std::move(known)),
        limits_(limits),
        unreadable_(unreadable),
        labels_(std::move(labels)),
        dry_(dry),
        prefix_(dry ? "would " : "") {}

  void SyncFile(const InputFile& file) {
    const std::string source = file.Source();
    auto text = ExtractInput(file, limits_);
    if (!text.ok()) {
      KeepUnder(source);
      if (SkipUnreadable(text.status(), file, unreadable_)) {
        std::printf("skipped %s\n",
                    SkippedFileText(file, text.status()).c_str());
        ++skipped_;
        return;
      }
      exit_ = ReportError("sync", text.status(), file.path);
      ++failed_;
      return;
    }
    const std::string joined = text->JoinedText();
    auto it = known_.find(source);
    if (it != known_.end() && it->second.digest == ContentDigest(joined)) {
      ++unchanged_;
      known_.erase(it);
      return;
    }
    const std::string id = it != known_.end() ? it->second.id : file.id;
    const bool replacing = it != known_.end();
    if (it != known_.end()) known_.erase(it);
    if (!dry_) {
      auto result = index_->Add(DocumentInput{id, source, labels_, joined});
      if (!result.ok()) {
        exit_ = ReportError("sync", result.status(), file.path);
        ++failed_;
        return;
      }
      if (result->outcome == AddOutcome::kDuplicateContent) {
        std::printf("duplicate %s: same text as %s, not added\n",
                    Printable(id).c_str(),
                    Printable(result->existing_id).c_str());
        return;
      }
    }
    std::printf("%s%s %s\n", prefix_, replacing ? "replace" : "add",
                Printable(id).c_str());
    ++(replacing ? replaced_ : added_);
  }

  // Removes the documents whose sources are gone; prints the summary and
  // returns the exit code.
  int RemoveGone() {
    for (const auto& [source, doc] : known_) {
      if (!dry_) {
        auto result = index_->Remove(doc.id);
        if (!result.ok()) {
          exit_ = ReportError("sync", result.status(), doc.id);
          ++failed_;
          continue;
        }
      }
      std::printf("%sremove %s (%s is gone)\n", prefix_,
                  Printable(doc.id).c_str(), Printable(source).c_str());
      ++removed_;
    }
    std::printf(
        "%s%zu added, %zu replaced, %zu removed, %zu unchanged, %zu skipped, "
        "%zu failed\n",
        dry_ ? "dry run: " : "", added_, replaced_, removed_, unchanged_,
        skipped_, failed_);
    return exit_;
  }

 private:
  // A file or folder that cannot be read now keeps its documents: it is
  // not gone. (The sources below a folder are one range of the map.)
  void KeepUnder(const std::string& source) {
    known_.erase(source);
    const std::string below = source.ends_with('/') ? source : source + "/";
    for (auto it = known_.lower_bound(below);
         it != known_.end() && it->first.starts_with(below);) {
      it = known_.erase(it);
    }
  }

  ProtectedIndex* index_;
  std::map<std::string, Known> known_;  // not seen yet, by source path
  const ExtractionLimits limits_;
  const UnreadablePolicy unreadable_;
  const std::vector<std::string> labels_;
  const bool dry_;
  const char* prefix_;
  int exit_ = kExitOk;
  size_t added_ = 0, replaced_ = 0, removed_ = 0, unchanged_ = 0, skipped_ = 0,
         failed_ = 0;
};

}  // namespace

int RunSyncCommand(int argc, char** argv) {
  static constexpr OptionSpec kSpecs[] = {{"index", true},
                                          {"dry-run", false},
                                          {"label", true},
                                          {"on-unreadable", true}};
  static constexpr auto kAllSpecs = WithLimitOptions(kSpecs);
  int exit = kExitOk;
  auto line =
      ParseCommandLine("sync", argc, argv, kAllSpecs, SyncUsage(), &exit);
  if (!line) return exit;
  if (line->args().empty()) {
    return UsageError("sync", absl::InvalidArgumentError("no SOURCE given"));
  }
  auto limits = FileLimits(*line);
  if (!limits.ok()) return ReportError("sync", limits.status());
  auto unreadable = ParseUnreadablePolicy(line->Value("on-unreadable"));
  if (!unreadable.ok()) return ReportError("sync", unreadable.status());
  const std::optional<std::vector<std::string>> roots = SyncRoots(*line, &exit);
  if (!roots) return exit;
  const std::vector<InputFile> files = ExpandInputs(line->args());
  const bool dry = line->Has("dry-run");
  auto index = OpenIndex(*line, dry ? OpenMode::kRead : OpenMode::kWrite);
  if (!index.ok()) return ReportError("sync", index.status());
  auto known = KnownDocuments(**index, *roots);
  if (!known.ok()) return ReportError("sync", known.status());
  SyncRun run(index->get(), std::move(*known), *limits, *unreadable,
              line->Values("label"), dry);
  for (const InputFile& file : files) run.SyncFile(file);
  return run.RemoveGone();
}

}  // namespace leakhound
