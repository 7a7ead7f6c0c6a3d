#include "cli/commands/sources_command.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cli/commands/command_line.h"
#include "cli/commands/exit_codes.h"
#include "cli/commands/json_text.h"
#include "cli/commands/source_files.h"
#include "cli/commands/source_migration.h"
#include "cli/commands/sync_command.h"

namespace leakhound {
namespace {

const char* SourcesUsage() {
  static const std::string usage = absl::StrCat(
      "usage: leakhound sources add --index DIR NAME PATH [DECLARATION]... "
      "[--no-sync] [LIMITS]\n"
      "       leakhound sources set --index DIR NAME DECLARATION...\n"
      "       leakhound sources remove --index DIR [--keep-documents] NAME\n"
      "       leakhound sources list --index DIR [--json]\n"
      "       leakhound sources migrate --index DIR [--dry-run]\n"
      "  A source is a folder whose files are protected as NAME/path below "
      "it, with\n"
      "  the labels declared for it, whichever folder add, sync or scan "
      "--record name.\n"
      "  `leakhound sync` with no PATH syncs every source.\n"
      "  DECLARATION (each repeatable; in set, an option given replaces "
      "that list,\n"
      "  and an empty value empties it):\n"
      "  --label L            a label of every document of the source\n"
      "  --folder-label F=L   a label of the documents under subfolder F\n"
      "  --include GLOB       only files matching (a glob without '/' is "
      "matched\n"
      "                       against the file's name, one with '/' against "
      "its path)\n"
      "  --exclude GLOB       never files matching\n"
      "  add syncs the new source at once (--no-sync: only registers it). "
      "remove also\n"
      "  stops protecting its documents unless --keep-documents. migrate "
      "registers\n"
      "  the folders an index built with add was made from, keeping the "
      "labels.\n",
      LimitOptionsUsage());
  return usage.c_str();
}

// "F=L" of --folder-label into the record's folder labels.
absl::Status AddFolderLabel(const std::string& given, SourceRecord& record) {
  const size_t eq = given.rfind('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == given.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--folder-label ", given, ": expected SUBFOLDER=LABEL"));
  }
  std::string folder =
      std::filesystem::path(given.substr(0, eq)).lexically_normal().string();
  while (folder.ends_with('/')) folder.pop_back();
  if (folder.empty() || folder.starts_with('/') || folder.starts_with("..") ||
      folder == ".") {
    return absl::InvalidArgumentError(absl::StrCat(
        "--folder-label ", given,
        ": the folder must be a path below the source's root"));
  }
  const std::string label = given.substr(eq + 1);
  for (FolderLabelsRecord& f : record.folder_labels) {
    if (f.folder == folder) {
      f.labels.push_back(label);
      return absl::OkStatus();
    }
  }
  record.folder_labels.push_back(FolderLabelsRecord{folder, {label}});
  return absl::OkStatus();
}

// The declaration options of `line` applied to `record`: each option given
// replaces its list; an empty value leaves it empty.
absl::Status ApplyDeclaration(const CommandLine& line, SourceRecord& record) {
  const auto list = [&line](const char* name, std::vector<std::string>& out) {
    if (!line.Has(name)) return;
    out.clear();
    for (std::string& v : line.Values(name)) {
      if (!v.empty()) out.push_back(std::move(v));
    }
  };
  list("label", record.labels);
  list("include", record.include);
  list("exclude", record.exclude);
  if (line.Has("folder-label")) {
    record.folder_labels.clear();
    for (const std::string& v : line.Values("folder-label")) {
      if (v.empty()) continue;
      absl::Status s = AddFolderLabel(v, record);
      if (!s.ok()) return s;
    }
  }
  return absl::OkStatus();
}

// The folder of `sources add`: absolute, lexically normal, an existing
// directory that is no other source's root. Sources may nest: a file is
// its deepest source's.
absl::StatusOr<std::string> NewSourceRoot(
    const std::string& path, const std::vector<ProtectedSource>& sources) {
  std::error_code ec;
  if (!std::filesystem::is_directory(path, ec)) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": not a directory (a source is a folder)"));
  }
  std::string root =
      std::filesystem::absolute(path, ec).lexically_normal().string();
  while (root.size() > 1 && root.ends_with('/')) root.pop_back();
  for (const ProtectedSource& s : sources) {
    if (root == s.record.root) {
      return absl::AlreadyExistsError(
          absl::StrCat(path, " is source ", s.name, " already"));
    }
  }
  return root;
}

