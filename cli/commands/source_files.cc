#include "cli/commands/source_files.h"

#include <algorithm>
#include <utility>

namespace leakhound {

std::vector<SourcedFile> PlaceFiles(std::span<const ProtectedSource> sources,
                                    std::vector<InputFile> files,
                                    size_t* excluded) {
  std::vector<SourcedFile> out;
  out.reserve(files.size());
  for (InputFile& file : files) {
    SourcedFile placed;
    if (file.path != "-" && !sources.empty()) {
      if (auto where = PlaceInSources(sources, file.Source())) {
        if (file.walked &&
            !SourceSelects(where->source->record, where->relative)) {
          if (excluded != nullptr) ++*excluded;
          continue;
        }
        file.id = where->id;
        placed.labels = DeclaredLabels(where->source->record, where->relative);
        placed.in_source = true;
      }
    }
    placed.file = std::move(file);
    out.push_back(std::move(placed));
  }
  return out;
}

std::vector<std::string> UnionOfLabels(std::vector<std::string> a,
                                       const std::vector<std::string>& b) {
  for (const std::string& label : b) {
    if (std::find(a.begin(), a.end(), label) == a.end()) a.push_back(label);
  }
  return a;
}

}  // namespace leakhound
