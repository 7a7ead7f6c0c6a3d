// The index key's file: 32 bytes, mode 0600, in DIR/key by default, or
// outside the index folder (`init --key-file PATH`), where DIR/key.path
// names it. A key outside the folder keeps a copy of the index (a replica,
// a backup) from being used as an oracle for guessed table values or
// texts: the copy holds hashes keyed by a key it does not hold. A replica
// that scans needs the key file installed at the same path
// (docs/storage_format.md, "The key").
//
// Thread-safety: functions of the file system; none takes a lock.
#ifndef LEAKHOUND_INDEX_KEY_FILE_H_
#define LEAKHOUND_INDEX_KEY_FILE_H_

#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace leakhound {

// PERSISTED: the file in the index folder that names an outside key file
// (one absolute path and a newline).
inline constexpr char kKeyLocationFile[] = "key.path";

// Creates `path` (which must not exist) holding `key`, mode 0600, synced.
absl::Status WriteKeyFile(const std::string& path, std::string_view key);

// The key in `path`. FailedPrecondition when others can read or write it.
absl::StatusOr<std::string> ReadKeyFile(const std::string& path);

// Where the key of the index in `dir` is: DIR/key, or the path
// DIR/key.path names (which must be absolute and trusted,
// index/trusted_path.h).
absl::StatusOr<std::string> IndexKeyPath(const std::string& dir);

// Writes `key` for a new index in `dir`: to DIR/key when `key_file` is
// empty, else to `key_file` (absolute, not existing, in a trusted folder)
// with DIR/key.path naming it.
absl::Status PlaceKey(const std::string& dir, const std::string& key_file,
                      std::string_view key);

}  // namespace leakhound

#endif  // LEAKHOUND_INDEX_KEY_FILE_H_
