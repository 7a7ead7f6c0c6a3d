#include "cli/commands/label_command.h"

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cli/commands/command_line.h"
#include "cli/commands/exit_codes.h"
#include "cli/commands/source_files.h"

namespace leakhound {
namespace {

constexpr char kLabelUsage[] =
    "usage: leakhound label add --index DIR ID|PREFIX/ LABEL...\n"
    "       leakhound label remove --index DIR ID|PREFIX/ LABEL...\n"
    "  Adds labels to a protected document, or to every document whose id "
    "starts\n"
    "  with PREFIX/ (a source's NAME/, a folder below it), or removes "
    "them. A\n"
    "  document keeps its labels when its file changes. A label a "
    "document's source\n"
    "  declares is changed with leakhound sources set, not here.\n";

// The documents `target` names: the one of that id, else (for a target
// ending in '/') those whose ids start with it.
absl::StatusOr<std::vector<DocumentRecord>> Targets(
    const ProtectedIndex& index, const std::string& target) {
  std::vector<DocumentRecord> exact, prefixed;
  absl::Status s =
      index.ForEachDocument([&](uint32_t, const DocumentRecord& d) {
        if (d.external_id == target) exact.push_back(d);
        if (target.ends_with('/') && d.external_id.starts_with(target)) {
          prefixed.push_back(d);
        }
        return absl::OkStatus();
      });
  if (!s.ok()) return s;
  if (!exact.empty()) return exact;
  if (prefixed.empty()) {
    return absl::NotFoundError(absl::StrCat(
        "no document ", target,
        target.ends_with('/') ? " or below it"
                              : " (a prefix of ids ends with '/')"));
  }
  return prefixed;
}

// Why `label` cannot be removed from `doc`: its source declares it.
std::optional<std::string> DeclaredBy(const std::vector<ProtectedSource>& sources,
                                      const DocumentRecord& doc,
                                      const std::string& label) {
  auto where = PlaceInSources(sources, doc.source);
  if (!where || where->id != doc.external_id) return std::nullopt;
  const std::vector<std::string> declared =
      DeclaredLabels(where->source->record, where->relative);
  if (std::find(declared.begin(), declared.end(), label) == declared.end()) {
    return std::nullopt;
  }
  return where->source->name;
}

// The labels `doc` is to have; FailedPrecondition for a declared label.
absl::StatusOr<std::vector<std::string>> Relabelled(
    const std::vector<ProtectedSource>& sources, const DocumentRecord& doc,
    bool add, const std::vector<std::string>& labels) {
  if (add) return UnionOfLabels(doc.labels, labels);
  std::vector<std::string> out = doc.labels;
  for (const std::string& label : labels) {
    if (auto source = DeclaredBy(sources, doc, label)) {
      return absl::FailedPreconditionError(absl::StrCat(
          "label ", label, " of ", doc.external_id, " is declared by source ",
          *source, "; change it with leakhound sources set ", *source));
    }
    std::erase(out, label);
  }
  return out;
}

}  // namespace

int RunLabelCommand(int argc, char** argv) {
  static constexpr OptionSpec kSpecs[] = {{"index", true}};
  int exit = kExitOk;
  auto line = ParseCommandLine("label", argc, argv, kSpecs, kLabelUsage, &exit);
  if (!line) return exit;
  auto split = SplitAction("label", *line);
  if (!split) return kExitError;
  const auto& [action, operands] = *split;
  if (action != "add" && action != "remove") {
    return UsageError("label", absl::InvalidArgumentError(absl::StrCat(
                                   "unknown action '", action,
                                   "' (add or remove)")));
  }
  if (operands.size() < 2) {
    return UsageError("label", absl::InvalidArgumentError(
                                   "give an ID or PREFIX/ and a LABEL"));
  }
  const std::vector<std::string> labels(operands.begin() + 1, operands.end());
  if (std::any_of(labels.begin(), labels.end(),
                  [](const std::string& l) { return l.empty(); })) {
    return UsageError("label",
                      absl::InvalidArgumentError("a label must not be empty"));
  }
  auto index = OpenIndex(*line, OpenMode::kWrite);
  if (!index.ok()) return ReportError("label", index.status());
  auto sources = (*index)->ListSources();
  if (!sources.ok()) return ReportError("label", sources.status());
  auto docs = Targets(**index, operands[0]);
  if (!docs.ok()) return ReportError("label", docs.status());
  size_t changed = 0;
  for (const DocumentRecord& doc : *docs) {
    auto wanted = Relabelled(*sources, doc, action == "add", labels);
    absl::StatusOr<bool> done =
        wanted.ok() ? (*index)->SetLabels(doc.external_id, *wanted)
                    : absl::StatusOr<bool>(wanted.status());
    if (!done.ok()) {
      exit = ReportError("label", done.status());
      continue;
    }
    if (*done) {
      ++changed;
      std::printf("label %s (%s)\n", Printable(doc.external_id).c_str(),
                  wanted->empty() ? "no labels"
                                  : absl::StrJoin(*wanted, ", ").c_str());
    }
  }
  std::printf("%s changed, %zu unchanged\n",
              Plural(changed, "document").c_str(), docs->size() - changed);
  return exit;
}

}  // namespace leakhound
