// The protected sources applied to input files: a file under a registered
// source (engine/protected_sources.h) gets the id NAME/relative path and
// the labels declared for it, whichever folder a command named; a file a
// walk found that the source's globs do not select is left out. Used by
// add, sync and scan --record, so the three agree on ids.
//
// Thread-safety: free functions without shared state.
#ifndef LEAKHOUND_CLI_COMMANDS_SOURCE_FILES_H_
#define LEAKHOUND_CLI_COMMANDS_SOURCE_FILES_H_

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "cli/commands/input_files.h"
#include "engine/protected_sources.h"

namespace leakhound {

// An input file placed among the sources.
struct SourcedFile {
  InputFile file;  // its id is the source's where it lies under one
  std::vector<std::string> labels;  // declared by its source, else none
  bool in_source = false;
};

// Places each of `files` (ExpandInputs) among `sources`. A file found by
// walking a directory that its source does not select is dropped and
// counted in *excluded (when given); a file named directly is kept.
std::vector<SourcedFile> PlaceFiles(std::span<const ProtectedSource> sources,
                                    std::vector<InputFile> files,
                                    size_t* excluded = nullptr);

// `a` and then the labels of `b` it lacks.
std::vector<std::string> UnionOfLabels(std::vector<std::string> a,
                                       const std::vector<std::string>& b);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_COMMANDS_SOURCE_FILES_H_
