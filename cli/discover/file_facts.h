// FileFacts: what discovery records of a file at rest (docs/discover.md):
// its identity (device, inode, size, times), its owner and group by name,
// its permission bits and its exposure: who besides its owner can read it,
// by its mode and its POSIX ACL (as getfacl(1) lists the entries).
//
// Thread-safety: free functions without shared state (getpwuid_r,
// getgrgid_r); safe to call concurrently.
#ifndef LEAKHOUND_CLI_DISCOVER_FILE_FACTS_H_
#define LEAKHOUND_CLI_DISCOVER_FILE_FACTS_H_

#include <sys/stat.h>

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"

namespace leakhound {

struct FileFacts {
  uint64_t device = 0;
  uint64_t inode = 0;
  uint64_t size = 0;
  int64_t mtime_ns = 0;
  int64_t ctime_ns = 0;
  uint32_t uid = 0;
  uint32_t gid = 0;
  uint32_t mode = 0;  // permission bits (07777)
  // Filled by NameOwner only: the user's name, or the uid as digits; the
  // group's name, or the gid as digits (the user and group databases
  // cost a lookup each, paid for findings alone).
  std::string owner;
  std::string group;
};

// The facts of the regular file `st` describes (owner and group unnamed).
FileFacts FactsOf(const struct stat& st);

// Fills f->owner and f->group from f->uid and f->gid.
void NameOwner(FileFacts* f);

// lstat(2) of `path`: NotFound, PermissionDenied, or FailedPrecondition
// for anything that is not a regular file.
absl::StatusOr<FileFacts> StatFile(const std::string& path);

// Who besides the owner can read the file at `path` with `facts` (named:
// NameOwner), as one
// line: "world-readable", "group-readable (GROUP)", and each ACL entry
// naming another user or group that grants read under the mask
// ("acl user:bob:r--", "acl group:audit:r--"), joined by ", "; "owner
// only" when nobody else can. An ACL that cannot be read is named
// ("acl unreadable: REASON"), never taken as none.
std::string ExposureOf(const std::string& path, const FileFacts& facts);

// "0640".
std::string ModeText(uint32_t mode);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_DISCOVER_FILE_FACTS_H_
