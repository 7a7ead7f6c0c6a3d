#include "engine/protected_sources.h"

#include <fnmatch.h>

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace leakhound {
namespace {

bool GlobMatches(const std::string& glob, std::string_view relative) {
  const bool whole_path = glob.find('/') != std::string::npos;
  std::string subject(relative);
  if (!whole_path) {
    const size_t slash = subject.rfind('/');
    if (slash != std::string::npos) subject.erase(0, slash + 1);
  }
  return ::fnmatch(glob.c_str(), subject.c_str(), 0) == 0;
}

bool AnyMatches(const std::vector<std::string>& globs,
                std::string_view relative) {
  return std::any_of(globs.begin(), globs.end(), [&](const std::string& g) {
    return GlobMatches(g, relative);
  });
}

}  // namespace

absl::Status ValidSourceName(std::string_view name) {
  if (name.empty() || name.size() > 64) {
    return absl::InvalidArgumentError(
        absl::StrCat("source name '", std::string(name), "' must have 1 to 64 characters"));
  }
  if (name.front() == '.' || name.front() == '-') {
    return absl::InvalidArgumentError(absl::StrCat(
        "source name '", std::string(name), "' must not start with '.' or '-'"));
  }
  for (char c : name) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '.' &&
        c != '_' && c != '-') {
      return absl::InvalidArgumentError(absl::StrCat(
          "source name '", std::string(name),
          "' may hold only letters, digits, '.', '_' and '-'"));
    }
  }
  return absl::OkStatus();
}

bool PathUnder(std::string_view path, std::string_view root) {
  if (path == root) return true;
  if (root == "/") return path.starts_with('/');
  return path.size() > root.size() && path.starts_with(root) &&
         path[root.size()] == '/';
}

const ProtectedSource* SourceHolding(std::span<const ProtectedSource> sources,
                                     std::string_view path) {
  const ProtectedSource* deepest = nullptr;
  for (const ProtectedSource& source : sources) {
    if (PathUnder(path, source.record.root) &&
        (deepest == nullptr ||
         source.record.root.size() > deepest->record.root.size())) {
      deepest = &source;
    }
  }
  return deepest;
}

std::optional<SourcePlacement> PlaceInSources(
    std::span<const ProtectedSource> sources, std::string_view path) {
  const ProtectedSource* source = SourceHolding(sources, path);
  if (source == nullptr || path == source->record.root) return std::nullopt;
  const std::string& root = source->record.root;
  SourcePlacement placement;
  placement.source = source;
  placement.relative =
      std::string(path.substr(root == "/" ? 1 : root.size() + 1));
  placement.id = absl::StrCat(source->name, "/", placement.relative);
  return placement;
}

std::vector<std::string> DeclaredLabels(const SourceRecord& source,
                                        std::string_view relative) {
  std::vector<std::string> labels = source.labels;
  for (const FolderLabelsRecord& folder : source.folder_labels) {
    if (PathUnder(relative, folder.folder)) {
      labels.insert(labels.end(), folder.labels.begin(), folder.labels.end());
    }
  }
  std::sort(labels.begin(), labels.end());
  labels.erase(std::unique(labels.begin(), labels.end()), labels.end());
  return labels;
}

bool SourceSelects(const SourceRecord& source, std::string_view relative) {
  if (!source.include.empty() && !AnyMatches(source.include, relative)) {
    return false;
  }
  return !AnyMatches(source.exclude, relative);
}

}  // namespace leakhound