std::string DeclarationText(const SourceRecord& r) {
  std::vector<std::string> parts;
  if (!r.labels.empty()) {
    parts.push_back("labels " + absl::StrJoin(r.labels, ", "));
  }
  for (const FolderLabelsRecord& f : r.folder_labels) {
    parts.push_back(
        absl::StrCat(f.folder, "/: ", absl::StrJoin(f.labels, ", ")));
  }
  if (!r.include.empty()) {
    parts.push_back("include " + absl::StrJoin(r.include, " "));
  }
  if (!r.exclude.empty()) {
    parts.push_back("exclude " + absl::StrJoin(r.exclude, " "));
  }
  return parts.empty() ? "no labels" : absl::StrJoin(parts, "; ");
}

int AddSource(const CommandLine& line, ProtectedIndex& index,
              const std::vector<std::string>& operands) {
  if (operands.size() != 2) {
    return UsageError("sources", absl::InvalidArgumentError(
                                     "sources add takes NAME and PATH"));
  }
  auto limits = FileLimits(line);
  if (!limits.ok()) return ReportError("sources", limits.status());
  auto sources = index.ListSources();
  if (!sources.ok()) return ReportError("sources", sources.status());
  for (const ProtectedSource& s : *sources) {
    if (s.name == operands[0]) {
      return ReportError("sources",
                         absl::AlreadyExistsError(absl::StrCat(
                             "a source named ", s.name, " exists (", s.record.root,
                             "); change it with leakhound sources set")));
    }
  }
  SourceRecord record;
  auto root = NewSourceRoot(operands[1], *sources);
  if (!root.ok()) return ReportError("sources", root.status());
  record.root = *root;
  absl::Status s = ApplyDeclaration(line, record);
  if (s.ok()) s = index.PutSource(operands[0], record);
  if (!s.ok()) return ReportError("sources", s);
  std::printf("source %s: %s (%s)\n", operands[0].c_str(),
              record.root.c_str(), DeclarationText(record).c_str());
  if (line.Has("no-sync")) return kExitOk;
  const SyncSettings settings{*limits, UnreadablePolicy::kByOrigin, {}, false};
  return SyncPaths(index, {record.root}, settings);
}

// The source `name` of `sources`, or NotFound.
absl::StatusOr<ProtectedSource> FindSource(
    const std::vector<ProtectedSource>& sources, const std::string& name) {
  for (const ProtectedSource& s : sources) {
    if (s.name == name) return s;
  }
  return absl::NotFoundError(absl::StrCat(
      "no source named ", name, " (leakhound sources list shows them)"));
}

// The documents whose ids lie under `source` (NAME/...), with their
// relative paths.
absl::StatusOr<std::vector<std::pair<DocumentRecord, std::string>>>
SourceDocuments(const ProtectedIndex& index, const std::string& name) {
  std::vector<std::pair<DocumentRecord, std::string>> out;
  const std::string prefix = name + "/";
  absl::Status s =
      index.ForEachDocument([&](uint32_t, const DocumentRecord& d) {
        if (d.external_id.starts_with(prefix)) {
          out.emplace_back(d, d.external_id.substr(prefix.size()));
        }
        return absl::OkStatus();
      });
  if (!s.ok()) return s;
  return out;
}

// `sources set`: the new declaration, and each document's labels moved
// from the old declared ones to the new (its own labels stay).
int SetSource(const CommandLine& line, ProtectedIndex& index,
              const std::vector<std::string>& operands) {
  if (operands.size() != 1) {
    return UsageError("sources", absl::InvalidArgumentError(
                                     "sources set takes one NAME"));
  }
  auto sources = index.ListSources();
  if (!sources.ok()) return ReportError("sources", sources.status());
  auto old = FindSource(*sources, operands[0]);
  if (!old.ok()) return ReportError("sources", old.status());
  SourceRecord record = old->record;
  absl::Status s = ApplyDeclaration(line, record);
  if (s.ok()) s = index.PutSource(old->name, record);
  if (!s.ok()) return ReportError("sources", s);
  std::printf("source %s: %s (%s)\n", old->name.c_str(), record.root.c_str(),
              DeclarationText(record).c_str());
  auto docs = SourceDocuments(index, old->name);
  if (!docs.ok()) return ReportError("sources", docs.status());
  int exit = kExitOk;
  for (const auto& [doc, relative] : *docs) {
    std::vector<std::string> labels;
    const std::vector<std::string> was = DeclaredLabels(old->record, relative);
    for (const std::string& l : doc.labels) {
      if (std::find(was.begin(), was.end(), l) == was.end()) {
        labels.push_back(l);
      }
    }
    labels = UnionOfLabels(labels, DeclaredLabels(record, relative));
    auto changed = index.SetLabels(doc.external_id, labels);
    if (!changed.ok()) {
      exit = ReportError("sources", changed.status(), doc.external_id);
    } else if (*changed) {
      std::printf("label %s (%s)\n", Printable(doc.external_id).c_str(),
                  absl::StrJoin(labels, ", ").c_str());
    }
  }
  if (line.Has("include") || line.Has("exclude")) {
    std::printf("the globs apply from the next leakhound sync\n");
  }
  return exit;
}

