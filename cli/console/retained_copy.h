// Retained copies: what the console protects or allow-lists has no file
// of its own to be read again from (an upload, a passage of an incident),
// so the console keeps a copy of it, owner-only, in a folder beside the
// index (INDEX_DIR.sources), and records that copy's path as the source.
// `leakhound rekey` then reads it again like any other source; removing
// the document or allow-list entry deletes the copy (docs/console.md).
//
// Thread-safety: free functions without shared state; two processes may
// retain the same bytes at once (each writes a temporary file and renames
// it into place).
#ifndef LEAKHOUND_CLI_CONSOLE_RETAINED_COPY_H_
#define LEAKHOUND_CLI_CONSOLE_RETAINED_COPY_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace leakhound {

class ProtectedIndex;

// The folder of retained copies of the index at `index_dir`: the index's
// absolute path with ".sources" appended.
std::string RetainedCopiesDir(const std::string& index_dir);

struct RetainedCopy {
  std::string path;      // absolute
  bool created = false;  // false: these bytes were retained under it before
};

// Writes `bytes` durably to an owner-only file in RetainedCopiesDir
// (created 0700 when missing), named by the bytes' SHA-256 and `name`
// (reduced to letters, digits, '.', '-' and '_', so that its extension
// still tells its format). The same bytes and name give the same path,
// written once.
absl::StatusOr<RetainedCopy> RetainCopy(const std::string& index_dir,
                                        std::string_view name,
                                        std::string_view bytes);

// Deletes `source` when it is a file in RetainedCopiesDir(index_dir);
// does nothing for any other source. OK when it is already gone.
absl::Status DropRetainedCopy(const std::string& index_dir,
                              const std::string& source);

// The source of document `id` in `index`, or "" when it has none (to drop
// its retained copy once the document is removed or replaced).
std::string DocumentSource(const ProtectedIndex& index, std::string_view id);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_CONSOLE_RETAINED_COPY_H_
