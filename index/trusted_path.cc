#include "index/trusted_path.h"

#include <grp.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace leakhound {
namespace {

constexpr char kServiceUser[] = "leakhound";

// The packaged service's user and group ("leakhound", cli/dist/postinst),
// or -1 where there is none: an admin's root shell reads what the service
// wrote.
uid_t ServiceUid() {
  static const uid_t uid = [] {
    const struct passwd* pw = ::getpwnam(kServiceUser);
    return pw != nullptr ? pw->pw_uid : static_cast<uid_t>(-1);
  }();
  return uid;
}

gid_t ServiceGid() {
  static const gid_t gid = [] {
    const struct group* gr = ::getgrnam(kServiceUser);
    return gr != nullptr ? gr->gr_gid : static_cast<gid_t>(-1);
  }();
  return gid;
}

bool TrustedUid(uid_t uid) {
  return uid == 0 || uid == ::geteuid() || uid == ServiceUid();
}

bool TrustedGid(gid_t gid) {
  return gid == 0 || gid == ::getegid() || gid == ServiceGid();
}

// The trust rules for one inode; `holder` allows a sticky world-writable
// folder (it holds, and only its owners can move what it holds).
absl::Status CheckInode(const std::string& path, std::string_view what,
                        bool holder) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    return absl::ErrnoToStatus(
        errno, absl::StrCat(std::string(what), " ", path));
  }
  const uid_t me = ::geteuid();
  if (!TrustedUid(st.st_uid)) {
    return absl::FailedPreconditionError(absl::StrCat(
        std::string(what), " ", path, " belongs to uid ", st.st_uid,
        ", not root or this service (uid ", me, "); refused: chown it"));
  }
  const bool others = (st.st_mode & S_IWOTH) != 0 &&
                      !(holder && (st.st_mode & S_ISVTX) != 0);
  const bool group = (st.st_mode & S_IWGRP) != 0 && !TrustedGid(st.st_gid) &&
                     !(holder && (st.st_mode & S_ISVTX) != 0);
  if (others || group) {
    return absl::FailedPreconditionError(absl::StrCat(
        std::string(what), " ", path, " can be written by other users (mode ",
        absl::StrFormat("%04o", st.st_mode & 07777), "); refused: chmod go-w ",
        path));
  }
  return absl::OkStatus();
}

std::string FolderOf(const std::string& path) {
  std::string parent = std::filesystem::path(path).parent_path().string();
  return parent.empty() ? "." : parent;
}

}  // namespace

absl::Status CheckTrustedFile(const std::string& path, std::string_view what) {
  struct stat st {};
  const bool exists = ::stat(path.c_str(), &st) == 0;
  absl::Status s =
      exists ? CheckInode(path, what, /*holder=*/false) : absl::OkStatus();
  if (!s.ok()) return s;
  return CheckInode(FolderOf(path), absl::StrCat("the folder holding ", std::string(what)),
                    /*holder=*/true);
}

absl::Status CheckTrustedFolder(const std::string& dir, std::string_view what) {
  // The folder itself is no holder: a sticky /tmp as an index is refused.
  absl::Status s = CheckInode(dir, what, /*holder=*/false);
  if (!s.ok()) return s;
  std::string trimmed = dir;
  while (trimmed.size() > 1 && trimmed.back() == '/') trimmed.pop_back();
  return CheckInode(FolderOf(trimmed),
                    absl::StrCat("the folder holding ", std::string(what)), /*holder=*/true);
}

std::string PathBesideIndex(std::string index_dir, std::string_view suffix) {
  while (index_dir.size() > 1 && index_dir.back() == '/') index_dir.pop_back();
  index_dir.append(suffix);
  return index_dir;
}

}  // namespace leakhound
