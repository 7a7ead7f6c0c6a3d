// The one file that calls libacl (acl_get_file) and the user and group
// databases.
#include "cli/discover/file_facts.h"

#include <acl/libacl.h>
#include <grp.h>
#include <pwd.h>
#include <sys/acl.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace leakhound {
namespace {

std::string UserName(uid_t uid) {
  struct passwd pw {};
  struct passwd* found = nullptr;
  std::vector<char> buffer(16384);
  if (getpwuid_r(uid, &pw, buffer.data(), buffer.size(), &found) == 0 &&
      found != nullptr) {
    return found->pw_name;
  }
  return absl::StrCat(uid);
}

std::string GroupName(gid_t gid) {
  struct group gr {};
  struct group* found = nullptr;
  std::vector<char> buffer(16384);
  if (getgrgid_r(gid, &gr, buffer.data(), buffer.size(), &found) == 0 &&
      found != nullptr) {
    return found->gr_name;
  }
  return absl::StrCat(gid);
}

int64_t Nanos(const struct timespec& t) {
  return static_cast<int64_t>(t.tv_sec) * 1'000'000'000 + t.tv_nsec;
}

// getfacl's "r-x" of an entry's permission set.
std::string PermText(acl_permset_t perms) {
  return absl::StrCat(acl_get_perm(perms, ACL_READ) == 1 ? "r" : "-",
                      acl_get_perm(perms, ACL_WRITE) == 1 ? "w" : "-",
                      acl_get_perm(perms, ACL_EXECUTE) == 1 ? "x" : "-");
}

// The named user and group entries of `acl` that grant read under its
// mask, as getfacl lists them.
std::vector<std::string> ReadingEntries(acl_t acl) {
  std::vector<std::string> named;
  bool mask_reads = true;
  acl_entry_t entry;
  for (int id = ACL_FIRST_ENTRY; acl_get_entry(acl, id, &entry) == 1;
       id = ACL_NEXT_ENTRY) {
    acl_tag_t tag;
    acl_permset_t perms;
    if (acl_get_tag_type(entry, &tag) != 0 ||
        acl_get_permset(entry, &perms) != 0) {
      continue;
    }
    if (tag == ACL_MASK) mask_reads = acl_get_perm(perms, ACL_READ) == 1;
    if ((tag != ACL_USER && tag != ACL_GROUP) ||
        acl_get_perm(perms, ACL_READ) != 1) {
      continue;
    }
    void* qualifier = acl_get_qualifier(entry);
    if (qualifier == nullptr) continue;
    const std::string who =
        tag == ACL_USER
            ? absl::StrCat("user:", UserName(*static_cast<uid_t*>(qualifier)))
            : absl::StrCat("group:",
                           GroupName(*static_cast<gid_t*>(qualifier)));
    acl_free(qualifier);
    named.push_back(absl::StrCat("acl ", who, ":", PermText(perms)));
  }
  if (!mask_reads) named.clear();  // the mask takes read from them all
  return named;
}

}  // namespace

FileFacts FactsOf(const struct stat& st) {
  FileFacts f;
  f.device = st.st_dev;
  f.inode = st.st_ino;
  f.size = static_cast<uint64_t>(st.st_size);
  f.mtime_ns = Nanos(st.st_mtim);
  f.ctime_ns = Nanos(st.st_ctim);
  f.uid = st.st_uid;
  f.gid = st.st_gid;
  f.mode = st.st_mode & 07777;
  return f;
}

void NameOwner(FileFacts* f) {
  f->owner = UserName(f->uid);
  f->group = GroupName(f->gid);
}

absl::StatusOr<FileFacts> StatFile(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) {
    const int e = errno;
    const std::string why = std::strerror(e);
    if (e == ENOENT || e == ENOTDIR) return absl::NotFoundError(why);
    if (e == EACCES) return absl::PermissionDeniedError(why);
    return absl::UnavailableError(why);
  }
  if (!S_ISREG(st.st_mode)) {
    return absl::FailedPreconditionError("not a regular file");
  }
  return FactsOf(st);
}

std::string ExposureOf(const std::string& path, const FileFacts& facts) {
  std::vector<std::string> out;
  if ((facts.mode & S_IROTH) != 0) out.push_back("world-readable");
  acl_t acl = acl_get_file(path.c_str(), ACL_TYPE_ACCESS);
  if (acl == nullptr) {
    const int e = errno;
    if ((facts.mode & S_IRGRP) != 0) {
      out.push_back(absl::StrCat("group-readable (", facts.group, ")"));
    }
    // A file system without ACLs has the mode alone.
    if (e != ENOTSUP) {
      out.push_back(absl::StrCat("acl unreadable: ", std::strerror(e)));
    }
  } else {
    // With an extended ACL the mode's group bits are the mask: the owning
    // group's own entry says whether it reads.
    const bool extended = acl_equiv_mode(acl, nullptr) == 1;
    if (!extended && (facts.mode & S_IRGRP) != 0) {
      out.push_back(absl::StrCat("group-readable (", facts.group, ")"));
    }
    if (extended) {
      acl_entry_t entry;
      for (int id = ACL_FIRST_ENTRY; acl_get_entry(acl, id, &entry) == 1;
           id = ACL_NEXT_ENTRY) {
        acl_tag_t tag;
        acl_permset_t perms;
        if (acl_get_tag_type(entry, &tag) == 0 && tag == ACL_GROUP_OBJ &&
            acl_get_permset(entry, &perms) == 0 &&
            acl_get_perm(perms, ACL_READ) == 1 && (facts.mode & S_IRGRP) != 0) {
          out.push_back(absl::StrCat("group-readable (", facts.group, ")"));
        }
      }
      for (std::string& e : ReadingEntries(acl)) out.push_back(std::move(e));
    }
    acl_free(acl);
  }
  return out.empty() ? "owner only" : absl::StrJoin(out, ", ");
}

std::string ModeText(uint32_t mode) {
  return absl::StrFormat("%04o", mode & 07777);
}

}  // namespace leakhound