// `sources remove NAME`: its documents (unless --keep-documents), then the
// declaration, so that an interrupted remove leaves a source to remove
// again.
int RemoveSource(const CommandLine& line, ProtectedIndex& index,
                 const std::vector<std::string>& operands) {
  if (operands.size() != 1) {
    return UsageError("sources", absl::InvalidArgumentError(
                                     "sources remove takes one NAME"));
  }
  auto sources = index.ListSources();
  if (!sources.ok()) return ReportError("sources", sources.status());
  auto source = FindSource(*sources, operands[0]);
  if (!source.ok()) return ReportError("sources", source.status());
  size_t removed = 0;
  if (!line.Has("keep-documents")) {
    auto docs = SourceDocuments(index, source->name);
    if (!docs.ok()) return ReportError("sources", docs.status());
    for (const auto& [doc, relative] : *docs) {
      auto result = index.Remove(doc.external_id);
      if (!result.ok()) {
        return ReportError("sources", result.status(), doc.external_id);
      }
      std::printf("removed   %s\n", Printable(doc.external_id).c_str());
      ++removed;
    }
  }
  absl::Status s = index.RemoveSource(source->name);
  if (!s.ok()) return ReportError("sources", s);
  std::printf("source %s removed (%s)\n", source->name.c_str(),
              line.Has("keep-documents")
                  ? "its documents stay protected"
                  : Plural(removed, "document").append(" removed").c_str());
  return kExitOk;
}

int ListSources(const CommandLine& line, const ProtectedIndex& index) {
  auto sources = index.ListSources();
  if (!sources.ok()) return ReportError("sources", sources.status());
  for (const ProtectedSource& s : *sources) {
    auto docs = SourceDocuments(index, s.name);
    if (!docs.ok()) return ReportError("sources", docs.status());
    if (!line.Has("json")) {
      std::printf("%-16s %14s  %s  (%s)\n", s.name.c_str(),
                  Plural(docs->size(), "document").c_str(),
                  s.record.root.c_str(),
                  DeclarationText(s.record).c_str());
      continue;
    }
    std::vector<std::string> folders;
    for (const FolderLabelsRecord& f : s.record.folder_labels) {
      folders.push_back(absl::StrCat(JsonString(f.folder), ":",
                                     JsonStrings(f.labels)));
    }
    std::printf(
        "{\"name\":%s,\"root\":%s,\"labels\":%s,\"folder_labels\":{%s},"
        "\"include\":%s,\"exclude\":%s,\"documents\":%zu,\"added\":\"%s\"}\n",
        JsonString(s.name).c_str(), JsonString(s.record.root).c_str(),
        JsonStrings(s.record.labels).c_str(), absl::StrJoin(folders, ",").c_str(),
        JsonStrings(s.record.include).c_str(),
        JsonStrings(s.record.exclude).c_str(), docs->size(),
        IsoTime(s.record.added_unix_ms).c_str());
  }
  return kExitOk;
}

}  // namespace

int RunSourcesCommand(int argc, char** argv) {
  static constexpr OptionSpec kSpecs[] = {
      {"index", true},        {"label", true},   {"folder-label", true},
      {"include", true},      {"exclude", true}, {"no-sync", false},
      {"keep-documents", false}, {"json", false}, {"dry-run", false}};
  static constexpr auto kAllSpecs = WithLimitOptions(kSpecs);
  int exit = kExitOk;
  auto line =
      ParseCommandLine("sources", argc, argv, kAllSpecs, SourcesUsage(), &exit);
  if (!line) return exit;
  auto split = SplitAction("sources", *line);
  if (!split) return kExitError;
  const auto& [action, operands] = *split;
  if (action != "add" && action != "set" && action != "remove" &&
      action != "list" && action != "migrate") {
    return UsageError("sources",
                      absl::InvalidArgumentError(absl::StrCat(
                          "unknown action '", action,
                          "' (add, set, remove, list or migrate)")));
  }
  const bool reads = action == "list" ||
                     (action == "migrate" && line->Has("dry-run"));
  auto index = OpenIndex(*line, reads ? OpenMode::kRead : OpenMode::kWrite);
  if (!index.ok()) return ReportError("sources", index.status());
  if (action == "list") return ListSources(*line, **index);
  if (action == "migrate") {
    return MigrateToSources(**index, line->Has("dry-run"));
  }
  if (action == "set") return SetSource(*line, **index, operands);
  if (action == "remove") return RemoveSource(*line, **index, operands);
  return AddSource(*line, **index, operands);
}

}  // namespace leakhound
