// Protected sources: the folders an admin declares (`leakhound sources add
// NAME PATH`), whose files are protected under the ids NAME/relative path
// with the labels declared for the source and its subfolders, whichever
// folder a command names. The declarations are kept in the index
// (SourceRecord, index/records.h); these functions place a file in them.
//
// Globs (include, exclude) are fnmatch(3) patterns: one without '/' is
// matched against the file's name, one with '/' against its path below the
// root, where '*' also crosses '/' ("drafts/*" is everything under
// drafts). A file is selected when it matches some include (or there is
// none) and no exclude.
//
// Thread-safety: immutable values and pure functions.
#ifndef LEAKHOUND_ENGINE_PROTECTED_SOURCES_H_
#define LEAKHOUND_ENGINE_PROTECTED_SOURCES_H_

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "index/records.h"

namespace leakhound {

struct ProtectedSource {
  std::string name;
  SourceRecord record;
};

// Where a file lies among the sources.
struct SourcePlacement {
  const ProtectedSource* source = nullptr;  // points into the span searched
  std::string relative;  // its path below the source's root
  std::string id;        // name + "/" + relative
};

// OK for a name of letters, digits, '.', '_' and '-' (1 to 64 bytes, not
// starting with '.' or '-'); InvalidArgument saying what is wrong.
absl::Status ValidSourceName(std::string_view name);

// The source whose root holds `path` (absolute, lexically normal), the
// deepest where sources nest (a folder registered inside another one keeps
// its own ids); nullopt when none does or `path` is that source's root.
// Lifetime: the placement points into `sources`.
std::optional<SourcePlacement> PlaceInSources(
    std::span<const ProtectedSource> sources, std::string_view path);

// The deepest source whose root is or holds `path`, or nullptr.
const ProtectedSource* SourceHolding(std::span<const ProtectedSource> sources,
                                     std::string_view path);

// The labels declared for a file at `relative` below `source`'s root: the
// source's and those of every folder_labels entry holding it; sorted, each
// once.
std::vector<std::string> DeclaredLabels(const SourceRecord& source,
                                        std::string_view relative);

// Whether the file at `relative` is selected by the source's include and
// exclude globs.
bool SourceSelects(const SourceRecord& source, std::string_view relative);

// Whether `path` is `root` or lies below it (both lexically normal).
bool PathUnder(std::string_view path, std::string_view root);

}  // namespace leakhound

#endif  // LEAKHOUND_ENGINE_PROTECTED_SOURCES_H_
