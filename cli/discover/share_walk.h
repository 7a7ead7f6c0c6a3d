// WalkShare: the files of a discovery target (docs/discover.md), found by
// one physical walk (fts(3)) that lstat's each entry once: regular files
// with their facts, in path order; symlinks and special files skipped;
// folders that cannot be listed reported, never taken as empty.
//
// Thread-safety: a function without shared state.
#ifndef LEAKHOUND_CLI_DISCOVER_SHARE_WALK_H_
#define LEAKHOUND_CLI_DISCOVER_SHARE_WALK_H_

#include <functional>
#include <string>
#include <vector>

#include "cli/discover/crawl_plan.h"

namespace leakhound {

struct ShareWalk {
  std::vector<SeenFile> files;     // regular files (a path that cannot be
                                   // examined: with its problem)
  std::vector<SeenFile> unlisted;  // folders that could not be read
};

// Walks `roots` (absolute folders or files; a trailing '/' ignored).
// `skip_file(path)` leaves a file out (excluded names, tombstones);
// `skip_folder(path)` prunes a folder with everything under it (the
// quarantine).
ShareWalk WalkShare(const std::vector<std::string>& roots,
                    const std::function<bool(const std::string&)>& skip_file,
                    const std::function<bool(const std::string&)>& skip_folder);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_DISCOVER_SHARE_WALK_H_
