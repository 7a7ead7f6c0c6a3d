#include "cli/discover/share_walk.h"

#include <fts.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "absl/status/status.h"

namespace leakhound {
namespace {

int ByName(const FTSENT** a, const FTSENT** b) {
  return std::strcmp((*a)->fts_name, (*b)->fts_name);
}

absl::Status ErrnoStatus(int e) {
  if (e == ENOENT || e == ENOTDIR) return absl::NotFoundError(std::strerror(e));
  if (e == EACCES) return absl::PermissionDeniedError(std::strerror(e));
  return absl::UnavailableError(std::strerror(e));
}

}  // namespace

ShareWalk WalkShare(
    const std::vector<std::string>& roots,
    const std::function<bool(const std::string&)>& skip_file,
    const std::function<bool(const std::string&)>& skip_folder) {
  ShareWalk out;
  std::vector<std::string> trimmed;
  for (std::string r : roots) {
    while (r.size() > 1 && r.back() == '/') r.pop_back();
    trimmed.push_back(std::move(r));
  }
  std::vector<char*> argv;
  for (std::string& r : trimmed) argv.push_back(r.data());
  argv.push_back(nullptr);
  FTS* fts = fts_open(argv.data(), FTS_PHYSICAL | FTS_NOCHDIR, ByName);
  if (fts == nullptr) {
    for (const std::string& r : trimmed) {
      out.unlisted.push_back({r, {}, ErrnoStatus(errno)});
    }
    return out;
  }
  while (FTSENT* e = fts_read(fts)) {
    const std::string path(e->fts_path, e->fts_pathlen);
    switch (e->fts_info) {
      case FTS_D:
        if (skip_folder(path)) fts_set(fts, e, FTS_SKIP);
        break;
      case FTS_DNR:
      case FTS_ERR:
        out.unlisted.push_back({path, {}, ErrnoStatus(e->fts_errno)});
        break;
      case FTS_NS:
        out.files.push_back({path, {}, ErrnoStatus(e->fts_errno)});
        break;
      case FTS_F:
        if (!skip_file(path)) {
          out.files.push_back({path, FactsOf(*e->fts_statp), absl::OkStatus()});
        }
        break;
      default:  // symlinks, special files, folders on the way back
        break;
    }
  }
  fts_close(fts);
  return out;
}

}  // namespace leakhound
