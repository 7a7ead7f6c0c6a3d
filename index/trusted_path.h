// Trusted paths: whether a file or folder this process acts on can have
// been written or replaced by another local user. A policy file, a group
// file, a key or password file, the incident store and the index decide
// who logs in, where passwords go and what is protected; if another user
// can write one of them, or the folder holding it (and so swap it), they
// decide instead. Such a path is refused, whoever opens it.
//
// A path is trusted when its owner is root, this process's effective user
// or the packaged service user "leakhound", no other user can write it (no
// o+w; g+w only for group root, this process's or "leakhound"), and the
// same holds for the folder holding it, except that a world-writable folder
// with the sticky bit (/tmp) may hold it: there only a file's owner can
// move it.
//
// Thread-safety: pure functions of the file system.
#ifndef LEAKHOUND_INDEX_TRUSTED_PATH_H_
#define LEAKHOUND_INDEX_TRUSTED_PATH_H_

#include <string>
#include <string_view>

#include "absl/status/status.h"

namespace leakhound {

// OK when `path` (followed through symlinks) and the folder holding it are
// trusted (a missing `path`: when its folder is, for the caller to create
// it or fail to open it); else FailedPrecondition, one
// line: "<what> PATH can be written by other users (mode 0666); refused:
// chmod go-w PATH" or "<what> PATH belongs to uid 1000, not root or this
// service (uid 0); refused: chown it". `what` names the path ("policy
// file", "incidents").
absl::Status CheckTrustedFile(const std::string& path, std::string_view what);

// The same for a folder and the folder holding it.
absl::Status CheckTrustedFolder(const std::string& dir, std::string_view what);

// A path beside the index `index_dir`: the index's own name (trailing
// slashes dropped) followed by `suffix`, e.g. "/srv/index/" and
// ".incidents" give "/srv/index.incidents".
std::string PathBesideIndex(std::string index_dir, std::string_view suffix);

}  // namespace leakhound

#endif  // LEAKHOUND_INDEX_TRUSTED_PATH_H_
