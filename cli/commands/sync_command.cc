#include "cli/commands/sync_command.h"

#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cli/commands/command_line.h"
#include "cli/commands/exit_codes.h"
#include "cli/commands/input_files.h"
#include "cli/commands/source_files.h"
#include "cli/gateway/document_sensitivity.h"
#include "engine/content_digest.h"
#include "engine/protected_index.h"

namespace leakhound {
namespace {

const char* SyncUsage() {
  static const std::string usage = absl::StrCat(
      "usage: leakhound sync --index DIR [--dry-run] [--label L]... "
      "[--on-unreadable skip|error] [LIMITS] [PATH...]\n"
      "  Makes the documents protected from under the PATH files and "
      "directories\n"
      "  (none: every registered source, `leakhound sources`) equal to "
      "them: adds new\n"
      "  files, replaces changed ones (by the SHA-256 of their text), "
      "removes those\n"
      "  whose file is gone or no longer selected. Documents added from "
      "elsewhere stay.\n"
      "  -d, --index DIR   the index\n"
      "  --dry-run         say what would change, change nothing\n"
      "  --label L         labels the documents gain (repeatable); a "
      "document keeps\n"
      "                    its labels, and one under a source gains those "
      "declared\n"
      "  --on-unreadable skip|error  a file without text leakhound can read "
      "(an image\n"
      "                    without text, a binary): listed as skipped, or an "
      "error\n"
      "                    (default: skip inside directories); either way its "
      "document\n"
      "                    stays. A folder or file that cannot be read is an "
      "error and\n"
      "                    keeps every document under it.\n"
      "  Ids: a file under a registered source is NAME/path below its root, "
      "whichever\n"
      "  folder is named; other files keep the id they were added with "
      "(new ones: the\n"
      "  folder's name, then the path below it).\n",
      LimitOptionsUsage());
  return usage.c_str();
}

// A protected document that came from under one of the sources.
struct Known {
  std::string id;
  std::string digest;
  std::vector<std::string> labels;
};

// Whether `source` (an absolute path) is `root` or lies under it.
bool Under(const std::string& source, const std::string& root) {
  return source == root ||
         (source.size() > root.size() && source.starts_with(root) &&
          (root.ends_with('/') || source[root.size()] == '/'));
}

// The paths the arguments name, checked, or nullopt after
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
    roots.push_back(arg);
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
            known[d.source] = Known{d.external_id, d.digest, d.labels};
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
          const SyncSettings& settings)
      : index_(index),
        known_(std::move(known)),
        settings_(settings),
        prefix_(settings.dry ? "would " : "") {}

