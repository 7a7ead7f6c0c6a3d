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

}  // namespace

int RunSyncCommand(int argc, char** argv) {
  static constexpr OptionSpec kSpecs[] = {
      {"index", true}, {"dry-run", false}, {"label", true},
      {"on-unreadable", true}};
  static constexpr auto kAllSpecs = WithLimitOptions(kSpecs);
  int exit = kExitOk;
  auto line = ParseCommandLine("sync", argc, argv, kAllSpecs, SyncUsage(), &exit);
  if (!line) return exit;
  if (line->args().empty()) {
    return UsageError("sync", absl::InvalidArgumentError("no SOURCE given"));
  }
  auto limits = FileLimits(*line);
  if (!limits.ok()) return ReportError("sync", limits.status());
  auto unreadable = ParseUnreadablePolicy(line->Value("on-unreadable"));
  if (!unreadable.ok()) return ReportError("sync", unreadable.status());
  std::vector<std::string> roots;
  for (const std::string& arg : line->args()) {
    if (arg == "-") {
      return UsageError("sync", absl::InvalidArgumentError(
                                    "standard input cannot be synced"));
    }
    std::error_code ec;
    if (!std::filesystem::exists(arg, ec)) {
      // A missing source would make sync remove everything it protected:
      // refused, not taken as empty.
      return ReportError("sync", absl::NotFoundError(absl::StrCat(
                                     arg, ": no such file or directory")));
    }
    roots.push_back(InputFile{arg, arg}.Source());
  }
  const std::vector<InputFile> files = ExpandInputs(line->args());
  const bool dry = line->Has("dry-run");
  auto index = OpenIndex(*line, dry ? OpenMode::kRead : OpenMode::kWrite);
  if (!index.ok()) return ReportError("sync", index.status());

  std::map<std::string, Known> known;  // by source path
  absl::Status listed = (*index)->ForEachDocument(
      [&](uint32_t, const DocumentRecord& d) {
        for (const std::string& root : roots) {
          if (Under(d.source, root)) {
            known[d.source] = Known{d.external_id, d.digest};
            break;
          }
        }
        return absl::OkStatus();
      });
  if (!listed.ok()) return ReportError("sync", listed);

  const std::vector<std::string> labels = line->Values("label");
  size_t added = 0, replaced = 0, removed = 0, unchanged = 0, skipped = 0,
         failed = 0;
  const char* prefix = dry ? "would " : "";
  for (const InputFile& file : files) {
    const std::string source = file.Source();
    auto text = ExtractInput(file, *limits);
    if (!text.ok()) {
      // A file or folder that cannot be read now keeps its documents: it
      // is not gone. (The sources below a folder are one range of the map.)
      known.erase(source);
      const std::string below = source.ends_with('/') ? source : source + "/";
      for (auto it = known.lower_bound(below);
           it != known.end() && it->first.starts_with(below);) {
        it = known.erase(it);
      }
      if (SkipUnreadable(text.status(), file, *unreadable)) {
        std::printf("skipped %s\n", SkippedFileText(file, text.status()).c_str());
        ++skipped;
        continue;
      }
      exit = ReportError("sync", text.status(), file.path);
      ++failed;
      continue;
    }
    const std::string joined = text->JoinedText();
    auto it = known.find(source);
    if (it != known.end() && it->second.digest == ContentDigest(joined)) {
      ++unchanged;
      known.erase(it);
      continue;
    }
    const std::string id = it != known.end() ? it->second.id : file.id;
    const bool replacing = it != known.end();
    if (it != known.end()) known.erase(it);
    if (!dry) {
      auto result = (*index)->Add(DocumentInput{id, source, labels, joined});
      if (!result.ok()) {
        exit = ReportError("sync", result.status(), file.path);
        ++failed;
        continue;
      }
      if (result->outcome == AddOutcome::kDuplicateContent) {
        std::printf("duplicate %s: same text as %s, not added\n",
                    Printable(id).c_str(), Printable(result->existing_id).c_str());
        continue;
      }
    }
    std::printf("%s%s %s\n", prefix, replacing ? "replace" : "add",
                Printable(id).c_str());
    ++(replacing ? replaced : added);
  }
  for (const auto& [source, doc] : known) {
    if (!dry) {
      auto result = (*index)->Remove(doc.id);
      if (!result.ok()) {
        exit = ReportError("sync", result.status(), doc.id);
        ++failed;
        continue;
      }
    }
    std::printf("%sremove %s (%s is gone)\n", prefix, Printable(doc.id).c_str(),
                Printable(source).c_str());
    ++removed;
  }
  std::printf(
      "%s%zu added, %zu replaced, %zu removed, %zu unchanged, %zu skipped, "
      "%zu failed\n",
      dry ? "dry run: " : "", added, replaced, removed, unchanged, skipped,
      failed);
  return exit;
}

}  // namespace leakhound