  void SyncFile(const SourcedFile& placed) {
    const InputFile& file = placed.file;
    const std::string source = file.Source();
    auto text = ExtractInput(file, settings_.limits);
    if (!text.ok()) {
      KeepUnder(source);
      if (SkipUnreadable(text.status(), file, settings_.unreadable)) {
        std::printf("skipped %s\n",
                    SkippedFileText(file, text.status()).c_str());
        ++skipped_;
        return;
      }
      Fail(text.status(), file.path);
      return;
    }
    const std::vector<std::string> labels =
        UnionOfLabels(placed.labels, settings_.labels);
    auto it = known_.find(source);
    std::string id = file.id;
    if (it != known_.end()) {
      // A document keeps the id it was added with, but a file under a
      // source takes the source's.
      if (placed.in_source && it->second.id != file.id) {
        if (!RenameKnown(it->second.id, file.id)) return;
      }
      id = placed.in_source ? file.id : it->second.id;
    }
    const std::string joined = text->JoinedText();
    std::vector<LabelRecord> sensitivity = SensitivityOf(*text, std::nullopt);
    if (it != known_.end() && it->second.digest == ContentDigest(joined)) {
      ++unchanged_;
      AddLabels(id, it->second.labels, labels);
      // A file relabelled in Office keeps its text: its label is taken.
      if (!sensitivity.empty() && !settings_.dry) {
        auto relabelled = index_->Add(DocumentInput{
            id, source, labels, joined, false, std::move(sensitivity)});
        if (!relabelled.ok()) Fail(relabelled.status(), file.path);
      }
      known_.erase(it);
      return;
    }
    const bool replacing = it != known_.end();
    if (replacing) known_.erase(it);
    if (!settings_.dry) {
      auto result = index_->Add(DocumentInput{id, source, labels, joined, false,
                                              std::move(sensitivity)});
      if (!result.ok()) {
        Fail(result.status(), file.path);
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
      if (!settings_.dry) {
        auto result = index_->Remove(doc.id);
        if (!result.ok()) {
          Fail(result.status(), doc.id);
          continue;
        }
      }
      std::error_code ec;
      std::printf("%sremove %s (%s %s)\n", prefix_, Printable(doc.id).c_str(),
                  Printable(source).c_str(),
                  std::filesystem::exists(source, ec)
                      ? "is no longer selected by its source's globs"
                      : "is gone");
      ++removed_;
    }
    std::printf(
        "%s%zu added, %zu replaced, %zu removed, %zu unchanged, %zu skipped, "
        "%zu failed\n",
        settings_.dry ? "dry run: " : "", added_, replaced_, removed_,
        unchanged_, skipped_, failed_);
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

  void Fail(const absl::Status& s, const std::string& what) {
    exit_ = ReportError("sync", s, what);
    ++failed_;
  }

  // Gives the document `from` its source's id `to`; false after reporting
  // a failure.
  bool RenameKnown(const std::string& from, const std::string& to) {
    if (!settings_.dry) {
      absl::Status s = index_->Rename(from, to);
      if (!s.ok()) {
        Fail(s, from);
        return false;
      }
    }
    std::printf("%srename %s -> %s\n", prefix_, Printable(from).c_str(),
                Printable(to).c_str());
    return true;
  }

  // An unchanged document gains the labels its source now declares.
  void AddLabels(const std::string& id, const std::vector<std::string>& stored,
                 const std::vector<std::string>& wanted) {
    const std::vector<std::string> all = UnionOfLabels(stored, wanted);
    if (all.size() == stored.size()) return;
    if (!settings_.dry) {
      auto changed = index_->SetLabels(id, all);
      if (!changed.ok()) {
        Fail(changed.status(), id);
        return;
      }
    }
    std::printf("%slabel %s (%s)\n", prefix_, Printable(id).c_str(),
                absl::StrJoin(all, ", ").c_str());
  }

  ProtectedIndex* index_;
  std::map<std::string, Known> known_;  // not seen yet, by source path
  const SyncSettings& settings_;
  const char* prefix_;
  int exit_ = kExitOk;
  size_t added_ = 0, replaced_ = 0, removed_ = 0, unchanged_ = 0, skipped_ = 0,
         failed_ = 0;
};

// `paths` without those that lie under another of them (a source
// registered inside another), which would be read twice.
std::vector<std::string> OutermostPaths(const std::vector<std::string>& paths) {
  std::vector<std::string> out;
  for (size_t i = 0; i < paths.size(); ++i) {
    const std::string mine = InputFile{paths[i], paths[i]}.Source();
    bool inner = false;
    for (size_t j = 0; j < paths.size() && !inner; ++j) {
      const std::string other = InputFile{paths[j], paths[j]}.Source();
      inner = (mine != other && Under(mine, other)) ||
              (mine == other && j < i);
    }
    if (!inner) out.push_back(paths[i]);
  }
  return out;
}

}  // namespace

int SyncPaths(ProtectedIndex& index, const std::vector<std::string>& given,
              const SyncSettings& settings) {
  const std::vector<std::string> paths = OutermostPaths(given);
  std::vector<std::string> roots;
  for (const std::string& path : paths) {
    roots.push_back(InputFile{path, path}.Source());
  }
  auto sources = index.ListSources();
  if (!sources.ok()) return ReportError("sync", sources.status());
  auto known = KnownDocuments(index, roots);
  if (!known.ok()) return ReportError("sync", known.status());
  size_t excluded = 0;
  const std::vector<SourcedFile> files =
      PlaceFiles(*sources, ExpandInputs(paths), &excluded);
  SyncRun run(&index, std::move(*known), settings);
  for (const SourcedFile& file : files) run.SyncFile(file);
  if (excluded > 0) {
    std::printf("%zu file%s left out by the sources' globs\n", excluded,
                excluded == 1 ? "" : "s");
  }
  return run.RemoveGone();
}

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
  auto limits = FileLimits(*line);
  if (!limits.ok()) return ReportError("sync", limits.status());
  auto unreadable = ParseUnreadablePolicy(line->Value("on-unreadable"));
  if (!unreadable.ok()) return ReportError("sync", unreadable.status());
  const std::optional<std::vector<std::string>> given = SyncRoots(*line, &exit);
  if (!given) return exit;
  const SyncSettings settings{*limits, *unreadable, line->Values("label"),
                              line->Has("dry-run")};
  auto index =
      OpenIndex(*line, settings.dry ? OpenMode::kRead : OpenMode::kWrite);
  if (!index.ok()) return ReportError("sync", index.status());
  std::vector<std::string> paths = *given;
  if (paths.empty()) {
    auto sources = (*index)->ListSources();
    if (!sources.ok()) return ReportError("sync", sources.status());
    for (const ProtectedSource& source : *sources) {
      paths.push_back(source.record.root);
    }
    if (paths.empty()) {
      return UsageError(
          "sync", absl::InvalidArgumentError(
                      "no SOURCE given and no source registered (leakhound "
                      "sources add NAME PATH; leakhound sources migrate "
                      "registers the folders an index was built from)"));
    }
    // A registered folder that is gone would lose all its documents:
    // refused as SyncRoots refuses a missing argument.
    for (const std::string& path : paths) {
      std::error_code ec;
      if (!std::filesystem::exists(path, ec)) {
        return ReportError("sync", absl::NotFoundError(absl::StrCat(
                                       path, ": no such file or directory (a "
                                       "registered source; nothing synced)")));
      }
    }
  }
  return SyncPaths(**index, paths, settings);
}

}  // namespace leakhound
